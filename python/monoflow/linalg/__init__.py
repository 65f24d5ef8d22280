"""monoflow.linalg (torch.linalg's names).

The factorisations (inv, det, slogdet, solve, cholesky, qr, svd, eigh,
solve_triangular) run LAPACK through numpy on a host copy, batched over the
leading dims, and are differentiable: each is an autograd.Function whose
backward is the standard formula written with monoflow ops (the ones torch
uses, so gradients agree with torch's, gauge conventions included). The
rest (norms, pinv, lstsq, matrix_power, matrix_exp, cross, multi_dot, ...)
compose those and the core's ops.

Floating dtypes float32/float64 only (float16/bfloat16 are refused, as torch
refuses them on the CPU); eig/eigvals also take complex64/complex128 and
return complex results.
"""
from monoflow.ops_reduce import _structseq
import math as _math
import numbers as _numbers

import numpy as _np

from monoflow import _C, _dtypes
from monoflow import ops_math as _m
from monoflow import ops_shape as _shape
from monoflow.autograd.function import Function as _Function
from monoflow.autograd.grad_mode import no_grad as _no_grad

__all__ = ["norm", "vector_norm", "matrix_norm", "inv", "inv_ex", "det", "slogdet", "solve", "solve_ex",
           "cholesky", "cholesky_ex", "qr", "svd", "svdvals", "eigh", "eigvalsh", "pinv", "matrix_rank", "cross",
           "lstsq", "matrix_power", "matrix_exp", "multi_dot", "vecdot", "matmul", "diagonal", "solve_triangular",
           "cond", "eig", "eigvals", "LinAlgError", "lu", "lu_factor", "lu_factor_ex", "lu_solve",
           "householder_product", "tensorinv", "tensorsolve", "vander", "ldl_factor", "ldl_factor_ex", "ldl_solve"]


class LinAlgError(RuntimeError):
    """Raised by a linalg function when the cause of the error is numerical: a singular matrix given to
    :func:`inv` or :func:`solve`, a matrix that is not positive definite given to :func:`cholesky`. A subclass
    of ``RuntimeError``, as ``torch.linalg.LinAlgError``."""


LinAlgError.__module__ = "monoflow.linalg"


def _result(name, fields):
    return _structseq("linalg_" + name, fields)  # torch's names: torch.return_types.linalg_qr


_slogdet_t = _result("slogdet", ["sign", "logabsdet"])
_qr_t = _result("qr", ["Q", "R"])
_svd_t = _result("svd", ["U", "S", "Vh"])
_eigh_t = _result("eigh", ["eigenvalues", "eigenvectors"])
_eig_t = _result("eig", ["eigenvalues", "eigenvectors"])
_lstsq_t = _result("lstsq", ["solution", "residuals", "rank", "singular_values"])
_inv_ex_t = _result("inv_ex", ["inverse", "info"])
_cholesky_ex_t = _result("cholesky_ex", ["L", "info"])
_solve_ex_t = _result("solve_ex", ["result", "info"])


# ---------------------------------------------------------------- host bridge

def _check(op, A, min_dim=2, square=True):
    # (the refusals name the public op in progress too: torch.inverse over linalg.inv)
    if not isinstance(A, _C.TensorBase):
        raise TypeError(f"linalg.{op}(): argument 'A' must be Tensor, not {type(A).__name__}")
    if A.dim() < min_dim:  # (checked before the dtype, as torch and OneFlow do; OneFlow's wording)
        raise RuntimeError(_C.name_op_in_progress(f"linalg.{op}: The input tensor must be at least {min_dim} "
                                                  f"dimensions. Got A with {A.dim()}."))
    if A.dtype.name not in ("float32", "float64"):
        if A.dtype.is_floating_point:
            raise RuntimeError(_C.name_op_in_progress(f"linalg.{op}: Low precision dtypes not supported. "
                                                      f"Got {A.dtype.name}"))
        raise RuntimeError(_C.name_op_in_progress(f"linalg.{op}: Expected a floating point tensor as input. "
                                                  f"Got {A.dtype.name}"))
    if square and min_dim >= 2 and A.shape[-1] != A.shape[-2]:
        raise RuntimeError(_C.name_op_in_progress(f"linalg.{op}: A must be batches of square matrices, but they "
                                                  f"are {A.shape[-2]} by {A.shape[-1]} matrices"))
    return A


def _host(t):
    return t.detach().cpu().numpy()


def _t(arr, like, dtype=None):
    arr = _np.asarray(arr, dtype=_np.dtype((dtype or like.dtype).name), order="C")  # (0-D stays 0-D)
    return _C._from_host_array(arr, arr.shape, dtype or like.dtype, like.device)


def _mT(x):
    return x.transpose(-2, -1)


def _eye_like(n, like):
    return _C._eye(n, n, like.dtype, like.device)


# ---------------------------------------------------------------- factorisations

class _Inv(_Function):
    @staticmethod
    def forward(ctx, A):
        try:
            Y = _t(_np.linalg.inv(_host(A)), A)
        except _np.linalg.LinAlgError:
            info = _getrf_info(_host(A)).reshape(-1)
            first = int(info[_np.flatnonzero(info)[0]]) if info.any() else 1
            raise LinAlgError(f"linalg.inv: The diagonal element {first} is zero, the inversion could not be "
                              "completed because the input matrix is singular.") from None
        ctx.save_for_backward(Y)
        return Y

    @staticmethod
    def backward(ctx, g):
        (Y,) = ctx.saved_tensors
        Yt = _mT(Y)
        return -Yt.matmul(g).matmul(Yt)


def inv(A):
    """The inverse of each square matrix of ``A``.

    Batched over the leading dims and differentiable. A singular matrix raises
    ``RuntimeError``. To solve ``A X = B``, :func:`solve` is faster and more
    accurate than ``inv(A) @ B``.

    Args:
        A (Tensor): shape ``(*, n, n)``, float32 or float64.

    Returns:
        Tensor: shape ``(*, n, n)``.

    Example::

        >>> A = flow.tensor([[4., 2.], [2., 3.]])
        >>> flow.linalg.inv(A)
        tensor([[ 0.3750, -0.2500],
                [-0.2500,  0.5000]])
        >>> flow.allclose(A @ flow.linalg.inv(A), flow.eye(2))
        True
    """
    A = _check("inv", A)
    if _C._graph_tracing():  # LAPACK runs on host values, which a trace does not have
        return _inv_gauss_jordan(A)
    return _Inv.apply(A)


def _inv_gauss_jordan(A):
    """inv with tensor ops only (traceable into an nn.Graph, differentiable by composition): Gauss-Jordan
    elimination with partial pivoting on [A | I]; a singular matrix gives inf/NaN instead of an error."""
    from monoflow._creation import arange

    where = _m.where
    n = A.shape[-1]
    batch = tuple(A.shape[:-2])
    M = _shape.cat([A, _eye_like(n, A).expand(*batch, n, n)], -1)
    rows = arange(n, dtype=_dtypes.int64, device=A.device)
    rows_col = rows.reshape(n, 1)
    for k in range(n):
        col = where(rows >= k, M[..., :, k].abs(), -1.0)
        p = col.argmax(-1, True)  # (*batch, 1): the pivot row
        perm = where(rows == k, p, where(rows == p, k, rows))  # swap rows k and p
        M = M.gather(-2, perm.unsqueeze(-1).expand(*batch, n, 2 * n))
        pivot_row = M[..., k:k + 1, :] / M[..., k:k + 1, k:k + 1]
        M = where(rows_col == k, pivot_row, M - M[..., :, k:k + 1] * pivot_row)
    return M[..., :, n:]


def _getrf_info(a):
    """LAPACK getrf's info per matrix of a (..., n, n): the first (1-based)
    zero pivot of the LU factorisation with partial pivoting, 0 if none."""
    n = a.shape[-1]
    lu = a.reshape(-1, n, n).copy()
    info = _np.zeros(lu.shape[0], _np.int32)
    rows = _np.arange(lu.shape[0])
    for k in range(n):
        p = k + _np.argmax(_np.abs(lu[:, k:, k]), axis=1)
        lu[rows, k], lu[rows, p] = lu[rows, p], lu[rows, k].copy()
        piv = lu[:, k, k]
        zero = piv == 0
        info[(info == 0) & zero] = k + 1
        f = lu[:, k + 1:, k] / _np.where(zero, 1, piv)[:, None]
        lu[:, k + 1:, k + 1:] -= f[:, :, None] * lu[:, k, None, k + 1:]
        lu[:, k + 1:, k] = f
    return info.reshape(a.shape[:-2])


def _potrf_info(a):
    """LAPACK potrf's info per matrix: the order of the first leading minor that is not positive definite."""
    n = a.shape[-1]
    flat = a.reshape(-1, n, n)
    info = _np.zeros(flat.shape[0], _np.int32)
    for b, m in enumerate(flat):
        for k in range(1, n + 1):
            try:
                _np.linalg.cholesky(m[:k, :k])
            except _np.linalg.LinAlgError:
                info[b] = k
                break
    return info.reshape(a.shape[:-2])


def _ex_error(op, info, what):
    # torch's wording for check_errors=True (its _LinAlgError is a RuntimeError)
    flat = info.reshape(-1)
    b = int(_np.flatnonzero(flat)[0])
    where = f"(Batch element {b}): " if info.ndim else ""
    return LinAlgError(f"linalg.{op}: {where}{what(int(flat[b]))}")


def _info_tensor(info, like):
    return _t(info, like, _dtypes.ALIASES["int32"])


def inv_ex(A, *, check_errors=False):
    """:func:`inv`, with an ``info`` tensor as in PyTorch: returns the named tuple ``(inverse, info)``.

    ``info`` (``int32``, one per matrix) is 0, or for a singular matrix the
    1-based position of the first zero pivot of its LU factorisation (LAPACK's
    getrf). A singular matrix raises ``RuntimeError`` only with
    ``check_errors=True``; otherwise its inverse is NaN (torch leaves whatever
    LAPACK computed) and the results have no gradient.

    Args:
        A (Tensor): shape ``(*, n, n)``, float32 or float64.
        check_errors (bool): raise for a singular matrix. Default: ``False``.

    Example::

        >>> inverse, info = flow.linalg.inv_ex(flow.tensor([[2., 0.], [0., 4.]]))
        >>> inverse, info
        (tensor([[0.5000, 0.0000],
                [0.0000, 0.2500]]), tensor(0, dtype=monoflow.int32))
    """
    info = _getrf_info(_host(_check("inv_ex", A)))
    if not info.any():
        return _inv_ex_t(inv(A), _info_tensor(info, A))
    if check_errors:
        raise _ex_error("inv_ex", info, lambda i: f"The diagonal element {i} is zero, the inversion could not be "
                                                  f"completed because the input matrix is singular.")
    return _inv_ex_t(_nan_where_failed(inv, A, info, 2), _info_tensor(info, A))


def _nan_where_failed(fn, A, info, extra_dims):
    """fn(A) (detached) with the failed matrices (info != 0) replaced by the
    identity first and their results by NaN; extra_dims: the result's dims
    past A's batch dims."""
    failed = _t(info != 0, A, _dtypes.bool_)
    eye = _C._eye(A.shape[-1], A.shape[-1], A.dtype, A.device)
    with _no_grad():
        out = fn(_m.where(failed.reshape(tuple(failed.shape) + (1, 1)), eye, A.detach()))
    return _m.where(failed.reshape(tuple(failed.shape) + (1,) * extra_dims), float("nan"), out)


class _Slogdet(_Function):
    @staticmethod
    def forward(ctx, A):
        sign, logabs = _np.linalg.slogdet(_host(A))
        ctx.save_for_backward(A)
        return _t(sign, A), _t(logabs, A)

    @staticmethod
    def backward(ctx, g_sign, g_logabs):
        (A,) = ctx.saved_tensors
        if g_logabs is None:
            return A * 0
        return g_logabs.unsqueeze(-1).unsqueeze(-1) * _mT(_pinv_or_inv(A))


def _pinv_or_inv(A):
    a = _host(A)
    try:
        return _t(_np.linalg.inv(a), A)
    except _np.linalg.LinAlgError:
        return _t(_np.linalg.pinv(a), A)


def slogdet(A):
    """The sign and the natural log of the absolute determinant of each square matrix of ``A``.

    ``det(A) = sign * exp(logabsdet)``; unlike :func:`det` this does not
    overflow or underflow for large matrices. A singular matrix gives
    ``sign = 0`` and ``logabsdet = -inf``.

    Args:
        A (Tensor): shape ``(*, n, n)``, float32 or float64.

    Returns:
        (Tensor, Tensor): the named tuple ``(sign, logabsdet)``, each of shape ``(*)``.

    Example::

        >>> sign, logabsdet = flow.linalg.slogdet(flow.tensor([[4., 2.], [2., 3.]]))
        >>> sign, logabsdet
        (tensor(1.), tensor(2.0794))
    """
    return _slogdet_t(*_Slogdet.apply(_check("slogdet", A)))


class _Det(_Function):
    @staticmethod
    def forward(ctx, A):
        d = _t(_np.linalg.det(_host(A)), A)
        ctx.save_for_backward(A, d)
        return d

    @staticmethod
    def backward(ctx, g):
        A, d = ctx.saved_tensors
        return _mT(_adjugate(A)) * g.unsqueeze(-1).unsqueeze(-1)


def _adjugate(A):
    """adj(A) = det(A) inv(A), through the SVD so that singular matrices work
    too: adj(A) = det(U) det(V) V adj(S) U^T, adj(S)_i = prod_{j != i} s_j."""
    a = _host(A)
    u, s, vh = _np.linalg.svd(a)
    n = s.shape[-1]
    prods = _np.stack([_np.prod(_np.delete(s, i, axis=-1), axis=-1) for i in range(n)], -1) if n > 1 else \
        _np.ones_like(s)
    sign = _np.linalg.det(u) * _np.linalg.det(vh)
    adj = _np.swapaxes(vh, -1, -2) @ (prods[..., :, None] * _np.swapaxes(u, -1, -2))
    return _t(adj * sign[..., None, None], A)


def det(A):
    """The determinant of each square matrix of ``A``.

    Batched and differentiable; the gradient (the adjugate) is defined for
    singular matrices too.

    Args:
        A (Tensor): shape ``(*, n, n)``, float32 or float64.

    Returns:
        Tensor: shape ``(*)``.

    Example::

        >>> flow.linalg.det(flow.tensor([[4., 2.], [2., 3.]]))
        tensor(8.)
        >>> flow.linalg.det(flow.ones(5, 3, 3)).shape
        monoflow.Size([5])
    """
    return _Det.apply(_check("det", A))


def _is_vector_rhs(A, B):
    return B.dim() == 1 or (B.dim() == A.dim() - 1 and tuple(B.shape) == tuple(A.shape[:-1]))


class _Solve(_Function):
    @staticmethod
    def forward(ctx, A, B):
        try:
            X = _np.linalg.solve(_host(A), _host(B))
        except _np.linalg.LinAlgError:
            raise LinAlgError("linalg.solve: The solver failed because the input matrix is singular.") from None
        Xt = _t(X, A)
        ctx.save_for_backward(A, Xt)
        return Xt

    @staticmethod
    def backward(ctx, g):
        A, X = ctx.saved_tensors
        gB = _Solve.apply(_mT(A), g)
        gA = -gB.matmul(_mT(X))
        return _sum_to(gA, A.shape), _sum_to(gB, g.shape)


def _sum_to(g, shape):
    """Sums a broadcast gradient back to `shape` (leading dims)."""
    shape = tuple(shape)
    while g.dim() > len(shape):
        g = g.sum(0)
    dims = [i for i, (a, b) in enumerate(zip(g.shape, shape)) if a != b and b == 1]
    return g.sum(dims, keepdim=True) if dims else g


def solve(A, B, *, left=True):
    """The solution ``X`` of ``A X = B`` (or of ``X A = B`` with ``left=False``) for square ``A``.

    ``B`` may be a batch of matrices ``(*, n, k)`` or of vectors ``(*, n)``;
    the batch dims of ``A`` and ``B`` broadcast. A singular ``A`` raises
    ``RuntimeError``. ``A`` and ``B`` must have the same dtype. Differentiable
    in both.

    Args:
        A (Tensor): shape ``(*, n, n)``, float32 or float64.
        B (Tensor): shape ``(*, n, k)`` or ``(*, n)`` (``(*, k, n)`` with ``left=False``).
        left (bool): solve ``A X = B`` if ``True``, ``X A = B`` if ``False``.
            Default: ``True``.

    Example::

        >>> A = flow.tensor([[4., 2.], [2., 3.]])
        >>> flow.linalg.solve(A, flow.tensor([2., 1.]))
        tensor([0.5000, 0.0000])
        >>> flow.linalg.solve(A, flow.tensor([[2., 1.]]), left=False)
        tensor([[0.5000, 0.0000]])
    """
    _check("solve", A)
    if not isinstance(B, _C.TensorBase):
        raise TypeError(f"linalg.solve(): argument 'B' must be Tensor, not {type(B).__name__}")
    if B.dtype != A.dtype:
        raise RuntimeError(f"linalg.solve: Expected A and B to have the same dtype, but found A of type "
                           f"{A.dtype.name} and B of type {B.dtype.name} instead")
    if not left:
        return _mT(solve(_mT(A), _mT(B)))
    if _is_vector_rhs(A, B):
        return _Solve.apply(A, B.unsqueeze(-1)).squeeze(-1)
    if B.shape[-2] != A.shape[-1]:
        raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation AX = B "
                           f"({A.shape[-2]}x{A.shape[-1]} and {B.shape[-2]}x{B.shape[-1]})")
    batch = _C.broadcast_shapes(tuple(A.shape[:-2]), tuple(B.shape[:-2]))
    A = A.expand(tuple(batch) + tuple(A.shape[-2:]))
    B = B.expand(tuple(batch) + tuple(B.shape[-2:]))
    return _Solve.apply(A, B)


def solve_ex(A, B, *, left=True, check_errors=False):
    """:func:`solve`, with an ``info`` tensor as in PyTorch: returns the named tuple ``(result, info)``.

    ``info`` (``int32``, one per matrix of ``A``) is 0, or for a singular ``A``
    the first zero pivot of its LU factorisation, as :func:`inv_ex`; that
    raises ``RuntimeError`` only with ``check_errors=True``, otherwise its
    solution is NaN and the results have no gradient.

    Args:
        A (Tensor): shape ``(*, n, n)``, float32 or float64.
        B (Tensor): the right-hand side(s), as for :func:`solve`.
        left (bool): solve ``A X = B`` if ``True``, ``X A = B`` if ``False``.
            Default: ``True``.
        check_errors (bool): raise for a singular ``A``. Default: ``False``.

    Example::

        >>> result, info = flow.linalg.solve_ex(flow.tensor([[4., 2.], [2., 3.]]), flow.tensor([2., 1.]))
        >>> result
        tensor([0.5000, 0.0000])
    """
    info = _getrf_info(_host(_check("solve_ex", A)))
    if not info.any():
        return _solve_ex_t(solve(A, B, left=left), _info_tensor(info, A))
    if check_errors:
        raise _ex_error("solve_ex", info, lambda i: "The solver failed because the input matrix is singular.")
    out = _nan_where_failed(lambda a: solve(a, B, left=left), A, info, 1 if _is_vector_rhs(A, B) else 2)
    return _solve_ex_t(out, _info_tensor(info, A))


def _phi(X):
    """The lower triangle with a halved diagonal."""
    return X.tril() - _shape.diagonal(X, 0, -2, -1).diag_embed() * 0.5


class _Cholesky(_Function):
    @staticmethod
    def forward(ctx, A):
        try:
            L = _t(_np.linalg.cholesky(_host(A)), A)
        except _np.linalg.LinAlgError:
            raise LinAlgError("linalg.cholesky: The factorization could not be completed because the input is "
                               "not positive-definite.") from None
        ctx.save_for_backward(L)
        return L

    @staticmethod
    def backward(ctx, gL):
        (L,) = ctx.saved_tensors
        # A = L L^T: gA = L^-T phi(L^T gL) L^-1, symmetrised (Murray, 2016)
        P = _phi(_mT(L).matmul(gL))
        Linv = solve_triangular(L, _eye_like(L.shape[-1], L).expand(tuple(L.shape)), upper=False)
        S = _mT(Linv).matmul(P).matmul(Linv)
        return (S + _mT(S)) * 0.5


def cholesky(A, *, upper=False):
    """The Cholesky factor of each symmetric positive-definite matrix of ``A``: ``A = L L^T``.

    ``L`` is lower triangular; with ``upper=True`` the upper factor
    ``U = L^T`` (``A = U^T U``) is returned. Only the lower triangle of ``A``
    is read. A matrix that is not positive definite raises ``RuntimeError``.
    Differentiable.

    Args:
        A (Tensor): shape ``(*, n, n)``, float32 or float64.
        upper (bool): return the upper factor. Default: ``False``.

    Example::

        >>> A = flow.tensor([[4., 2.], [2., 3.]])
        >>> L = flow.linalg.cholesky(A)
        >>> L
        tensor([[2.0000, 0.0000],
                [1.0000, 1.4142]])
        >>> flow.allclose(L @ L.T, A)
        True
    """
    L = _Cholesky.apply(_check("cholesky", A))
    return _mT(L) if upper else L


def cholesky_ex(A, *, upper=False, check_errors=False):
    """:func:`cholesky`, with an ``info`` tensor as in PyTorch: returns the named tuple ``(L, info)``.

    ``info`` (``int32``, one per matrix) is 0, or for a matrix that is not
    positive definite the order of its first leading minor that is not
    (LAPACK's potrf); that raises ``RuntimeError`` only with
    ``check_errors=True``, otherwise its factor is NaN and the results have
    no gradient.

    Args:
        A (Tensor): shape ``(*, n, n)``, float32 or float64.
        upper (bool): return the upper factor. Default: ``False``.
        check_errors (bool): raise for a matrix that is not positive definite. Default: ``False``.

    Example::

        >>> L, info = flow.linalg.cholesky_ex(flow.tensor([[4., 2.], [2., 3.]]))
        >>> L
        tensor([[2.0000, 0.0000],
                [1.0000, 1.4142]])
    """
    info = _potrf_info(_host(_check("cholesky_ex", A)))
    if not info.any():
        return _cholesky_ex_t(cholesky(A, upper=upper), _info_tensor(info, A))
    if check_errors:
        raise _ex_error("cholesky_ex", info, lambda i: f"The factorization could not be completed because the "
                                                       f"input is not positive-definite (the leading minor of order "
                                                       f"{i} is not positive-definite).")
    return _cholesky_ex_t(_nan_where_failed(lambda a: cholesky(a, upper=upper), A, info, 2), _info_tensor(info, A))


def _substitute(a, b, upper):
    """X with a X = b for triangular a (batched) by substitution, row by row: a singular a gives
    infinities and NaNs where a solver refuses."""
    n = a.shape[-1]
    x = _np.zeros(_np.broadcast_shapes(a.shape[:-1], b.shape[:-1]) + b.shape[-1:], _np.result_type(a, b))
    with _np.errstate(all="ignore"):
        for i in (range(n - 1, -1, -1) if upper else range(n)):
            done = slice(i + 1, n) if upper else slice(0, i)
            rest = b[..., i, :] - _np.einsum("...j,...jk->...k", a[..., i, done], x[..., done, :])
            x[..., i, :] = rest / a[..., i, i][..., None]
    return x


class _SolveTriangular(_Function):
    @staticmethod
    def forward(ctx, A, B, upper, unitriangular):
        a = _host(A)
        a = _np.triu(a) if upper else _np.tril(a)
        if unitriangular:
            idx = _np.arange(a.shape[-1])
            a = a.copy()
            a[..., idx, idx] = 1
        b = _host(B)
        batch = _np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
        a, b = _np.broadcast_to(a, batch + a.shape[-2:]), _np.broadcast_to(b, batch + b.shape[-2:])
        try:
            x = _np.linalg.solve(a, b)
        except _np.linalg.LinAlgError:  # a zero on the diagonal: substitution's infs and NaNs, as torch's
            x = _substitute(a, b, upper)
        X = _t(x, A)
        ctx.upper, ctx.unit = upper, unitriangular
        ctx.save_for_backward(A, X)
        return X

    @staticmethod
    def backward(ctx, g):
        A, X = ctx.saved_tensors
        gB = _SolveTriangular.apply(_mT(A), g, not ctx.upper, ctx.unit)
        gA = -gB.matmul(_mT(X))
        gA = gA.triu(1 if ctx.unit else 0) if ctx.upper else gA.tril(-1 if ctx.unit else 0)
        return _sum_to(gA, A.shape), _sum_to(gB, g.shape), None, None


def solve_triangular(A, B, *, upper, left=True, unitriangular=False):
    """The solution ``X`` of ``A X = B`` (or ``X A = B`` with ``left=False``) for triangular ``A``.

    Only the upper or the lower triangle of ``A`` is read, as ``upper`` says;
    with ``unitriangular=True`` its diagonal is taken as ones (and not read).
    The batch dims broadcast. Differentiable.

    Args:
        A (Tensor): shape ``(*, n, n)``, float32 or float64.
        B (Tensor): shape ``(*, n, k)`` (``(*, k, n)`` with ``left=False``).
        upper (bool): whether ``A`` is upper (``True``) or lower triangular.
            Keyword-only and required.
        left (bool): solve ``A X = B`` if ``True``, ``X A = B`` if ``False``.
            Default: ``True``.
        unitriangular (bool): assume ones on the diagonal. Default: ``False``.

    Example::

        >>> L = flow.tensor([[2., 0.], [1., 1.]])
        >>> flow.linalg.solve_triangular(L, flow.tensor([[2.], [3.]]), upper=False)
        tensor([[1.],
                [2.]])
        >>> flow.linalg.solve_triangular(L, flow.tensor([[2., 3.]]), upper=False, left=False)
        tensor([[-0.5000,  3.0000]])
    """
    _check("solve_triangular", A)
    if not left:
        return _mT(solve_triangular(_mT(A), _mT(B), upper=not upper, unitriangular=unitriangular))
    return _SolveTriangular.apply(A, B, upper, unitriangular)


class _CholeskySolve(_Function):
    @staticmethod
    def forward(ctx, B, L, upper):
        Lf = _mT(L) if upper else L
        y = solve_triangular(Lf, B, upper=False)
        X = solve_triangular(_mT(Lf), y, upper=True)
        ctx.upper = upper
        ctx.save_for_backward(L, X)
        return X

    @staticmethod
    def backward(ctx, g):
        L, X = ctx.saved_tensors
        gB = _CholeskySolve.apply(g, L, ctx.upper)
        common = gB.matmul(_mT(X))
        common = common + _mT(common)
        gL = -L.matmul(common) if ctx.upper else -common.matmul(L)
        return _sum_to(gB, g.shape), _sum_to(gL, L.shape), None


def _cholesky_solve(B, L, upper):
    """X with (L L^T) X = B (U^T U with upper=True); torch's gradient for L (not masked to the triangle)."""
    return _CholeskySolve.apply(B, L, upper)


class _QR(_Function):
    @staticmethod
    def forward(ctx, A, mode):
        q, r = _np.linalg.qr(_host(A), mode="complete" if mode == "complete" else "reduced")
        Q, R = _t(q, A), _t(r, A)
        ctx.mode = mode
        ctx.save_for_backward(Q, R)
        return Q, R

    @staticmethod
    def backward(ctx, gQ, gR):
        Q, R = ctx.saved_tensors
        m, n = Q.shape[-2], R.shape[-1]
        if ctx.mode == "complete" and m > n or m < n:
            raise NotImplementedError("linalg.qr: the derivative is implemented for mode='reduced' (or "
                                      "'complete' with m <= n) and m >= n only")
        gQ = Q * 0 if gQ is None else gQ
        gR = R * 0 if gR is None else gR
        # A = QR (m >= n): gA = (gQ + Q copyltu(M)) R^-T, M = R gR^T - gQ^T Q
        M = R.matmul(_mT(gR)) - _mT(gQ).matmul(Q)
        low = M.tril(-1)
        copyltu = low + _mT(low) + _shape.diagonal(M, 0, -2, -1).diag_embed()
        b = gQ + Q.matmul(copyltu)
        return _mT(solve_triangular(R, _mT(b), upper=True)), None


def qr(A, mode="reduced"):
    """The QR decomposition of each matrix of ``A``: ``A = Q R``, ``Q`` orthonormal, ``R`` upper triangular.

    For ``A`` of shape ``(*, m, n)`` and ``k = min(m, n)``:

    - ``mode='reduced'``: ``Q`` is ``(*, m, k)``, ``R`` is ``(*, k, n)``.
    - ``mode='complete'``: ``Q`` is ``(*, m, m)``, ``R`` is ``(*, m, n)``.
    - ``mode='r'``: only ``R`` (reduced); ``Q`` is an empty tensor.

    Differentiable for ``m >= n`` in the reduced mode.

    Args:
        A (Tensor): shape ``(*, m, n)``, float32 or float64.
        mode (str): ``'reduced'``, ``'complete'`` or ``'r'``. Default: ``'reduced'``.

    Returns:
        (Tensor, Tensor): the named tuple ``(Q, R)``.

    Example::

        >>> A = flow.tensor([[1., 2.], [3., 4.], [5., 6.]])
        >>> Q, R = flow.linalg.qr(A)
        >>> Q.shape, R.shape
        (monoflow.Size([3, 2]), monoflow.Size([2, 2]))
        >>> flow.allclose(Q @ R, A, atol=1e-5)
        True
        >>> flow.linalg.qr(A, mode="complete").Q.shape
        monoflow.Size([3, 3])
    """
    _check("qr", A, square=False)
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), "
                           f"'r', or 'complete'")
    Q, R = _QR.apply(A, "reduced" if mode == "r" else mode)
    if mode == "r":
        return _qr_t(_C._empty((0,), A.dtype, A.device), R)
    return _qr_t(Q, R)


class _SVD(_Function):
    @staticmethod
    def forward(ctx, A):
        u, s, vh = _np.linalg.svd(_host(A), full_matrices=False)
        U, S, Vh = _t(u, A), _t(s, A), _t(vh, A)
        ctx.save_for_backward(U, S, Vh)
        return U, S, Vh

    @staticmethod
    def backward(ctx, gU, gS, gVh):
        U, S, Vh = ctx.saved_tensors
        V = _mT(Vh)
        m, n = U.shape[-2], V.shape[-2]
        k = S.shape[-1]
        if gU is None and gVh is None:
            g = U.matmul((gS.unsqueeze(-1) * Vh)) if gS is not None else U.matmul(Vh) * 0
            return g
        gU = U * 0 if gU is None else gU
        gV = V * 0 if gVh is None else _mT(gVh)
        s2 = S * S
        E = s2.unsqueeze(-2) - s2.unsqueeze(-1)  # E_ij = s_j^2 - s_i^2
        eye = _C._eye(k, k, _dtypes.ALIASES["bool"], S.device)
        F = _m.where(eye, 0, 1 / _m.where(eye, 1, E))
        UtgU, VtgV = _mT(U).matmul(gU), _mT(V).matmul(gV)
        Sd = S.unsqueeze(-2)  # multiplies columns by S
        inner = (F * (UtgU - _mT(UtgU))) * Sd + (F * (VtgV - _mT(VtgV))) * S.unsqueeze(-1)
        if gS is not None:
            inner = inner + gS.diag_embed()
        g = U.matmul(inner).matmul(Vh)
        Sinv = 1 / S
        if m > k:
            g = g + (gU - U.matmul(UtgU)).matmul(Sinv.unsqueeze(-1) * Vh)
        if n > k:
            g = g + (U * Sinv.unsqueeze(-2)).matmul(_mT(gV - V.matmul(VtgV)))
        return g


def svd(A, full_matrices=True, *, driver=None):
    """The singular value decomposition of each matrix of ``A``: ``A = U diag(S) Vh``.

    ``S`` holds the singular values in descending order. For ``A`` of shape
    ``(*, m, n)`` and ``k = min(m, n)``: ``U`` is ``(*, m, k)`` and ``Vh``
    ``(*, k, n)`` when ``full_matrices=False``; square ``(*, m, m)`` and
    ``(*, n, n)`` when ``True``. Gradients flow through the reduced factors
    (the extra columns of the full ones carry none), as in PyTorch.

    Args:
        A (Tensor): shape ``(*, m, n)``, float32 or float64.
        full_matrices (bool): return the complete ``U`` and ``Vh``. Default: ``True``.
        driver (str, optional): accepted for PyTorch compatibility (ignored on the CPU).

    Returns:
        (Tensor, Tensor, Tensor): the named tuple ``(U, S, Vh)``.

    Example::

        >>> A = flow.tensor([[3., 0.], [0., -2.], [0., 0.]])
        >>> U, S, Vh = flow.linalg.svd(A, full_matrices=False)
        >>> S
        tensor([3., 2.])
        >>> U.shape, Vh.shape
        (monoflow.Size([3, 2]), monoflow.Size([2, 2]))
        >>> flow.allclose(U @ flow.diag(S) @ Vh, A)
        True
    """
    _check("svd", A, square=False)
    U, S, Vh = _SVD.apply(A)
    if full_matrices and A.shape[-2] != A.shape[-1]:
        u, _, vh = _np.linalg.svd(_host(A), full_matrices=True)
        k = S.shape[-1]
        if A.shape[-2] > k:
            U = _C.cat([U, _t(u[..., :, k:], A)], -1)
        if A.shape[-1] > k:
            Vh = _C.cat([Vh, _t(vh[..., k:, :], A)], -2)
    return _svd_t(U, S, Vh)


def svdvals(A, *, driver=None):
    """The singular values of each matrix of ``A``, in descending order (the ``S`` of :func:`svd`).

    Args:
        A (Tensor): shape ``(*, m, n)``, float32 or float64.
        driver (str, optional): accepted for PyTorch compatibility (ignored).

    Returns:
        Tensor: shape ``(*, min(m, n))``.

    Example::

        >>> flow.linalg.svdvals(flow.tensor([[3., 0.], [0., -2.]]))
        tensor([3., 2.])
    """
    return _SVD.apply(_check("svdvals", A, square=False))[1]


class _Eigh(_Function):
    @staticmethod
    def forward(ctx, A, uplo):
        w, v = _np.linalg.eigh(_host(A), UPLO=uplo)
        L, V = _t(w, A), _t(v, A)
        ctx.save_for_backward(L, V)
        return L, V

    @staticmethod
    def backward(ctx, gL, gV):
        L, V = ctx.saved_tensors
        n = L.shape[-1]
        if gV is None:
            return V.matmul(gL.unsqueeze(-1) * _mT(V)), None
        VtgV = _mT(V).matmul(gV)
        skew = (VtgV - _mT(VtgV)) * 0.5
        E = L.unsqueeze(-2) - L.unsqueeze(-1)  # E_ij = L_j - L_i
        eye = _C._eye(n, n, _dtypes.ALIASES["bool"], L.device)
        inner = _m.where(eye, 0, skew / _m.where(eye, 1, E))
        if gL is not None:
            inner = inner + gL.diag_embed()
        return V.matmul(inner).matmul(_mT(V)), None


def eigh(A, UPLO="L"):
    """The eigenvalues (ascending) and orthonormal eigenvectors of each symmetric matrix of ``A``.

    ``A = V diag(L) V^T``, the eigenvectors in the columns of ``V``. Only one
    triangle of ``A`` is read (``UPLO``); the eigenvectors' signs are not
    unique. Differentiable (the gradient is ill-defined for repeated eigenvalues).

    Args:
        A (Tensor): shape ``(*, n, n)``, symmetric, float32 or float64.
        UPLO (str): ``'L'`` to read the lower triangle, ``'U'`` the upper one.
            Default: ``'L'``.

    Returns:
        (Tensor, Tensor): the named tuple ``(eigenvalues, eigenvectors)``.

    Example::

        >>> A = flow.tensor([[2., 1.], [1., 2.]])
        >>> L, V = flow.linalg.eigh(A)
        >>> L
        tensor([1., 3.])
        >>> flow.allclose(V @ flow.diag(L) @ V.T, A)
        True
    """
    _check("eigh", A)
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    return _eigh_t(*_Eigh.apply(A, UPLO))


def eigvalsh(A, UPLO="L"):
    """The eigenvalues of each symmetric matrix of ``A``, in ascending order (the ``eigenvalues`` of :func:`eigh`).

    Args:
        A (Tensor): shape ``(*, n, n)``, symmetric, float32 or float64.
        UPLO (str): ``'L'`` to read the lower triangle, ``'U'`` the upper one.
            Default: ``'L'``.

    Example::

        >>> flow.linalg.eigvalsh(flow.tensor([[2., 1.], [1., 2.]]))
        tensor([1., 3.])
    """
    return eigh(A, UPLO).eigenvalues


class _Eig(_Function):
    """A = V diag(L) V^-1 of a general square matrix. Computed on the host with numpy.linalg.eig (LAPACK geev,
    as torch: unit-norm eigenvectors); the backward is the standard formula (torch's linalg_eig_backward), also
    on the host, so it is not differentiable twice."""

    @staticmethod
    def forward(ctx, A):
        a = _host(A)
        if not _np.isfinite(a).all():
            raise RuntimeError(_C.name_op_in_progress("linalg.eig: input tensor should not contain infs or NaNs."))
        w, v = _np.linalg.eig(a)
        cdt = A.dtype if A.dtype.is_complex else A.dtype.to_complex()
        ctx.real_input = not A.dtype.is_complex
        ctx.save_for_backward(A)
        ctx.w, ctx.v = w, v
        return _t(w, A, cdt), _t(v, A, cdt)

    @staticmethod
    def backward(ctx, gL, gV):
        (A,) = ctx.saved_tensors
        w, v = ctx.w, ctx.v
        vh = _np.conj(_np.swapaxes(v, -1, -2))
        if gV is None:
            inner = _np.zeros(v.shape, dtype=v.dtype)
        else:
            vhgv = vh @ _host(gV)
            diag = _np.diagonal(vhgv, axis1=-2, axis2=-1)
            if not _np.allclose(diag.imag, 0, rtol=1e-2, atol=1e-2):
                raise RuntimeError("linalg.eig backward: the eigenvectors are defined up to a phase (multiplication "
                                   "by e^{i phi}) and the loss depends on it, so its gradient is ill-defined")
            # keep V's unit norms: remove the component along V^H V diag(Re diag(V^H gV))
            vhgv = vhgv - vh @ (v * diag.real[..., None, :])
            lc = _np.conj(w)
            e = lc[..., None, :] - lc[..., :, None]  # E_ij = conj(L_j) - conj(L_i)
            n = w.shape[-1]
            e[..., range(n), range(n)] = 1
            inner = vhgv / e
        if gL is not None:
            idx = _np.arange(w.shape[-1])
            inner[..., idx, idx] += _host(gL)
        ga = _np.linalg.solve(vh, inner @ vh)  # V^-H inner V^H
        if ctx.real_input:
            ga = ga.real
        return _t(ga, A)


def _check_eig(op, A):
    if isinstance(A, _C.TensorBase) and A.dtype.name in ("float16", "bfloat16"):
        raise NotImplementedError(f"linalg.{op}: not implemented for '{A.dtype.name}' (float32, float64, complex64 "
                                  "and complex128 only)")
    if isinstance(A, _C.TensorBase) and A.dtype.is_complex:
        _check(op, A.real)  # the shape checks
        if A.dtype.name not in ("complex64", "complex128"):
            raise RuntimeError(f"linalg.{op}: Expected a float32, float64, complex64 or complex128 tensor as input. "
                               f"Got {A.dtype.name}")
        return A
    if isinstance(A, _C.TensorBase) and not A.dtype.is_floating_point:
        raise RuntimeError(f"linalg.{op}: Expected a floating point or complex tensor as input. Got {A.dtype.name}")
    return _check(op, A)


def eig(A):
    """The eigenvalues and eigenvectors of each general (not necessarily symmetric) square matrix of ``A``.

    ``A = V diag(L) V^-1``, the eigenvectors in the columns of ``V``, each of
    unit norm; both are complex, also for a real ``A`` (complex64 for float32
    and complex64 input, complex128 for float64 and complex128). The order of
    the eigenvalues and each eigenvector's phase are LAPACK's (numpy's
    ``linalg.eig`` on a host copy). Differentiable, by the standard formula
    (ill-defined for repeated eigenvalues, and for losses that depend on the
    eigenvectors' phases: a ``RuntimeError`` then). For symmetric matrices
    :func:`eigh` is faster and returns real results.

    Args:
        A (Tensor): shape ``(*, n, n)``, float32, float64, complex64 or complex128.

    Returns:
        (Tensor, Tensor): the named tuple ``(eigenvalues, eigenvectors)``.

    Example::

        >>> A = flow.tensor([[2., 0.], [0., 3.]])
        >>> L, V = flow.linalg.eig(A)
        >>> L
        tensor([2.+0.j, 3.+0.j])
        >>> V
        tensor([[1.+0.j, 0.+0.j],
                [0.+0.j, 1.+0.j]])
    """
    return _eig_t(*_Eig.apply(_check_eig("eig", A)))


def eigvals(A):
    """The eigenvalues of each general square matrix of ``A``, complex (the ``eigenvalues`` of :func:`eig`).

    Differentiable. For symmetric matrices :func:`eigvalsh` returns real
    eigenvalues in ascending order.

    Args:
        A (Tensor): shape ``(*, n, n)``, float32, float64, complex64 or complex128.

    Example::

        >>> flow.linalg.eigvals(flow.tensor([[0., -1.], [1., 0.]]))
        tensor([0.+1.j, 0.-1.j])
    """
    return _Eig.apply(_check_eig("eigvals", A))[0]


# ---------------------------------------------------------------- compositions

def _rcond_cut(S, atol, rtol, m, n):
    smax = S.amax(-1, keepdim=True) if S.shape[-1] else S.sum(-1, keepdim=True)
    if rtol is None:
        rtol = 0.0 if atol is not None and atol > 0 else max(m, n) * _np.finfo(_np.dtype(S.dtype.name)).eps
    return _m.clamp_min(smax * rtol, atol or 0.0)


def pinv(A, *, atol=None, rtol=None, hermitian=False, rcond=None):
    """The Moore-Penrose pseudo-inverse of each matrix of ``A``, computed from its SVD.

    Singular values at or below ``max(atol, rtol * largest)`` count as zero.
    When neither is given, ``rtol`` is ``max(m, n) * eps`` of the dtype; when
    only ``atol > 0`` is given, ``rtol`` is 0. Differentiable.

    Args:
        A (Tensor): shape ``(*, m, n)``, float32 or float64.
        atol (float, optional): the absolute cut-off for small singular values.
        rtol (float, optional): the cut-off relative to the largest singular value.
        hermitian (bool): accepted for PyTorch compatibility (the SVD is used
            either way). Default: ``False``.
        rcond (float, optional): the older name of ``rtol``.

    Returns:
        Tensor: shape ``(*, n, m)``.

    Example::

        >>> flow.linalg.pinv(flow.tensor([[1., 2.], [2., 4.]]))
        tensor([[0.0400, 0.0800],
                [0.0800, 0.1600]])
        >>> flow.linalg.pinv(flow.tensor([[1., 0.], [0., 1e-9]]), atol=1e-6)
        tensor([[1., 0.],
                [0., 0.]])
    """
    _check("pinv", A, square=False)
    if rcond is not None:
        rtol = rcond
    U, S, Vh = _SVD.apply(A)
    cut = _rcond_cut(S, atol, rtol, A.shape[-2], A.shape[-1])
    keep = S > cut
    Sinv = _m.where(keep, 1 / _m.where(keep, S, 1), 0)
    return _mT(Vh).matmul(Sinv.unsqueeze(-1) * _mT(U))


def matrix_rank(A, *, atol=None, rtol=None, hermitian=False, tol=None):
    """The numerical rank of each matrix of ``A``: how many singular values exceed ``max(atol, rtol * largest)``.

    The tolerances default as in :func:`pinv`. Not differentiable.

    Args:
        A (Tensor): shape ``(*, m, n)``, float32 or float64.
        atol (float, optional): the absolute tolerance.
        rtol (float, optional): the tolerance relative to the largest singular value.
        hermitian (bool): accepted for PyTorch compatibility. Default: ``False``.
        tol (float, optional): the older form: an absolute tolerance (``rtol`` 0).

    Returns:
        Tensor: an ``int64`` tensor of shape ``(*)``.

    Example::

        >>> flow.linalg.matrix_rank(flow.tensor([[1., 2.], [2., 4.]]))
        tensor(1)
        >>> flow.linalg.matrix_rank(flow.eye(3))
        tensor(3)
    """
    _check("matrix_rank", A, square=False)
    if tol is not None:
        atol, rtol = tol, 0.0
    S = svdvals(A.detach())
    return (S > _rcond_cut(S, atol, rtol, A.shape[-2], A.shape[-1])).sum(-1, dtype=_dtypes.ALIASES["int64"])


def lstsq(A, B, rcond=None, *, driver=None):
    """The least-squares solution ``X`` minimising ``||A X - B||`` for each matrix of ``A``.

    Computed from the pseudo-inverse (:func:`pinv`). As with PyTorch's default
    CPU driver, ``residuals`` and ``singular_values`` are empty tensors and
    ``rank`` is the effective rank of ``A``.

    Args:
        A (Tensor): shape ``(*, m, n)``, float32 or float64.
        B (Tensor): shape ``(*, m, k)``, or ``(*, m)`` for one right-hand side.
        rcond (float, optional): singular values below ``rcond`` times the largest
            count as zero. Default: ``max(m, n) * eps``.
        driver (str, optional): accepted for PyTorch compatibility (ignored).

    Returns:
        the named tuple ``(solution, residuals, rank, singular_values)``.

    Example::

        >>> A = flow.tensor([[1., 0.], [1., 1.], [1., 2.]])
        >>> B = flow.tensor([[1.], [2.], [3.]])
        >>> flow.linalg.lstsq(A, B).solution
        tensor([[1.0000],
                [1.0000]])
    """
    _check("lstsq", A, square=False)
    _C.check_tensor(B, "linalg.lstsq", "B", 2)
    vector = B.dim() == A.dim() - 1
    Bm = B.unsqueeze(-1) if vector else B
    X = pinv(A, rtol=rcond).matmul(Bm)
    empty = _C._empty((0,), A.dtype, A.device)
    return _lstsq_t(X.squeeze(-1) if vector else X, empty, matrix_rank(A, rtol=rcond), empty)


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):  # noqa: A002
    r"""The vector ``ord``-norm of ``x``, over all elements or over ``dim``.

    .. math:: \|x\|_{ord} = \Big(\sum_i |x_i|^{ord}\Big)^{1/ord}

    ``ord=inf`` is the largest absolute value, ``ord=-inf`` the smallest,
    ``ord=0`` the number of non-zeros. Any number of dims may be reduced; the
    input is never read as a matrix. ``x`` must be floating point.

    Args:
        x (Tensor): a floating-point tensor.
        ord (int, float, inf or -inf): the order. Default: 2.
        dim (int or tuple of ints, optional): the dims to reduce. Default: all.
        keepdim (bool): keep the reduced dims, with size 1. Default: ``False``.
        dtype (monoflow.dtype, optional): the dtype to compute in and return.

    Example::

        >>> M = flow.tensor([[3., 4.], [0., -12.]])
        >>> flow.linalg.vector_norm(M)
        tensor(13.)
        >>> flow.linalg.vector_norm(M, ord=1, dim=1)
        tensor([ 7., 12.])
        >>> flow.linalg.vector_norm(M, 0)
        tensor(3.)
    """
    if not isinstance(x, _C.TensorBase):
        raise TypeError(f"linalg.vector_norm(): argument 'x' must be Tensor, not {type(x).__name__}")
    if x.dtype.is_complex:  # the norm of the moduli, a real result
        x = x.abs()
    if not x.dtype.is_floating_point:
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
                           f"{x.dtype.name}")
    if isinstance(dim, _numbers.Integral):
        dim = (dim,)
    return _C.reduce_vector_norm(x, float(ord), dim, keepdim, dtype)


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):  # noqa: A002
    """The matrix norm of each matrix of ``A`` (in the two dims ``dim``).

    ``ord`` is ``'fro'`` (the square root of the sum of squares), ``'nuc'`` (the
    sum of the singular values), ``2`` / ``-2`` (the largest / smallest singular
    value), ``1`` / ``-1`` (the largest / smallest absolute column sum) or
    ``inf`` / ``-inf`` (the largest / smallest absolute row sum).

    Args:
        A (Tensor): shape ``(*, m, n)``, float32 or float64.
        ord (int, inf, -inf, 'fro' or 'nuc'): the norm. Default: ``'fro'``.
        dim (tuple of two ints): the dims of the matrices. Default: ``(-2, -1)``.
        keepdim (bool): keep the reduced dims, with size 1. Default: ``False``.
        dtype (monoflow.dtype, optional): the dtype to convert ``A`` to first.

    Example::

        >>> M = flow.tensor([[3., 4.], [0., -12.]])
        >>> flow.linalg.matrix_norm(M)
        tensor(13.)
        >>> flow.linalg.matrix_norm(M, ord=1), flow.linalg.matrix_norm(M, ord=float("inf"))
        (tensor(16.), tensor(12.))
        >>> flow.linalg.matrix_norm(flow.tensor([[4., 2.], [2., 3.]]), ord="nuc")
        tensor(7.)
    """
    _check("matrix_norm", A, square=False)
    if dtype is not None:
        A = A.to(dtype)
    nd = A.dim()
    d0, d1 = (d % nd for d in dim)
    if ord == "fro":
        return vector_norm(A, 2, (d0, d1), keepdim)
    if ord in ("nuc", 2, -2):
        B = _shape.movedim(A, (d0, d1), (-2, -1))
        S = svdvals(B)
        out = S.sum(-1) if ord == "nuc" else S.amax(-1) if ord == 2 else S.amin(-1)
        if keepdim:
            out = out.unsqueeze(min(d0, d1)).unsqueeze(max(d0, d1))
        return out
    if ord in (1, -1, _math.inf, -_math.inf):
        sum_dim, red_dim = (d0, d1) if ord in (1, -1) else (d1, d0)
        sums = _m.abs(A).sum(sum_dim, keepdim=True)
        out = sums.amax(red_dim, keepdim=True) if ord > 0 else sums.amin(red_dim, keepdim=True)
        return out if keepdim else out.squeeze(max(d0, d1)).squeeze(min(d0, d1))
    raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):  # noqa: A002
    """A vector or matrix norm of ``A``, chosen by ``dim`` and ``ord``.

    - ``dim`` an int (or a 1-tuple), or ``dim=None`` with a 1-D ``A``: the vector
      norm :func:`vector_norm`.
    - ``dim`` a 2-tuple, or ``dim=None`` with a 2-D ``A``: the matrix norm
      :func:`matrix_norm`.
    - ``dim=None`` and ``ord=None``: the 2-norm of the flattened ``A``, whatever
      its dims (for a matrix, the Frobenius norm).

    Args:
        A (Tensor): a floating-point tensor.
        ord (int, float, inf, -inf, 'fro' or 'nuc', optional): the order of the
            norm. Default: ``None`` (2 for vectors, ``'fro'`` for matrices).
        dim (int or tuple of ints, optional): the dim(s) of the vectors or
            matrices. Default: ``None``.
        keepdim (bool): keep the reduced dims, with size 1. Default: ``False``.
        dtype (monoflow.dtype, optional): the dtype to compute in and return.

    Example::

        >>> M = flow.tensor([[3., 4.], [0., -12.]])
        >>> flow.linalg.norm(M)
        tensor(13.)
        >>> flow.linalg.norm(M, ord=1)
        tensor(16.)
        >>> flow.linalg.norm(M, dim=1)
        tensor([ 5., 12.])
    """
    if isinstance(dim, _numbers.Integral):
        dim = (dim,)
    if dim is None:
        if ord is None:
            return vector_norm(A, 2, None, keepdim, dtype=dtype)
        if A.dim() == 1:
            return vector_norm(A, ord, None, keepdim, dtype=dtype)
        if A.dim() == 2:
            return matrix_norm(A, ord, (-2, -1), keepdim, dtype=dtype)
        raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got "
                           f"{A.dim()}D.")
    if len(dim) == 1:
        return vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype=dtype)
    if len(dim) == 2:
        return matrix_norm(A, "fro" if ord is None else ord, dim, keepdim, dtype=dtype)
    raise RuntimeError(f"linalg.norm: If dim is specified, it must be of length 1 or 2. Got {list(dim)}")


def cond(A, p=None):
    """The condition number of each square matrix of ``A`` in the norm ``p``.

    For ``p`` None or 2, the largest singular value over the smallest (``-2``:
    the inverse ratio); for other norms (``'fro'``, ``'nuc'``, 1, -1, inf,
    -inf), ``matrix_norm(A, p) * matrix_norm(inv(A), p)``.

    Args:
        A (Tensor): shape ``(*, n, n)``, float32 or float64.
        p (int, inf, -inf, 'fro' or 'nuc', optional): the norm. Default: 2.

    Example::

        >>> flow.linalg.cond(flow.tensor([[1., 0.], [0., 0.5]]))
        tensor(2.)
        >>> flow.linalg.cond(flow.tensor([[4., 2.], [2., 3.]]), 1)
        tensor(4.5000)
    """
    if p is None or p in (2, -2):
        S = svdvals(A)
        return S.amax(-1) / S.amin(-1) if p != -2 else S.amin(-1) / S.amax(-1)
    return matrix_norm(A, p) * matrix_norm(inv(A), p)


def cross(input, other, *, dim=-1):
    """The cross product of the 3-vectors along ``dim`` of ``input`` and ``other``.

    The shapes broadcast, also when their numbers of dims differ (OneFlow's
    rule; torch requires the same number); the size of ``dim`` must be 3.
    Unlike :func:`monoflow.cross`, the default dim is the last one.

    Args:
        input (Tensor): the first vectors.
        other (Tensor): the second vectors, broadcastable with ``input``.
        dim (int): the dim of size 3. Default: -1.

    Example::

        >>> flow.linalg.cross(flow.tensor([1., 0., 0.]), flow.tensor([0., 1., 0.]))
        tensor([0., 0., 1.])
        >>> flow.linalg.cross(flow.ones(4, 3), flow.ones(4, 3)).shape
        monoflow.Size([4, 3])
    """
    _C.check_tensor(input, "linalg.cross", "input", 1)
    _C.check_tensor(other, "linalg.cross", "other", 2)
    # OneFlow's rule: the shapes broadcast even with different numbers of dims (torch requires the same number)
    shape = _C.broadcast_shapes(tuple(input.shape), tuple(other.shape))
    a, b = input.expand(shape), other.expand(shape)
    d = _C.check_int(dim, "linalg.cross", "dim")
    if not -len(shape) <= d < len(shape):
        raise IndexError(f"linalg.cross: Dimension out of range (expected to be in range of [{-len(shape)}, "
                         f"{len(shape) - 1}], but got {d})")
    d %= len(shape)
    if shape[d] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got {input.shape[d]} and "
                           f"{other.shape[d]}")
    a0, a1, a2 = (a.narrow(d, i, 1) for i in range(3))
    b0, b1, b2 = (b.narrow(d, i, 1) for i in range(3))
    return _C.cat([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], d)


def matrix_power(A, n):
    """The ``n``-th power of each square matrix of ``A``, by repeated squaring.

    ``n = 0`` gives the identity, a negative ``n`` the power of :func:`inv` of ``A``.

    Args:
        A (Tensor): shape ``(*, m, m)``.
        n (int): the exponent.

    Example::

        >>> A = flow.tensor([[1., 1.], [0., 1.]])
        >>> flow.linalg.matrix_power(A, 3)
        tensor([[1., 3.],
                [0., 1.]])
        >>> flow.linalg.matrix_power(A, 0)
        tensor([[1., 0.],
                [0., 1.]])
    """
    if not isinstance(A, _C.TensorBase) or A.dim() < 2 or A.shape[-1] != A.shape[-2]:
        raise RuntimeError("linalg.matrix_power: A must be batches of square matrices")
    n = _C.check_int(n, "matrix_power", "n", 2)
    if n == 0:  # (A * 0 keeps A in the graph: its gradient is zero, as torch's)
        return _eye_like(A.shape[-1], A) + A * 0
    if n < 0:
        A, n = inv(A), -n
    result, base = None, A
    while n:
        if n & 1:
            result = base if result is None else result.matmul(base)
        n >>= 1
        if n:
            base = base.matmul(base)
    return result


def matrix_exp(A):
    """The matrix exponential ``exp(A) = sum_k A^k / k!`` of each square matrix of ``A``.

    Computed by scaling and squaring of a Taylor series, and differentiable
    through it.

    Args:
        A (Tensor): shape ``(*, n, n)``, float32 or float64.

    Example::

        >>> flow.linalg.matrix_exp(flow.tensor([[0., 1.], [0., 0.]]))
        tensor([[1., 1.],
                [0., 1.]])
        >>> flow.linalg.matrix_exp(flow.zeros(2, 2))
        tensor([[1., 0.],
                [0., 1.]])
    """
    _check("matrix_exp", A)
    norm1 = float(_m.abs(A.detach()).sum(-2).amax().item()) if A.numel() else 0.0
    squarings = max(0, int(_math.ceil(_math.log2(norm1))) + 1) if norm1 > 0.5 else 0
    X = A / (2 ** squarings)
    n = A.shape[-1]
    result = _eye_like(n, A).expand(tuple(A.shape))
    term = result
    for k in range(1, 19):
        term = term.matmul(X) / k
        result = result + term
    for _ in range(squarings):
        result = result.matmul(result)
    return result


def multi_dot(tensors):
    """The product of a sequence of matrices, ``tensors[0] @ tensors[1] @ ...``.

    A 1-D first operand is taken as a row vector, a 1-D last one as a column
    vector (and the added dim removed from the result); all others must be 2-D.

    Args:
        tensors (sequence of Tensor): two or more operands.

    Example::

        >>> flow.linalg.multi_dot([flow.ones(2, 3), flow.ones(3, 4), flow.ones(4, 5)]).shape
        monoflow.Size([2, 5])
        >>> flow.linalg.multi_dot([flow.tensor([1., 2.]), flow.eye(2), flow.tensor([3., 4.])])
        tensor(11.)
    """
    ts = list(tensors)
    bad = [type(t).__name__ for t in ts if not isinstance(t, _C.TensorBase)]
    if bad:
        raise TypeError(f"linalg.multi_dot(): argument 'tensors' (position 1) must be a sequence of Tensors, "
                        f"got an element of type {bad[0]}")
    if len(ts) < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {len(ts)}")
    first_vec, last_vec = ts[0].dim() == 1, ts[-1].dim() == 1
    if first_vec:
        ts[0] = ts[0].unsqueeze(0)
    if last_vec:
        ts[-1] = ts[-1].unsqueeze(-1)
    out = ts[0]
    for t in ts[1:]:
        out = out.matmul(t)
    if first_vec:
        out = out.squeeze(0)
    if last_vec:
        out = out.squeeze(-1)
    return out


def vecdot(x, y, *, dim=-1):
    """The dot product of ``x`` and ``y`` along ``dim``: ``(x * y).sum(dim)``, the shapes broadcast.

    Args:
        x (Tensor): the first vectors.
        y (Tensor): the second vectors, broadcastable with ``x``.
        dim (int): the dim of the vectors. Default: -1.

    Example::

        >>> flow.linalg.vecdot(flow.tensor([[1., 2.], [3., 4.]]), flow.tensor([1., 1.]))
        tensor([3., 7.])
    """
    return (x * y).sum(dim)


def matmul(input, other):
    """The matrix product of ``input`` and ``other``; the same as :func:`monoflow.matmul`.

    Args:
        input (Tensor): the first operand, ``(*, n, m)`` or ``(m,)``.
        other (Tensor): the second operand, ``(*, m, p)`` or ``(m,)``.

    Example::

        >>> A = flow.tensor([[4., 2.], [2., 3.]])
        >>> flow.linalg.matmul(A, A)
        tensor([[20., 14.],
                [14., 13.]])
    """
    _C.check_tensor(input, "linalg.matmul", "input", 1)
    _C.check_tensor(other, "linalg.matmul", "other", 2)
    return input.matmul(other)


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """The diagonals of the matrices of ``A`` (a view); :func:`monoflow.diagonal` with matrix defaults.

    Args:
        A (Tensor): at least 2-D.
        offset (int): which diagonal: 0 the main one, > 0 above it, < 0 below.
            Default: 0.
        dim1 (int): the first dim of the matrices. Default: -2.
        dim2 (int): the second dim of the matrices. Default: -1.

    Example::

        >>> flow.linalg.diagonal(flow.tensor([[4., 2.], [2., 3.]]))
        tensor([4., 3.])
        >>> flow.linalg.diagonal(flow.ones(2, 3, 3), offset=1).shape
        monoflow.Size([2, 2])
    """
    return _shape.diagonal(A, offset, dim1, dim2)


# ---------------------------------------------------------------- LU and friends

_lu_factor_t = _result("lu_factor", ["LU", "pivots"])
_lu_factor_ex_t = _result("lu_factor_ex", ["LU", "pivots", "info"])
_lu_t = _result("lu", ["P", "L", "U"])


def _lu_eliminate(A):
    """Gaussian elimination with partial pivoting (LAPACK getrf's choices: the first largest |pivot|; a zero
    pivot column is left as it is), written with monoflow ops so that it is differentiable by composition.
    Returns (LU, perm, pivots): perm (*, m) int64 the row order (row i of P^T A is row perm[i] of A), pivots
    (*, k) int64 the 0-based row swapped with row j at step j."""
    from monoflow._creation import arange

    where = _m.where
    m, n = A.shape[-2], A.shape[-1]
    k = min(m, n)
    batch = tuple(A.shape[:-2])
    rows = arange(m, dtype=_dtypes.int64, device=A.device)
    rows_col = rows.reshape(m, 1)
    cols = arange(n, dtype=_dtypes.int64, device=A.device)
    M = A
    perm = rows.expand(*batch, m)
    pivots = []
    for j in range(k):
        col = where(rows >= j, M[..., :, j].abs(), -1.0)
        p = col.argmax(-1, True)  # (*batch, 1)
        pivots.append(p)
        swap = where(rows == j, p, where(rows == p, j, rows))
        M = M.gather(-2, swap.unsqueeze(-1).expand(*batch, m, n))
        perm = perm.gather(-1, swap)
        piv = M[..., j:j + 1, j:j + 1]
        zero = piv == 0
        l = where(rows_col > j, M[..., :, j:j + 1] / where(zero, 1.0, piv), 0.0)  # (*, m, 1)
        l = where(zero, 0.0, l)
        M = M - l * where(cols > j, M[..., j:j + 1, :], 0.0)
        M = where((rows_col > j) & (cols == j), l, M)
    piv = _shape.cat(pivots, -1) if pivots else A.new_zeros(batch + (0,)).to(_dtypes.int64)
    return M, perm, piv


def _split_lu(LU):
    m, n = LU.shape[-2], LU.shape[-1]
    k = min(m, n)
    L = LU[..., :, :k].tril(-1) + _C._eye(m, k, LU.dtype, LU.device)
    U = LU[..., :k, :].triu()
    return L, U


class _LUSquare(_Function):
    """LU of square matrices: the elimination without a tape, torch's backward formula
    gA = P L^-H (tril_-1(L^H gL) + triu(gU U^H)) U^-H."""

    @staticmethod
    def forward(ctx, A):
        LU, perm, piv = _lu_eliminate(A)
        ctx.save_for_backward(LU, perm)
        ctx.mark_non_differentiable(perm, piv)
        return LU, perm, piv

    @staticmethod
    def backward(ctx, gLU, gperm=None, gpiv=None):
        LU, perm = ctx.saved_tensors
        L, U = _split_lu(LU)
        phi = (_mT(L).matmul(gLU)).tril(-1) + gLU.matmul(_mT(U)).triu()
        X = solve_triangular(_mT(L), phi, upper=True, unitriangular=True)
        X = solve_triangular(_mT(U), X, upper=False, left=False)
        # gA = P X: row perm[i] of gA is row i of X
        inv = perm.argsort(-1)
        return X.gather(-2, inv.unsqueeze(-1).expand(tuple(X.shape)))


def _lu_core(op, A):
    if not isinstance(A, _C.TensorBase):
        raise TypeError(f"linalg.{op}(): argument 'A' must be Tensor, not {type(A).__name__}")
    if A.dim() < 2:
        raise RuntimeError(f"{op}: Expected tensor with 2 or more dimensions. Got size: {list(A.shape)} instead")
    _check(op, A, square=False)
    if A.shape[-1] == A.shape[-2] and A.requires_grad:
        return _LUSquare.apply(A)
    if A.requires_grad:
        return _lu_eliminate(A)
    with _no_grad():
        return _lu_eliminate(A)


def _lu_info(LU):
    k = min(LU.shape[-2], LU.shape[-1])
    d = _host(_shape.diagonal(LU, 0, -2, -1)) if k else _np.zeros(tuple(LU.shape[:-2]) + (0,))
    zero = d == 0
    first = _np.argmax(zero, axis=-1) + 1 if k else _np.zeros(d.shape[:-1], _np.int64)
    return _np.where(zero.any(-1), first, 0).astype(_np.int32) if k else _np.zeros(d.shape[:-1], _np.int32)


def lu_factor_ex(A, *, pivot=True, check_errors=False):
    """The compact LU factorisation with partial pivoting of each matrix of ``A``, with an ``info`` tensor:
    returns the named tuple ``(LU, pivots, info)``.

    ``LU`` holds ``L`` (unit lower triangular, below the diagonal) and ``U`` (on and above it) of
    ``A = P L U``; ``pivots`` (``int32``, 1-based, LAPACK's convention) says that row ``i`` was swapped
    with row ``pivots[i]`` at step ``i``; ``info`` is 0, or the 1-based index of the first zero on the
    diagonal of ``U`` (the matrix is singular). Rectangular and batched matrices are supported and the
    result is differentiable in ``A`` (for square ``A`` with torch's formula).

    Args:
        A (Tensor): shape ``(*, m, n)``, float32 or float64.
        pivot (bool): partial pivoting; ``False`` is refused on the CPU, as torch refuses it. Default: ``True``.
        check_errors (bool): raise ``RuntimeError`` when ``info`` is not zero. Default: ``False``.

    Example::

        >>> LU, pivots, info = flow.linalg.lu_factor_ex(flow.tensor([[1., 2.], [3., 4.]]))
        >>> LU
        tensor([[3.0000, 4.0000],
                [0.3333, 0.6667]])
        >>> pivots, info
        (tensor([2, 2], dtype=monoflow.int32), tensor(0, dtype=monoflow.int32))
    """
    return _lu_factor_ex("linalg.lu_factor_ex", A, pivot, check_errors)


def _lu_factor_ex(op, A, pivot, check_errors):
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")
    LU, _, piv = _lu_core("linalg.lu_factor" if op.startswith("linalg.") else op, A)
    info = _lu_info(LU)
    if check_errors and info.any():
        flat = info.reshape(-1)
        b = int(_np.flatnonzero(flat)[0])
        where = f"(Batch element {b}): " if info.ndim else ""
        i = int(flat[b])
        raise RuntimeError(f"{op}: {where}U[{i},{i}] is zero and using it on lu_solve would result in a "
                           f"division by zero. If you still want to perform the factorization, consider calling "
                           f"linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)")
    return _lu_factor_ex_t(LU, (piv + 1).to(_dtypes.ALIASES["int32"]), _info_tensor(info, A))


def lu_factor(A, *, pivot=True):
    """The compact LU factorisation with partial pivoting of each matrix of ``A``: the named tuple
    ``(LU, pivots)`` that :func:`lu_solve` and :func:`lu_unpack` take.

    See :func:`lu_factor_ex` for the layout. A matrix whose ``U`` has a zero on its diagonal raises
    ``RuntimeError`` (as torch: use :func:`lu_factor_ex` or :func:`lu` to factor it anyway).
    Differentiable.

    Args:
        A (Tensor): shape ``(*, m, n)``, float32 or float64.
        pivot (bool): partial pivoting; ``False`` is refused on the CPU, as torch refuses it. Default: ``True``.

    Example::

        >>> A = flow.tensor([[1., 2.], [3., 4.]])
        >>> LU, pivots = flow.linalg.lu_factor(A)
        >>> flow.linalg.lu_solve(LU, pivots, flow.tensor([[1.], [1.]]))
        tensor([[-1.],
                [ 1.]])
    """
    LU, pivots, _ = _lu_factor_ex("linalg.lu_factor", A, pivot, True)
    return _lu_factor_t(LU, pivots)


def _perm_from_pivots(pivots, m):
    """The row order (*, m) int64 of P^T A from LAPACK's 1-based sequential swaps."""
    piv = _host(pivots).astype(_np.int64) - 1
    batch = piv.shape[:-1]
    flat = piv.reshape(-1, piv.shape[-1])
    perm = _np.tile(_np.arange(m), (flat.shape[0], 1))
    rows = _np.arange(flat.shape[0])
    for j in range(flat.shape[1]):
        p = flat[:, j]
        if ((p < j) | (p >= m)).any():
            raise RuntimeError("lu_unpack: pivots must hold valid 1-based row indices of each step's remaining rows")
        a = perm[rows, j].copy()
        perm[rows, j] = perm[rows, p]
        perm[rows, p] = a
    return perm.reshape(batch + (m,))


def _perm_matrix(perm, like):
    """P (*, m, m) with A = P (P^T A): column i of P is the unit vector e_{perm[i]}."""
    m = perm.shape[-1]
    P = _np.zeros(perm.shape + (m,), dtype=_np.dtype(like.dtype.name))
    idx = _np.indices(perm.shape)
    P[tuple(idx[:-1]) + (perm, idx[-1])] = 1
    return _t(P, like)


def _lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True):
    if unpack_data:
        L, U = _split_lu(LU_data)
    else:
        L = U = LU_data.new_zeros((0,))
    if unpack_pivots:
        P = _perm_matrix(_perm_from_pivots(LU_pivots, LU_data.shape[-2]), LU_data)
    else:
        P = LU_data.new_zeros((0,))
    return _lu_unpack_t(P, L, U)


_lu_unpack_t = _result("lu_unpack", ["P", "L", "U"])


def lu(A, *, pivot=True):
    """The LU factorisation with partial pivoting of each matrix of ``A``: the named tuple ``(P, L, U)``
    with ``A = P L U``, ``L`` unit lower triangular ``(*, m, k)`` and ``U`` upper triangular ``(*, k, n)``,
    ``k = min(m, n)``.

    Singular matrices are factored too (no error). Batched, rectangular, differentiable in ``A``.

    Args:
        A (Tensor): shape ``(*, m, n)``, float32 or float64.
        pivot (bool): partial pivoting; ``False`` is refused on the CPU, as torch refuses it. Default: ``True``.

    Example::

        >>> A = flow.tensor([[1., 2.], [3., 4.]])
        >>> P, L, U = flow.linalg.lu(A)
        >>> L
        tensor([[1.0000, 0.0000],
                [0.3333, 1.0000]])
        >>> U
        tensor([[3.0000, 4.0000],
                [0.0000, 0.6667]])
    """
    if not pivot:
        raise RuntimeError("linalg.lu: LU without pivoting is not implemented on the CPU")
    LU, perm, _ = _lu_core("linalg.lu", A)
    L, U = _split_lu(LU)
    return _lu_t(_perm_matrix(_host(perm), A), L, U)


def _apply_perm_rows(perm, B, inverse):
    # P^T B has rows B[perm]; P B has rows B[argsort(perm)]
    idx = perm.argsort(-1) if inverse else perm
    batch = _C.broadcast_shapes(tuple(idx.shape[:-1]), tuple(B.shape[:-2]))
    B = B.expand(tuple(batch) + tuple(B.shape[-2:]))
    idx = idx.expand(tuple(batch) + (idx.shape[-1],))
    return B.gather(-2, idx.unsqueeze(-1).expand(tuple(B.shape)))


def lu_solve(LU, pivots, B, *, left=True, adjoint=False):
    """The solution ``X`` of ``A X = B`` given the factorisation ``(LU, pivots)`` of ``A`` from
    :func:`lu_factor` (``X A = B`` with ``left=False``; ``A^H`` in place of ``A`` with ``adjoint=True``).

    Batch dims broadcast; differentiable in ``LU`` and ``B``.

    Args:
        LU (Tensor): the packed factors of square ``A``, shape ``(*, n, n)``.
        pivots (Tensor): the 1-based pivots, shape ``(*, n)``.
        B (Tensor): the right-hand side, shape ``(*, n, k)`` (``(*, k, n)`` with ``left=False``).
        left (bool): solve ``A X = B`` if ``True``, ``X A = B`` if ``False``. Default: ``True``.
        adjoint (bool): solve with the (conjugate) transpose of ``A``. Default: ``False``.

    Example::

        >>> A = flow.tensor([[4., 2.], [2., 3.]])
        >>> LU, pivots = flow.linalg.lu_factor(A)
        >>> flow.linalg.lu_solve(LU, pivots, flow.tensor([[2.], [1.]]))
        tensor([[0.5000],
                [0.0000]])
    """
    _check("lu_solve", LU)
    if not isinstance(B, _C.TensorBase):
        raise TypeError(f"linalg.lu_solve(): argument 'B' must be Tensor, not {type(B).__name__}")
    if B.dim() < 2:
        raise RuntimeError("linalg.lu_solve: Expected B to have at least 2 dimensions, but it has "
                           f"{B.dim()} dimensions instead")
    n = LU.shape[-1]
    if left and B.shape[-2] != n:
        raise RuntimeError(f"linalg.lu_solve: Incompatible shapes of A and B for the equation AX = B "
                           f"({n}x{n} and {B.shape[-2]}x{B.shape[-1]})")
    if not left and B.shape[-1] != n:
        raise RuntimeError(f"linalg.lu_solve: Incompatible shapes of A and B for the equation XA = B "
                           f"({n}x{n} and {B.shape[-2]}x{B.shape[-1]})")
    if B.dtype != LU.dtype:
        raise RuntimeError(f"linalg.lu_solve: Expected LU and B to have the same dtype, but found LU of type "
                           f"{LU.dtype.name} and B of type {B.dtype.name} instead")
    _C.check_tensor(pivots, "linalg.lu_solve", "pivots", 2)
    if not left:
        # X A = B  <=>  A^H X^H = B^H
        return _mT(lu_solve(LU, pivots, _mT(B), adjoint=not adjoint))
    perm = _t(_perm_from_pivots(pivots, n), LU, _dtypes.int64)
    batch = _C.broadcast_shapes(tuple(LU.shape[:-2]), tuple(B.shape[:-2]))
    LUb = LU.expand(tuple(batch) + (n, n))
    B = B.expand(tuple(batch) + tuple(B.shape[-2:]))
    if not adjoint:  # A = P L U: X = U^-1 L^-1 P^T B
        Y = _apply_perm_rows(perm, B, inverse=False)
        Y = solve_triangular(LUb, Y, upper=False, unitriangular=True)
        return solve_triangular(LUb, Y, upper=True)
    # A^T = U^T L^T P^T: X = P L^-T U^-T B
    Y = solve_triangular(_mT(LUb), B, upper=False)
    Y = solve_triangular(_mT(LUb), Y, upper=True, unitriangular=True)
    return _apply_perm_rows(perm, Y, inverse=True)


def householder_product(A, tau):
    """The first ``n`` columns of the product ``H_1 ... H_k`` of Householder reflectors
    ``H_i = I - tau_i v_i v_i^H``, where ``v_i`` is column ``i`` of ``A`` below the diagonal with a 1 on it
    (LAPACK's orgqr; ``geqrf``'s output gives the ``Q`` of a QR).

    Batched and differentiable in ``A`` and ``tau``.

    Args:
        A (Tensor): shape ``(*, m, n)`` with ``m >= n``, the reflectors below the diagonal.
        tau (Tensor): shape ``(*, k)`` with ``k <= n``, the reflectors' scales.

    Example::

        >>> A = flow.tensor([[1., 0.], [1., 1.], [0., 1.]])
        >>> flow.linalg.householder_product(A, flow.tensor([1., 0.]))
        tensor([[ 0., -1.],
                [-1.,  0.],
                [ 0.,  0.]])
    """
    if not isinstance(A, _C.TensorBase) or not isinstance(tau, _C.TensorBase):
        raise TypeError("linalg.householder_product(): arguments 'input' and 'tau' must be Tensors")
    if A.dim() < 2:
        raise RuntimeError("linalg.householder_product: input must have at least 2 dimensions.")
    m, n = A.shape[-2], A.shape[-1]
    if m < n:
        raise RuntimeError("linalg.householder_product: input.shape[-2] must be greater than or equal to "
                           "input.shape[-1]")
    k = tau.shape[-1]
    if n < k:
        raise RuntimeError("linalg.householder_product: input.shape[-1] must be greater than or equal to "
                           "tau.shape[-1]")
    if tau.dim() != A.dim() - 1:
        raise RuntimeError(f"linalg.householder_product: Expected tau to have one dimension less than "
                           f"input, but got tau.ndim equal to {tau.dim()} and input.ndim is equal to {A.dim()}")
    if tau.dtype != A.dtype:
        raise RuntimeError(f"linalg.householder_product: tau dtype {tau.dtype.name} does not match input "
                           f"dtype {A.dtype.name}")
    _check("householder_product", A, square=False)
    batch = tuple(A.shape[:-2])
    eye = _C._eye(m, n, A.dtype, A.device)
    V = A.tril(-1) + eye  # unit lower trapezoidal: the reflectors' vectors
    X = eye.expand(batch + (m, n))
    for i in reversed(range(k)):
        v = V[..., :, i:i + 1]  # (*, m, 1)
        X = X - tau[..., i:i + 1].unsqueeze(-1) * v.matmul(_mT(v).matmul(X))
    return X


def _prod(shape):
    out = 1
    for s in shape:
        out *= s
    return out


def tensorinv(A, ind=2):
    """The inverse of ``A`` for :func:`monoflow.tensordot` over ``ind`` dims: ``tensordot(tensorinv(A, ind),
    A, ind)`` is the identity. ``A`` is read as the square matrix of shape ``(prod(A.shape[:ind]),
    prod(A.shape[ind:]))``; the result has shape ``A.shape[ind:] + A.shape[:ind]``.

    Args:
        A (Tensor): a tensor whose leading ``ind`` dims and trailing dims have the same number of elements.
        ind (int): how many leading dims form the rows. Default: 2.

    Example::

        >>> A = flow.eye(4).reshape(4, 2, 2)
        >>> flow.linalg.tensorinv(A, ind=1).shape
        monoflow.Size([2, 2, 4])
    """
    _C.check_tensor(A, "linalg.tensorinv", "A", 1)
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    shape = tuple(A.shape)
    rows, cols = _prod(shape[:ind]), _prod(shape[ind:])
    if rows != cols:
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[ind:]) == "
                           f"prod(self.shape[:ind]), but got {cols} != {rows}")
    return inv(A.reshape(rows, cols)).reshape(shape[ind:] + shape[:ind])


def tensorsolve(A, B, dims=None):
    """The ``X`` with ``tensordot(A, X, X.ndim) == B``: ``A`` is read as a square matrix of shape
    ``(B.numel(), prod(A.shape[B.ndim:]))`` and ``X`` has shape ``A.shape[B.ndim:]``.

    Args:
        A (Tensor): the coefficients; ``prod(A.shape[B.ndim:]) == B.numel()``.
        B (Tensor): the right-hand side, ``A.shape[:B.ndim]``.
        dims (tuple of int, optional): dims of ``A`` moved to the end first. Default: ``None``.

    Example::

        >>> A = flow.eye(6).reshape(2, 3, 6)
        >>> flow.linalg.tensorsolve(A, flow.ones(2, 3)).shape
        monoflow.Size([6])
    """
    _C.check_tensor(A, "linalg.tensorsolve", "A", 1)
    _C.check_tensor(B, "linalg.tensorsolve", "B", 2)
    if dims is not None:
        nd = A.dim()
        dims = [d % nd for d in dims]
        rest = [d for d in range(nd) if d not in dims]
        A = A.permute(*(rest + dims))
    shape = tuple(A.shape)
    res_shape = shape[B.dim():]
    n = _prod(res_shape)
    if tuple(shape[:B.dim()]) != tuple(B.shape) or n != B.numel():
        raise RuntimeError(f"Expected self to satisfy the requirement prod(result_shape) == other.numel(), but got "
                           f"{n} != {B.numel()}")
    return solve(A.reshape(n, n), B.reshape(n)).reshape(res_shape)


def vander(x, N=None):
    """The Vandermonde matrix of ``x``: ``[x^0, x^1, ..., x^(N-1)]`` along a new last dim (increasing powers,
    unlike ``numpy.vander``).

    Args:
        x (Tensor): shape ``(*, n)``.
        N (int, optional): the number of columns (> 1). Default: ``n``.

    Example::

        >>> flow.linalg.vander(flow.tensor([1, 2, 3]))
        tensor([[1, 1, 1],
                [1, 2, 4],
                [1, 3, 9]])
    """
    _C.check_tensor(x, "linalg.vander", "x", 1)
    if x.dim() < 1:
        raise RuntimeError("x must have at least one dimension.")
    if N is None:
        N = x.shape[-1]
    if N <= 1:
        raise RuntimeError("N must be greater than 1.")
    if x.dtype == _dtypes.bool_:
        raise RuntimeError("linalg.vander supports floating point, complex, and integer tensors, but got Bool")
    ones = x.new_ones(tuple(x.shape) + (1,))
    powers = x.unsqueeze(-1).expand(*x.shape, N - 1).cumprod(-1)
    return _shape.cat([ones, powers], -1)


# ---------------------------------------------------------------- LDL^T (Bunch-Kaufman)

_ldl_factor_t = _result("ldl_factor", ["LD", "pivots"])
_ldl_factor_ex_t = _result("ldl_factor_ex", ["LD", "pivots", "info"])
_BK_ALPHA = (1 + _math.sqrt(17)) / 8


def _sytf2_lower(a):
    """LAPACK dsytf2 (uplo 'L') on one symmetric matrix (a copy is factored in place): (LD, ipiv 1-based, info)."""
    a = _np.tril(a).copy()
    a = a + _np.tril(a, -1).T  # a full symmetric working copy (only the lower triangle is read)
    n = a.shape[0]
    ipiv = _np.zeros(n, _np.int32)
    info = 0
    k = 0
    while k < n:
        kstep = 1
        absakk = abs(a[k, k])
        if k < n - 1:
            imax = k + 1 + int(_np.argmax(_np.abs(a[k + 1:, k])))
            colmax = abs(a[imax, k])
        else:
            imax, colmax = k, 0.0
        if max(absakk, colmax) == 0 or _np.isnan(absakk):
            if info == 0:
                info = k + 1
            kp = k
        else:
            if absakk >= _BK_ALPHA * colmax:
                kp = k
            else:
                row = _np.abs(a[imax, k:imax])
                rowmax = row.max() if row.size else 0.0
                if imax < n - 1:
                    rowmax = max(rowmax, _np.abs(a[imax + 1:, imax]).max())
                if absakk >= _BK_ALPHA * colmax * (colmax / rowmax):
                    kp = k
                elif abs(a[imax, imax]) >= _BK_ALPHA * rowmax:
                    kp = imax
                else:
                    kp = imax
                    kstep = 2
            kk = k + kstep - 1
            if kp != kk:  # symmetric interchange of rows/columns kk and kp in the trailing matrix
                idx = _np.arange(n)
                idx[kk], idx[kp] = kp, kk
                sub = _np.ix_(idx[k:], idx[k:])
                a[k:, k:] = a[sub]
            if kstep == 1:
                if k < n - 1:
                    d11 = 1.0 / a[k, k]
                    x = a[k + 1:, k].copy()
                    a[k + 1:, k + 1:] -= d11 * _np.outer(x, x)
                    a[k + 1:, k] = x * d11
                    a[k, k + 1:] = a[k + 1:, k]
            else:
                if k < n - 2:
                    d21 = a[k + 1, k]
                    d11 = a[k + 1, k + 1] / d21
                    d22 = a[k, k] / d21
                    t = 1.0 / (d11 * d22 - 1.0)
                    d21 = t / d21
                    ak, ak1 = a[k + 2:, k].copy(), a[k + 2:, k + 1].copy()
                    wk = d21 * (d11 * ak - ak1)
                    wkp1 = d21 * (d22 * ak1 - ak)
                    a[k + 2:, k + 2:] -= _np.outer(ak, wk) + _np.outer(ak1, wkp1)
                    a[k + 2:, k], a[k + 2:, k + 1] = wk, wkp1
                    a[k, k + 2:], a[k + 1, k + 2:] = wk, wkp1
        if kstep == 1:
            ipiv[k] = kp + 1
        else:
            ipiv[k] = ipiv[k + 1] = -(kp + 1)
        k += kstep
    return _np.tril(a), ipiv, info


class _NoGrad(_Function):
    """Passes values through; a backward raises as torch's for ops without a derivative."""

    @staticmethod
    def forward(ctx, name, value, *sources):
        ctx.name = name
        return value.clone()

    @staticmethod
    def backward(ctx, *grads):
        raise RuntimeError(f"derivative for aten::{ctx.name} is not implemented")


def ldl_factor_ex(A, *, hermitian=False, check_errors=False):
    """The compact LDL^T factorisation with Bunch-Kaufman pivoting (LAPACK's sytrf) of each symmetric matrix
    of ``A`` (only its lower triangle is read): the named tuple ``(LD, pivots, info)``.

    ``LD`` holds the unit lower triangular ``L`` below the diagonal and the block diagonal ``D`` (1x1 and 2x2
    blocks) on it and the subdiagonal; ``pivots`` (``int32``) follow LAPACK: ``k > 0`` a 1x1 block with rows
    swapped with row ``k``, a pair of equal negative values a 2x2 block. ``info`` is the first (1-based) zero
    block of ``D``, or 0. Not differentiable (as torch).

    Args:
        A (Tensor): shape ``(*, n, n)``, float32 or float64.
        hermitian (bool): Hermitian rather than symmetric (the same for real matrices). Default: ``False``.
        check_errors (bool): raise ``RuntimeError`` when ``info`` is not zero. Default: ``False``.

    Example::

        >>> LD, pivots, info = flow.linalg.ldl_factor_ex(flow.tensor([[4., 2.], [2., 3.]]))
        >>> LD
        tensor([[4.0000, 0.0000],
                [0.5000, 2.0000]])
        >>> pivots, info
        (tensor([1, 2], dtype=monoflow.int32), tensor(0, dtype=monoflow.int32))
    """
    _check("ldl_factor_ex", A)
    a = _host(A)
    n = a.shape[-1]
    flat = a.reshape(-1, n, n)
    LD = _np.empty_like(flat)
    piv = _np.empty(flat.shape[:-1], _np.int32)
    info = _np.zeros(flat.shape[0], _np.int32)
    for b in range(flat.shape[0]):
        LD[b], piv[b], info[b] = _sytf2_lower(flat[b].astype(_np.float64))
    info = info.reshape(a.shape[:-2])
    if check_errors and info.any():
        fl = info.reshape(-1)
        b = int(_np.flatnonzero(fl)[0])
        where = f"(Batch element {b}): " if info.ndim else ""
        raise RuntimeError(f"linalg.ldl_factor_ex: {where}The factorization could not be completed because "
                           f"the input is singular (D[{int(fl[b])},{int(fl[b])}] is exactly zero).")
    LDt = _t(LD.reshape(a.shape), A)
    if A.requires_grad:
        LDt = _NoGrad.apply("linalg_ldl_factor_ex", LDt, A)
    return _ldl_factor_ex_t(LDt, _t(piv.reshape(a.shape[:-1]), A, _dtypes.ALIASES["int32"]),
                            _info_tensor(info, A))


def ldl_factor(A, *, hermitian=False):
    """The compact LDL^T factorisation with Bunch-Kaufman pivoting of each symmetric matrix of ``A``: the
    named tuple ``(LD, pivots)`` that :func:`ldl_solve` takes (see :func:`ldl_factor_ex`). A singular
    ``D`` raises ``RuntimeError``.

    Args:
        A (Tensor): shape ``(*, n, n)``, float32 or float64 (only the lower triangle is read).
        hermitian (bool): Hermitian rather than symmetric (the same for real matrices). Default: ``False``.

    Example::

        >>> A = flow.tensor([[1., 2.], [2., 1.]])
        >>> LD, pivots = flow.linalg.ldl_factor(A)
        >>> flow.linalg.ldl_solve(LD, pivots, flow.tensor([[3.], [3.]]))
        tensor([[1.],
                [1.]])
    """
    LD, piv, _ = ldl_factor_ex(A, hermitian=hermitian, check_errors=True)
    return _ldl_factor_t(LD, piv)


def _sytrs_lower(a, ipiv, b):
    n = a.shape[0]
    b = b.copy()
    k = 0
    while k < n:
        if ipiv[k] > 0:
            kp = ipiv[k] - 1
            if kp != k:
                b[[k, kp]] = b[[kp, k]]
            if k < n - 1:
                b[k + 1:] -= _np.outer(a[k + 1:, k], b[k])
            b[k] /= a[k, k]
            k += 1
        else:
            kp = -ipiv[k] - 1
            if kp != k + 1:
                b[[k + 1, kp]] = b[[kp, k + 1]]
            if k < n - 2:
                b[k + 2:] -= _np.outer(a[k + 2:, k], b[k]) + _np.outer(a[k + 2:, k + 1], b[k + 1])
            akm1k = a[k + 1, k]
            akm1 = a[k, k] / akm1k
            ak = a[k + 1, k + 1] / akm1k
            denom = akm1 * ak - 1.0
            bkm1 = b[k] / akm1k
            bk = b[k + 1] / akm1k
            b[k] = (ak * bkm1 - bk) / denom
            b[k + 1] = (akm1 * bk - bkm1) / denom
            k += 2
    k = n - 1
    while k >= 0:
        if ipiv[k] > 0:
            if k < n - 1:
                b[k] -= a[k + 1:, k] @ b[k + 1:]
            kp = ipiv[k] - 1
            if kp != k:
                b[[k, kp]] = b[[kp, k]]
            k -= 1
        else:
            if k < n - 1:
                b[k] -= a[k + 1:, k] @ b[k + 1:]
                b[k - 1] -= a[k + 1:, k - 1] @ b[k + 1:]
            kp = -ipiv[k] - 1
            if kp != k:
                b[[k, kp]] = b[[kp, k]]
            k -= 2
    return b


def ldl_solve(LD, pivots, B, *, hermitian=False):
    """The solution ``X`` of ``A X = B`` from the factorisation ``(LD, pivots)`` of :func:`ldl_factor`
    (LAPACK's sytrs). Batch dims broadcast. Not differentiable (as torch).

    Args:
        LD (Tensor): the compact factorisation, shape ``(*, n, n)``.
        pivots (Tensor): its pivots, shape ``(*, n)``.
        B (Tensor): the right-hand side, shape ``(*, n, k)``.
        hermitian (bool): the factorisation is Hermitian (the same for real matrices). Default: ``False``.

    Example::

        >>> LD, pivots = flow.linalg.ldl_factor(flow.tensor([[4., 2.], [2., 3.]]))
        >>> flow.linalg.ldl_solve(LD, pivots, flow.tensor([[2.], [1.]]))
        tensor([[0.5000],
                [0.0000]])
    """
    _check("ldl_solve", LD)
    if not isinstance(B, _C.TensorBase) or B.dim() < 2:
        raise RuntimeError("linalg.ldl_solve: Expected B to have at least 2 dimensions")
    n = LD.shape[-1]
    if B.shape[-2] != n:
        raise RuntimeError(f"linalg.ldl_solve: Incompatible shapes of A and B for the equation AX = B "
                           f"({n}x{n} and {B.shape[-2]}x{B.shape[-1]})")
    if B.dtype != LD.dtype:
        raise RuntimeError(f"linalg.ldl_solve: Expected LD and B to have the same dtype, but found LD of "
                           f"type {LD.dtype.name} and B of type {B.dtype.name} instead")
    _C.check_tensor(pivots, "linalg.ldl_solve", "pivots", 2)
    a, p, b = _host(LD), _host(pivots).astype(_np.int64), _host(B)
    batch = _np.broadcast_shapes(a.shape[:-2], p.shape[:-1], b.shape[:-2])
    a = _np.broadcast_to(a, batch + a.shape[-2:]).reshape(-1, n, n)
    p = _np.broadcast_to(p, batch + p.shape[-1:]).reshape(-1, n)
    b = _np.broadcast_to(b, batch + b.shape[-2:]).reshape((-1,) + b.shape[-2:])
    X = _np.stack([_sytrs_lower(a[i].astype(_np.float64), p[i], b[i].astype(_np.float64))
                   for i in range(a.shape[0])]) if a.shape[0] else b
    X = _t(X.reshape(batch + B.shape[-2:]), B)
    if B.requires_grad or LD.requires_grad:
        X = _NoGrad.apply("linalg_ldl_solve", X, LD, B)
    return X
