"""The shape ops: functions (monoflow.<name>) and the matching Tensor methods.

Joining and splitting (cat, stack, split, chunk, unbind), reordering (flip,
roll, repeat, tile, tril, triu), gathering and scattering (gather, scatter,
scatter_add, index_select, index_put, one_hot), masks (masked_fill,
masked_select, nonzero) and pad, with PyTorch's semantics. Indexing itself
(tensor[...]) lives in TensorBase.__getitem__/__setitem__ (_ops_shape.pxi)."""
import numbers

from monoflow import _C

__all__ = ["cat", "concat", "concatenate", "stack", "split", "chunk", "unbind", "flip", "fliplr", "flipud", "roll",
           "tile", "tril", "triu", "gather", "scatter", "scatter_add", "index_select", "index_put", "masked_fill",
           "masked_select", "nonzero", "one_hot", "pad"]


def _varargs(args, what):
    """f(1, 2) and f((1, 2)) / f([1, 2]) both mean the sequence (1, 2)."""
    if len(args) == 1 and not isinstance(args[0], numbers.Integral):
        if not hasattr(args[0], "__iter__"):
            raise TypeError(f"{what}(): expected integers or one sequence of integers, got {type(args[0]).__name__}")
        return tuple(args[0])
    return tuple(args)


def cat(tensors, dim=0):
    """Concatenates along an existing dim, promoting dtypes (1-D empty inputs are skipped, as in torch)."""
    return _C.cat(tensors, dim)


concat = concatenate = cat


def stack(tensors, dim=0):
    return _C.stack(tensors, dim)


def split(tensor, split_size_or_sections, dim=0):
    return _C.split(tensor, split_size_or_sections, dim)


def chunk(input, chunks, dim=0):
    return _C.chunk(input, chunks, dim)


def unbind(input, dim=0):
    if input.dim() == 0:
        raise IndexError("unbind: Dimension specified as 0 but tensor has no dimensions")
    return tuple(input.select(dim, i) for i in range(input.size(dim)))


def flip(input, dims):
    return _C.flip(input, dims)


def fliplr(input):
    if input.dim() < 2:
        raise RuntimeError("fliplr: Input must be >= 2-d.")
    return _C.flip(input, (1,))


def flipud(input):
    if input.dim() < 1:
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


def _scatter_src(op, src, value, reduce):
    if reduce is not None:
        raise NotImplementedError(f"{op}: the reduce argument is not supported; use scatter_add for 'add'")
    if (src is None) == (value is None):
        raise TypeError(f"{op}(): expected exactly one of 'src' (a tensor) or 'value' (a number)")
    return src if src is not None else value


def scatter(input, dim, index, src=None, value=None, *, reduce=None):
    return _C.scatter(input, dim, index, _scatter_src("scatter", src, value, reduce))


def scatter_add(input, dim, index, src):
    return _C.scatter_add(input, dim, index, src)


def index_select(input, dim, index):
    return _C.index_select(input, dim, index)


def index_put(input, indices, values, accumulate=False):
    return _C.index_put_(input.clone(), indices, values, accumulate)


def masked_fill(input, mask, value):
    return _C.masked_fill(input, mask, value)


def masked_select(input, mask):
    return _C.masked_select(input, mask)


def nonzero(input, *, as_tuple=False):
    return _C.nonzero(input, as_tuple)


def one_hot(tensor, num_classes=-1):
    """torch.nn.functional.one_hot: int64 tensor with a new last dim of num_classes (-1: max + 1)."""
    return _C.one_hot(tensor, num_classes)


def pad(input, pad, mode="constant", value=None):
    """torch.nn.functional.pad: constant (with `value`, negative pads crop), reflect or replicate."""
    return _C.pad(input, pad, mode, value)


class TensorMethods:
    """Mixed into monoflow.Tensor."""

    def split(self, split_size, dim=0):
        return _C.split(self, split_size, dim)

    def chunk(self, chunks, dim=0):
        return _C.chunk(self, chunks, dim)

    def unbind(self, dim=0):
        return unbind(self, dim)

    def flip(self, *dims):
        return _C.flip(self, _varargs(dims, "flip"))

    def fliplr(self):
        return fliplr(self)

    def flipud(self):
        return flipud(self)

    def roll(self, shifts, dims=None):
        return _C.roll(self, shifts, dims)

    def repeat(self, *sizes):
        return _C.repeat(self, _varargs(sizes, "repeat"))

    def tile(self, *dims):
        return _C.tile(self, _varargs(dims, "tile"))

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
        return _C.scatter(self, dim, index, _scatter_src("scatter", src, value, reduce))

    def scatter_(self, dim, index, src=None, value=None, *, reduce=None):
        return _C.scatter(self, dim, index, _scatter_src("scatter_", src, value, reduce), True)

    def scatter_add(self, dim, index, src):
        return _C.scatter_add(self, dim, index, src)

    def scatter_add_(self, dim, index, src):
        return _C.scatter_add(self, dim, index, src, True)

    def index_select(self, dim, index):
        return _C.index_select(self, dim, index)

    def index_put_(self, indices, values, accumulate=False):
        return _C.index_put_(self, indices, values, accumulate)

    def index_put(self, indices, values, accumulate=False):
        return _C.index_put_(self.clone(), indices, values, accumulate)

    def masked_fill(self, mask, value):
        return _C.masked_fill(self, mask, value)

    def masked_fill_(self, mask, value):
        return _C.masked_fill(self, mask, value, True)

    def masked_select(self, mask):
        return _C.masked_select(self, mask)

    def nonzero(self, *, as_tuple=False):
        return _C.nonzero(self, as_tuple)
