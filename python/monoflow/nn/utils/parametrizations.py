"""torch.nn.utils.parametrizations: weight_norm and spectral_norm as parametrizations
(nn.utils.parametrize), the form torch recommends over the hook-based nn.utils.weight_norm/spectral_norm.
The state_dict keys are torch's: ``parametrizations.weight.original0/1`` and ``parametrizations.weight.0._u/_v``."""
from monoflow.autograd.grad_mode import no_grad
from monoflow.nn.functional import normalize
from monoflow.nn.module import Module
from monoflow.nn.utils import parametrize
from monoflow.nn.utils.weight_norm import _norm_except_dim

__all__ = ["weight_norm", "spectral_norm"]


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
