"""torch's top-level factorisation names, written over monoflow.linalg: ``lu``, ``lu_solve``, ``lu_unpack``,
``triangular_solve``, ``geqrf``, ``orgqr``, ``ormqr`` and ``matrix_rank`` (which torch removed: it raises as
torch does); and ``igamma`` / ``igammac`` (monoflow.special's gammainc / gammaincc). ``monoflow/__init__.py``
exports them as ``flow.lu`` & co."""
import warnings as _warnings

import numpy as _np

from monoflow import linalg as _linalg
from monoflow._op_names import names_its_errors
from monoflow.linalg import _C, _check, _host, _NoGrad, _result, _t

__all__ = ["lu", "lu_solve", "lu_unpack", "triangular_solve", "orgqr", "matrix_rank", "geqrf", "ormqr", "igamma",
           "igammac"]

_triangular_solve_t = _result("triangular_solve", ["solution", "cloned_coefficient"])
_lu_with_info_t = _result("lu_with_info", ["LU", "pivots", "info"])


def lu(A, pivot=True, get_infos=False, out=None):
    """The compact LU factorisation of ``A`` (deprecated in torch in favour of :func:`monoflow.linalg.lu_factor`):
    ``(LU, pivots)``, or ``(LU, pivots, infos)`` with ``get_infos=True``.

    Without ``get_infos`` a singular matrix raises ``RuntimeError``, as torch.

    Args:
        A (Tensor): shape ``(*, m, n)``, float32 or float64.
        pivot (bool): partial pivoting (``False`` is refused on the CPU). Default: ``True``.
        get_infos (bool): also return LAPACK's ``info`` per matrix. Default: ``False``.
        out (tuple, optional): not supported (must be ``None``).

    Example::

        >>> LU, pivots = flow.lu(flow.tensor([[1., 2.], [3., 4.]]))
        >>> pivots
        tensor([2, 2], dtype=monoflow.int32)
    """
    if out is not None:
        raise NotImplementedError("lu(): out= is not supported")
    _warnings.warn("torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex and will "
                   "be removed in a future PyTorch release.", UserWarning, stacklevel=2)
    res = _linalg._lu_factor_ex("lu_factor", A, pivot, not get_infos)
    return _lu_with_info_t(*res) if get_infos else (res[0], res[1])


def lu_solve(b, LU_data, LU_pivots, *, out=None):
    """The solution of ``A X = b`` from the factorisation ``(LU_data, LU_pivots)`` of ``A`` (torch's argument
    order; :func:`monoflow.linalg.lu_solve` takes ``(LU, pivots, B)``).

    Args:
        b (Tensor): the right-hand side, ``(*, n, k)``.
        LU_data (Tensor): the packed factors from :func:`monoflow.linalg.lu_factor`.
        LU_pivots (Tensor): their 1-based pivots.
        out (Tensor, optional): not supported (must be ``None``).

    Example::

        >>> A = flow.tensor([[4., 2.], [2., 3.]])
        >>> flow.lu_solve(flow.tensor([[2.], [1.]]), *flow.linalg.lu_factor(A))
        tensor([[0.5000],
                [0.0000]])
    """
    if out is not None:
        raise NotImplementedError("lu_solve(): out= is not supported")
    return _linalg.lu_solve(LU_data, LU_pivots, b)


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True, *, out=None):
    """Unpacks the compact ``(LU, pivots)`` of :func:`monoflow.linalg.lu_factor` into the named tuple
    ``(P, L, U)`` with ``A = P L U``.

    Differentiable in ``LU_data``. With ``unpack_data=False`` ``L`` and ``U`` are empty tensors, with
    ``unpack_pivots=False`` ``P`` is (as in torch).

    Args:
        LU_data (Tensor): the packed factors, shape ``(*, m, n)``.
        LU_pivots (Tensor): the 1-based pivots, shape ``(*, min(m, n))``, int32.
        unpack_data (bool): compute ``L`` and ``U``. Default: ``True``.
        unpack_pivots (bool): compute ``P``. Default: ``True``.
        out (tuple, optional): not supported (must be ``None``).

    Example::

        >>> A = flow.tensor([[1., 2.], [3., 4.]])
        >>> P, L, U = flow.lu_unpack(*flow.linalg.lu_factor(A))
        >>> P
        tensor([[0., 1.],
                [1., 0.]])
        >>> flow.allclose(P @ L @ U, A)
        True
    """
    if out is not None:
        raise NotImplementedError("lu_unpack(): out= is not supported")
    return _linalg._lu_unpack(LU_data, LU_pivots, unpack_data, unpack_pivots)


def triangular_solve(b, A, upper=True, transpose=False, unitriangular=False, *, out=None):
    """The solution ``X`` of ``A X = b`` (``A^T X = b`` with ``transpose=True``) for triangular ``A``, and a
    copy of ``A`` (deprecated in torch in favour of :func:`monoflow.linalg.solve_triangular`): the named tuple
    ``(solution, cloned_coefficient)``.

    Args:
        b (Tensor): the right-hand side, ``(*, n, k)``.
        A (Tensor): the triangular matrices, ``(*, n, n)``.
        upper (bool): ``A`` is upper triangular. Default: ``True``.
        transpose (bool): solve with ``A^T``. Default: ``False``.
        unitriangular (bool): take the diagonal of ``A`` as ones. Default: ``False``.
        out (tuple, optional): not supported (must be ``None``).

    Example::

        >>> U = flow.tensor([[2., 1.], [0., 1.]])
        >>> flow.triangular_solve(flow.tensor([[3.], [1.]]), U).solution
        tensor([[1.],
                [1.]])
    """
    if out is not None:
        raise NotImplementedError("triangular_solve(): out= is not supported")
    if b.dim() < 2 or A.dim() < 2:
        raise RuntimeError(f"torch.triangular_solve: Expected b to have at least 2 dimensions, but it has "
                           f"{b.dim()} dimensions instead" if b.dim() < 2 else
                           f"torch.triangular_solve: Expected A to have at least 2 dimensions, but it has "
                           f"{A.dim()} dimensions instead")
    batch = _C.broadcast_shapes(tuple(A.shape[:-2]), tuple(b.shape[:-2]))
    Ab = A.expand(tuple(batch) + tuple(A.shape[-2:]))
    bb = b.expand(tuple(batch) + tuple(b.shape[-2:]))
    M = Ab.transpose(-2, -1) if transpose else Ab
    X = _linalg.solve_triangular(M, bb, upper=upper != transpose, unitriangular=unitriangular)
    return _triangular_solve_t(X, Ab.clone())


def orgqr(input, tau):
    """The same as :func:`monoflow.linalg.householder_product`: the ``Q`` of the Householder reflectors of
    ``input`` scaled by ``tau``.

    Args:
        input (Tensor): shape ``(*, m, n)``, the reflectors below the diagonal.
        tau (Tensor): shape ``(*, k)``, the reflectors' scales.

    Example::

        >>> A = flow.tensor([[1., 0.], [1., 1.], [0., 1.]])
        >>> flow.orgqr(A, flow.tensor([1., 0.])).shape
        monoflow.Size([3, 2])
    """
    return _linalg.householder_product(input, tau)


def matrix_rank(input, tol=None, symmetric=False, *, out=None):
    """Removed from torch (since 1.9): raises ``RuntimeError`` as torch does; use
    :func:`monoflow.linalg.matrix_rank`.

    Args:
        input (Tensor): the matrix.
        tol (float, optional): ignored.
        symmetric (bool): ignored.
        out (Tensor, optional): ignored.

    Example::

        >>> flow.linalg.matrix_rank(flow.eye(3))
        tensor(3)
    """
    raise RuntimeError("This function was deprecated since version 1.9 and is now removed.\nPlease use the "
                       "`torch.linalg.matrix_rank` function instead. The parameter 'symmetric' was renamed in "
                       "`torch.linalg.matrix_rank()` to 'hermitian'.")


_geqrf_t = _result("geqrf", ["a", "tau"])


def _geqr2(a):
    """LAPACK dgeqr2 on one matrix (float64 copy): the reflectors below the diagonal, R on and above, tau."""
    a = a.copy()
    m, n = a.shape
    k = min(m, n)
    tau = _np.zeros(k)
    for j in range(k):
        alpha = a[j, j]
        xnorm = _np.linalg.norm(a[j + 1:, j]) if j + 1 < m else 0.0
        if xnorm == 0.0:
            continue  # H = I
        beta = -_np.copysign(_np.hypot(alpha, xnorm), alpha)
        tau[j] = (beta - alpha) / beta
        a[j + 1:, j] /= alpha - beta
        a[j, j] = beta
        if j + 1 < n:
            v = _np.concatenate([[1.0], a[j + 1:, j]])
            a[j:, j + 1:] -= tau[j] * _np.outer(v, v @ a[j:, j + 1:])
    return a, tau


def geqrf(input, *, out=None):
    """The QR factorisation of each matrix of ``input`` in LAPACK's compact form (geqrf): the named tuple
    ``(a, tau)`` with ``R`` on and above the diagonal of ``a``, the Householder vectors below it, and their
    scales ``tau``; :func:`monoflow.linalg.householder_product` (``orgqr``) rebuilds ``Q``. Not differentiable
    (as torch).

    Args:
        input (Tensor): shape ``(*, m, n)``, float32 or float64.
        out (tuple, optional): not supported (must be ``None``).

    Example::

        >>> a, tau = flow.geqrf(flow.tensor([[3., 1.], [4., 2.]]))
        >>> a
        tensor([[-5.0000, -2.2000],
                [ 0.5000,  0.4000]])
        >>> tau
        tensor([1.6000, 0.0000])
    """
    if out is not None:
        raise NotImplementedError("geqrf(): out= is not supported")
    _check("geqrf", input, square=False)
    x = _host(input).astype(_np.float64)
    m, n = x.shape[-2:]
    flat = x.reshape(-1, m, n)
    res = [_geqr2(mat) for mat in flat]
    A = _np.stack([r[0] for r in res]).reshape(x.shape) if res else x
    tau = _np.stack([r[1] for r in res]).reshape(x.shape[:-2] + (min(m, n),)) if res else \
        _np.zeros(x.shape[:-2] + (min(m, n),))
    A, tau = _t(A, input), _t(tau, input)
    if input.requires_grad:
        A = _NoGrad.apply("geqrf", A, input)
        tau = _NoGrad.apply("geqrf", tau, input)
    return _geqrf_t(A, tau)


def ormqr(input, tau, other, left=True, transpose=False, *, out=None):
    """``Q @ other`` (``Q^T`` with ``transpose=True``; ``other @ Q`` with ``left=False``) for the ``Q`` of the
    Householder reflectors ``(input, tau)`` of :func:`geqrf`, without forming ``Q`` in the caller.
    Differentiable in ``input``, ``tau`` and ``other``.

    Args:
        input (Tensor): the reflectors below the diagonal, shape ``(*, mn, k)``.
        tau (Tensor): their scales, shape ``(*, min(mn, k))``.
        other (Tensor): the matrix to multiply, shape ``(*, m, n)``.
        left (bool): ``Q`` on the left of ``other``. Default: ``True``.
        transpose (bool): use ``Q^T``. Default: ``False``.
        out (Tensor, optional): not supported (must be ``None``).

    Example::

        >>> a, tau = flow.geqrf(flow.tensor([[3., 1.], [4., 2.]]))
        >>> flow.ormqr(a, tau, flow.eye(2))
        tensor([[-0.6000, -0.8000],
                [-0.8000,  0.6000]])
    """
    if out is not None:
        raise NotImplementedError("ormqr(): out= is not supported")
    mn = input.shape[-2]
    k = input.shape[-1]
    if mn > k:  # pad with zero columns: householder_product then gives the full mn x mn Q
        zeros = input.new_zeros(tuple(input.shape[:-1]) + (mn - k,))
        from monoflow import ops_shape as _shape
        input = _shape.cat([input, zeros], -1)
    Q = _linalg.householder_product(input[..., :mn], tau)
    if transpose:
        Q = Q.transpose(-2, -1)
    return Q.matmul(other) if left else other.matmul(Q)


def igamma(input, other, *, out=None):
    """The regularized lower incomplete gamma function ``P(input, other)``: :func:`monoflow.special.gammainc`.

    Args:
        input (Tensor): the shape parameter ``a`` (nonnegative).
        other (Tensor): the upper limit ``x`` (nonnegative).
        out (Tensor, optional): not supported (must be ``None``).

    Example::

        >>> flow.igamma(flow.tensor([1.0]), flow.tensor([1.0]))
        tensor([0.6321])
    """
    from monoflow.special import gammainc
    return gammainc(input, other, out=out)


def igammac(input, other, *, out=None):
    """The regularized upper incomplete gamma function ``Q(input, other)``: :func:`monoflow.special.gammaincc`.

    Args:
        input (Tensor): the shape parameter ``a`` (nonnegative).
        other (Tensor): the lower limit ``x`` (nonnegative).
        out (Tensor, optional): not supported (must be ``None``).

    Example::

        >>> flow.igammac(flow.tensor([1.0]), flow.tensor([1.0]))
        tensor([0.3679])
    """
    from monoflow.special import gammaincc
    return gammaincc(input, other, out=out)



# refusals from the linear-algebra functions beneath name the function the user called
for _name in __all__:
    if callable(globals()[_name]):
        globals()[_name] = names_its_errors(globals()[_name], ("input", "A", "b", "LU_data"))
del _name
