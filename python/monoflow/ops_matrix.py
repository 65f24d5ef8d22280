"""Matrix products beyond ops_linalg (baddbmm, addbmm, addmv, addr,
tensordot, inner, chain_matmul, cdist, dist) and torch's top-level names of
the linalg functions (det, inverse, logdet, slogdet, cholesky, qr, svd,
pinverse, matrix_power, matrix_exp, cross, ...), with their Tensor methods.
All compose matmul and monoflow.linalg."""
import math
import numbers

from monoflow import _C, _autocast
from monoflow import _composite as _c
from monoflow import ops_math as _m

__all__ = ["baddbmm", "addbmm", "addmv", "addr", "tensordot", "inner", "chain_matmul", "cdist", "dist", "det",
           "inverse", "logdet", "slogdet", "cholesky", "cholesky_solve", "cholesky_inverse", "qr", "svd", "pinverse",
           "matrix_power", "matrix_exp", "cross"]


def _linalg():
    from monoflow import linalg

    return linalg


def _scaled_sum(input, prod, beta, alpha, op, same_dtype=True):
    # as torch: input is expanded to the product's shape (never the other way) and, except for addr,
    # has the product's dtype; checked before beta == 0 drops it
    _C.check_tensor(input, op, "input", 1)
    if _C.broadcast_shapes(tuple(input.shape), tuple(prod.shape)) != tuple(prod.shape):
        raise RuntimeError(f"{op}: input of shape {list(input.shape)} cannot be expanded to the product's shape "
                           f"{list(prod.shape)}")
    if same_dtype and input.dtype != prod.dtype:
        raise RuntimeError(f"{op}: input tensors must have the same dtype, but got input {input.dtype} and "
                           f"a product of {prod.dtype}")
    if alpha != 1:
        prod = prod * alpha
    if beta == 0:  # input is ignored, even its NaNs (as in torch)
        return prod
    if not input.dtype.is_floating_point and (isinstance(beta, float) or isinstance(alpha, float)):
        raise RuntimeError(f"{op}: for integral input tensors, argument beta must not be a floating point number.")
    return prod + (input if beta == 1 else input * beta)


def _need(op, **tensors):
    for name, (t, nd) in tensors.items():
        if not isinstance(t, _C.TensorBase):
            raise TypeError(f"{op}(): argument '{name}' must be Tensor, not {type(t).__name__}")
        if t.dim() != nd:
            raise RuntimeError(f"{op}: {name} must be a {nd}D tensor, got {t.dim()}D")


@_autocast.lower
def baddbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """beta * input + alpha * (batch1 @ batch2), batched."""
    _need("baddbmm", batch1=(batch1, 3), batch2=(batch2, 3))
    return _scaled_sum(input, batch1.matmul(batch2), beta, alpha, "baddbmm")


@_autocast.lower
def addbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """beta * input + alpha * sum_b(batch1[b] @ batch2[b])."""
    _need("addbmm", batch1=(batch1, 3), batch2=(batch2, 3))
    return _scaled_sum(input, batch1.matmul(batch2).sum(0), beta, alpha, "addbmm")


@_autocast.native
def addmv(input, mat, vec, *, beta=1, alpha=1):
    """beta * input + alpha * (mat @ vec)."""
    _need("addmv", mat=(mat, 2), vec=(vec, 1))
    return _scaled_sum(input, mat.matmul(vec), beta, alpha, "addmv")


@_autocast.native
def addr(input, vec1, vec2, *, beta=1, alpha=1):
    """beta * input + alpha * outer(vec1, vec2)."""
    _need("addr", vec1=(vec1, 1), vec2=(vec2, 1))
    return _scaled_sum(input, vec1.unsqueeze(1) * vec2.unsqueeze(0), beta, alpha, "addr", same_dtype=False)


def tensordot(a, b, dims=2):
    """Contracts the last `dims` dims of a with the first of b, or the dim
    lists given as dims=([a dims], [b dims]) (a matmul of the reshaped operands)."""
    _C.check_tensor(a, "tensordot", "a", 1)
    _C.check_tensor(b, "tensordot", "b", 2)
    if isinstance(dims, _C.TensorBase):
        dims = dims.tolist() if dims.dim() else int(dims.item())
    if isinstance(dims, numbers.Integral):
        dims = _C.check_int(dims, "tensordot", "dims", 3)
        if dims < 0:
            raise RuntimeError(f"tensordot(): tensordot expects dims >= 0, but got dims={dims}")
        if dims > min(a.dim(), b.dim()):
            raise RuntimeError(f"tensordot(): dims ({dims}) exceeds the number of dimensions of an operand "
                               f"({a.dim()} and {b.dim()})")
        da, db = list(range(a.dim() - dims, a.dim())), list(range(dims))
    else:
        try:
            pair = list(dims)
        except TypeError:
            pair = None
        if pair is None or len(pair) != 2:
            raise TypeError(f"tensordot(): argument 'dims' must be int or a pair of dim lists, not "
                            f"{type(dims).__name__}")
        da, db = (list(_c.int_tuple("tensordot", "dims", d)) for d in pair)
    if len(da) != len(db):
        raise RuntimeError("tensordot(): both dimension lists should have same length")
    da = [_c.wrap_dim("tensordot", d, a.dim()) for d in da]
    db = [_c.wrap_dim("tensordot", d, b.dim()) for d in db]
    for dl in (da, db):  # (torch's check; without it the permute below fails with an unrelated message)
        for d in dl:
            if dl.count(d) > 1:
                raise RuntimeError(f"tensordot(): dim {d} appears multiple times in the list of dims")
    if (da and a.dim() == 0) or (db and b.dim() == 0):
        raise IndexError("tensordot(): a 0-dim operand has no dimension to contract")
    for x, y in zip(da, db):
        if a.shape[x] != b.shape[y]:
            raise RuntimeError(f"tensordot(): contracted dimensions need to match, but first has size {a.shape[x]} in "
                               f"dim {x} and second has size {b.shape[y]} in dim {y}")
    free_a = [d for d in range(a.dim()) if d not in da]
    free_b = [d for d in range(b.dim()) if d not in db]
    k = m = n = 1  # (sizes, not -1: reshape cannot infer a size beside a 0-size contraction)
    for d in da:
        k *= a.shape[d]
    for d in free_a:
        m *= a.shape[d]
    for d in free_b:
        n *= b.shape[d]
    am = a.permute(free_a + da).reshape(m, k)
    bm = b.permute(db + free_b).reshape(k, n)
    return am.matmul(bm).reshape([a.shape[d] for d in free_a] + [b.shape[d] for d in free_b])


def inner(input, other):
    """The sum of products over the last dims (a product for 0-D operands)."""
    _C.check_tensor(input, "inner", "input", 1)
    _C.check_tensor(other, "inner", "other", 2)
    if input.dim() == 0 or other.dim() == 0:
        return input * other
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but got shapes "
                           f"{list(input.shape)} and {list(other.shape)}")
    return tensordot(input, other, ([-1], [-1]))


def chain_matmul(*matrices):
    for i, m in enumerate(matrices):
        if not isinstance(m, _C.TensorBase):
            raise TypeError(f"chain_matmul(): expected Tensor as element {i} in argument 0, but got {type(m).__name__}")
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    if len(matrices) == 1:
        if matrices[0].dim() != 2:
            raise RuntimeError(f"chain_matmul(): Tensor dimension is {matrices[0].dim()}, expected 2 instead.")
        return matrices[0].clone()
    return _linalg().multi_dot(matrices)


@_autocast.fp32
def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """Pairwise p-norm distances between the rows of x1 (..., P, M) and x2 (..., R, M)."""
    _C.check_tensor(x1, "cdist", "x1", 1)
    _C.check_tensor(x2, "cdist", "x2", 2)
    for name, t in (("X1", x1), ("X2", x2)):  # (as torch: integers were computed, and truncated, in their dtype)
        if not (t.dtype.is_floating_point or t.dtype.is_complex):
            raise RuntimeError(f"cdist only supports floating-point dtypes, {name} got: {t.dtype}")
    if x1.dim() < 2 or x2.dim() < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: {x1.dim()}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: {x2.shape[-1]}")
    if p < 0:
        raise RuntimeError(f"cdist only supports non-negative p values, got {p}")
    diff = x1.unsqueeze(-2) - x2.unsqueeze(-3)  # (..., P, R, M)
    if p == 0:
        # torch's count: min(ceil(|d|), 1) summed: a NaN (or inf - inf) entry gives NaN, and the
        # result stays in the graph with a zero gradient (a comparison would cut it off)
        return diff.abs().ceil().clamp(max=1).sum(-1)
    # the norm's gradient at a zero difference is 0, as torch's cdist gives
    return _C.reduce_vector_norm(diff, float(p), (-1,), False, None)


def dist(input, other, p=2):
    """The p-norm of input - other."""
    _C.check_tensor(input, "dist", "input", 1)
    _C.check_tensor(other, "dist", "other", 2)
    return _C.reduce_vector_norm(input - other, _c.number("dist", "p", 3, p), None, False, None)


def det(input):
    return _linalg().det(input)


def inverse(input):
    return _linalg().inv(_C.check_tensor(input, "inverse", "input", 1))


def logdet(input):
    """log(det) (NaN for a negative determinant, -inf for zero)."""
    _C.check_tensor(input, "logdet", "input", 1)
    sign, logabs = _linalg().slogdet(input)
    return _m.where(sign < 0, math.nan, _m.where(sign == 0, -math.inf, logabs))


def slogdet(input):
    return _linalg().slogdet(input)


def cholesky(input, upper=False):
    return _linalg().cholesky(input, upper=upper)


def cholesky_solve(B, L, upper=False):
    """X with (L L^T) X = B given the Cholesky factor L (U^T U with upper=True)."""
    _C.check_tensor(B, "cholesky_solve", "input", 1)
    _C.check_tensor(L, "cholesky_solve", "input2", 2)
    _c.boolean("cholesky_solve", "upper", 3, upper)
    # torch's checks, in its order (a half or an integer dtype has no solver)
    for what, t in (("b", B), ("A", L)):
        if t.dim() < 2:
            raise RuntimeError(f"cholesky_solve(): {what} should have at least 2 dimensions, but has {t.dim()} "
                               f"dimensions instead")
    if B.dtype != L.dtype:
        raise RuntimeError(f"cholesky_solve(): Expected b and A to have the same dtype, but found b of type "
                           f"{B.dtype} and A of type {L.dtype} instead.")
    if B.dtype.name not in ("float32", "float64", "complex64", "complex128"):
        raise NotImplementedError(f"cholesky_solve(): not implemented for '{B.dtype}'")
    return _linalg()._cholesky_solve(B, L, upper)


def cholesky_inverse(L, upper=False):
    _C.check_tensor(L, "cholesky_inverse", "input", 1)
    _c.boolean("cholesky_inverse", "upper", 2, upper)
    if L.dim() < 2:
        raise RuntimeError("cholesky_inverse: The input tensor A must have at least 2 dimensions.")
    n = L.shape[-1]
    zero = (L.diagonal(0, -2, -1) == 0).reshape(-1, n).numpy() if L.numel() else None
    if zero is not None and zero.any():  # torch's error: the inverse does not exist
        b, k = divmod(int(zero.argmax()), n)
        batch = f"(Batch element {b}): " if L.dim() > 2 else ""
        raise _linalg().LinAlgError(f"cholesky_inverse: {batch}The diagonal element {k + 1} is zero, the inversion "
                                    f"could not be completed because the input matrix is singular.")
    return cholesky_solve(_C._eye(n, n, L.dtype, L.device).expand(tuple(L.shape)), L, upper)


def qr(input, some=True):
    _c.boolean("qr", "some", 2, some)  # (an array's truth value would be asked)
    return _linalg().qr(input, "reduced" if some else "complete")


def svd(input, some=True, compute_uv=True):
    """torch.svd: (U, S, V) with V (not Vh); reduced unless some=False."""
    _C.check_tensor(input, "svd", "input", 1)
    _c.boolean("svd", "some", 2, some)
    _c.boolean("svd", "compute_uv", 3, compute_uv)
    U, S, Vh = _linalg().svd(input, full_matrices=not some)
    V = Vh.transpose(-2, -1)
    if not compute_uv:  # zero-filled U and V, as torch
        return (_C._full(tuple(U.shape), 0, U.dtype, U.device), S, _C._full(tuple(V.shape), 0, V.dtype, V.device))
    return U, S, V


def pinverse(input, rcond=1e-15):
    _C.check_tensor(input, "pinverse", "input", 1)
    rcond = _C.check_float(rcond, "pinverse", "rcond", 2)  # (a non-number met Python's '*' message)
    return _linalg().pinv(input, rtol=rcond)


def matrix_power(input, n):
    _C.check_tensor(input, "matrix_power", "input", 1)
    return _linalg().matrix_power(input, _C.check_int(n, "matrix_power", "n", 2))


def matrix_exp(input):
    return _linalg().matrix_exp(input)


def cross(input, other, dim=None):
    """The cross product along dim (default: the first dim of size 3)."""
    _C.check_tensor(input, "cross", "input", 1)
    _C.check_tensor(other, "cross", "other", 2)
    if dim is not None:
        nd = len(_C.broadcast_shapes(tuple(input.shape), tuple(other.shape)))
        if nd == 0:
            raise IndexError(f"cross(): Dimension specified as {dim} but tensor has no dimensions")
        dim = _c.wrap_dim("cross", dim, nd)
    else:
        shape = _C.broadcast_shapes(tuple(input.shape), tuple(other.shape))
        dim = next((i for i, s in enumerate(shape) if s == 3), None)
        if dim is None:  # (torch's words, with the op named)
            raise RuntimeError("cross(): no dimension of size 3 in input")
    return _linalg().cross(input, other, dim=dim)


class TensorMethods:
    """Mixed into monoflow.Tensor."""

    def inner(self, other):
        return inner(self, other)

    def dist(self, other, p=2):
        return dist(self, other, p)


for _fn in (baddbmm, addbmm, addmv, addr, det, inverse, logdet, slogdet, cholesky, cholesky_solve, cholesky_inverse,
            qr, svd, pinverse, matrix_power, matrix_exp, cross):
    setattr(TensorMethods, _fn.__name__, _c.method(_fn))
for _fn in (baddbmm, addbmm, addmv, addr):
    setattr(TensorMethods, _fn.__name__ + "_", _c.inplace_method(_fn))
del _fn
