"""weight_norm / remove_weight_norm (torch.nn.utils.weight_norm, the hook
form): ``weight = g * v / ||v||``, the norm over every dim but ``dim``.
The parameters become ``<name>_g`` and ``<name>_v``; a forward pre-hook
recomputes ``<name>`` before each call."""
from monoflow.autograd.grad_mode import no_grad
from monoflow.nn.parameter import Parameter

__all__ = ["weight_norm", "remove_weight_norm", "WeightNorm"]


def _norm_except_dim(v, dim):
    if dim == -1:
        return v.norm()
    if dim < -1:  # any other negative dim counts from the end (torch: transpose(0, dim) there)
        dim += v.dim()
    dims = [d for d in range(v.dim()) if d != dim]
    return v.norm(2, dims, keepdim=True) if dims else v.abs()


class WeightNorm:
    def __init__(self, name, dim):
        self.name = name
        self.dim = -1 if dim is None else dim  # -1 (as None): one norm over the whole tensor, as torch

    def compute_weight(self, module):
        g = getattr(module, self.name + "_g")
        v = getattr(module, self.name + "_v")
        return v * (g / _norm_except_dim(v, self.dim))

    @staticmethod
    def apply(module, name, dim):
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two weight_norm hooks on the same parameter {name}")
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        del module._parameters[name]
        with no_grad():
            module.register_parameter(name + "_g", Parameter(_norm_except_dim(weight, fn.dim).detach().clone()))
            module.register_parameter(name + "_v", Parameter(weight.detach().clone()))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module):
        with no_grad():
            weight = self.compute_weight(module).detach().clone()
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        module.register_parameter(self.name, Parameter(weight))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module, name="weight", dim=0):
    """Reparametrises ``module.<name>`` as a magnitude ``<name>_g`` times a direction ``<name>_v /
    ||<name>_v||``, recomputed before every call.

    Args:
        module (Module): the module to change in place.
        name (str): the name of the weight parameter. Default: ``'weight'``.
        dim (int): the dim kept by the norm (one magnitude per slice along it); ``-1`` (or ``None``)
            takes the norm of the whole tensor. Default: ``0``.

    Returns:
        Module: ``module``.

    Example::

        >>> m = nn.utils.weight_norm(nn.Linear(20, 40))
        >>> m.weight_g.shape, m.weight_v.shape
        (monoflow.Size([40, 1]), monoflow.Size([40, 20]))
    """
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module, name="weight"):
    """Undoes :func:`weight_norm`: the weight becomes a plain parameter again. Raises ``ValueError`` when
    ``module`` has none.

    Args:
        module (Module): the module.
        name (str): the name of the weight. Default: ``'weight'``.

    Returns:
        Module: ``module``.

    Example::

        >>> m = nn.utils.remove_weight_norm(nn.utils.weight_norm(nn.Linear(4, 4)))
        >>> hasattr(m, 'weight_g'), m.weight.shape
        (False, monoflow.Size([4, 4]))
    """
    for key, hook in list(module._forward_pre_hooks.items()):
        if isinstance(hook, WeightNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            return module
    raise ValueError(f"weight_norm of '{name}' not found in {module}")
