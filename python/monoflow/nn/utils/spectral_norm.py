"""spectral_norm / remove_spectral_norm (torch.nn.utils.spectral_norm, the
hook form): ``weight = weight_orig / sigma``, sigma the largest singular
value of the weight (as a matrix with ``dim`` first), estimated by power
iteration on the buffers ``<name>_u`` / ``<name>_v``, one or more steps per
training-mode call."""
from monoflow.autograd.grad_mode import no_grad
from monoflow.nn.functional.normalization import normalize
from monoflow.nn.parameter import Parameter
from monoflow.ops_random import randn

__all__ = ["spectral_norm", "remove_spectral_norm", "SpectralNorm"]


class SpectralNorm:
    def __init__(self, name="weight", n_power_iterations=1, dim=0, eps=1e-12):
        if n_power_iterations <= 0:
            raise ValueError(f"Expected n_power_iterations to be positive, but got n_power_iterations="
                             f"{n_power_iterations}")
        self.name, self.dim, self.n_power_iterations, self.eps = name, dim, n_power_iterations, eps

    def reshape_weight_to_matrix(self, weight):
        mat = weight
        if self.dim != 0:
            mat = mat.permute(self.dim, *[d for d in range(mat.dim()) if d != self.dim])
        return mat.reshape(mat.shape[0], -1)

    def compute_weight(self, module, do_power_iteration):
        weight = getattr(module, self.name + "_orig")
        u = getattr(module, self.name + "_u")
        v = getattr(module, self.name + "_v")
        mat = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            with no_grad():
                for _ in range(self.n_power_iterations):
                    v.copy_(normalize(mat.t().matmul(u), dim=0, eps=self.eps))
                    u.copy_(normalize(mat.matmul(v), dim=0, eps=self.eps))
            u, v = u.clone(), v.clone()  # the buffers change in place; autograd needs these values
        sigma = u.dot(mat.matmul(v))
        return weight / sigma

    def remove(self, module):
        with no_grad():
            weight = self.compute_weight(module, do_power_iteration=False).detach().clone()
        delattr(module, self.name)
        del module._buffers[self.name + "_u"]
        del module._buffers[self.name + "_v"]
        del module._parameters[self.name + "_orig"]
        module.register_parameter(self.name, Parameter(weight))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module, do_power_iteration=module.training))

    @staticmethod
    def apply(module, name, n_power_iterations, dim, eps):
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, SpectralNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two spectral_norm hooks on the same parameter {name}")
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters[name]
        with no_grad():
            mat = fn.reshape_weight_to_matrix(weight)
            h, w = mat.shape
            u = normalize(randn(h, dtype=weight.dtype, device=weight.device), dim=0, eps=eps)
            v = normalize(randn(w, dtype=weight.dtype, device=weight.device), dim=0, eps=eps)
        del module._parameters[name]
        module.register_parameter(name + "_orig", weight)
        setattr(module, name, weight.detach())
        module.register_buffer(name + "_u", u)
        module.register_buffer(name + "_v", v)
        module.register_forward_pre_hook(fn)
        return fn


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Divides ``module.<name>`` by its spectral norm (largest singular value) before every call, estimated
    by power iteration.

    The original is kept as ``<name>_orig``; ``<name>_u``/``<name>_v`` buffers hold the iteration's
    vectors (updated in training mode).

    Args:
        module (Module): the module to change in place.
        name (str): the name of the weight parameter. Default: ``'weight'``.
        n_power_iterations (int): power iterations per call. Default: ``1``.
        eps (float): the stabiliser of the normalisations. Default: ``1e-12``.
        dim (int, optional): the dim of the output channels; ``None`` is 1 for transposed convolutions,
            0 otherwise. Default: ``None``.

    Returns:
        Module: ``module``.

    Example::

        >>> m = nn.utils.spectral_norm(nn.Linear(20, 40))
        >>> m.weight_orig.shape, m.weight_u.shape
        (monoflow.Size([40, 20]), monoflow.Size([40]))
    """
    if dim is None:
        from monoflow.nn.modules.conv import ConvTranspose1d, ConvTranspose2d

        dim = 1 if isinstance(module, (ConvTranspose1d, ConvTranspose2d)) else 0
    SpectralNorm.apply(module, name, n_power_iterations, dim, eps)
    return module


def remove_spectral_norm(module, name="weight"):
    """Undoes :func:`spectral_norm`: the normalised weight becomes a plain parameter again. Raises
    ``ValueError`` when ``module`` has none.

    Args:
        module (Module): the module.
        name (str): the name of the weight. Default: ``'weight'``.

    Returns:
        Module: ``module``.

    Example::

        >>> m = nn.utils.spectral_norm(nn.Linear(4, 4))
        >>> m = nn.utils.remove_spectral_norm(m)
        >>> hasattr(m, 'weight_orig'), m.weight.shape
        (False, monoflow.Size([4, 4]))
    """
    for key, hook in list(module._forward_pre_hooks.items()):
        if isinstance(hook, SpectralNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            return module
    raise ValueError(f"spectral_norm of '{name}' not found in {module}")
