"""More of torch's names that training and research scripts call, each built from monoflow ops
(so autograd, dtypes and devices follow): ``renorm``, ``put``, ``frexp``, ``histogram``,
``gradient``, the ``unsafe_*`` splits, the ``*_copy`` forms of the view ops, the torch-level RNN
cells and ``convolution``, ``max_pool1d_with_indices``, ``empty_permuted``, the ``sym_*`` helpers and
``cond``/``while_loop`` run eagerly, device queries (``get_device``, ``is_inference``), and the
Tensor methods and properties of the same family (``addmm_``, ``resize_``, ``is_cpu`` ...).

Exported from ``monoflow`` (star import in its ``__init__``); :class:`TensorMethods` is mixed into
``monoflow.Tensor``."""
import builtins
import math
import types

import numpy as np

from monoflow import (_C, _complex, _dtypes, _memory_format, ops_extra_names, ops_linalg, ops_math, ops_random, ops_set,
                      ops_shape)
from monoflow.ops_reduce import _structseq
from monoflow._op_names import names_its_errors
from monoflow.ops_torch_names2 import feature_dropout
from monoflow.storage import TypedStorage, UntypedStorage

__all__ = ["renorm", "put", "frexp", "histogram", "gradient", "unsafe_chunk", "unsafe_split",
           "unsafe_split_with_sizes", "get_device", "is_inference", "frobenius_norm", "nuclear_norm",
           "feature_alpha_dropout", "alpha_dropout_", "feature_alpha_dropout_", "feature_dropout_",
           "lstm_cell", "gru_cell", "rnn_tanh_cell", "rnn_relu_cell", "convolution", "max_pool1d_with_indices",
           "empty_permuted", "sym_int", "sym_float", "sym_max", "sym_min", "sym_not", "sym_sqrt", "sym_ite",
           "sym_sum", "cond", "while_loop", "compiled_with_cxx11_abi", "is_vulkan_available", "init_num_threads",
           "get_device_module", "UntypedStorage", "TypedStorage"]


def _F():
    from monoflow.nn import functional  # the functional layer sits above the Tensor class
    return functional


def _legacy():
    from monoflow.linalg import _legacy  # local: linalg imports _tensor, which imports this module
    return _legacy


frexp_result = _structseq("frexp", ["mantissa", "exponent"])
histogram_result = _structseq("histogram", ["hist", "bin_edges"])


# ---------------------------------------------------------------- elementwise and reductions

def renorm(input, p, dim, maxnorm):
    """Rescales each slice of `input` along `dim` whose `p`-norm exceeds `maxnorm` to norm `maxnorm`
    (torch.renorm); other slices are unchanged.

    Args:
        input (Tensor): the tensor (at least 1-d, floating point).
        p (float): the norm's exponent (> 0).
        dim (int): the dimension whose indices pick the slices.
        maxnorm (float): the largest norm a slice keeps.

    Example::

        >>> import monoflow as flow
        >>> flow.renorm(flow.tensor([[3.0, 4.0], [0.3, 0.4]]), 2, 0, 1.0)
        tensor([[0.6000, 0.8000],
                [0.3000, 0.4000]])
    """
    _C.check_tensor(input, "renorm", "input")
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"renorm: expected a floating-point input, got {input.dtype}")
    if p <= 0:
        raise RuntimeError(f"renorm: non-positive norm not supported (p={p})")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: non-negative maxnorm expected, got {maxnorm}")
    if input.dim() == 0:
        raise IndexError("renorm: expected a tensor with at least 1 dimension")
    if not -input.dim() <= dim < input.dim():
        raise IndexError(f"renorm: Dimension out of range (expected to be in range of [{-input.dim()}, "
                         f"{input.dim() - 1}], but got {dim})")
    dim = dim % input.dim()
    others = [d for d in builtins.range(input.dim()) if d != dim]
    norms = input.abs().pow(p).sum(others, keepdim=True).pow(1.0 / p) if others else input.abs()
    factor = (maxnorm / (norms + 1e-7)).clamp(max=1.0)
    return input * factor.detach() if not input.requires_grad else input * factor


def put(input, index, source, accumulate=False):
    """A copy of `input` with `source` written at the flat (row-major) positions `index` (torch.put);
    with `accumulate` the values are added, repeated positions summing.

    Args:
        input (Tensor): the tensor.
        index (Tensor): int64 flat positions (negative ones count from the end).
        source (Tensor): the values, as many as `index` has.
        accumulate (bool): add instead of overwrite. Default: ``False``.

    Example::

        >>> import monoflow as flow
        >>> flow.put(flow.zeros(2, 2), flow.tensor([0, 3]), flow.tensor([1.0, 2.0]))
        tensor([[1., 0.],
                [0., 2.]])
    """
    return input.clone().put_(index, source, accumulate)


def frexp(input):
    """Splits `input` into mantissa in ``[0.5, 1)`` (by magnitude) and integer exponent with
    ``input = mantissa * 2 ** exponent`` (torch.frexp); zeros give ``(0, 0)``.

    Args:
        input (Tensor): a floating-point tensor.

    Example::

        >>> import monoflow as flow
        >>> flow.frexp(flow.tensor([8.0, -0.75, 0.0]))
        monoflow.return_types.frexp(
        mantissa=tensor([ 0.5000, -0.7500,  0.0000]),
        exponent=tensor([4, 0, 0], dtype=monoflow.int32))
    """
    _C.check_tensor(input, "frexp", "input")
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"frexp: only floating-point inputs are supported, got {input.dtype}")
    from monoflow import _creation  # local: _creation imports _tensor, which imports this module
    x = input.detach()
    finite_nonzero = x.isfinite() & (x != 0)
    safe = ops_math.where(finite_nonzero, x.abs(), _creation.ones_like(x))
    exp = ops_math.floor(ops_math.log2(safe)) + 1
    mant = x / ops_math.pow(2.0, exp)
    # log2 can round across a power of two: bring the mantissa back into [0.5, 1)
    big = mant.abs() >= 1
    exp, mant = ops_math.where(big, exp + 1, exp), ops_math.where(big, mant / 2, mant)
    small = (mant.abs() < 0.5) & finite_nonzero
    exp, mant = ops_math.where(small, exp - 1, exp), ops_math.where(small, mant * 2, mant)
    exp = ops_math.where(finite_nonzero, exp, _creation.zeros_like(exp))
    mant = ops_math.where(finite_nonzero, mant, x)
    return frexp_result(mant, exp.to(_dtypes.int32))


def histogram(input, bins=100, *, range=None, weight=None, density=False):
    """The histogram of `input`'s values (torch.histogram): counts (or weight sums) in equal-width bins,
    and the bin edges.

    Args:
        input (Tensor): a floating-point tensor (flattened).
        bins (int or Tensor): the number of bins, or the increasing bin edges. Default: ``100``.
        range (tuple of float, optional): the lower and upper edge (with an int `bins`). Default: the
            input's min and max.
        weight (Tensor, optional): a weight per element, summed instead of counting. Default: ``None``.
        density (bool): normalise so the histogram integrates to 1. Default: ``False``.

    Example::

        >>> import monoflow as flow
        >>> flow.histogram(flow.tensor([1.0, 2.0, 1.0]), bins=4, range=(0.0, 3.0))
        monoflow.return_types.histogram(
        hist=tensor([0., 2., 1., 0.]),
        bin_edges=tensor([0.0000, 0.7500, 1.5000, 2.2500, 3.0000]))
    """
    _C.check_tensor(input, "histogram", "input")
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"histogram: input must be a floating-point tensor, got {input.dtype}")
    from monoflow import _creation  # local: _creation imports _tensor, which imports this module
    x = input.detach().reshape(-1)
    if isinstance(bins, _C.TensorBase):
        edges = bins.to(input.dtype)
        if edges.dim() != 1 or edges.numel() < 2:
            raise RuntimeError("histogram: bins must be a 1-d tensor of at least 2 edges")
    else:
        if bins <= 0:
            raise RuntimeError(f"histogram: bins must be > 0, got {bins}")
        if range is not None:
            lo, hi = float(range[0]), float(range[1])
        elif x.numel():
            lo, hi = float(x.min()), float(x.max())
        else:
            lo, hi = 0.0, 0.0
        if lo > hi:
            raise RuntimeError(f"histogram: max must be larger than min, got range ({lo}, {hi})")
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        edges = ops_random.linspace(lo, hi, bins + 1, dtype=input.dtype)
    n = edges.numel() - 1
    # bucket i holds edges[i] <= x < edges[i+1]; the last bucket also holds its right edge
    idx = ops_set.searchsorted(edges, x, right=True) - 1
    idx = ops_math.where(x == edges[n], _creation.full_like(idx, n - 1), idx)
    inside = (idx >= 0) & (idx < n)
    w = _creation.ones_like(x) if weight is None else weight.detach().reshape(-1).to(input.dtype)
    hist = _creation.zeros(n, dtype=input.dtype).index_add_(0, idx.clamp(0, n - 1),
                                                            ops_math.where(inside, w, _creation.zeros_like(w)))
    if density:
        hist = hist / (hist.sum() * (edges[1:] - edges[:-1]))
    return histogram_result(hist, edges)


def gradient(input, *, spacing=1, dim=None, edge_order=1):
    """The derivative of `input` along each of `dim` by central differences inside and one-sided
    differences at the edges (torch.gradient / numpy.gradient), one tensor per dimension.

    Args:
        input (Tensor): the sampled values.
        spacing (scalar, list of scalars or list of Tensors): the sample distance per dimension, or the
            sample coordinates per dimension. Default: ``1``.
        dim (int or list of int, optional): the dimensions. Default: all of them.
        edge_order (int): 1 or 2, the accuracy order at the edges. Default: ``1``.

    Example::

        >>> import monoflow as flow
        >>> flow.gradient(flow.tensor([1.0, 2.0, 4.0, 8.0]))
        (tensor([1.0000, 1.5000, 3.0000, 4.0000]),)
    """
    _C.check_tensor(input, "gradient", "input")
    if input.dim() == 0:
        raise RuntimeError("gradient: expected a tensor with at least 1 dimension, got a 0-d tensor")
    if edge_order not in (1, 2):
        raise RuntimeError(f"gradient: only edge_order=1 and edge_order=2 are supported, got {edge_order}")
    dims = list(builtins.range(input.dim())) if dim is None else ([dim] if isinstance(dim, int) else list(dim))
    nd = input.dim()
    bad = [d for d in dims if not -nd <= d < nd]
    if bad:
        raise IndexError(f"gradient: Dimension out of range (expected to be in range of [{-nd}, {nd - 1}], but got "
                         f"{bad[0]})")
    dims = [d % nd for d in dims]
    if isinstance(spacing, (list, tuple)):
        if len(spacing) != len(dims):
            raise RuntimeError(f"gradient: expected spacing to be unspecified, a scalar or its length to "
                               f"match the number of dimensions ({len(dims)}), got {len(spacing)}")
        spacings = list(spacing)
    else:
        spacings = [spacing] * len(dims)
    x = input if input.dtype.is_floating_point else input.to(_dtypes.get_default_dtype())
    return tuple(_gradient_1d(x, d, h, edge_order) for d, h in zip(dims, spacings))


def _gradient_1d(x, d, h, edge_order):
    n = x.shape[d]
    if n < edge_order + 1:
        raise RuntimeError(f"gradient: expected each dimension size to be at least edge_order+1, got "
                           f"{n} along dim {d}")

    def sl(a, b):
        return x.narrow(d, a, b - a)

    if isinstance(h, _C.TensorBase):  # coordinates: non-uniform spacing
        shape = [1] * x.dim()
        shape[d] = -1
        c = h.to(x.dtype).reshape(shape)
        dx = c.narrow(d, 1, n - 1) - c.narrow(d, 0, n - 1)
        h1, h2 = dx.narrow(d, 0, n - 2), dx.narrow(d, 1, n - 2)
        inner = (h1 * h1 * sl(2, n) - h2 * h2 * sl(0, n - 2) + (h2 * h2 - h1 * h1) * sl(1, n - 1)) / (
            h1 * h2 * (h1 + h2))
        first = (sl(1, 2) - sl(0, 1)) / dx.narrow(d, 0, 1)
        last = (sl(n - 1, n) - sl(n - 2, n - 1)) / dx.narrow(d, n - 2, 1)
        if edge_order == 2:
            raise NotImplementedError("gradient: edge_order=2 with coordinate spacing is not implemented")
        parts = [first, inner, last] if n > 2 else [first, last]
        return ops_shape.cat(parts, d)
    h = float(h)
    inner = (sl(2, n) - sl(0, n - 2)) / (2 * h) if n > 2 else None
    if edge_order == 1:
        first = (sl(1, 2) - sl(0, 1)) / h
        last = (sl(n - 1, n) - sl(n - 2, n - 1)) / h
    else:
        first = (-1.5 * sl(0, 1) + 2 * sl(1, 2) - 0.5 * sl(2, 3)) / h
        last = (0.5 * sl(n - 3, n - 2) - 2 * sl(n - 2, n - 1) + 1.5 * sl(n - 1, n)) / h
    parts = [first] + ([inner] if inner is not None else []) + [last]
    return ops_shape.cat(parts, d)


def frobenius_norm(input, dim=(-2, -1), keepdim=False):
    """The Frobenius norm over `dim` (torch.frobenius_norm): the square root of the sum of squares.

    Args:
        input (Tensor): the tensor.
        dim (int or tuple of int): the dimensions reduced. Default: the last two.
        keepdim (bool): keep the reduced dimensions with size 1. Default: ``False``.

    Example::

        >>> import monoflow as flow
        >>> flow.frobenius_norm(flow.tensor([[3.0, 4.0]]))
        tensor(5.)
    """
    return input.pow(2).sum(dim, keepdim=keepdim).sqrt()


def nuclear_norm(input, dim=None, keepdim=False):
    """The nuclear norm (sum of singular values) of a matrix or of the matrices over `dim`
    (torch.nuclear_norm).

    Args:
        input (Tensor): a 2-d tensor, or any tensor with `dim`.
        dim (tuple of two ints, optional): the matrix dimensions. Default: the tensor's two dimensions.
        keepdim (bool): keep the reduced dimensions with size 1. Default: ``False``.

    Example::

        >>> import monoflow as flow
        >>> flow.nuclear_norm(flow.tensor([[2.0, 0.0], [0.0, -3.0]]))
        tensor(5.)
    """
    from monoflow import linalg

    if dim is None:
        if input.dim() != 2:
            raise RuntimeError(f"nuclear_norm: expected a 2-d tensor without dim, got {input.dim()}-d")
        dim = (0, 1)
    return linalg.matrix_norm(input, "nuc", dim=dim, keepdim=keepdim)


# ---------------------------------------------------------------- splits and copies

def unsafe_chunk(input, chunks, dim=0):
    """:func:`chunk` (torch.unsafe_chunk: the same result; torch skips a view check there).

    Args:
        input (Tensor): the tensor.
        chunks (int): the number of pieces.
        dim (int): the dimension split. Default: ``0``.

    Example::

        >>> import monoflow as flow
        >>> [t.tolist() for t in flow.unsafe_chunk(flow.arange(4), 2)]
        [[0, 1], [2, 3]]
    """
    return input.chunk(chunks, dim)


def unsafe_split(input, split_size_or_sections, dim=0):
    """:func:`split` (torch.unsafe_split: the same result).

    Args:
        input (Tensor): the tensor.
        split_size_or_sections (int or list of int): the size of each piece, or the sizes.
        dim (int): the dimension split. Default: ``0``.

    Example::

        >>> import monoflow as flow
        >>> [t.tolist() for t in flow.unsafe_split(flow.arange(5), 2)]
        [[0, 1], [2, 3], [4]]
    """
    return input.split(split_size_or_sections, dim)


def unsafe_split_with_sizes(input, split_sizes, dim=0):
    """:func:`split_with_sizes` (torch.unsafe_split_with_sizes: the same result).

    Args:
        input (Tensor): the tensor.
        split_sizes (list of int): the sizes of the pieces.
        dim (int): the dimension split. Default: ``0``.

    Example::

        >>> import monoflow as flow
        >>> [t.tolist() for t in flow.unsafe_split_with_sizes(flow.arange(5), [1, 4])]
        [[0], [1, 2, 3, 4]]
    """
    return input.split(list(split_sizes), dim)


def _copy_form(name, view, example):
    def fn(input, *args, **kwargs):
        out = view(input, *args, **kwargs)
        if isinstance(out, (tuple, list)):
            return tuple(t.clone() for t in out)
        return out.clone()

    fn.__name__ = fn.__qualname__ = name
    fn.__module__ = __name__
    make_x, call = example
    fn.__doc__ = f"""``Tensor.{view.__name__}`` of `input` as a new tensor that shares no memory with it (torch.{name}).

    Args:
        input (Tensor): the tensor.
        *args: the arguments of ``Tensor.{view.__name__}``.
        **kwargs: its keyword arguments.

    Example::

        >>> import monoflow as flow
        >>> x = {make_x}
        >>> y = {call.replace("NAME", "flow." + name)}
        >>> y.data_ptr() != x.data_ptr()
        True
    """
    return fn


_REAL = "flow.zeros(2, 3)"
# name: (the view it copies, (how the example makes x, the example call with NAME for the function))
_COPY_VIEWS = {
    "alias_copy": (lambda x: x.view_as(x), (_REAL, "NAME(x)")),
    "detach_copy": (lambda x: x.detach(), (_REAL, "NAME(x)")),
    "as_strided_copy": (lambda x, *a, **k: x.as_strided(*a, **k), (_REAL, "NAME(x, (3, 2), (1, 3))")),
    "diagonal_copy": (lambda x, *a, **k: x.diagonal(*a, **k), (_REAL, "NAME(x)")),
    "expand_copy": (lambda x, *a, **k: x.expand(*a, **k), (_REAL, "NAME(x, (4, 2, 3))")),
    "permute_copy": (lambda x, *a, **k: x.permute(*a, **k), (_REAL, "NAME(x, (1, 0))")),
    "select_copy": (lambda x, *a, **k: x.select(*a, **k), (_REAL, "NAME(x, 0, 1)")),
    "split_copy": (lambda x, *a, **k: x.split(*a, **k), (_REAL, "NAME(x, 1)[0]")),
    "split_with_sizes_copy": (lambda x, *a, **k: x.split(*a, **k), (_REAL, "NAME(x, [1, 1])[0]")),
    "squeeze_copy": (lambda x, *a, **k: x.squeeze(*a, **k), (_REAL, "NAME(x)")),
    "t_copy": (lambda x: x.t(), (_REAL, "NAME(x)")),
    "transpose_copy": (lambda x, *a, **k: x.transpose(*a, **k), (_REAL, "NAME(x, 0, 1)")),
    "unbind_copy": (lambda x, *a, **k: x.unbind(*a, **k), (_REAL, "NAME(x)[0]")),
    "unfold_copy": (lambda x, *a, **k: x.unfold(*a, **k), (_REAL, "NAME(x, 1, 2, 1)")),
    "unsqueeze_copy": (lambda x, *a, **k: x.unsqueeze(*a, **k), (_REAL, "NAME(x, 0)")),
    "view_copy": (lambda x, *a, **k: x.view(*a, **k), (_REAL, "NAME(x, 6)")),
    "view_as_real_copy": (lambda x: _complex.view_as_real(x), ("flow.zeros(2, dtype=flow.complex64)", "NAME(x)")),
    "view_as_complex_copy": (lambda x: _complex.view_as_complex(x), ("flow.zeros(2, 2)", "NAME(x)")),
}
for _name, (_view, _example) in _COPY_VIEWS.items():
    _view.__name__ = _name[:-len("_copy")]
    globals()[_name] = _copy_form(_name, _view, _example)
    __all__.append(_name)
del _name, _view, _example


# ---------------------------------------------------------------- devices and modes

def get_device(input):
    """The device index of `input` (torch.get_device): ``-1`` for the CPU, else the index.

    Args:
        input (Tensor): the tensor.

    Example::

        >>> import monoflow as flow
        >>> flow.get_device(flow.ones(1))
        -1
    """
    return input.get_device()


def is_inference(input):
    """Whether `input` is an inference tensor (torch.is_inference): made inside
    :class:`monoflow.inference_mode`, or a view of such a tensor.

    Args:
        input (Tensor): the tensor.

    Example::

        >>> import monoflow as flow
        >>> flow.is_inference(flow.ones(1))
        False
        >>> with flow.inference_mode():
        ...     flow.is_inference(flow.ones(1))
        True
    """
    _C.check_tensor(input, "is_inference", "input")
    return _C._is_inference(input)


def compiled_with_cxx11_abi():
    """Whether the C++ core was built with the C++11 ABI (torch.compiled_with_cxx11_abi): True.

    Example::

        >>> import monoflow as flow
        >>> flow.compiled_with_cxx11_abi()
        True
    """
    return True


def is_vulkan_available():
    """Whether a Vulkan backend is loaded (torch.is_vulkan_available): False (no Vulkan plugin exists).

    Example::

        >>> import monoflow as flow
        >>> flow.is_vulkan_available()
        False
    """
    return False


def init_num_threads():
    """Initialises the kernel thread team (torch.init_num_threads); monoflow's starts on first use, so
    nothing is left to do.

    Example::

        >>> import monoflow as flow
        >>> flow.init_num_threads()
    """


def get_device_module(device=None):
    """The namespace of a device type (torch.get_device_module): ``monoflow.cuda`` for ``"cuda"``,
    ``monoflow.cpu`` for ``"cpu"``; ``None`` gives the current accelerator's (or the CPU's).

    Args:
        device (str, monoflow.device or None): the device. Default: ``None``.

    Example::

        >>> import monoflow as flow
        >>> flow.get_device_module("cpu").__name__
        'monoflow.cpu'
    """
    import importlib

    from monoflow import accelerator  # local: this module loads with the Tensor class, before the device namespaces
    if device is None:
        acc = accelerator.current_accelerator()
        kind = "cpu" if acc is None else acc.type
    else:
        kind = _C.device(device).type if not isinstance(device, str) or ":" in device else device
    try:
        return importlib.import_module(f"monoflow.{kind}")
    except ImportError:
        raise RuntimeError(f"Device '{kind}' does not have a corresponding module registered as "
                           f"'monoflow.{kind}'.") from None


# ---------------------------------------------------------------- dropout forms

def feature_alpha_dropout(input, p, train):
    """torch.feature_alpha_dropout(input, p, train): :func:`monoflow.nn.functional.feature_alpha_dropout`.

    Args:
        input (Tensor): ``(N, C, *)``.
        p (float): the probability of dropping a channel.
        train (bool): apply it.

    Example::

        >>> import monoflow as flow
        >>> flow.feature_alpha_dropout(flow.ones(2, 3), 0.5, False).tolist()
        [[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]
    """
    return _F().feature_alpha_dropout(input, p, train)


def alpha_dropout_(input, p, train):
    """``torch.alpha_dropout_``: alpha dropout written into `input`.

    Args:
        input (Tensor): the tensor, changed in place.
        p (float): the probability of dropping an element.
        train (bool): apply it.

    Example::

        >>> import monoflow as flow
        >>> flow.alpha_dropout_(flow.ones(2), 0.5, False).tolist()
        [1.0, 1.0]
    """
    return _F().alpha_dropout(input, p, train, inplace=True)


def feature_alpha_dropout_(input, p, train):
    """``torch.feature_alpha_dropout_``: channel-wise alpha dropout written into `input`.

    Args:
        input (Tensor): ``(N, C, *)``, changed in place.
        p (float): the probability of dropping a channel.
        train (bool): apply it.

    Example::

        >>> import monoflow as flow
        >>> flow.feature_alpha_dropout_(flow.ones(2, 3), 0.5, False).shape
        monoflow.Size([2, 3])
    """
    return _F().feature_alpha_dropout(input, p, train, inplace=True)


def feature_dropout_(input, p, train):
    """``torch.feature_dropout_``: channel-wise dropout written into `input`.

    Args:
        input (Tensor): ``(N, C, *)``, changed in place.
        p (float): the probability of zeroing a channel.
        train (bool): apply it.

    Example::

        >>> import monoflow as flow
        >>> flow.feature_dropout_(flow.ones(2, 3, 4), 0.5, False).shape
        monoflow.Size([2, 3, 4])
    """
    if not train or p == 0:
        return input
    return input.copy_(feature_dropout(input, p, train))


# ---------------------------------------------------------------- the torch-level nn kernels

def _check_cell(op, gates, input, hx, w_ih, w_hh):
    """The shapes torch's cell functions check: without them a weight with too few rows is chunked into
    narrower gates that broadcast against hx into a result of the wrong shape."""
    for name, t in (("input", input), ("hx", hx), ("w_ih", w_ih), ("w_hh", w_hh)):
        _C.check_tensor(t, op, name)
    hidden = hx.shape[-1] if hx.dim() else 0
    if w_ih.dim() != 2 or w_ih.shape[0] != gates * hidden:
        raise RuntimeError(f"{op}: w_ih must be ({gates} * hidden_size, input_size) = ({gates * hidden}, "
                           f"{input.shape[-1] if input.dim() else '?'}), got {list(w_ih.shape)}")
    if tuple(w_hh.shape) != (gates * hidden, hidden):
        raise RuntimeError(f"{op}: w_hh must be ({gates} * hidden_size, hidden_size) = ({gates * hidden}, {hidden}), "
                           f"got {list(w_hh.shape)}")
    if input.dim() not in (1, 2) or hx.dim() != input.dim() or (input.dim() == 2 and hx.shape[0] != input.shape[0]):
        raise RuntimeError(f"{op}: input of shape {list(input.shape)} and hx of shape {list(hx.shape)} do not "
                           "match (expected (N, input_size) and (N, hidden_size), or both 1-D)")

def lstm_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One LSTM step with explicit weights (torch.lstm_cell): returns ``(h', c')``.

    Args:
        input (Tensor): ``(N, input_size)``.
        hx (tuple of Tensor): ``(h, c)``, each ``(N, hidden_size)``.
        w_ih (Tensor): ``(4 * hidden_size, input_size)``, gates in the order i, f, g, o.
        w_hh (Tensor): ``(4 * hidden_size, hidden_size)``.
        b_ih (Tensor, optional): ``(4 * hidden_size,)``. Default: ``None``.
        b_hh (Tensor, optional): ``(4 * hidden_size,)``. Default: ``None``.

    Example::

        >>> import monoflow as flow
        >>> h, c = flow.lstm_cell(flow.ones(1, 2), (flow.zeros(1, 3), flow.zeros(1, 3)), flow.zeros(12, 2),
        ...                       flow.zeros(12, 3))
        >>> h.shape, c.shape
        (monoflow.Size([1, 3]), monoflow.Size([1, 3]))
    """
    F = _F()
    if not isinstance(hx, (tuple, list)) or len(hx) != 2:
        raise TypeError(f"lstm_cell(): argument 'hx' must be a tuple of 2 Tensors (h, c), not {type(hx).__name__}")
    h, c = hx
    _check_cell("lstm_cell", 4, input, h, w_ih, w_hh)
    _C.check_tensor(c, "lstm_cell", "hx[1]")
    if tuple(c.shape) != tuple(h.shape):
        raise RuntimeError(f"lstm_cell: c of shape {list(c.shape)} must have h's shape {list(h.shape)}")
    gates = F.linear(input, w_ih, b_ih) + F.linear(h, w_hh, b_hh)
    i, f, g, o = gates.chunk(4, 1)
    c2 = f.sigmoid() * c + i.sigmoid() * g.tanh()
    return o.sigmoid() * c2.tanh(), c2


def gru_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One GRU step with explicit weights (torch.gru_cell): returns ``h'``.

    Args:
        input (Tensor): ``(N, input_size)``.
        hx (Tensor): ``(N, hidden_size)``.
        w_ih (Tensor): ``(3 * hidden_size, input_size)``, gates in the order r, z, n.
        w_hh (Tensor): ``(3 * hidden_size, hidden_size)``.
        b_ih (Tensor, optional): ``(3 * hidden_size,)``. Default: ``None``.
        b_hh (Tensor, optional): ``(3 * hidden_size,)``. Default: ``None``.

    Example::

        >>> import monoflow as flow
        >>> flow.gru_cell(flow.ones(1, 2), flow.zeros(1, 3), flow.zeros(9, 2), flow.zeros(9, 3)).shape
        monoflow.Size([1, 3])
    """
    F = _F()
    _check_cell("gru_cell", 3, input, hx, w_ih, w_hh)
    xr, xz, xn = F.linear(input, w_ih, b_ih).chunk(3, 1)
    hr, hz, hn = F.linear(hx, w_hh, b_hh).chunk(3, 1)
    r, z = (xr + hr).sigmoid(), (xz + hz).sigmoid()
    n = (xn + r * hn).tanh()
    return (1 - z) * n + z * hx


def rnn_tanh_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One Elman RNN step with tanh (torch.rnn_tanh_cell): ``tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)``.

    Args:
        input (Tensor): ``(N, input_size)``.
        hx (Tensor): ``(N, hidden_size)``.
        w_ih (Tensor): ``(hidden_size, input_size)``.
        w_hh (Tensor): ``(hidden_size, hidden_size)``.
        b_ih (Tensor, optional): ``(hidden_size,)``. Default: ``None``.
        b_hh (Tensor, optional): ``(hidden_size,)``. Default: ``None``.

    Example::

        >>> import monoflow as flow
        >>> flow.rnn_tanh_cell(flow.ones(1, 2), flow.zeros(1, 3), flow.zeros(3, 2), flow.zeros(3, 3)).tolist()
        [[0.0, 0.0, 0.0]]
    """
    F = _F()
    _check_cell("rnn_tanh_cell", 1, input, hx, w_ih, w_hh)
    return (F.linear(input, w_ih, b_ih) + F.linear(hx, w_hh, b_hh)).tanh()


def rnn_relu_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One Elman RNN step with ReLU (torch.rnn_relu_cell): ``relu(x W_ih^T + b_ih + h W_hh^T + b_hh)``.

    Args:
        input (Tensor): ``(N, input_size)``.
        hx (Tensor): ``(N, hidden_size)``.
        w_ih (Tensor): ``(hidden_size, input_size)``.
        w_hh (Tensor): ``(hidden_size, hidden_size)``.
        b_ih (Tensor, optional): ``(hidden_size,)``. Default: ``None``.
        b_hh (Tensor, optional): ``(hidden_size,)``. Default: ``None``.

    Example::

        >>> import monoflow as flow
        >>> flow.rnn_relu_cell(flow.ones(1, 2), flow.zeros(1, 3), flow.ones(3, 2), flow.zeros(3, 3)).tolist()
        [[2.0, 2.0, 2.0]]
    """
    F = _F()
    _check_cell("rnn_relu_cell", 1, input, hx, w_ih, w_hh)
    return (F.linear(input, w_ih, b_ih) + F.linear(hx, w_hh, b_hh)).relu()


def convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    """torch.convolution: the N-d convolution (or transposed convolution) the input's rank asks for, all
    arguments explicit.

    Args:
        input (Tensor): ``(N, C_in, *spatial)`` with 1 to 3 spatial dims.
        weight (Tensor): the kernel, as ``conv*d`` / ``conv_transpose*d`` take it.
        bias (Tensor or None): ``(C_out,)``.
        stride (list of int): per spatial dim.
        padding (list of int): per spatial dim.
        dilation (list of int): per spatial dim.
        transposed (bool): a transposed convolution.
        output_padding (list of int): per spatial dim (transposed only).
        groups (int): the number of groups.

    Example::

        >>> import monoflow as flow
        >>> flow.convolution(flow.ones(1, 1, 4), flow.ones(1, 1, 2), None, [1], [0], [1], False, [0], 1).tolist()
        [[[2.0, 2.0, 2.0]]]
    """
    F = _F()
    n = input.dim() - 2
    if n not in (1, 2, 3):
        raise RuntimeError(f"convolution: expected a 3-d to 5-d input, got {input.dim()}-d")
    if transposed:
        fn = (F.conv_transpose1d, F.conv_transpose2d, F.conv_transpose3d)[n - 1]
        return fn(input, weight, bias, tuple(stride), tuple(padding), tuple(output_padding), groups,
                  tuple(dilation))
    fn = (F.conv1d, F.conv2d, F.conv3d)[n - 1]
    return fn(input, weight, bias, tuple(stride), tuple(padding), tuple(dilation), groups)


def max_pool1d_with_indices(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """1-d max pooling returning ``(values, indices)`` (torch.max_pool1d_with_indices).

    Args:
        input (Tensor): ``(N, C, L)`` or ``(C, L)``.
        kernel_size (int): the window.
        stride (int, optional): the step; empty or ``None`` means `kernel_size`. Default: ``()``.
        padding (int): implicit negative-infinity padding. Default: ``0``.
        dilation (int): spacing inside the window. Default: ``1``.
        ceil_mode (bool): round the output length up. Default: ``False``.

    Example::

        >>> import monoflow as flow
        >>> v, i = flow.max_pool1d_with_indices(flow.tensor([[[1.0, 3.0, 2.0, 0.0]]]), 2)
        >>> v.tolist(), i.tolist()
        ([[[3.0, 2.0]]], [[[1, 2]]])
    """
    stride = None if stride in ((), [], None) else stride
    return _F().max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode=ceil_mode,
                           return_indices=True)


def empty_permuted(size, physical_layout, *, dtype=None, layout=None, device=None, requires_grad=False,
                   pin_memory=False):
    """An uninitialised tensor of logical shape `size` whose memory is laid out in the dimension order
    `physical_layout`, outermost first (torch.empty_permuted).

    Args:
        size (sequence of int): the logical shape.
        physical_layout (sequence of int): a permutation of the dimensions, outermost first.
        dtype (monoflow.dtype, optional): the dtype. Default: the default dtype.
        layout: only ``monoflow.strided``. Default: ``None``.
        device (optional): the device. Default: the default device.
        requires_grad (bool): whether autograd records it. Default: ``False``.
        pin_memory (bool): accepted; host memory is not pinned. Default: ``False``.

    Example::

        >>> import monoflow as flow
        >>> flow.empty_permuted((2, 3, 4), (0, 2, 1)).stride()
        (12, 1, 3)
    """
    size, order = tuple(size), tuple(physical_layout)
    if sorted(order) != list(builtins.range(len(size))):
        raise RuntimeError(f"empty_permuted: physical_layout {list(order)} is not a permutation of the "
                           f"{len(size)} dimensions")
    from monoflow import _creation  # local: _creation imports _tensor, which imports this module
    phys = _creation.empty(*[size[d] for d in order], dtype=dtype, device=device)
    inverse = [order.index(d) for d in builtins.range(len(size))]
    out = phys.permute(*inverse)
    return out.requires_grad_() if requires_grad else out


# ---------------------------------------------------------------- symbolic helpers, run on plain values

def sym_int(a):
    """``int(a)`` (torch.sym_int: monoflow traces no symbolic sizes, so plain ints flow through).

    Args:
        a (number): the value.

    Example::

        >>> import monoflow as flow
        >>> flow.sym_int(3.7)
        3
    """
    return int(a)


def sym_float(a):
    """``float(a)`` (torch.sym_float).

    Args:
        a (number): the value.

    Example::

        >>> import monoflow as flow
        >>> flow.sym_float(3)
        3.0
    """
    return float(a)


def sym_max(a, b):
    """``max(a, b)`` (torch.sym_max).

    Args:
        a (number): a value.
        b (number): another.

    Example::

        >>> import monoflow as flow
        >>> flow.sym_max(2, 5)
        5
    """
    return builtins.max(a, b)


def sym_min(a, b):
    """``min(a, b)`` (torch.sym_min).

    Args:
        a (number): a value.
        b (number): another.

    Example::

        >>> import monoflow as flow
        >>> flow.sym_min(2, 5)
        2
    """
    return builtins.min(a, b)


def sym_not(a):
    """``not a`` (torch.sym_not).

    Args:
        a (bool): the value.

    Example::

        >>> import monoflow as flow
        >>> flow.sym_not(True)
        False
    """
    return not a


def sym_sqrt(a):
    """``math.sqrt(a)`` (torch.sym_sqrt).

    Args:
        a (number): the value.

    Example::

        >>> import monoflow as flow
        >>> flow.sym_sqrt(9)
        3.0
    """
    return math.sqrt(a)


def sym_ite(b, t, f):
    """``t if b else f`` (torch.sym_ite).

    Args:
        b (bool): the condition.
        t: the value when true.
        f: the value when false.

    Example::

        >>> import monoflow as flow
        >>> flow.sym_ite(False, 1, 2)
        2
    """
    return t if b else f


def sym_sum(args):
    """``sum(args)`` (torch.sym_sum).

    Args:
        args (iterable of numbers): the values.

    Example::

        >>> import monoflow as flow
        >>> flow.sym_sum([1, 2, 3])
        6
    """
    return builtins.sum(args)


def cond(pred, true_fn, false_fn, operands=()):
    """``true_fn(*operands)`` if `pred` else ``false_fn(*operands)`` (torch.cond), run eagerly; a tensor
    `pred` must hold one element.

    Args:
        pred (bool or Tensor): the condition.
        true_fn (callable): run when true.
        false_fn (callable): run when false.
        operands (tuple): the arguments of either branch. Default: ``()``.

    Example::

        >>> import monoflow as flow
        >>> flow.cond(flow.tensor(True), lambda x: x + 1, lambda x: x - 1, (flow.tensor(1),))
        tensor(2)
    """
    if isinstance(pred, _C.TensorBase) and pred.numel() != 1:
        raise RuntimeError(f"cond: expected pred to be a bool or a one-element tensor, got shape "
                           f"{list(pred.shape)}")
    return true_fn(*operands) if bool(pred) else false_fn(*operands)


def while_loop(cond_fn, body_fn, carried_inputs):
    """Runs ``carried_inputs = body_fn(*carried_inputs)`` while ``cond_fn(*carried_inputs)`` holds
    (torch.while_loop), eagerly; returns the final carried values.

    Args:
        cond_fn (callable): the condition, on the carried values.
        body_fn (callable): returns new carried values (same number).
        carried_inputs (tuple): the initial values.

    Example::

        >>> import monoflow as flow
        >>> flow.while_loop(lambda i: i < 3, lambda i: (i + 1,), (flow.tensor(0),))
        (tensor(3),)
    """
    carried = tuple(carried_inputs)
    while bool(cond_fn(*carried)):
        out = body_fn(*carried)
        carried = tuple(out) if isinstance(out, (tuple, list)) else (out,)
    return carried


# ---------------------------------------------------------------- Tensor methods and properties

def _device_is(kind, doc):
    return property(lambda self: self.device.type == kind,
                    doc=f"Whether the tensor lives on a {doc} device (``device.type == '{kind}'``).")


def _always_false(what):
    return property(lambda self: False, doc=f"Whether the tensor is {what}: always False in monoflow.")


class TensorMethods:
    """Mixed into monoflow.Tensor."""

    is_cpu = _device_is("cpu", "CPU")
    is_xpu = _device_is("xpu", "XPU")
    is_mps = _device_is("mps", "MPS")
    is_ipu = _device_is("ipu", "IPU")
    is_mtia = _device_is("mtia", "MTIA")
    is_maia = _device_is("maia", "MAIA")
    is_xla = _device_is("xla", "XLA")
    is_vulkan = _device_is("vulkan", "Vulkan")
    is_meta = _device_is("meta", "meta")
    is_quantized = _always_false("quantized")
    is_nested = _always_false("a nested tensor")
    is_sparse_csr = _always_false("a sparse CSR tensor")
    is_mkldnn = _always_false("an MKL-DNN tensor")

    def renorm(self, p, dim, maxnorm):
        """Tensor.renorm(p, dim, maxnorm) -> Tensor: :func:`monoflow.renorm` of this tensor.

        Example::

            >>> import monoflow as flow
            >>> flow.tensor([[3.0, 4.0]]).renorm(2, 0, 1.0)
            tensor([[0.6000, 0.8000]])
        """
        return renorm(self, p, dim, maxnorm)

    def renorm_(self, p, dim, maxnorm):
        """Tensor.renorm_(p, dim, maxnorm) -> Tensor: :meth:`renorm` written into this tensor.

        Example::

            >>> import monoflow as flow
            >>> flow.tensor([[3.0, 4.0]]).renorm_(2, 0, 1.0)
            tensor([[0.6000, 0.8000]])
        """
        # on a clone: the backward of renorm needs self's old values, which the copy overwrites
        return self.copy_(renorm(self.clone() if self.requires_grad else self, p, dim, maxnorm))

    def put_(self, index, source, accumulate=False):
        """Tensor.put_(index, source, accumulate=False) -> Tensor: writes `source` at the flat positions
        `index` of this tensor (adds with `accumulate`); see :func:`monoflow.put`.

        Example::

            >>> import monoflow as flow
            >>> flow.zeros(3).put_(flow.tensor([2, 2]), flow.tensor([1.0, 2.0]), accumulate=True)
            tensor([0., 0., 3.])
        """
        _C.check_tensor(index, "put_", "index")
        if index.dtype != _dtypes.int64:
            raise RuntimeError(f"put_(): Expected a long tensor for index, but got {index.dtype}")
        if index.numel() != source.numel():
            raise RuntimeError(f"put_(): Expected source and index to have the same number of elements, but "
                               f"got source.numel() = {source.numel()}, index.numel() = {index.numel()}")
        n = self.numel()
        idx = index.reshape(-1)
        if idx.numel() and (int(idx.max()) >= n or int(idx.min()) < -n):
            raise IndexError(f"put_(): index out of range for a tensor of {n} elements")
        idx = (idx + n) % n if n else idx
        flat = self.view(-1) if self.is_contiguous() else self.reshape(-1)
        src = source.reshape(-1).to(self.dtype)
        if accumulate:
            flat.index_add_(0, idx, src)
        else:
            flat.index_copy_(0, idx, src)
        if flat._data_address() != self._data_address() or not self.is_contiguous():
            self.copy_(flat.view(self.shape))
        return self

    def put(self, index, source, accumulate=False):
        """Tensor.put(index, source, accumulate=False) -> Tensor: :func:`monoflow.put` of this tensor.

        Example::

            >>> import monoflow as flow
            >>> flow.zeros(3).put(flow.tensor([1]), flow.tensor([5.0]))
            tensor([0., 5., 0.])
        """
        return put(self, index, source, accumulate)

    def frexp(self):
        """Tensor.frexp() -> (Tensor, Tensor): :func:`monoflow.frexp` of this tensor.

        Example::

            >>> import monoflow as flow
            >>> flow.tensor([8.0]).frexp().exponent
            tensor([4], dtype=monoflow.int32)
        """
        return frexp(self)

    def histogram(self, bins=100, *, range=None, weight=None, density=False):
        """``Tensor.histogram(bins, *, range=None, weight=None, density=False)``: :func:`monoflow.histogram`
        of this tensor.

        Example::

            >>> import monoflow as flow
            >>> flow.tensor([1.0, 2.0]).histogram(2, range=(0.0, 2.0)).hist
            tensor([0., 2.])
        """
        return histogram(self, bins, range=range, weight=weight, density=density)

    def unsafe_chunk(self, chunks, dim=0):
        """Tensor.unsafe_chunk(chunks, dim=0): :meth:`chunk`.

        Example::

            >>> import monoflow as flow
            >>> len(flow.arange(4).unsafe_chunk(2))
            2
        """
        return self.chunk(chunks, dim)

    def unsafe_split(self, split_size, dim=0):
        """Tensor.unsafe_split(split_size, dim=0): :meth:`split`.

        Example::

            >>> import monoflow as flow
            >>> len(flow.arange(5).unsafe_split(2))
            3
        """
        return self.split(split_size, dim)

    def unsafe_split_with_sizes(self, split_sizes, dim=0):
        """Tensor.unsafe_split_with_sizes(split_sizes, dim=0): :meth:`split` with explicit sizes.

        Example::

            >>> import monoflow as flow
            >>> [t.numel() for t in flow.arange(5).unsafe_split_with_sizes([2, 3])]
            [2, 3]
        """
        return self.split(list(split_sizes), dim)

    def neg_(self):
        """Tensor.neg_() -> Tensor: negates this tensor in place.

        Example::

            >>> import monoflow as flow
            >>> flow.tensor([1.0, -2.0]).neg_()
            tensor([-1.,  2.])
        """
        return self.mul_(-1)

    def is_neg(self):
        """Tensor.is_neg() -> bool: whether a lazy negation bit is set; never in monoflow.

        Example::

            >>> import monoflow as flow
            >>> flow.ones(1).is_neg()
            False
        """
        return False

    def resolve_neg(self):
        """Tensor.resolve_neg() -> Tensor: this tensor (monoflow has no lazy negation).

        Example::

            >>> import monoflow as flow
            >>> flow.ones(1).resolve_neg()
            tensor([1.])
        """
        return self

    def is_inference(self):
        """Tensor.is_inference() -> bool: whether this tensor was made inside inference_mode (see
        :func:`monoflow.is_inference`).

        Example::

            >>> import monoflow as flow
            >>> flow.ones(1).is_inference()
            False
        """
        return _C._is_inference(self)

    def prelu(self, weight):
        """Tensor.prelu(weight) -> Tensor: :func:`monoflow.nn.functional.prelu` of this tensor.

        Example::

            >>> import monoflow as flow
            >>> flow.tensor([-2.0, 3.0]).prelu(flow.tensor([0.5]))
            tensor([-1.,  3.])
        """
        return _F().prelu(self, weight)

    def hardshrink(self, lambd=0.5):
        """Tensor.hardshrink(lambd=0.5) -> Tensor: :func:`monoflow.nn.functional.hardshrink`.

        Example::

            >>> import monoflow as flow
            >>> flow.tensor([-1.0, 0.2, 0.7]).hardshrink()
            tensor([-1.0000,  0.0000,  0.7000])
        """
        return _F().hardshrink(self, lambd)

    def addmm_(self, mat1, mat2, *, beta=1, alpha=1):
        """Tensor.addmm_(mat1, mat2, *, beta=1, alpha=1) -> Tensor: ``beta * self + alpha * mat1 @ mat2``
        written into this tensor.

        Example::

            >>> import monoflow as flow
            >>> flow.ones(2, 2).addmm_(flow.eye(2), flow.eye(2), alpha=2)
            tensor([[3., 1.],
                    [1., 3.]])
        """
        return self.copy_(ops_linalg.addmm(self, mat1, mat2, beta=beta, alpha=alpha))

    def vdot(self, other):
        """Tensor.vdot(other) -> Tensor: :func:`monoflow.vdot` of this tensor and `other`.

        Example::

            >>> import monoflow as flow
            >>> flow.tensor([1.0, 2.0]).vdot(flow.tensor([3.0, 4.0]))
            tensor(11.)
        """
        return ops_linalg.vdot(self, other)

    def ger(self, vec2):
        """Tensor.ger(vec2) -> Tensor: the outer product (:func:`monoflow.outer`).

        Example::

            >>> import monoflow as flow
            >>> flow.tensor([1.0, 2.0]).ger(flow.tensor([1.0, 0.0]))
            tensor([[1., 0.],
                    [2., 0.]])
        """
        return ops_linalg.outer(self, vec2)

    def new_empty_strided(self, size, stride, *, dtype=None, device=None, requires_grad=False,
                          layout=None, pin_memory=False):
        """Tensor.new_empty_strided(size, stride, ...) -> Tensor: :func:`monoflow.empty_strided` with this
        tensor's dtype and device unless given; ``requires_grad`` makes autograd record it; ``layout``
        (strided) and ``pin_memory`` are accepted for torch's signature.

        Example::

            >>> import monoflow as flow
            >>> flow.ones(1).new_empty_strided((2, 3), (1, 2)).stride()
            (1, 2)
        """
        out = ops_extra_names.empty_strided(size, stride, dtype=dtype or self.dtype, device=device or self.device)
        return out.requires_grad_() if requires_grad else out

    def cfloat(self):
        """Tensor.cfloat() -> Tensor: this tensor as ``complex64``.

        Example::

            >>> import monoflow as flow
            >>> flow.tensor([1.0]).cfloat().dtype
            monoflow.complex64
        """
        return self.to(_dtypes.complex64)

    def cdouble(self):
        """Tensor.cdouble() -> Tensor: this tensor as ``complex128``.

        Example::

            >>> import monoflow as flow
            >>> flow.tensor([1.0]).cdouble().dtype
            monoflow.complex128
        """
        return self.to(_dtypes.complex128)

    def as_subclass(self, cls):
        """Tensor.as_subclass(cls) -> Tensor: this tensor's data (shared) as an instance of `cls`, a
        subclass of ``monoflow.Tensor``; autograd history is kept.

        Example::

            >>> import monoflow as flow
            >>> class Mine(flow.Tensor): pass
            >>> type(flow.ones(2).as_subclass(Mine)).__name__
            'Mine'
        """
        if not (isinstance(cls, type) and issubclass(cls, _C.TensorBase)):
            raise TypeError(f"as_subclass: cls must be a subclass of monoflow.Tensor, got {cls!r}")
        return _C._make_subclass(cls, self, self.requires_grad) if self.grad_fn is None else \
            _alias_as(cls, self)

    def record_stream(self, stream):
        """Tensor.record_stream(stream): marks the tensor as used by `stream`, so its memory is not reused
        before that stream's queued work ends. monoflow's allocator orders frees on the tensor's own
        stream and host devices run in order, so nothing is recorded.

        Example::

            >>> import monoflow as flow
            >>> flow.ones(1).record_stream(None)
        """

    def dim_order(self, *, ambiguity_check=False):
        """Tensor.dim_order() -> tuple: the dimensions from outermost to innermost in memory (by
        decreasing stride; ties keep the logical order). ``ambiguity_check`` is accepted; ties are
        resolved, never refused.

        Example::

            >>> import monoflow as flow
            >>> flow.empty(2, 3, 4).permute(2, 0, 1).dim_order()
            (1, 2, 0)
        """
        strides = self.stride()
        return tuple(sorted(builtins.range(self.dim()), key=lambda d: (-strides[d], d)))

    def const_data_ptr(self):
        """Tensor.const_data_ptr() -> int: :meth:`data_ptr` (for reading).

        Example::

            >>> import monoflow as flow
            >>> x = flow.ones(2)
            >>> x.const_data_ptr() == x.data_ptr()
            True
        """
        return self.data_ptr()

    def to_sparse_coo(self):
        """Tensor.to_sparse_coo() -> Tensor: :meth:`to_sparse`.

        Example::

            >>> import monoflow as flow
            >>> flow.eye(2).to_sparse_coo().is_sparse
            True
        """
        return self.to_sparse()

    def xpu(self, device=None, non_blocking=False):
        """Tensor.xpu(device=None, non_blocking=False) -> Tensor: this tensor on an XPU device; raises when
        no XPU plugin is loaded (``non_blocking`` is accepted; copies complete before returning).

        Example::

            >>> import monoflow as flow
            >>> try:
            ...     flow.ones(1).xpu()
            ... except RuntimeError:
            ...     print("no xpu")
            no xpu
        """
        return self.to("xpu" if device is None else device)

    def untyped_storage(self):
        """Tensor.untyped_storage() -> UntypedStorage: the bytes under this tensor and its views (see
        :class:`monoflow.UntypedStorage`).

        Example::

            >>> import monoflow as flow
            >>> x = flow.ones(4)
            >>> x[1:].untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
            True
        """
        return UntypedStorage(self)

    def storage(self):
        """Tensor.storage() -> TypedStorage: the elements under this tensor and its views (see
        :class:`monoflow.TypedStorage`).

        Example::

            >>> import monoflow as flow
            >>> flow.ones(2, 3).t().storage().size()
            6
        """
        return TypedStorage(self)

    def storage_type(self):
        """Tensor.storage_type() -> type: the class of :meth:`storage` (:class:`monoflow.TypedStorage`).

        Example::

            >>> import monoflow as flow
            >>> flow.ones(1).storage_type().__name__
            'TypedStorage'
        """
        return TypedStorage

    def lu(self, pivot=True, get_infos=False):
        """Tensor.lu(pivot=True, get_infos=False): :func:`monoflow.lu` of this matrix (or batch).

        Example::

            >>> import monoflow as flow
            >>> LU, piv = flow.tensor([[4.0, 3.0], [6.0, 3.0]]).lu()
            >>> piv.tolist()
            [2, 2]
        """
        return _legacy().lu(self, pivot=pivot, get_infos=get_infos)

    def lu_solve(self, LU_data, LU_pivots):
        """Tensor.lu_solve(LU_data, LU_pivots): solves ``A x = self`` from :meth:`lu`'s factors of ``A``.

        Example::

            >>> import monoflow as flow
            >>> A = flow.tensor([[4.0, 3.0], [6.0, 3.0]])
            >>> flow.tensor([[7.0], [9.0]]).lu_solve(*A.lu()).round(decimals=4)
            tensor([[1.],
                    [1.]])
        """
        return _legacy().lu_solve(self, LU_data, LU_pivots)

    def triangular_solve(self, A, upper=True, transpose=False, unitriangular=False):
        """Tensor.triangular_solve(A, upper=True, transpose=False, unitriangular=False):
        :func:`monoflow.triangular_solve` with this tensor as the right-hand side.

        Example::

            >>> import monoflow as flow
            >>> flow.tensor([[2.0], [3.0]]).triangular_solve(flow.tensor([[2.0, 0.0], [0.0, 3.0]])).solution
            tensor([[1.],
                    [1.]])
        """
        return _legacy().triangular_solve(self, A, upper=upper, transpose=transpose, unitriangular=unitriangular)

    def geqrf(self):
        """Tensor.geqrf(): :func:`monoflow.geqrf` (LAPACK's Householder QR form) of this matrix.

        Example::

            >>> import monoflow as flow
            >>> a, tau = flow.eye(2).geqrf()
            >>> tau.shape
            monoflow.Size([2])
        """
        return _legacy().geqrf(self)

    def orgqr(self, input2):
        """Tensor.orgqr(input2): :func:`monoflow.orgqr` (Q from :meth:`geqrf`'s reflectors `input2`).

        Example::

            >>> import monoflow as flow
            >>> a, tau = flow.eye(2).geqrf()
            >>> a.orgqr(tau).abs().tolist()
            [[1.0, 0.0], [0.0, 1.0]]
        """
        return _legacy().orgqr(self, input2)

    def ormqr(self, input2, input3, left=True, transpose=False):
        """Tensor.ormqr(input2, input3, left=True, transpose=False): :func:`monoflow.ormqr`, multiplying
        `input3` by the Q of this tensor's :meth:`geqrf` reflectors `input2`.

        Example::

            >>> import monoflow as flow
            >>> a, tau = flow.eye(2).geqrf()
            >>> a.ormqr(tau, flow.ones(2, 1)).abs().tolist()
            [[1.0], [1.0]]
        """
        return _legacy().ormqr(self, input2, input3, left=left, transpose=transpose)

    def igamma(self, other):
        """Tensor.igamma(other): the regularised lower incomplete gamma function P(self, other)
        (:func:`monoflow.igamma`).

        Example::

            >>> import monoflow as flow
            >>> round(flow.tensor(1.0).igamma(flow.tensor(1.0)).item(), 4)
            0.6321
        """
        return _legacy().igamma(self, other)

    def igammac(self, other):
        """Tensor.igammac(other): the regularised upper incomplete gamma function Q(self, other).

        Example::

            >>> import monoflow as flow
            >>> round(flow.tensor(1.0).igammac(flow.tensor(1.0)).item(), 4)
            0.3679
        """
        return _legacy().igammac(self, other)

    def igamma_(self, other):
        """Tensor.igamma_(other): :meth:`igamma` written into this tensor.

        Example::

            >>> import monoflow as flow
            >>> round(flow.tensor(1.0).igamma_(flow.tensor(1.0)).item(), 4)
            0.6321
        """
        return self.copy_(_legacy().igamma(self, other))

    def igammac_(self, other):
        """Tensor.igammac_(other): :meth:`igammac` written into this tensor.

        Example::

            >>> import monoflow as flow
            >>> round(flow.tensor(1.0).igammac_(flow.tensor(1.0)).item(), 4)
            0.3679
        """
        return self.copy_(_legacy().igammac(self, other))

    name = property(lambda self: None, doc="The tensor's dimension names: monoflow has no named tensors (None).")
    volatile = property(lambda self: False, doc="The pre-0.4 ``volatile`` flag: always False (use no_grad).")
    output_nr = property(lambda self: 0, doc="Which output of its grad_fn this tensor is: 0 in monoflow.")

    def adjoint(self):
        """Tensor.adjoint() -> Tensor: the conjugate transpose of the last two dimensions.

        Example::

            >>> import monoflow as flow
            >>> flow.tensor([[1.0, 2.0], [3.0, 4.0]]).adjoint()
            tensor([[1., 3.],
                    [2., 4.]])
        """
        if self.dim() < 2:
            raise RuntimeError(f"adjoint: expected a tensor with 2 or more dimensions, got {self.dim()}")
        t = self.transpose(-2, -1)
        return t.conj() if self.is_complex() else t

    def conj_physical_(self):
        """Tensor.conj_physical_() -> Tensor: conjugates this tensor in place (real tensors are unchanged).

        Example::

            >>> import monoflow as flow
            >>> flow.tensor([1.0]).conj_physical_()
            tensor([1.])
        """
        return self.copy_(self.conj_physical()) if self.is_complex() else self

    def nonzero_static(self, *, size, fill_value=-1):
        """Tensor.nonzero_static(*, size, fill_value=-1) -> Tensor: :meth:`nonzero`'s ``(n, dim)`` indices,
        cut or padded with `fill_value` to exactly `size` rows (a shape known in advance).

        Example::

            >>> import monoflow as flow
            >>> flow.tensor([0, 3, 5]).nonzero_static(size=3).tolist()
            [[1], [2], [-1]]
        """
        if size < 0:
            raise RuntimeError(f"nonzero_static: 'size' must be an non-negative integer, got {size}")
        idx = self.nonzero()[:size]
        if idx.shape[0] < size:
            from monoflow import _creation  # local: _creation imports _tensor, which imports this module
            pad = _creation.full((size - idx.shape[0], self.dim()), fill_value, dtype=idx.dtype, device=idx.device)
            idx = ops_shape.cat([idx, pad], 0)
        return idx

    def set_(self, source=None, storage_offset=0, size=None, stride=None):
        """Tensor.set_(source) -> Tensor: makes this tensor an alias of `source` (its memory, shape and
        strides; with `size`/`stride`, a strided view of `source`'s memory starting at element
        ``storage_offset``); ``set_()`` empties it.

        Example::

            >>> import monoflow as flow
            >>> x, y = flow.zeros(3), flow.ones(2)
            >>> x.set_(y).is_set_to(y)
            True
        """
        if source is None:
            self.data = _C._empty((0,), self.dtype, self.device)
            return self
        if isinstance(source, (UntypedStorage, TypedStorage)):
            source = source._whole
        if size is not None:
            source = source.as_strided(tuple(size), tuple(stride) if stride is not None else
                                       _memory_format._strides(tuple(size), range(len(size))), storage_offset)
        self.data = source.detach()
        return self

    def is_set_to(self, tensor):
        """Tensor.is_set_to(tensor) -> bool: whether both tensors view the same memory with the same
        offset, shape and strides.

        Example::

            >>> import monoflow as flow
            >>> x = flow.ones(2)
            >>> x.is_set_to(x.view(2)), x.is_set_to(x.clone())
            (True, False)
        """
        return (self._data_address() == tensor._data_address() and tuple(self.shape) == tuple(tensor.shape)
                and self.stride() == tensor.stride() and self.dtype == tensor.dtype)

    def ipu(self, device=None, non_blocking=False):
        """Tensor.ipu(device=None, non_blocking=False) -> Tensor: this tensor on an IPU device; raises when no
        IPU plugin is loaded.

        Example::

            >>> import monoflow as flow
            >>> try:
            ...     flow.ones(1).ipu()
            ... except RuntimeError:
            ...     print("no ipu")
            no ipu
        """
        return self.to("ipu" if device is None else device)

    def mtia(self, device=None, non_blocking=False):
        """Tensor.mtia(device=None, non_blocking=False) -> Tensor: this tensor on an MTIA device; raises when
        no MTIA plugin is loaded.

        Example::

            >>> import monoflow as flow
            >>> try:
            ...     flow.ones(1).mtia()
            ... except RuntimeError:
            ...     print("no mtia")
            no mtia
        """
        return self.to("mtia" if device is None else device)

    def resize_(self, *sizes, memory_format=None):
        """Tensor.resize_(*sizes) -> Tensor: gives this tensor the shape `sizes`, keeping its first
        elements in row-major order (new elements are uninitialised). Not allowed on a tensor that
        requires grad. ``memory_format`` is accepted; the result is contiguous.

        Example::

            >>> import monoflow as flow
            >>> flow.arange(6.0).resize_(2, 2)
            tensor([[0., 1.],
                    [2., 3.]])
        """
        if len(sizes) == 1 and isinstance(sizes[0], (tuple, list, _C.Size)):
            sizes = tuple(sizes[0])
        sizes = tuple(int(s) for s in sizes)
        if any(s < 0 for s in sizes):
            raise RuntimeError(f"resize_: negative dimension in {list(sizes)}")
        if self.requires_grad:
            raise RuntimeError("cannot resize variables that require grad")
        if tuple(self.shape) == sizes:
            return self
        n = math.prod(sizes)
        if isinstance(_C.storage_owner(self), np.ndarray):
            # memory lent by a numpy array: the tensor must stay on it, so (as torch) the new
            # shape has to fit in it, contiguous from the tensor's storage offset
            nbytes, offset, _ = _C.storage_layout(self)
            if (offset + n) * self.element_size() > nbytes:
                raise RuntimeError(f"resize_: Trying to resize storage that is not resizable (the tensor's memory "
                                   f"is a numpy array's, {nbytes} bytes; shape {list(sizes)} needs more)")
            strides = [1] * len(sizes)
            for i in range(len(sizes) - 2, -1, -1):
                strides[i] = strides[i + 1] * builtins.max(sizes[i + 1], 1)
            return self.as_strided_(sizes, strides, offset)
        new = _C._empty(sizes, self.dtype, self.device)
        keep = builtins.min(n, self.numel())
        if keep:
            new.view(-1)[:keep].copy_(self.detach().reshape(-1)[:keep])
        self.data = new
        return self

    def resize_as_(self, tensor, memory_format=None):
        """Tensor.resize_as_(tensor) -> Tensor: :meth:`resize_` to `tensor`'s shape (``memory_format`` is
        accepted; the result is contiguous).

        Example::

            >>> import monoflow as flow
            >>> flow.arange(4.0).resize_as_(flow.ones(2, 2)).shape
            monoflow.Size([2, 2])
        """
        return self.resize_(tuple(tensor.shape))

    def resize(self, *sizes):
        """Tensor.resize(*sizes) -> Tensor: a copy of this tensor :meth:`resize_`-d to `sizes`.

        Example::

            >>> import monoflow as flow
            >>> flow.arange(4.0).resize(2, 2).shape
            monoflow.Size([2, 2])
        """
        return self.detach().clone().resize_(*sizes)

    def resize_as(self, tensor):
        """Tensor.resize_as(tensor) -> Tensor: a copy of this tensor resized to `tensor`'s shape.

        Example::

            >>> import monoflow as flow
            >>> flow.arange(4.0).resize_as(flow.ones(4, 1)).shape
            monoflow.Size([4, 1])
        """
        return self.resize(tuple(tensor.shape))


def _alias_as(cls, t):
    # a non-leaf keeps its graph: an identity op whose output is re-classed
    out = t.view_as(t)
    out.__class__ = cls
    return out


for _name in __all__:
    if not isinstance(globals()[_name], type):
        globals()[_name] = names_its_errors(globals()[_name], ("input",))
del _name

for _name, _member in list(vars(TensorMethods).items()):  # the methods' refusals name them too
    if isinstance(_member, types.FunctionType) and not _name.startswith("_"):
        setattr(TensorMethods, _name, names_its_errors(_member))
del _name, _member
