"""torch.nn.utils.parametrizations: weight_norm, spectral_norm and orthogonal as parametrizations
(nn.utils.parametrize), the form torch recommends over the hook-based nn.utils.weight_norm/spectral_norm.
The state_dict keys are torch's: ``parametrizations.weight.original0/1`` and ``parametrizations.weight.0._u/_v``."""
from monoflow import _C, linalg
from monoflow._type_info import finfo
from monoflow.autograd.grad_mode import no_grad
from monoflow.ops_matrix import matrix_exp
from monoflow.ops_random import randn
from monoflow.ops_shape import cat
from monoflow.nn.functional import normalize
from monoflow.nn.module import Module
from monoflow.nn.utils import parametrize
from monoflow.nn.utils.weight_norm import _norm_except_dim

__all__ = ["weight_norm", "spectral_norm", "orthogonal"]


class _WeightNorm(Module):
    def __init__(self, dim=0):
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g, weight_v):
        return weight_v * (weight_g / _norm_except_dim(weight_v, self.dim))

    def right_inverse(self, weight):
        return _norm_except_dim(weight, self.dim), weight


def weight_norm(module, name="weight", dim=0):
    """Reparameterizes ``module.<name>`` as ``g * v / ||v||`` (the norm over every dim but ``dim``; all of them
    for ``dim=None``), with ``g = original0`` and ``v = original1``.

    Example::

        >>> m = nn.utils.parametrizations.weight_norm(nn.Linear(20, 40))
        >>> tuple(m.parametrizations.weight.original0.shape), tuple(m.parametrizations.weight.original1.shape)
        ((40, 1), (40, 20))
    """
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)
    return module


class _SpectralNorm(Module):
    def __init__(self, weight, n_power_iterations=1, dim=0, eps=1e-12):
        super().__init__()
        ndim = weight.dim()
        if dim >= ndim or dim < -ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of [-{ndim}, {ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError(f"Expected n_power_iterations to be positive, but got n_power_iterations={n_power_iterations}")
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            mat = self._reshape_weight_to_matrix(weight)
            h, w = mat.shape
            u = mat.new_empty(h).normal_(0, 1)
            v = mat.new_empty(w).normal_(0, 1)
            self.register_buffer("_u", normalize(u, dim=0, eps=self.eps))
            self.register_buffer("_v", normalize(v, dim=0, eps=self.eps))
            self._power_method(mat, 15)  # start near the top singular vectors, as torch

    def _reshape_weight_to_matrix(self, weight):
        if self.dim != 0:
            weight = weight.movedim(self.dim, 0)
        return weight.flatten(1)

    @no_grad()
    def _power_method(self, mat, n_power_iterations):
        for _ in range(n_power_iterations):
            self._u.copy_(normalize(mat.mv(self._v), dim=0, eps=self.eps))
            self._v.copy_(normalize(mat.T.mv(self._u), dim=0, eps=self.eps))

    def forward(self, weight):
        if weight.dim() == 1:
            return normalize(weight, dim=0, eps=self.eps)
        mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(mat, self.n_power_iterations)
        u, v = self._u.clone(), self._v.clone()  # the buffers change in place; autograd needs these values
        sigma = u.dot(mat.mv(v))
        return weight / sigma

    def right_inverse(self, value):
        return value


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Divides ``module.<name>`` by its largest singular value, estimated by power iteration (one step per
    training-mode access); ``dim`` defaults to 1 for transposed convolutions, else 0.

    Example::

        >>> m = nn.utils.parametrizations.spectral_norm(nn.Linear(20, 40))
        >>> tuple(m.parametrizations.weight[0]._u.shape)
        (40,)
    """
    weight = getattr(module, name, None)
    if weight is None or not hasattr(weight, "dim"):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        from monoflow.nn import modules  # here: nn.utils loads while nn.modules is still loading
        transposed = tuple(getattr(modules, n) for n in ("ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d")
                           if hasattr(modules, n))  # monoflow has no ConvTranspose3d yet
        dim = 1 if isinstance(module, transposed) else 0
    parametrize.register_parametrization(module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module


# ---------------------------------------------------------------- orthogonal

def _householder_q(A, tau):
    """The first k columns of H_0 H_1 ... H_(k-1), H_i = I - tau_i v_i v_i^T, v_i = e_i + A[i+1:, i]
    (A's strictly lower part): LAPACK's compact form of Q, kept differentiable by building it from ops."""
    n, k = A.shape[-2], A.shape[-1]
    eye = _eye_like(A, n)
    V = A.tril(-1) + eye[:, :k]
    Q = eye[:, :k].expand(*A.shape[:-2], n, k)
    for i in range(k - 1, -1, -1):
        v = V[..., :, i:i + 1]
        Q = Q - tau[..., i:i + 1].unsqueeze(-1) * v * (v.mT @ Q)
    return Q


def _eye_like(X, n):
    return _C._eye(n, n, X.dtype, X.device)


def _orthonormalize(M):
    """The Q of M = QR with R's diagonal made positive (unique for a full-rank M)."""
    Q, R = linalg.qr(M)
    return Q * R.diagonal(dim1=-2, dim2=-1).sign().unsqueeze(-2)


class _Orthogonal(Module):
    """Maps an unconstrained tensor to a matrix with orthonormal columns (rows, for a wide matrix). With
    the trivialization the map starts at identity and a buffer ``base`` (the initial weight made
    orthogonal) multiplies it, so that training moves around the initial weight."""

    _MAPS = ("matrix_exp", "cayley", "householder")

    def __init__(self, weight, orthogonal_map, *, use_trivialization=True):
        super().__init__()
        if weight.dtype.is_complex and orthogonal_map == "householder":
            raise ValueError("The householder parametrization does not support complex tensors.")
        self.shape = tuple(weight.shape)
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X):
        n, k = X.shape[-2], X.shape[-1]
        wide = n < k
        if wide:
            X, n, k = X.mT, k, n
        if self.orthogonal_map == "householder":
            A = X.tril(-1)
            tau = 2.0 / (1.0 + (A * A).sum(dim=-2))
            Q = _householder_q(A, tau) * X.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)
        else:
            L = X.tril()
            if n != k:
                L = cat([L, L.new_zeros(*L.shape[:-2], n, n - k)], dim=-1)
            A = L - L.mT.conj() if L.dtype.is_complex else L - L.mT
            if self.orthogonal_map == "matrix_exp":
                Q = matrix_exp(A)
            else:  # the Cayley map (I - A/2)^-1 (I + A/2)
                eye = _eye_like(A, n)
                Q = linalg.solve(eye - 0.5 * A, eye + 0.5 * A)
            Q = Q[..., :k] if n != k else Q
        if getattr(self, "base", None) is not None:
            Q = self.base @ Q
        return Q.mT if wide else Q

    @no_grad()
    def right_inverse(self, Q):
        if tuple(Q.shape) != self.shape:
            raise ValueError(f"Expected a matrix or batch of matrices of shape {self.shape}. Got a tensor of shape "
                             f"{tuple(Q.shape)}.")
        n, k = Q.shape[-2], Q.shape[-1]
        M = Q.mT if n < k else Q
        n, k = M.shape[-2], M.shape[-1]
        if "base" not in self._buffers:
            raise NotImplementedError("orthogonal(use_trivialization=False): assigning to the weight is not "
                                      "implemented in monoflow; use the default use_trivialization=True")
        if n != k:
            M = cat([M, randn(*M.shape[:-2], n, n - k, dtype=M.dtype, device=M.device)], dim=-1)
        eye = _eye_like(M, M.shape[-1])
        tol = 10.0 * n * _eps(M.dtype)
        orthonormal = n == k and bool(((M.mT @ M - eye).abs() <= tol).all())
        self.base = M.clone() if orthonormal else _orthonormalize(M)
        start = Q.new_zeros(Q.shape)
        start.diagonal(dim1=-2, dim2=-1).fill_(-1.0)  # maps to the identity under all three maps
        return start


def _eps(dtype):
    return finfo(dtype).eps


def orthogonal(module, name="weight", orthogonal_map=None, *, use_trivialization=True):
    """Constrains the matrix ``module.<name>`` (or a batch of them) to have orthonormal columns, or rows
    when it is wide. ``orthogonal_map``: ``"matrix_exp"`` (the default for square matrices),
    ``"cayley"`` or ``"householder"`` (the default otherwise). The weight keeps its initial value.

    Example::

        >>> m = nn.utils.parametrizations.orthogonal(nn.Linear(20, 40))
        >>> bool(flow.allclose(m.weight.T @ m.weight, flow.eye(20), atol=1e-5))
        True
    """
    weight = getattr(module, name, None)
    if weight is None or not hasattr(weight, "dim"):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.dim() < 2:
        raise ValueError(f"Expected a matrix or batch of matrices. Got a tensor of {weight.dim()} dimensions.")
    if orthogonal_map is None:
        square = weight.shape[-2] == weight.shape[-1]
        orthogonal_map = "matrix_exp" if square or weight.dtype.is_complex else "householder"
    if orthogonal_map not in _Orthogonal._MAPS:
        raise ValueError(f'orthogonal_map has to be one of "matrix_exp", "cayley", "householder". '
                         f"Got: {orthogonal_map}")
    parametrize.register_parametrization(module, name, _Orthogonal(weight, orthogonal_map,
                                                                   use_trivialization=use_trivialization),
                                         unsafe=True)
    return module
