"""OneFlow's ``oneflow.nn.utils.parameters_grouping``: :class:`ContiguousParamsGroup` lays
parameters (and their gradients) out in a few flat buffers, one per dtype and device (per dtype,
placement and SBP for global tensors), each parameter becoming a view of its buffer, so that an
update or a collective can work on a whole buffer at once. ``Module.make_contiguous_params_group``
does this for a module's parameters."""
import collections

from monoflow import _C

__all__ = ["ContiguousParamsGroup"]

_ATTR = "_monoflow_contiguous_buffer"  # set on a parameter that is a view of a buffer: (param buffer, grad buffer)


def _key(p):
    if getattr(p, "is_global", False):
        return (p.dtype, "global", str(p.placement), tuple(str(s) for s in p.sbp))
    return (p.dtype, str(p.device))


def _make_buffers(params):
    from monoflow import _creation

    total = sum(p.numel() for p in params)
    p0 = params[0]
    if getattr(p0, "is_global", False):
        kw = dict(dtype=p0.dtype, placement=p0.placement, sbp=p0.sbp)
    else:
        kw = dict(dtype=p0.dtype, device=p0.device)
    buf = _creation.zeros(total, **kw)
    grad_buf = _creation.zeros(total, **kw)
    offset = 0
    with _no_grad():
        for p in params:
            n = p.numel()
            view = buf[offset:offset + n].view(tuple(p.shape))
            view.copy_(p.detach())
            p.data = view
            grad_view = grad_buf[offset:offset + n].view(tuple(p.shape))
            if p.grad is not None:
                grad_view.copy_(p.grad)
            p.grad = grad_view
            try:
                setattr(p, _ATTR, (buf, grad_buf))
            except AttributeError:  # (a tensor type without attributes: the buffers are not reused later)
                pass
            offset += n
    return buf, grad_buf


def _lives_in(p, buf):
    # whether p's storage lies inside buf (p still a view of it: .data was not replaced since)
    try:
        start, size = buf.data_ptr(), buf.numel() * buf.element_size()
        return bool(size) and start <= p.data_ptr() < start + size
    except (RuntimeError, ValueError):  # (a tensor without a local storage)
        return False


def _no_grad():
    from monoflow import autograd

    return autograd.no_grad()


class ContiguousParamsGroup:
    """Groups parameters into contiguous buffers (OneFlow's
    ``oneflow.nn.utils.parameters_grouping.ContiguousParamsGroup``).

    Each group of the input is split by dtype and device (for global tensors: dtype, placement and
    SBP); each part gets one flat buffer for the values and one for the gradients, and its
    parameters become views of them (``p.data`` and ``p.grad``), their values kept. With
    ``group_on_current_buffer`` a parameter already living in a buffer (from an earlier grouping,
    e.g. ``Module.make_contiguous_params_group``) keeps it, and those buffers are listed as they are.

    Args:
        params_group_list (list): the tensors, or a list of lists of tensors (each list grouped on
            its own).
        group_on_current_buffer (bool): reuse the buffers the parameters already live in.
            Default: ``True``.

    Attributes:
        grouped_parameters (list of Tensor): the value buffers (1-D).
        grouped_grads (list of Tensor): the gradient buffers, one per value buffer.

    Example::

        >>> import monoflow as flow
        >>> from monoflow.nn.utils.parameters_grouping import ContiguousParamsGroup
        >>> a = flow.nn.Parameter(flow.ones(2))
        >>> b = flow.nn.Parameter(flow.zeros(2, 2))
        >>> cpg = ContiguousParamsGroup([a, b])
        >>> cpg.grouped_parameters
        [tensor([1., 1., 0., 0., 0., 0.])]
        >>> _ = b.data.fill_(3.0)
        >>> cpg.grouped_parameters[0]
        tensor([1., 1., 3., 3., 3., 3.])
    """

    def __init__(self, params_group_list, group_on_current_buffer=True):
        params_group_list = list(params_group_list)
        if all(isinstance(p, _C.TensorBase) for p in params_group_list):
            groups = [params_group_list]
        else:
            groups = []
            for g in params_group_list:
                if isinstance(g, _C.TensorBase):
                    raise TypeError("ContiguousParamsGroup(): params_group_list must be a list of tensors or a list "
                                    "of lists of tensors, not a mix")
                groups.append(list(g))
        self._grouped_parameters = []
        self._grouped_grads = []
        for group in groups:
            for p in group:
                if not isinstance(p, _C.TensorBase):
                    raise TypeError(f"ContiguousParamsGroup(): expected tensors, got {type(p).__name__}")
            seen_buffers = set()
            fresh = collections.OrderedDict()
            for p in group:
                current = getattr(p, _ATTR, None) if group_on_current_buffer else None
                if current is not None and _lives_in(p, current[0]):
                    if id(current[0]) not in seen_buffers:
                        seen_buffers.add(id(current[0]))
                        self._grouped_parameters.append(current[0])
                        self._grouped_grads.append(current[1])
                    if p.grad is None or p.grad.data_ptr() != current[1].data_ptr() + \
                            (p.data_ptr() - current[0].data_ptr()):
                        # (the gradient was replaced, e.g. zero_grad(set_to_none=True)): back into the buffer
                        n = p.numel()
                        start = (p.data_ptr() - current[0].data_ptr()) // current[0].element_size()
                        grad_view = current[1][start:start + n].view(tuple(p.shape))
                        with _no_grad():
                            grad_view.copy_(p.grad) if p.grad is not None else grad_view.zero_()
                        p.grad = grad_view
                    continue
                fresh.setdefault(_key(p), []).append(p)
            for params in fresh.values():
                buf, grad_buf = _make_buffers(params)
                self._grouped_parameters.append(buf)
                self._grouped_grads.append(grad_buf)

    @property
    def grouped_parameters(self):
        """The value buffers, one 1-D tensor per group."""
        return list(self._grouped_parameters)

    @property
    def grouped_grads(self):
        """The gradient buffers, one per value buffer."""
        return list(self._grouped_grads)

    def __repr__(self):
        return f"ContiguousParamsGroup({len(self._grouped_parameters)} buffers)"
