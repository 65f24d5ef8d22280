"""The shape ops: functions (monoflow.<name>) and the matching Tensor methods.

Joining and splitting (cat, stack, split, chunk, unbind), reordering (flip,
roll, repeat, tile, tril, triu), gathering and scattering (gather, scatter,
scatter_add, index_select, index_put, one_hot), masks (masked_fill,
masked_select, nonzero) and pad, with PyTorch's semantics. Indexing itself
(tensor[...]) lives in TensorBase.__getitem__/__setitem__ (_ops_shape.pxi)."""
import numbers
import numpy as np

from monoflow import _C, _dtypes
from monoflow import _composite as _c

__all__ = ["cat", "concat", "concatenate", "stack", "split", "chunk", "unbind", "flip", "fliplr", "flipud", "roll",
           "tile", "tril", "triu", "gather", "scatter", "scatter_add", "index_select", "index_put", "masked_fill",
           "masked_select", "nonzero", "one_hot", "pad", "movedim", "moveaxis", "swapaxes", "swapdims",
           "take_along_dim", "diagonal", "t", "expand", "repeat"]


def _varargs(args, what):
    """f(1, 2) and f((1, 2)) / f([1, 2]) both mean the sequence (1, 2)."""
    if len(args) == 1 and not isinstance(args[0], numbers.Integral):
        if not hasattr(args[0], "__iter__"):
            raise TypeError(f"{what}(): expected integers or one sequence of integers, got {type(args[0]).__name__}")
        return tuple(args[0])
    return tuple(args)


def _varargs_or_keyword(args, kwargs, name, what):
    """_varargs, or the sequence given as the keyword `name` (torch's x.flip(dims=(1,)))."""
    if kwargs:
        if args or set(kwargs) != {name}:
            extra = sorted(set(kwargs) - {name})
            raise TypeError(f"{what}() got an unexpected keyword argument '{extra[0]}'" if extra else
                            f"{what}() takes the {name} either positionally or as {name}=, not both")
        args = (kwargs[name],)
    return _varargs(args, what)


def cat(tensors, dim=0):
    """Concatenates along an existing dim, promoting dtypes (1-D empty inputs are skipped, as in torch)."""
    if isinstance(tensors, np.ndarray):  # (a 0-d one's iteration is numpy's message)
        raise TypeError(f"cat(): argument 'tensors' (position 1) must be tuple of Tensors, not {type(tensors).__name__}")
    return _C.cat(tensors, dim)


concat = concatenate = cat


def stack(tensors, dim=0):
    return _C.stack(tensors, dim)


def split(tensor, split_size_or_sections, dim=0):
    return _C.split(tensor, split_size_or_sections, dim)


def chunk(input, chunks, dim=0):
    return _C.chunk(input, chunks, dim)


def unbind(input, dim=0):
    """The slices along `dim` (views); one autograd node whose backward stacks their gradients."""
    return _C.unbind(input, dim)


def movedim(input, source, destination):
    """A view with the dims `source` moved to positions `destination` (a permute)."""
    _C.check_tensor(input, "movedim", "input", 1)
    src, dst = _c.int_tuple("movedim", "source", source), _c.int_tuple("movedim", "destination", destination)
    if len(src) != len(dst):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({list(src)} dims) should contain "
                           f"the same number of dims as destination ({list(dst)} dims)")
    nd = max(input.dim(), 1)

    def wrap(d):
        if not -nd <= d < nd:
            raise IndexError(f"movedim: Dimension out of range (expected to be in range of [{-nd}, {nd - 1}], "
                             f"but got {d})")
        return d % nd

    src, dst = [wrap(d) for d in src], [wrap(d) for d in dst]
    for what, dims in (("source", src), ("destination", dst)):
        if len(set(dims)) != len(dims):
            raise RuntimeError(f"movedim: repeated dim in `{what}` ({list(dims)})")
    if input.dim() == 0:
        return input.view(())
    order = [None] * nd
    for s, d in zip(src, dst):
        order[d] = s
    rest = iter(d for d in range(nd) if d not in src)
    return input.permute(*[o if o is not None else next(rest) for o in order])


moveaxis = movedim


def swapaxes(input, axis0, axis1):
    return _C.check_tensor(input, "swapaxes").transpose(axis0, axis1)


swapdims = swapaxes


def diagonal(input, offset=0, dim1=0, dim2=1):
    """A view of the diagonal of the (dim1, dim2) planes, appended as the last dim (as torch.diagonal)."""
    nd = _C.check_tensor(input, "diagonal").dim()
    if type(offset) is not int or type(dim1) is not int or type(dim2) is not int:
        offset, dim1, dim2 = (_C.check_int(v, "diagonal", name, pos) for v, name, pos in
                              ((offset, "offset", 2), (dim1, "dim1", 3), (dim2, "dim2", 4)))
    # (the refusals name the op in progress too: diagonal_scatter, diag over this)
    if nd < 2:
        raise RuntimeError(_C.name_op_in_progress(f"diagonal: expected a tensor of at least 2 dimensions, got {nd}"))
    d1, d2 = dim1 % nd if -nd <= dim1 < nd else None, dim2 % nd if -nd <= dim2 < nd else None
    if d1 is None or d2 is None:
        raise IndexError(_C.name_op_in_progress(f"diagonal: Dimension out of range (expected to be in range of "
                                                f"[{-nd}, {nd - 1}], but got {dim1 if d1 is None else dim2})"))
    if d1 == d2:
        raise RuntimeError(_C.name_op_in_progress(f"diagonal dimensions cannot be identical {dim1}, {dim2}"))
    size, stride = list(input.shape), list(input.stride())
    n1, n2 = size[d1], size[d2]
    start = input.storage_offset()
    if offset >= 0:
        length = max(min(n1, n2 - offset), 0)
        start += offset * stride[d2] if length else 0
    else:
        length = max(min(n1 + offset, n2), 0)
        start += -offset * stride[d1] if length else 0
    keep = [d for d in range(nd) if d not in (d1, d2)]
    return input.as_strided([size[d] for d in keep] + [length], [stride[d] for d in keep] + [stride[d1] + stride[d2]],
                            start)


def take_along_dim(input, indices, dim=None):
    """input's values at `indices` along `dim` (broadcasting the other dims); dim None: of the flattened input."""
    _C.check_tensor(input, "take_along_dim")
    _C.check_tensor(indices, "take_along_dim", "indices", 2)
    if dim is not None:
        dim = _C.check_int(dim, "take_along_dim", "dim")
    if dim is None:
        return input.reshape(-1).gather(0, indices.reshape(-1))
    nd = input.dim()
    if indices.dim() != nd:
        raise RuntimeError(f"take_along_dim: input and indices should have the same number of dimensions, but got "
                           f"{nd} dimensions for input, and {indices.dim()} dimensions for indices")
    d = dim % nd if -nd <= dim < nd else dim
    if not 0 <= d < nd:
        raise IndexError(f"take_along_dim: Dimension out of range (expected to be in range of [{-nd}, {nd - 1}], "
                         f"but got {dim})")
    shape_in, shape_idx = list(input.shape), list(indices.shape)
    shape_in[d] = shape_idx[d] = 1
    from monoflow._C import broadcast_shapes
    b = list(broadcast_shapes(shape_in, shape_idx))
    bi, bx = list(b), list(b)
    bi[d], bx[d] = indices.shape[d], input.shape[d]
    return input.expand(*bx).gather(d, indices.expand(*bi))


def t(input):
    """Transposes a tensor of at most 2 dimensions (0-D and 1-D come back as a new view).

    Args:
        input (Tensor): a tensor with 0, 1 or 2 dimensions.

    Returns:
        Tensor: a view with dims 0 and 1 swapped.

    Example::

        >>> import monoflow as flow
        >>> flow.t(flow.arange(6).reshape(2, 3)).shape
        monoflow.Size([3, 2])
    """
    return _C.check_tensor(input, "t", "input").t()


def expand(input, *sizes):
    """OneFlow's ``oneflow.expand``: a view of `input` broadcast to `sizes` (-1 keeps a dim).

    Args:
        input (Tensor): the tensor to expand.
        *sizes (int or sequence of int): the new shape; new leading dims may be added.

    Returns:
        Tensor: a view sharing `input`'s memory.

    Example::

        >>> import monoflow as flow
        >>> flow.expand(flow.ones(3, 1), 2, 3, 4).shape
        monoflow.Size([2, 3, 4])
    """
    return _C.check_tensor(input, "expand", "input").expand(*sizes)


def repeat(input, *sizes):
    """OneFlow's ``oneflow.repeat``: `input` tiled `sizes[i]` times along each dim (a copy).

    Args:
        input (Tensor): the tensor to repeat.
        *sizes (int or sequence of int): repeats per dim, at least ``input.dim()`` of them.

    Returns:
        Tensor: the repeated tensor.

    Example::

        >>> import monoflow as flow
        >>> flow.repeat(flow.ones(2, 3), (2, 1, 2)).shape
        monoflow.Size([2, 2, 6])
    """
    return _C.check_tensor(input, "repeat", "input").repeat(*sizes)


def flip(input, dims):
    return _C.flip(input, dims)


def fliplr(input):
    if _C.check_tensor(input, "fliplr", "input", 1).dim() < 2:
        raise RuntimeError("fliplr: Input must be >= 2-d.")
    return _C.flip(input, (1,))


def flipud(input):
    if _C.check_tensor(input, "flipud", "input", 1).dim() < 1:
        raise RuntimeError("flipud: Input must be >= 1-d.")
    return _C.flip(input, (0,))


def roll(input, shifts, dims=None):
    return _C.roll(input, shifts, dims)


def tile(input, dims):
    return _C.tile(input, dims)


def tril(input, diagonal=0):
    return _C.tril(input, diagonal)


def triu(input, diagonal=0):
    return _C.triu(input, diagonal)


def gather(input, dim, index, *, sparse_grad=False):
    return _C.gather(input, dim, index)


def _scatter_src(op, src, value):
    if (src is None) == (value is None):
        raise TypeError(f"{op}(): expected exactly one of 'src' (a tensor) or 'value' (a number)")
    return src if src is not None else value


def _scatter(op, input, dim, index, src, value, reduce, inplace):
    src = _scatter_src(op, src, value)
    if reduce is None:
        return _C.scatter(input, dim, index, src, inplace)
    return _scatter_reduced(op, input, dim, index, src, reduce, inplace)


def _scatter_reduced(op, input, dim, index, src, reduce, inplace):
    """scatter(reduce='add' | 'multiply'), torch's and OneFlow's older form of scatter_reduce: src's
    values accumulate into input's instead of replacing them."""
    if reduce not in ("add", "multiply"):
        raise RuntimeError(f"{op}(): reduce argument must be either add or multiply.")
    if not isinstance(src, _C.TensorBase):
        src = _C._full(tuple(index.shape), src, input.dtype, input.device)
    if reduce == "add":
        return _C.scatter_add(input, dim, index, src, inplace)
    # multiply: one slice of index along dim at a time. Within a slice no two entries hit the same
    # element, so gather-multiply-scatter is exact, works inside a graph trace and has a gradient
    # (torch's has none: its backward raises).
    d = _c.wrap_dim(op, dim, input.dim())
    src = src[tuple(slice(0, n) for n in index.shape)]  # torch reads only the part index covers
    out = input
    for k in range(index.shape[d]):
        at = index.narrow(d, k, 1)
        out = _C.scatter(out, d, at, out.gather(d, at) * src.narrow(d, k, 1), inplace or k > 0)
    return out if out is not input or inplace else input.clone()


def scatter(input, dim, index, src=None, value=None, *, reduce=None):
    _C.check_tensor(input, "scatter", "input", 1)
    return _scatter("scatter", input, dim, index, src, value, reduce, False)


def scatter_add(input, dim, index, src):
    _C.check_tensor(input, "scatter_add", "input", 1)
    return _C.scatter_add(input, dim, index, src)


def index_select(input, dim, index):
    return _C.index_select(input, dim, index)


def _index_put_args(op, indices, accumulate, pos):
    # torch's argument checks (the binding's own message names index_put_)
    if not isinstance(indices, (tuple, list)):
        raise TypeError(f"{op}(): argument 'indices' (position {pos}) must be tuple of Tensors, not "
                        f"{type(indices).__name__}")
    _c.boolean(op, "accumulate", pos + 2, accumulate)


def index_put(input, indices, values, accumulate=False):
    _C.check_tensor(input, "index_put", "input", 1)
    _index_put_args("index_put", indices, accumulate, 2)
    return _C.index_put_(input.clone(), indices, values, accumulate)


def _bool_mask(mask):
    # OneFlow takes an integer or floating mask (its tests pass int8, and a float
    # triu(ones) to masked_select): nonzero selects. torch refuses those, so no
    # torch call changes meaning. A complex mask stays refused, by the core.
    if isinstance(mask, _C.TensorBase) and not mask.dtype.is_complex and mask.dtype != _dtypes.bool_:
        return mask != 0
    return mask


def _fill_mask(op, mask):
    # masked_fill takes an integer mask as OneFlow, never a floating one (torch and OneFlow refuse it)
    if isinstance(mask, _C.TensorBase) and mask.dtype.is_floating_point:
        raise RuntimeError(f"{op}(): mask type must be integral or bool, but got {mask.dtype} (only supports boolean "
                           f"masks)")
    return _bool_mask(mask)


def masked_fill(input, mask, value):
    return _C.masked_fill(input, _fill_mask("masked_fill", mask), value)


def masked_select(input, mask):
    return _C.masked_select(input, _bool_mask(mask))


def nonzero(input, as_tuple=False):
    """Indices of the non-zero elements; as_tuple may be positional (OneFlow's signature)."""
    return _C.nonzero(input, bool(as_tuple))


def one_hot(tensor, num_classes=-1, on_value=1, off_value=0):
    """torch.nn.functional.one_hot: int64 tensor with a new last dim of num_classes (-1: max + 1).
    OneFlow's ``on_value``/``off_value`` fill the hot and the other entries (int64 for int values,
    the default float dtype otherwise)."""
    out = _C.one_hot(tensor, num_classes)
    if (on_value, off_value) == (1, 0) and not isinstance(on_value, float) and not isinstance(off_value, float):
        return out
    ints = all(isinstance(v, int) and not isinstance(v, bool) for v in (on_value, off_value))
    dtype = out.dtype if ints else _C.get_default_dtype()
    on = _C._full((), on_value, dtype, out.device)
    off = _C._full((), off_value, dtype, out.device)
    return _C._where(out.bool(), on, off)


_core_pad = _C.pad  # the core's pad (monoflow._C.pad becomes pad below: see monoflow/__init__.py)


def pad(input, pad=None, mode="constant", value=None):
    """torch.nn.functional.pad: constant (with `value`, negative pads crop), reflect, replicate or circular."""
    # (OneFlow's wording for a missing pad after torch's: OneFlow programs look for it)
    missing = "pad() missing 1 required positional argument: 'pad'"
    if not isinstance(input, _C.TensorBase):
        t = type(input)
        name = t.__qualname__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__qualname__}"
        raise TypeError(f"pad(): argument 'input' (position 1) must be Tensor, not {name}"
                        + (f" (and {missing})" if pad is None else ""))
    if pad is None:
        raise TypeError(f"pad(): missing required argument 'pad' (position 2): {missing}")
    if mode != "constant" and value is not None and not isinstance(value, _C.TensorBase) and value == 0:
        value = None  # (a zero value is no value for the other modes, as torch and OneFlow take it)
    if mode == "circular":  # (the core's pad has no circular mode: wrap-around by slices, differentiable)
        if value is not None:
            raise RuntimeError("pad: Padding mode \"circular\" doesn't take in value argument")
        from monoflow.nn.modules.padding import _circular

        pad = tuple(pad)
        if len(pad) % 2 or len(pad) // 2 > input.dim():
            raise ValueError(f"pad(): padding length must be even and at most twice the input's dimensions, got "
                             f"{len(pad)} for a {input.dim()}-d input")
        return _circular(input, pad)
    return _core_pad(input, pad, mode, value)


class TensorMethods:
    """Mixed into monoflow.Tensor."""

    def split(self, split_size, dim=0):
        return _C.split(self, split_size, dim)

    def chunk(self, chunks, dim=0):
        return _C.chunk(self, chunks, dim)

    def unbind(self, dim=0):
        return _C.unbind(self, dim)

    def movedim(self, source, destination):
        return movedim(self, source, destination)

    moveaxis = movedim

    def swapaxes(self, axis0, axis1):
        return self.transpose(axis0, axis1)

    swapdims = swapaxes

    def diagonal(self, offset=0, dim1=0, dim2=1):
        return diagonal(self, offset, dim1, dim2)

    def take_along_dim(self, indices, dim=None):
        return take_along_dim(self, indices, dim)

    def flip(self, *dims, **kwargs):
        return _C.flip(self, _varargs_or_keyword(dims, kwargs, "dims", "flip"))

    def fliplr(self):
        return fliplr(self)

    def flipud(self):
        return flipud(self)

    def roll(self, shifts, dims=None):
        return _C.roll(self, shifts, dims)

    def repeat(self, *sizes, **kwargs):
        return _C.repeat(self, _varargs_or_keyword(sizes, kwargs, "repeats", "repeat"))

    def tile(self, *dims, **kwargs):
        return _C.tile(self, _varargs_or_keyword(dims, kwargs, "dims", "tile"))

    def tril(self, diagonal=0):
        return _C.tril(self, diagonal)

    def triu(self, diagonal=0):
        return _C.triu(self, diagonal)

    def tril_(self, diagonal=0):
        return _C.tril_(self, diagonal)

    def triu_(self, diagonal=0):
        return _C.triu_(self, diagonal)

    def gather(self, dim, index):
        return _C.gather(self, dim, index)

    def scatter(self, dim, index, src=None, value=None, *, reduce=None):
        return _scatter("scatter", self, dim, index, src, value, reduce, False)

    def scatter_(self, dim, index, src=None, value=None, *, reduce=None):
        return _scatter("scatter_", self, dim, index, src, value, reduce, True)

    def scatter_add(self, dim, index, src):
        return _C.scatter_add(self, dim, index, src)

    def scatter_add_(self, dim, index, src):
        return _C.scatter_add(self, dim, index, src, True)

    def index_select(self, dim, index):
        return _C.index_select(self, dim, index)

    def index_put_(self, indices, values, accumulate=False):
        return _C.index_put_(self, indices, values, accumulate)

    def index_put(self, indices, values, accumulate=False):
        _index_put_args("index_put", indices, accumulate, 1)
        return _C.index_put_(self.clone(), indices, values, accumulate)

    def masked_fill(self, mask, value):
        return _C.masked_fill(self, _fill_mask("masked_fill", mask), value)

    def masked_fill_(self, mask, value):
        return _C.masked_fill(self, _fill_mask("masked_fill_", mask), value, True)

    def masked_select(self, mask):
        return _C.masked_select(self, _bool_mask(mask))

    def nonzero(self, as_tuple=False):
        return _C.nonzero(self, bool(as_tuple))
