"""torch's top-level names that scripts touch and that only name something
monoflow already does: the math constants, the memory-format and layout
objects, the conj/neg-bit queries (monoflow's ``conj`` copies, so both bits are
always off), the global switches (deterministic algorithms, warn-always,
anomaly mode, flush-denormal), ``asarray``/``frombuffer``/``range``, and the
raw ``torch.<nn op>`` spellings with their positional orders
(``torch.embedding(weight, indices)``, ``torch.batch_norm(input, weight, bias, ...)``).

All of them are exported from ``monoflow``, last in its ``__init__`` (this
module defines ``range`` and ``e``)."""
import builtins
import math
import types

import numpy as np

from monoflow import _C, _dtypes
from monoflow._op_names import names_its_errors as _names_its_errors
from monoflow._memory_format import (NamedTag, channels_last, channels_last_3d, contiguous_format, memory_format,
                                     preserve_format)

__all__ = ["pi", "e", "inf", "nan", "newaxis", "memory_format", "contiguous_format", "preserve_format",
           "channels_last", "channels_last_3d", "layout", "strided",
           "is_signed", "is_same_size", "is_conj", "resolve_conj", "is_neg", "resolve_neg", "neg_", "typename",
           "set_anomaly_enabled", "is_anomaly_enabled", "use_deterministic_algorithms",
           "are_deterministic_algorithms_enabled", "is_deterministic_algorithms_warn_only_enabled",
           "set_warn_always", "is_warn_always_enabled", "set_flush_denormal", "asarray", "frombuffer", "range",
           "embedding", "batch_norm", "instance_norm", "kl_div", "binary_cross_entropy_with_logits",
           "constant_pad_nd", "dropout_", "feature_dropout", "rms_norm"]

pi = math.pi
e = math.e
inf = math.inf
nan = math.nan
newaxis = None


def _F():
    from monoflow.nn import functional  # the functional layer sits above the Tensor class
    return functional


class layout(NamedTag):  # noqa: N801 (torch's name)
    """A tensor layout tag (torch.layout): ``strided``, and ``sparse_coo`` (stored densely, see ops_sparse).

    Args:
        name (str): the tag's name.

    Example::

        >>> import monoflow as flow
        >>> flow.strided
        monoflow.strided
    """


strided = layout("strided")


def is_signed(input):
    """Whether `input`'s dtype is a signed type (torch.is_signed): True for floats and signed ints.

    Args:
        input (Tensor): the tensor.

    Example::

        >>> import monoflow as flow
        >>> flow.is_signed(flow.tensor([1], dtype=flow.uint8)), flow.is_signed(flow.ones(1))
        (False, True)
    """
    return _C.check_tensor(input, "is_signed", "input").dtype.is_signed


def is_same_size(input, other):
    """Whether two tensors have the same shape (torch.is_same_size).

    Args:
        input (Tensor): the first tensor.
        other (Tensor): the second tensor.

    Example::

        >>> import monoflow as flow
        >>> flow.is_same_size(flow.ones(2, 3), flow.zeros(2, 3))
        True
    """
    a = _C.check_tensor(input, "is_same_size", "input")
    b = _C.check_tensor(other, "is_same_size", "other")
    return tuple(a.shape) == tuple(b.shape)


def is_conj(input):
    """Whether `input` carries a lazy conjugate bit (torch.is_conj); always False: monoflow's conj copies.

    Args:
        input (Tensor): the tensor.

    Example::

        >>> import monoflow as flow
        >>> flow.is_conj(flow.ones(2))
        False
    """
    _C.check_tensor(input, "is_conj", "input")
    return False


def resolve_conj(input):
    """Materialises a lazy conjugate (torch.resolve_conj); monoflow has none, so `input` itself comes back.

    Args:
        input (Tensor): the tensor.

    Example::

        >>> import monoflow as flow
        >>> flow.resolve_conj(flow.ones(2))
        tensor([1., 1.])
    """
    return _C.check_tensor(input, "resolve_conj", "input")


def is_neg(input):
    """Whether `input` carries a lazy negation bit (torch.is_neg); always False in monoflow.

    Args:
        input (Tensor): the tensor.

    Example::

        >>> import monoflow as flow
        >>> flow.is_neg(flow.ones(2))
        False
    """
    _C.check_tensor(input, "is_neg", "input")
    return False


def resolve_neg(input):
    """Materialises a lazy negation (torch.resolve_neg); monoflow has none, so `input` itself comes back.

    Args:
        input (Tensor): the tensor.

    Example::

        >>> import monoflow as flow
        >>> flow.resolve_neg(flow.ones(2))
        tensor([1., 1.])
    """
    return _C.check_tensor(input, "resolve_neg", "input")


def neg_(input):
    """Negates `input` in place and returns it (``torch.neg_``).

    Args:
        input (Tensor): the tensor to negate (not bool).

    Example::

        >>> import monoflow as flow
        >>> x = flow.tensor([1.0, -2.0])
        >>> flow.neg_(x)
        tensor([-1.,  2.])
    """
    x = _C.check_tensor(input, "neg_", "input")
    if x.dtype == _dtypes.bool_:
        raise RuntimeError("neg_(): negation, the `-` operator, on a bool tensor is not supported")
    return x.mul_(-1)


def typename(obj):
    """The type name of `obj` (torch.typename): ``x.type()`` for a tensor, else the qualified class name.

    Args:
        obj (object): a tensor, a class or any object.

    Example::

        >>> import monoflow as flow
        >>> flow.typename(flow.ones(1)), flow.typename(1)
        ('monoflow.FloatTensor', 'int')
    """
    if isinstance(obj, _C.TensorBase):
        return obj.type()
    klass = obj if isinstance(obj, type) else type(obj)
    module = klass.__module__
    if module in ("builtins", "__builtin__", None):
        return klass.__qualname__
    return f"{module}.{klass.__qualname__}"


def set_anomaly_enabled(enabled, check_nan=True):
    """Turns autograd anomaly detection on or off for good (torch.set_anomaly_enabled).

    The same switch as :class:`monoflow.autograd.set_detect_anomaly`, without restoring it.

    Args:
        enabled (bool): the new mode.
        check_nan (bool): whether anomaly mode checks for nan (default True).

    Example::

        >>> import monoflow as flow
        >>> flow.set_anomaly_enabled(True); flow.is_anomaly_enabled()
        True
        >>> flow.set_anomaly_enabled(False)
    """
    from monoflow.autograd import anomaly_mode
    anomaly_mode._state.update(enabled=bool(enabled), check_nan=bool(check_nan))


def is_anomaly_enabled():
    """Whether autograd anomaly detection is on (torch.is_anomaly_enabled).

    Example::

        >>> import monoflow as flow
        >>> flow.is_anomaly_enabled()
        False
    """
    from monoflow.autograd import anomaly_mode
    return anomaly_mode.is_anomaly_enabled()


_switches = {"deterministic": False, "deterministic_warn_only": False, "warn_always": False}


def use_deterministic_algorithms(mode, *, warn_only=False):
    """Records torch's "deterministic algorithms" switch (torch.use_deterministic_algorithms).

    monoflow's CPU kernels are deterministic already (same input, same bits),
    so the switch changes nothing; it is kept so that scripts can set and read it.

    Args:
        mode (bool): the setting.
        warn_only (bool): torch's warn-instead-of-raise flag, kept and read back.

    Example::

        >>> import monoflow as flow
        >>> flow.use_deterministic_algorithms(True)
        >>> flow.are_deterministic_algorithms_enabled()
        True
        >>> flow.use_deterministic_algorithms(False)
    """
    if not isinstance(mode, bool):
        raise TypeError(f"use_deterministic_algorithms(): argument 'mode' must be bool, not {type(mode).__name__}")
    if not isinstance(warn_only, bool):
        raise TypeError("use_deterministic_algorithms(): argument 'warn_only' must be bool, "
                        f"not {type(warn_only).__name__}")
    _switches.update(deterministic=mode, deterministic_warn_only=warn_only)


def are_deterministic_algorithms_enabled():
    """The setting of :func:`use_deterministic_algorithms` (False by default).

    Example::

        >>> import monoflow as flow
        >>> flow.are_deterministic_algorithms_enabled()
        False
    """
    return _switches["deterministic"]


def is_deterministic_algorithms_warn_only_enabled():
    """The ``warn_only`` setting of :func:`use_deterministic_algorithms` (False by default).

    Example::

        >>> import monoflow as flow
        >>> flow.is_deterministic_algorithms_warn_only_enabled()
        False
    """
    return _switches["deterministic_warn_only"]


def set_warn_always(b):
    """Records torch's warn-always switch (torch.set_warn_always): warnings that fire once may fire every time.

    Args:
        b (bool): the setting.

    Example::

        >>> import monoflow as flow
        >>> flow.set_warn_always(True); flow.is_warn_always_enabled()
        True
        >>> flow.set_warn_always(False)
    """
    _switches["warn_always"] = bool(b)


def is_warn_always_enabled():
    """The setting of :func:`set_warn_always` (False by default).

    Example::

        >>> import monoflow as flow
        >>> flow.is_warn_always_enabled()
        False
    """
    return _switches["warn_always"]


def set_flush_denormal(mode):
    """Asks for denormal floats to be flushed to zero (torch.set_flush_denormal); returns False: monoflow does not support it.

    Args:
        mode (bool): the requested setting (ignored).

    Example::

        >>> import monoflow as flow
        >>> flow.set_flush_denormal(True)
        False
    """
    return False


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False):
    """Converts `obj` to a tensor, sharing its memory when it can (torch.asarray).

    A tensor comes back as itself, and a numpy array shares its buffer, unless
    the dtype or device must change or ``copy=True``; ``copy=False`` raises when a copy is needed.

    Args:
        obj (Tensor, numpy.ndarray, sequence or scalar): the data.
        dtype (monoflow.dtype, optional): the result's dtype (default: the data's).
        device (device or str, optional): the result's device (default: the data's, cpu for others).
        copy (bool, optional): True always copies, False never does, None copies only if needed.
        requires_grad (bool): whether the result records operations for autograd.

    Example::

        >>> import monoflow as flow, numpy as np
        >>> a = np.zeros(2, dtype=np.float32)
        >>> t = flow.asarray(a); a[0] = 5
        >>> t
        tensor([5., 0.])
    """
    from monoflow import _creation  # local: _creation imports _tensor, which imports this module
    if isinstance(obj, _C.TensorBase):
        out = obj
        if (dtype is not None and dtype != obj.dtype) or (device is not None and _C.device(device) != obj.device):
            if copy is False:
                raise ValueError("asarray(): can't satisfy copy=False: the dtype or device must change")
            out = obj.to(device=device or obj.device, dtype=dtype or obj.dtype)
        elif copy:
            out = obj.clone()
    elif isinstance(obj, np.ndarray) and obj.dtype.kind in "biuf" and copy is not True:
        out = _creation.from_numpy(obj) if obj.flags.c_contiguous or obj.size == 0 else None
        if out is None or (dtype is not None and dtype != out.dtype) or device is not None and \
                _C.device(device) != out.device:
            if copy is False:
                raise ValueError("asarray(): can't satisfy copy=False: the array needs a copy")
            out = _creation.tensor(obj, dtype=dtype, device=device)
    else:
        if copy is False and not isinstance(obj, np.ndarray):
            raise ValueError(f"asarray(): can't satisfy copy=False for a {type(obj).__name__}")
        out = _creation.tensor(obj, dtype=dtype, device=device)
    if requires_grad:
        out.requires_grad_(True)
    return out


def frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False):
    """A 1-D tensor over an object that exposes the buffer protocol, sharing its memory (torch.frombuffer).

    Args:
        buffer (object): a bytes-like object (bytearray, array.array, memoryview...).
        dtype (monoflow.dtype): how to read the bytes.
        count (int): how many elements to read (-1: up to the end).
        offset (int): bytes to skip at the start.
        requires_grad (bool): whether the result records operations for autograd.

    Example::

        >>> import array, monoflow as flow
        >>> flow.frombuffer(array.array("i", [1, 2, 3]), dtype=flow.int32)
        tensor([1, 2, 3], dtype=monoflow.int32)
    """
    from monoflow import _creation  # local: _creation imports _tensor, which imports this module
    if not isinstance(dtype, _C.dtype):
        raise TypeError(f"frombuffer(): argument 'dtype' must be monoflow.dtype, not {type(dtype).__name__}")
    np_dtype = np.dtype(_creation.empty(0, dtype=dtype).numpy().dtype)
    try:
        nbytes = memoryview(buffer).nbytes
    except TypeError:
        raise TypeError(f"frombuffer(): argument 'buffer' must support the buffer protocol, "
                        f"not {type(buffer).__name__}") from None
    if offset < 0 or offset >= nbytes and nbytes > 0:
        raise ValueError(f"frombuffer(): offset ({offset} bytes) must be non-negative and no greater than "
                         f"buffer length ({nbytes} bytes) minus 1")
    if count == 0 or count < -1:
        raise ValueError(f"frombuffer(): count must be positive or -1, got {count}")
    available = (nbytes - offset) // np_dtype.itemsize
    if count == -1:
        if (nbytes - offset) % np_dtype.itemsize:
            raise ValueError(f"frombuffer(): buffer length ({nbytes - offset} bytes) after offset must be a "
                             f"multiple of element size ({np_dtype.itemsize})")
        count = available
    elif count > available:
        raise ValueError(f"frombuffer(): requested buffer length ({count} * {np_dtype.itemsize} bytes) after "
                         f"offset ({offset} bytes) must not be greater than actual buffer length ({nbytes} bytes)")
    array = np.frombuffer(buffer, dtype=np_dtype, count=count, offset=offset)
    if not array.flags.writeable:
        array = array.copy()  # monoflow tensors are writable: a read-only buffer is copied
    out = _creation.from_numpy(array)
    if requires_grad:
        out.requires_grad_(True)
    return out


def range(start, end, step=1, *, dtype=None, device=None, requires_grad=False):  # noqa: A001
    """Values from `start` to `end` INCLUSIVE in steps of `step` (the deprecated torch.range); float by default.

    Prefer :func:`arange`, whose end is exclusive.

    Args:
        start (Number): the first value.
        end (Number): the last value, included when the steps reach it.
        step (Number): the gap between values (not 0).
        dtype (monoflow.dtype, optional): default: the default float dtype.
        device (device or str, optional): where the result lives.
        requires_grad (bool): whether the result records operations for autograd.

    Example::

        >>> import monoflow as flow
        >>> flow.range(1, 4)
        tensor([1., 2., 3., 4.])
    """
    import warnings
    from monoflow import _creation  # local: _creation imports _tensor, which imports this module
    for name, v in (("start", start), ("end", end), ("step", step)):
        if isinstance(v, _C.TensorBase):
            v = v.item()
        if not isinstance(v, (builtins.int, builtins.float)) or isinstance(v, builtins.bool):
            raise TypeError(f"range(): argument '{name}' must be Number, not {type(v).__name__}")
    start, end, step = (v.item() if isinstance(v, _C.TensorBase) else v for v in (start, end, step))
    if step == 0:
        raise RuntimeError("range(): step must be nonzero")
    if (end - start) * step < 0:
        raise RuntimeError("range(): upper bound and larger bound inconsistent with step sign")
    warnings.warn("monoflow.range is deprecated and will be removed in a future release because its behavior "
                  "is inconsistent with Python's range builtin. Instead, use monoflow.arange, which produces "
                  "values in [start, end).", UserWarning, stacklevel=2)
    dtype = dtype or _C.get_default_dtype()
    n = builtins.int(math.floor((end - start) / step)) + 1
    values = np.arange(n, dtype=np.float64) * step + start
    out = _creation.tensor(values, dtype=dtype, device=device)
    if requires_grad:
        out.requires_grad_(True)
    return out


_REDUCTIONS = {0: "none", 1: "mean", 2: "sum"}


def _reduction(op, reduction):
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{op}(): argument 'reduction' must be 0 (none), 1 (mean) or 2 (sum), not {reduction!r}")
    return _REDUCTIONS[reduction]


def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    """Looks up rows of `weight` (torch.embedding): note the order, weight first (``F.embedding`` takes indices first).

    Args:
        weight (Tensor): the table, shape ``(num_embeddings, dim)``.
        indices (Tensor): int64/int32 row indices.
        padding_idx (int): a row whose gradient stays zero; negative: none.
        scale_grad_by_freq (bool): scale gradients by the inverse frequency of each index.
        sparse (bool): torch's sparse-gradient flag.

    Example::

        >>> import monoflow as flow
        >>> flow.embedding(flow.tensor([[0.0, 1.0], [2.0, 3.0]]), flow.tensor([1, 0]))
        tensor([[2., 3.],
                [0., 1.]])
    """
    pad = padding_idx if padding_idx is not None and padding_idx >= 0 else None
    return _F().embedding(indices, weight, padding_idx=pad, scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)


def batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, cudnn_enabled=True):
    """Batch normalization in torch's raw positional order (torch.batch_norm); see ``F.batch_norm``.

    Args:
        input (Tensor): ``(N, C, ...)``.
        weight (Tensor or None): per-channel scale.
        bias (Tensor or None): per-channel shift.
        running_mean (Tensor or None): running mean, updated when `training`.
        running_var (Tensor or None): running variance, updated when `training`.
        training (bool): use batch statistics (and update the running ones).
        momentum (float): the running-statistics update factor.
        eps (float): added to the variance.
        cudnn_enabled (bool): ignored (a CUDA switch).

    Example::

        >>> import monoflow as flow
        >>> flow.batch_norm(flow.tensor([[1.0], [3.0]]), None, None, None, None, True, 0.1, 1e-5)
        tensor([[-1.0000],
                [ 1.0000]])
    """
    return _F().batch_norm(input, running_mean, running_var, weight=weight, bias=bias, training=training,
                           momentum=momentum, eps=eps)


def instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps,
                  cudnn_enabled=True):
    """Instance normalization in torch's raw positional order (torch.instance_norm); see ``F.instance_norm``.

    Args:
        input (Tensor): ``(N, C, ...)``.
        weight (Tensor or None): per-channel scale.
        bias (Tensor or None): per-channel shift.
        running_mean (Tensor or None): running mean.
        running_var (Tensor or None): running variance.
        use_input_stats (bool): normalise with each instance's own statistics.
        momentum (float): the running-statistics update factor.
        eps (float): added to the variance.
        cudnn_enabled (bool): ignored (a CUDA switch).

    Example::

        >>> import monoflow as flow
        >>> flow.instance_norm(flow.tensor([[[1.0, 3.0]]]), None, None, None, None, True, 0.1, 1e-5)
        tensor([[[-1.0000,  1.0000]]])
    """
    return _F().instance_norm(input, running_mean, running_var, weight=weight, bias=bias,
                              use_input_stats=use_input_stats, momentum=momentum, eps=eps)


def kl_div(input, target, reduction=1, *, log_target=False):
    """KL divergence with an integer `reduction` (torch.kl_div); see ``F.kl_div``.

    Args:
        input (Tensor): log-probabilities.
        target (Tensor): probabilities (log-probabilities when `log_target`).
        reduction (int): 0 none, 1 mean (default), 2 sum.
        log_target (bool): whether `target` is given in log space.

    Example::

        >>> import monoflow as flow
        >>> flow.kl_div(flow.tensor([0.0, 0.0]), flow.tensor([1.0, 1.0]), 2)
        tensor(0.)
    """
    import warnings
    with warnings.catch_warnings():  # torch's raw op has no 'mean' vs 'batchmean' warning: F.kl_div's is hidden
        warnings.filterwarnings("ignore", message="reduction: 'mean'", category=UserWarning)
        return _F().kl_div(input, target, reduction=_reduction("kl_div", reduction), log_target=log_target)


def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction=1):
    """Sigmoid + binary cross entropy with an integer `reduction` (torch.binary_cross_entropy_with_logits).

    Args:
        input (Tensor): logits.
        target (Tensor): targets in [0, 1], same shape.
        weight (Tensor, optional): per-element rescaling.
        pos_weight (Tensor, optional): weight of the positive examples, per class.
        reduction (int): 0 none, 1 mean (default), 2 sum.

    Example::

        >>> import monoflow as flow
        >>> flow.binary_cross_entropy_with_logits(flow.tensor([0.0]), flow.tensor([1.0]))
        tensor(0.6931)
    """
    return _F().binary_cross_entropy_with_logits(input, target, weight=weight, pos_weight=pos_weight,
                                                 reduction=_reduction("binary_cross_entropy_with_logits",
                                                                      reduction))


def constant_pad_nd(input, pad, value=0):
    """Pads with a constant (torch.constant_pad_nd); `pad` lists (left, right) pairs from the last dim backwards.

    Args:
        input (Tensor): the tensor to pad.
        pad (sequence of int): an even number of sizes; negative sizes crop.
        value (Number): the fill value (default 0).

    Example::

        >>> import monoflow as flow
        >>> flow.constant_pad_nd(flow.ones(2), (1, 2), 0.0)
        tensor([0., 1., 1., 0., 0.])
    """
    _C.check_tensor(input, "constant_pad_nd", "input", 1)
    return _F().pad(input, pad, mode="constant", value=value)


def dropout_(input, p, train):
    """In-place dropout (``torch.dropout_``): zeroes elements with probability `p`, scales the rest by 1/(1-p).

    Args:
        input (Tensor): the tensor, overwritten.
        p (float): the drop probability.
        train (bool): whether to drop at all (False returns `input` untouched).

    Example::

        >>> import monoflow as flow
        >>> x = flow.ones(3)
        >>> flow.dropout_(x, 0.5, False)
        tensor([1., 1., 1.])
    """
    return _F().dropout(input, p, train, inplace=True)


def feature_dropout(input, p, train):
    """Drops whole channels (dim 1) with probability `p` and scales the rest (torch.feature_dropout).

    Args:
        input (Tensor): ``(N, C, ...)``, at least 2-D.
        p (float): the drop probability.
        train (bool): whether to drop at all.

    Example::

        >>> import monoflow as flow
        >>> flow.feature_dropout(flow.ones(1, 2, 2), 0.0, True)
        tensor([[[1., 1.],
                 [1., 1.]]])
    """
    x = _C.check_tensor(input, "feature_dropout", "input")
    if x.dim() < 2:
        raise RuntimeError(f"feature_dropout(): input must be at least 2-D, got {x.dim()}-D")
    if not train or p == 0:
        return x
    from monoflow import _creation  # local: _creation imports _tensor, which imports this module
    mask = _F().dropout(_creation.ones(tuple(x.shape[:2]) + (1,) * (x.dim() - 2), dtype=x.dtype), p, True)
    return x * mask


def rms_norm(input, normalized_shape, weight=None, eps=None):
    """Root-mean-square normalization over the last dims (torch.rms_norm); see ``F.rms_norm``.

    Args:
        input (Tensor): the tensor to normalise.
        normalized_shape (int or sequence of int): the trailing shape to normalise over.
        weight (Tensor, optional): elementwise scale of that shape.
        eps (float, optional): added to the mean square (default: the dtype's eps).

    Example::

        >>> import monoflow as flow
        >>> flow.rms_norm(flow.tensor([3.0, 4.0]), [2])
        tensor([0.8485, 1.1314])
    """
    return _F().rms_norm(input, normalized_shape, weight=weight, eps=eps)


for _name in __all__:
    if isinstance(globals()[_name], types.FunctionType):
        globals()[_name] = _names_its_errors(globals()[_name])
del _name
