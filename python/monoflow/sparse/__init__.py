"""torch.sparse: the functions graph scripts call on sparse COO tensors (``torch.sparse.mm(adj, x)``,
``torch.sparse.sum(adj, dim=1)``, ``torch.sparse.softmax`` over the specified entries of an attention
matrix) and the legacy ``torch.sparse.FloatTensor(indices, values, size)`` constructors of older GCN
code. Sparse tensors are stored densely (see monoflow.ops_sparse): results agree with torch's values;
``sum`` over some dims gives a strided tensor where torch keeps a sparse one."""
import warnings

from monoflow import _C, _dtypes, ops_sparse
from monoflow._creation import zeros as _zeros
from monoflow.ops_reduce import log_softmax as _log_softmax, softmax as _softmax

__all__ = ["mm", "addmm", "sum", "softmax", "log_softmax", "FloatTensor", "DoubleTensor", "HalfTensor",
           "BFloat16Tensor", "LongTensor", "IntTensor", "ShortTensor", "CharTensor", "ByteTensor"]


def mm(mat1, mat2, reduce="sum"):
    """The matrix product of a sparse (or strided) ``mat1`` and ``mat2``, with autograd: dense for a dense
    ``mat2``, as torch. Only ``reduce="sum"`` (the product itself) is implemented."""
    if reduce != "sum":
        raise NotImplementedError(f"torch.sparse.mm(reduce={reduce!r}) is not implemented in monoflow; "
                                  "only reduce='sum'")
    for name, t in (("mat1", mat1), ("mat2", mat2)):
        if _C.check_tensor(t, "sparse.mm", name).dim() != 2:
            raise RuntimeError(f"sparse.mm: {name} must be a matrix, got a {t.dim()}-D tensor")
    return mat1.mm(mat2)


def addmm(mat, mat1, mat2, *, beta=1.0, alpha=1.0):
    """``beta * mat + alpha * (mat1 @ mat2)`` with a sparse ``mat1``: a strided result."""
    return mat * beta + mm(mat1, mat2) * alpha


def sum(input, dim=None, dtype=None):
    """The sum of a sparse tensor's entries (a 0-d tensor), or over ``dim`` (an int or a tuple)."""
    _C.check_tensor(input, "sparse.sum", "input")
    if dim is None:
        return input.sum(dtype=dtype)
    return input.sum(dim=dim, dtype=dtype)


def _specified(input):
    """A bool mask of the entries a sparse tensor stores (torch's softmax treats the others as -inf)."""
    if ops_sparse._coo(input) is None:
        raise RuntimeError(f"sparse softmax: expected a sparse COO tensor, got layout {input.layout}")
    idx = input.coalesce().indices()
    mask = input.new_zeros(tuple(input.shape), dtype=_dtypes.bool_)
    mask[tuple(idx)] = True
    return idx, mask


def _masked(op, fn, input, dim, dtype):
    idx, mask = _specified(input)
    x = input.to(dtype) if dtype is not None else input
    filled = x.masked_fill(~mask, float("-inf"))
    out = fn(filled, dim)
    values = out[tuple(idx)]
    return ops_sparse.sparse_coo_tensor(idx, values, tuple(input.shape), is_coalesced=True)


def softmax(input, dim, *, dtype=None):
    """Softmax of a sparse tensor along ``dim`` over its specified entries only (the others count as
    -inf and stay unspecified): a sparse result with the input's indices."""
    return _masked("softmax", _softmax, input, dim, dtype)


def log_softmax(input, dim, *, dtype=None):
    """Log-softmax of a sparse tensor along ``dim`` over its specified entries: a sparse result."""
    return _masked("log_softmax", _log_softmax, input, dim, dtype)


def _legacy(name, dtype):
    def constructor(*args, device=None):
        """torch.sparse.<Type>Tensor(indices, values, size) (deprecated in torch, as here): a sparse COO
        tensor of this dtype; with a size only, an empty one."""
        warnings.warn(f"torch.sparse.{name}(indices, values, shape, *, device=) is deprecated.  Please use "
                      "torch.sparse_coo_tensor(indices, values, shape, dtype=, device=).", UserWarning, stacklevel=2)
        if len(args) in (2, 3) and isinstance(args[0], _C.TensorBase):
            size = tuple(args[2]) if len(args) == 3 else None
            return ops_sparse.sparse_coo_tensor(args[0], args[1], size, dtype=dtype, device=device)
        if all(isinstance(a, int) for a in args) or (len(args) == 1 and isinstance(args[0], (tuple, list))):
            size = tuple(args[0]) if len(args) == 1 and not isinstance(args[0], int) else tuple(args)
            empty = _zeros((len(size), 0), dtype=_dtypes.int64)
            return ops_sparse.sparse_coo_tensor(empty, _zeros((0,), dtype=dtype), size, device=device)
        raise TypeError(f"torch.sparse.{name}(): expected (indices, values[, size]) or a size")

    constructor.__name__ = constructor.__qualname__ = name
    return constructor


for _name, _dt in (("FloatTensor", _dtypes.float32), ("DoubleTensor", _dtypes.float64),
                   ("HalfTensor", _dtypes.float16), ("BFloat16Tensor", _dtypes.bfloat16),
                   ("LongTensor", _dtypes.int64), ("IntTensor", _dtypes.int32), ("ShortTensor", _dtypes.int16),
                   ("CharTensor", _dtypes.int8), ("ByteTensor", _dtypes.uint8)):
    globals()[_name] = _legacy(_name, _dt)
del _name, _dt
