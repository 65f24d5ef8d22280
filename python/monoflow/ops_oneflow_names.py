"""Top-level names of OneFlow's ``oneflow/__init__.py`` that monoflow had only
as Tensor methods or under another module: the functional in-place ops
(``flow.div_``, ``flow.masked_fill_`` ...), ``flow.contiguous``,
``flow.new_full``, the global casts as functions (``flow.to_global`` ...) and
the dtype helpers ``flow.dtypes`` / ``flow.convert_oneflow_dtype_to_numpy_dtype`` and
``flow.to_dlpack`` (torch's too).
Each one calls the Tensor method of the same meaning, so values, gradients and
errors are the method's."""
from monoflow import _C
from monoflow import _dtypes

__all__ = ["as_strided_", "contiguous", "convert_oneflow_dtype_to_numpy_dtype", "div_", "dtypes", "erfinv_",
           "global_to_global", "gt_", "index_add_", "local_to_global", "masked_fill_", "new_full", "to_dlpack",
           "to_global", "to_local"]


def _tensor(op, input):
    return _C.check_tensor(input, op, "input", 1)


def div_(input, other, *, rounding_mode=None):
    """In-place version of :func:`monoflow.div`: ``input.div_(other, rounding_mode=...)``, OneFlow's ``flow.div_``.

    Args:
        input (Tensor): divided in place.
        other (Tensor or Number): the divisor.
        rounding_mode (str, optional): ``None``, ``"trunc"`` or ``"floor"``.

    Example::

        >>> import monoflow as flow
        >>> x = flow.tensor([3., 5.])
        >>> flow.div_(x, 2)
        tensor([1.5000, 2.5000])
        >>> x
        tensor([1.5000, 2.5000])
    """
    return _tensor("div_", input).div_(other, rounding_mode=rounding_mode)


def erfinv_(input):
    """In-place version of :func:`monoflow.erfinv`: ``input.erfinv_()``, OneFlow's ``flow.erfinv_``.

    Args:
        input (Tensor): replaced by its inverse error function.

    Example::

        >>> import monoflow as flow
        >>> flow.erfinv_(flow.tensor([0., 0.5]))
        tensor([0.0000, 0.4769])
    """
    return _tensor("erfinv_", input).erfinv_()


def masked_fill_(input, mask, value):
    """In-place version of :func:`monoflow.masked_fill`: ``input.masked_fill_(mask, value)``, OneFlow's
    ``flow.masked_fill_``.

    Args:
        input (Tensor): filled in place.
        mask (Tensor): bool, broadcastable to `input`; True marks the elements set.
        value (Number or 0-dim Tensor): the value written.

    Example::

        >>> import monoflow as flow
        >>> flow.masked_fill_(flow.zeros(3), flow.tensor([True, False, True]), 7.)
        tensor([7., 0., 7.])
    """
    return _tensor("masked_fill_", input).masked_fill_(mask, value)


def index_add_(input, dim, index, source, *, alpha=1):
    """In-place version of :func:`monoflow.index_add`: ``input.index_add_(dim, index, source, alpha=alpha)``,
    OneFlow's ``flow.index_add_``.

    Args:
        input (Tensor): accumulated into in place.
        dim (int): the dim `index` selects along.
        index (Tensor): int64 or int32 positions along `dim`.
        source (Tensor): the slices added.
        alpha (Number): the factor of `source`. Default: 1.

    Example::

        >>> import monoflow as flow
        >>> flow.index_add_(flow.zeros(3), 0, flow.tensor([0, 2]), flow.tensor([1., 2.]))
        tensor([1., 0., 2.])
    """
    return _tensor("index_add_", input).index_add_(dim, index, source, alpha=alpha)


def gt_(input, other):
    """In-place version of :func:`monoflow.gt`: ``input.gt_(other)`` (1 where ``input > other``, else 0, in
    `input`'s dtype), OneFlow's ``flow.gt_``.

    Args:
        input (Tensor): compared and overwritten.
        other (Tensor or Number): compared against.

    Example::

        >>> import monoflow as flow
        >>> flow.gt_(flow.tensor([1., 3.]), 2)
        tensor([0., 1.])
    """
    return _tensor("gt_", input).gt_(other)


def as_strided_(input, size, stride, storage_offset=None):
    """In-place version of :func:`monoflow.as_strided`: ``input.as_strided_(size, stride, storage_offset)``
    makes `input` itself that view, OneFlow's ``flow.as_strided_``.

    Args:
        input (Tensor): restrided in place.
        size (sequence of int): the new shape.
        stride (sequence of int): the new strides.
        storage_offset (int, optional): the first element (default: `input`'s own offset).

    Example::

        >>> import monoflow as flow
        >>> flow.as_strided_(flow.arange(6.), (2, 2), (1, 2))
        tensor([[0., 2.],
                [1., 3.]])
    """
    return _tensor("as_strided_", input).as_strided_(size, stride, storage_offset)


def contiguous(input):
    """``input.contiguous()`` as a function (OneFlow's ``flow.contiguous``): `input` itself when its memory is
    already in row-major order, else a row-major copy.

    Args:
        input (Tensor): the tensor.

    Example::

        >>> import monoflow as flow
        >>> y = flow.contiguous(flow.arange(6).view(2, 3).t())
        >>> y.is_contiguous(), y.tolist()
        (True, [[0, 3], [1, 4], [2, 5]])
    """
    return _tensor("contiguous", input).contiguous()


def new_full(input, size, fill_value, dtype=None, device=None, requires_grad=False):
    """OneFlow's ``flow.new_full``: ``input.new_full(size, fill_value)``, a tensor of `size` filled with
    `fill_value`, with `input`'s dtype and device unless given.

    Args:
        input (Tensor): the tensor whose dtype and device are the defaults.
        size (int or sequence of int): the shape.
        fill_value (Number): the value of every element.
        dtype, device: override `input`'s.
        requires_grad (bool): whether autograd records operations on the result.

    Example::

        >>> import monoflow as flow
        >>> flow.new_full(flow.zeros(1, dtype=flow.int32), (2,), 5)
        tensor([5, 5], dtype=monoflow.int32)
    """
    return _tensor("new_full", input).new_full(size, fill_value, dtype=dtype, device=device,
                                                requires_grad=requires_grad)


def to_global(input, placement=None, sbp=None, **kwargs):
    """OneFlow's ``flow.to_global(input, placement, sbp)``: ``input.to_global(placement, sbp, ...)``, a local
    tensor made global or a global one moved to another placement/SBP.

    Args:
        input (Tensor): local or global.
        placement (monoflow.placement, optional): where the result lives (a global `input`: its own by default).
        sbp (monoflow.sbp.sbp or sequence of them, optional): its layout (a global `input`: its own by default).
        kwargs: the method's other options (``check_meta``, ``grad_sbp``, ``copy``).

    Example::

        >>> import monoflow as flow
        >>> y = flow.to_global(flow.ones(2), flow.placement("cpu", ranks=[0]), flow.sbp.broadcast)
        >>> y.is_global, y.sbp
        (True, (monoflow.sbp.broadcast,))
    """
    return _tensor("to_global", input).to_global(placement, sbp, **kwargs)


def to_local(input, **kwargs):
    """OneFlow's ``flow.to_local(input)``: ``input.to_local()``, this rank's part of a global tensor.

    Args:
        input (Tensor): a global tensor.
        kwargs: the method's options (``copy``).

    Example::

        >>> import monoflow as flow
        >>> g = flow.ones(2).to_global(flow.placement("cpu", ranks=[0]), flow.sbp.broadcast)
        >>> flow.to_local(g).is_global
        False
    """
    return _tensor("to_local", input).to_local(**kwargs)


def local_to_global(input, placement=None, sbp=None, **kwargs):
    """OneFlow's ``flow.local_to_global``: ``input.local_to_global(placement, sbp, ...)``; a global `input` is
    refused (use :func:`to_global`).

    Args:
        input (Tensor): a local tensor.
        placement (monoflow.placement): where the global tensor lives.
        sbp (monoflow.sbp.sbp or sequence of them): its layout.
        kwargs: the method's other options (``check_meta``, ``copy``).

    Example::

        >>> import monoflow as flow
        >>> flow.local_to_global(flow.ones(2), flow.placement("cpu", ranks=[0]), flow.sbp.split(0)).shape
        monoflow.Size([2])
    """
    return _tensor("local_to_global", input).local_to_global(placement, sbp, **kwargs)


def global_to_global(input, placement=None, sbp=None, **kwargs):
    """OneFlow's ``flow.global_to_global``: ``input.global_to_global(placement, sbp, ...)``; a local `input` is
    refused (use :func:`to_global`).

    Args:
        input (Tensor): a global tensor.
        placement (monoflow.placement, optional): the new placement (default: `input`'s).
        sbp (monoflow.sbp.sbp or sequence of them, optional): the new layout (default: `input`'s).
        kwargs: the method's other options (``grad_sbp``, ``check_meta``, ``copy``).

    Example::

        >>> import monoflow as flow
        >>> g = flow.ones(2).to_global(flow.placement("cpu", ranks=[0]), flow.sbp.broadcast)
        >>> flow.global_to_global(g, sbp=flow.sbp.split(0)).sbp
        (monoflow.sbp.split(dim=0),)
    """
    return _tensor("global_to_global", input).global_to_global(placement, sbp, **kwargs)


def dtypes():
    """OneFlow's ``flow.dtypes()``: the list of the dtypes monoflow has, each once.

    Example::

        >>> import monoflow as flow
        >>> flow.float32 in flow.dtypes(), flow.int64 in flow.dtypes()
        (True, True)
    """
    seen = []
    for dt in _dtypes.ALIASES.values():
        if dt not in seen:
            seen.append(dt)
    return seen


def convert_oneflow_dtype_to_numpy_dtype(oneflow_dtype):
    """OneFlow's ``flow.convert_oneflow_dtype_to_numpy_dtype``: the numpy scalar type of a dtype
    (``flow.float32`` -> ``numpy.float32``).

    Args:
        oneflow_dtype (monoflow.dtype): the dtype.

    Raises:
        NotImplementedError: for a dtype numpy has no type for (bfloat16), as OneFlow.

    Example::

        >>> import monoflow as flow
        >>> flow.convert_oneflow_dtype_to_numpy_dtype(flow.int32)
        <class 'numpy.int32'>
    """
    if not isinstance(oneflow_dtype, _C.dtype):
        raise TypeError(f"convert_oneflow_dtype_to_numpy_dtype(): argument 'oneflow_dtype' must be monoflow.dtype, "
                        f"not {type(oneflow_dtype).__name__}")
    try:
        return _dtypes.to_numpy(oneflow_dtype)
    except (KeyError, TypeError, ValueError):
        raise NotImplementedError(f"convert_oneflow_dtype_to_numpy_dtype(): numpy has no type for {oneflow_dtype}") \
            from None


def to_dlpack(tensor):
    """A DLPack capsule viewing `tensor`'s memory (``flow.to_dlpack``, as ``torch.to_dlpack`` and
    ``torch.utils.dlpack.to_dlpack``); the consumer shares the memory, it copies nothing.

    Args:
        tensor (Tensor): the tensor to export.

    Example::

        >>> import monoflow as flow
        >>> x = flow.arange(3.0)
        >>> y = flow.from_dlpack(flow.to_dlpack(x))
        >>> y[0] = 7.0
        >>> x
        tensor([7., 1., 2.])
    """
    return _C.to_dlpack(_tensor("to_dlpack", tensor))
