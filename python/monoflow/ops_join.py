"""Joining, splitting and broadcasting, composed of the core's cat/stack,
views and expand: hstack/vstack/dstack/column_stack, atleast_Nd,
tensor_split and h/v/dsplit, broadcast_tensors/broadcast_to, meshgrid,
cartesian_prod, block_diag and kron. All differentiable through the views
and cat they are made of."""
import numbers

from monoflow import _C
from monoflow import _composite as _c

__all__ = ["atleast_1d", "atleast_2d", "atleast_3d", "hstack", "vstack", "row_stack", "dstack", "column_stack",
           "tensor_split", "hsplit", "vsplit", "dsplit", "split_with_sizes", "broadcast_tensors", "broadcast_to",
           "meshgrid", "cartesian_prod", "block_diag", "kron"]


def _tensors(op, tensors):
    if isinstance(tensors, _C.TensorBase):
        raise TypeError(f"{op}(): argument 'tensors' must be a tuple or list of Tensors, not Tensor")
    try:
        tensors = list(tensors)
    except TypeError:
        raise TypeError(f"{op}(): argument 'tensors' must be a tuple or list of Tensors, "
                        f"not {type(tensors).__name__}") from None
    for i, t in enumerate(tensors):
        if not isinstance(t, _C.TensorBase):
            raise TypeError(f"{op}(): expected Tensor as element {i} in argument 0, but got {type(t).__name__}")
    return tensors


def _atleast(op, nd, args):
    single = len(args) == 1 and isinstance(args[0], _C.TensorBase)
    ts = _tensors(op, args[0] if len(args) == 1 and not single else args)
    out = []
    for t in ts:
        if t.dim() < nd:
            if nd == 3 and t.dim() == 2:
                t = t.unsqueeze(-1)
            elif nd == 3 and t.dim() == 1:
                t = t.reshape(1, -1, 1)
            else:
                t = t.reshape((1,) * (nd - t.dim()) + tuple(t.shape))
        out.append(t)
    return out[0] if single else tuple(out)


def atleast_1d(*tensors):
    return _atleast("atleast_1d", 1, tensors)


def atleast_2d(*tensors):
    return _atleast("atleast_2d", 2, tensors)


def atleast_3d(*tensors):
    return _atleast("atleast_3d", 3, tensors)


def hstack(tensors):
    """Concatenates along dim 1 (dim 0 for 1-D tensors)."""
    ts = [atleast_1d(t) for t in _tensors("hstack", tensors)]
    return _C.cat(ts, 0 if ts and ts[0].dim() == 1 else 1)


def vstack(tensors):
    """Concatenates along dim 0, 1-D tensors taken as rows."""
    return _C.cat([atleast_2d(t) for t in _tensors("vstack", tensors)], 0)


row_stack = vstack


def dstack(tensors):
    """Concatenates along dim 2 (depth), after atleast_3d."""
    return _C.cat([atleast_3d(t) for t in _tensors("dstack", tensors)], 2)


def column_stack(tensors):
    """Concatenates along dim 1, 0-D and 1-D tensors taken as columns."""
    ts = [t.reshape(t.numel(), 1) if t.dim() <= 1 else t for t in _tensors("column_stack", tensors)]
    return _C.cat(ts, 1)


_MAX_EMPTY_SECTIONS = 1 << 16


def tensor_split(input, indices_or_sections=None, dim=0, *, sections=None, indices=None,
                 tensor_indices_or_sections=None):
    """Views of input split into `sections` near-equal parts (the first ones
    one longer) or at the given indices, as numpy.array_split. torch's overloads
    name the split by keyword (``sections=``, ``indices=``,
    ``tensor_indices_or_sections=``); OneFlow's by ``indices_or_sections``."""
    _C.check_tensor(input, "tensor_split", "input", 1)
    given = [v for v in (indices_or_sections, sections, indices, tensor_indices_or_sections) if v is not None]
    if len(given) != 1:
        raise TypeError("tensor_split(): expected exactly one of indices_or_sections, sections, indices or "
                        f"tensor_indices_or_sections, got {len(given)}")
    indices_or_sections = given[0]
    if input.dim() == 0:
        raise RuntimeError("tensor_split(): expected at least a 1-dimensional tensor, but got a tensor with 0 dims")
    d = _c.wrap_dim("tensor_split", dim, input.dim())
    n = input.shape[d]
    ios = indices_or_sections
    if isinstance(ios, _C.TensorBase):
        if ios.dtype.is_floating_point or ios.dim() > 1:
            raise RuntimeError(_C.name_op_in_progress("tensor_split expected tensor_indices_or_sections to be a "
                                                      "zero-dimensional or one-dimensional tensor of integers"))
        ios = int(ios.item()) if ios.dim() == 0 else [int(v) for v in ios.tolist()]
    if not isinstance(ios, numbers.Integral):
        ios = _c.int_tuple("tensor_split", "indices_or_sections", ios)
    if isinstance(ios, numbers.Integral):
        if ios <= 0:
            raise RuntimeError(f"tensor_split(): number of sections must be larger than 0, got {ios}")
        if ios > max(n, _MAX_EMPTY_SECTIONS):  # past n the parts are empty views; millions of them are a mistake
            raise ValueError(f"tensor_split(): {ios} sections of a dimension of size {n} would make {ios} tensors; "
                             f"ask for at most {max(n, _MAX_EMPTY_SECTIONS)}")
        base, extra = divmod(n, ios)
        bounds, start = [], 0
        for i in range(ios):
            size = base + (1 if i < extra else 0)
            bounds.append((start, start + size))
            start += size
    else:
        cuts = [0] + [min(max(int(i) if i >= 0 else n + int(i), 0), n) for i in ios] + [n]
        bounds = [(cuts[i], max(cuts[i + 1], cuts[i])) for i in range(len(cuts) - 1)]
    return tuple(input.narrow(d, s, e - s) for s, e in bounds)


def _split_dim(op, input, sections, dim):
    if not isinstance(sections, (numbers.Integral, _C.TensorBase)):
        sections = _c.int_tuple(op, "indices_or_sections", sections)
    elif isinstance(sections, numbers.Integral):
        n = input.shape[dim]
        if sections < 0:
            raise RuntimeError(f"{op}(): number of sections must be larger than 0, got {sections}")
        if sections == 0 or n % sections:
            raise RuntimeError(f"torch.{op} attempted to split along dimension {dim}, but the size of the dimension "
                               f"{n} is not divisible by the split_size {sections}!")
    try:
        return tensor_split(input, sections, dim)
    except (TypeError, ValueError, RuntimeError) as e:  # tensor_split's words would name tensor_split
        msg = str(e)
        if e.args != (msg,) or not msg.startswith("tensor_split(): "):
            raise
        raise type(e)(f"{op}(): {msg[len('tensor_split(): '):]}") from None


def hsplit(input, indices_or_sections):
    _C.check_tensor(input, "hsplit", "input", 1)
    if input.dim() < 1:
        raise RuntimeError(f"torch.hsplit requires a tensor with at least 1 dimension, but got a tensor with "
                           f"{input.dim()} dimensions!")
    return _split_dim("hsplit", input, indices_or_sections, 1 if input.dim() > 1 else 0)


def vsplit(input, indices_or_sections):
    _C.check_tensor(input, "vsplit", "input", 1)
    if input.dim() < 2:
        raise RuntimeError(f"torch.vsplit requires a tensor with at least 2 dimension, but got a tensor with "
                           f"{input.dim()} dimensions!")
    return _split_dim("vsplit", input, indices_or_sections, 0)


def dsplit(input, indices_or_sections):
    _C.check_tensor(input, "dsplit", "input", 1)
    if input.dim() < 3:
        raise RuntimeError(f"torch.dsplit requires a tensor with at least 3 dimension, but got a tensor with "
                           f"{input.dim()} dimensions!")
    return _split_dim("dsplit", input, indices_or_sections, 2)


def split_with_sizes(input, split_sizes, dim=0):
    _C.check_tensor(input, "split_with_sizes", "input", 1)
    if not isinstance(split_sizes, (tuple, list, _C.TensorBase)):  # (int_tuple takes one int; torch does not)
        raise TypeError(f"split_with_sizes(): argument 'split_sizes' (position 2) must be tuple of ints, not "
                        f"{type(split_sizes).__name__}")
    sizes = list(_c.int_tuple("split_with_sizes", "split_sizes", split_sizes))
    if input.dim() == 0:
        raise RuntimeError("split_with_sizes(): split expects at least a 1-dimensional tensor")
    d = _c.wrap_dim("split_with_sizes", dim, input.dim())
    if sum(sizes) != input.shape[d]:
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {input.shape[d]} (input "
                           f"tensor's size at dimension {dim}), but got split_sizes={sizes}")
    return _C.split(input, sizes, d)


def broadcast_to(input, size):
    """A view of input expanded to `size` (-1 keeps a dim)."""
    _C.check_tensor(input, "broadcast_to", "input", 1)
    return input.expand(_c.int_tuple("broadcast_to", "size", size))


def broadcast_shapes(*shapes):
    """The shape the given shapes broadcast to (as torch.broadcast_shapes)."""
    try:
        return _C.broadcast_shapes(*shapes)
    except TypeError as e:  # (a shape that is not a sequence of ints)
        if "broadcast_shapes" in str(e):
            raise
        raise TypeError(f"broadcast_shapes(): {e}") from None
    except RuntimeError as e:  # (OneFlow's phrase too)
        raise type(e)(f"{e} (input and other can't be broadcasted to a single shape.)") from None


def broadcast_tensors(*tensors):
    """Views of the tensors expanded to their common broadcast shape."""
    ts = _tensors("broadcast_tensors", tensors[0] if len(tensors) == 1 and not isinstance(tensors[0],
                                                                                          _C.TensorBase)
                  else tensors)
    try:
        shape = _C.broadcast_shapes(*[tuple(t.shape) for t in ts])
    except RuntimeError as e:
        raise type(e)(f"{e} (input and other can't be broadcasted to a single shape.)") from None
    return tuple(t.expand(shape) for t in ts)


def meshgrid(*tensors, indexing=None):
    """Coordinate grids of 0-D/1-D tensors; indexing 'ij' (the default, as in
    OneFlow) or 'xy' (the first two dims swapped)."""
    ts = _tensors("meshgrid", tensors[0] if len(tensors) == 1 and not isinstance(tensors[0], _C.TensorBase)
                  else tensors)
    if indexing is None:
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise ValueError(f"meshgrid: indexing must be one of 'xy' or 'ij', but received: {indexing}")
    if not ts:
        raise RuntimeError("meshgrid: meshgrid expects a non-empty TensorList")
    for t in ts:
        if t.dim() > 1:
            raise RuntimeError(f"meshgrid: Expected 0D or 1D tensor in the tensor list but got: {t.dim()}D "
                               f"(Expected scalar or 1D tensor in the tensor list)")
    if any(t.is_global for t in ts) and not all(t.is_global for t in ts):
        raise RuntimeError("meshgrid: meshgrid expects all tensors are global tensor, or all local (got both global "
                           "and local tensors)")
    if ts and any(t.dtype != ts[0].dtype for t in ts):
        raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    flat = [t.reshape(-1) for t in ts]
    swap = indexing == "xy" and len(flat) >= 2
    if swap:
        flat[0], flat[1] = flat[1], flat[0]
    shape = tuple(t.shape[0] for t in flat)
    grids = []
    for i, t in enumerate(flat):
        view = [1] * len(flat)
        view[i] = -1
        grids.append(t.reshape(view).expand(shape))
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


def cartesian_prod(*tensors):
    """The rows of all combinations of the 1-D tensors' elements (itertools.product order)."""
    ts = _tensors("cartesian_prod", tensors)
    if not ts:
        raise RuntimeError("cartesian_prod: meshgrid expects a non-empty TensorList")
    for t in ts:
        if t.dim() != 1:
            raise RuntimeError(f"cartesian_prod: Expect a 1D vector, but got shape {list(t.shape)}")
    if len(ts) == 1:
        return ts[0]
    return _C.stack([g.reshape(-1) for g in meshgrid(*ts, indexing="ij")], 1)


def block_diag(*tensors):
    """A 2-D tensor with the (0-D, 1-D or 2-D) inputs along its diagonal and zeros elsewhere."""
    ts = _tensors("block_diag", tensors)
    mats = []
    for i, t in enumerate(ts):
        if t.dim() > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {i} has "
                               f"{t.dim()} dimensions")
        mats.append(t.reshape(1, -1) if t.dim() < 2 else t)
    if not mats:
        return _C._empty((1, 0), _C.get_default_dtype(), None)
    dt = mats[0].dtype
    for m in mats[1:]:
        dt = _C.promote_types(dt, m.dtype)
    width = sum(m.shape[1] for m in mats)
    rows, left = [], 0
    for m in mats:
        r, c = m.shape
        parts = []
        if left:
            parts.append(_C._full((r, left), 0, dt, m.device))
        parts.append(m.to(dt))
        if width - left - c:
            parts.append(_C._full((r, width - left - c), 0, dt, m.device))
        rows.append(_C.cat(parts, 1) if len(parts) > 1 else parts[0])
        left += c
    return _C.cat(rows, 0)


def kron(input, other):
    """The Kronecker product: result[i*p + k, j*q + l, ...] = input[i, j, ...] * other[k, l, ...]."""
    _C.check_tensor(input, "kron", "input", 1)
    _C.check_tensor(other, "kron", "other", 2)
    a, b = input, other
    nd = max(a.dim(), b.dim())
    a = a.reshape((1,) * (nd - a.dim()) + tuple(a.shape))
    b = b.reshape((1,) * (nd - b.dim()) + tuple(b.shape))
    a_view, b_view = [], []
    for sa, sb in zip(a.shape, b.shape):
        a_view += [sa, 1]
        b_view += [1, sb]
    out = a.reshape(a_view) * b.reshape(b_view)
    return out.reshape([sa * sb for sa, sb in zip(a.shape, b.shape)])


class TensorMethods:
    """Mixed into monoflow.Tensor."""

    def tensor_split(self, indices_or_sections=None, dim=0, *, sections=None, indices=None,
                     tensor_indices_or_sections=None):
        return tensor_split(self, indices_or_sections, dim, sections=sections, indices=indices,
                            tensor_indices_or_sections=tensor_indices_or_sections)

    def hsplit(self, indices_or_sections):
        return hsplit(self, indices_or_sections)

    def vsplit(self, indices_or_sections):
        return vsplit(self, indices_or_sections)

    def dsplit(self, indices_or_sections):
        return dsplit(self, indices_or_sections)

    def split_with_sizes(self, split_sizes, dim=0):
        return split_with_sizes(self, split_sizes, dim)

    def broadcast_to(self, size):
        return broadcast_to(self, size)

    def kron(self, other):
        return kron(self, other)
