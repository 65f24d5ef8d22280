"""torch.nn.utils.parametrize: a tensor of a module computed from other tensors on every access.

``register_parametrization(module, "weight", P())`` moves the parameter to
``module.parametrizations.weight.original`` (or ``original0, original1 ...``
when ``P.right_inverse`` returns several tensors) and makes ``module.weight``
a property that returns ``P(original)``; the module's class becomes a
subclass ``Parametrized<Name>`` holding that property, as in torch, so the
state_dict keys are torch's."""
import contextlib

from monoflow import _C
from monoflow.autograd.grad_mode import no_grad
from monoflow.nn.module import Module
from monoflow.nn.modules.container import ModuleDict, ModuleList
from monoflow.nn.parameter import Parameter

__all__ = ["register_parametrization", "remove_parametrizations", "is_parametrized", "cached",
           "type_before_parametrizations", "ParametrizationList"]

_cache_enabled = 0
_cache = {}


@contextlib.contextmanager
def cached():
    """Within this context each parametrized tensor is computed once, on first access, and then reused."""
    global _cache_enabled
    _cache_enabled += 1
    try:
        yield
    finally:
        _cache_enabled -= 1
        if not _cache_enabled:
            _cache.clear()


def _as_parameter_like(original, value):
    # keep a Parameter a Parameter (and a buffer a plain tensor) with the original's requires_grad
    if isinstance(original, Parameter):
        return Parameter(value.detach().clone(), requires_grad=original.requires_grad)
    return value.detach().clone()


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor, applied in order, and the original tensor(s) they start from."""

    def __init__(self, modules, original, unsafe=False):
        super().__init__(modules)
        self.unsafe = unsafe
        new = original
        with no_grad():
            for m in reversed(self):
                if hasattr(m, "right_inverse"):
                    new = m.right_inverse(new)
        if isinstance(new, _C.TensorBase):
            self.is_tensor = True
            self.ntensors = 1
            if new is original:
                kept = original
            elif isinstance(original, Parameter) and tuple(new.shape) == tuple(original.shape) and new.dtype == original.dtype:
                with no_grad():
                    original.copy_(new)
                kept = original
            else:
                kept = _as_parameter_like(original, new)
            self._set_original("original", kept)
        else:
            if not isinstance(new, (tuple, list)):
                raise ValueError(f"'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...). "
                                 f"Got {type(new).__name__}")
            self.is_tensor = False
            self.ntensors = len(new)
            for i, t in enumerate(new):
                if not isinstance(t, _C.TensorBase):
                    raise ValueError(f"'right_inverse' must return a sequence of tensors. Got element {i} of type "
                                     f"{type(t).__name__}")
                self._set_original(f"original{i}", _as_parameter_like(original, t))
        if not unsafe:
            z = self()
            if not isinstance(z, _C.TensorBase):
                raise ValueError(f"A parametrization must return a tensor. Got {type(z).__name__}.")
            if z.dtype != original.dtype or tuple(z.shape) != tuple(original.shape):
                raise ValueError("Registering a parametrization may not change the shape or the dtype of the tensor, "
                                 "unless the `unsafe` flag is enabled.\n"
                                 f"unparametrized dtype: {original.dtype}\nparametrized dtype: {z.dtype}\n"
                                 f"unparametrized shape: {tuple(original.shape)}\nparametrized shape: {tuple(z.shape)}")

    def _set_original(self, name, value):
        if isinstance(value, Parameter):
            self.register_parameter(name, value)
        else:
            self.register_buffer(name, value)

    def _originals(self):
        return [getattr(self, "original")] if self.is_tensor else [getattr(self, f"original{i}") for i in range(self.ntensors)]

    def right_inverse(self, value):
        """Sets the original tensor(s) so that the parametrized tensor becomes ``value`` (``module.weight = value``)."""
        with no_grad():
            for m in reversed(self):
                if not hasattr(m, "right_inverse"):
                    raise RuntimeError(f"parametrization {type(m).__name__} does not implement right_inverse.")
                value = m.right_inverse(value)
            news = [value] if self.is_tensor else list(value)
            for old, new in zip(self._originals(), news):
                old.copy_(new)

    def forward(self):
        x = self[0](*self._originals())
        for m in list(self)[1:]:
            x = m(x)
        return x


def _property(tensor_name):
    def get(module):
        parametrization = module.parametrizations[tensor_name]
        if not _cache_enabled:
            return parametrization()
        key = (id(module), tensor_name)
        if key not in _cache:
            _cache[key] = parametrization()
        return _cache[key]

    def set_(module, value):
        module.parametrizations[tensor_name].right_inverse(value)

    return property(get, set_)


def is_parametrized(module, tensor_name=None):
    """Whether the module has a parametrization (on ``tensor_name``, when given)."""
    parametrizations = module.__dict__.get("_modules", {}).get("parametrizations")
    if parametrizations is None or not isinstance(parametrizations, ModuleDict):
        return False
    return len(parametrizations) > 0 if tensor_name is None else tensor_name in parametrizations


def type_before_parametrizations(module):
    """The module's class before parametrizations replaced it by its ``Parametrized`` subclass."""
    return type(module).__bases__[0] if is_parametrized(module) else type(module)


def register_parametrization(module, tensor_name, parametrization, *, unsafe=False):
    """Makes ``module.<tensor_name>`` the output of ``parametrization`` applied to the original tensor; a second
    call on the same name appends to the chain.

    Example::

        >>> class Symmetric(nn.Module):
        ...     def forward(self, X):
        ...         return X.triu() + X.triu(1).transpose(-1, -2)
        >>> m = nn.utils.parametrize.register_parametrization(nn.Linear(3, 3), "weight", Symmetric())
        >>> bool((m.weight == m.weight.T).all())
        True
    """
    if not isinstance(module, Module):
        raise TypeError(f"register_parametrization(): argument 'module' must be Module, not {type(module).__name__}")
    if not isinstance(parametrization, Module):
        raise TypeError(f"register_parametrization(): argument 'parametrization' must be Module, "
                        f"not {type(parametrization).__name__}")
    if is_parametrized(module, tensor_name):
        chain = module.parametrizations[tensor_name]
        if not unsafe:
            y = getattr(module, tensor_name)
            x = parametrization(y)
            if not isinstance(x, _C.TensorBase) or x.dtype != y.dtype or tuple(x.shape) != tuple(y.shape):
                raise ValueError("Registering a parametrization may not change the shape or the dtype of the tensor, "
                                 "unless the `unsafe` flag is enabled.")
        chain.append(parametrization)
        chain.unsafe |= unsafe
        return module
    if tensor_name in module._buffers or tensor_name in module._parameters:
        original = getattr(module, tensor_name)
        if original is None:
            raise ValueError(f"register_parametrization(): module has no tensor '{tensor_name}' to parametrize (it is None)")
        chain = ParametrizationList([parametrization], original, unsafe=unsafe)
        delattr(module, tensor_name)
        if not is_parametrized(module):
            cls = type(module)
            module.__class__ = type(f"Parametrized{cls.__name__}", (cls,), {})
            module.parametrizations = ModuleDict()
        setattr(type(module), tensor_name, _property(tensor_name))
        module.parametrizations[tensor_name] = chain
        return module
    raise ValueError(f"Module '{module}' does not have a parameter, a buffer, or a parametrized element with "
                     f"name '{tensor_name}'")


def remove_parametrizations(module, tensor_name, leave_parametrized=True):
    """Removes the parametrizations of ``module.<tensor_name>``; the tensor becomes a parameter again, holding
    the parametrized value (``leave_parametrized=True``) or the original one."""
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    chain = module.parametrizations[tensor_name]
    if chain.is_tensor:
        original = chain.original
        if leave_parametrized:
            with no_grad():
                t = getattr(module, tensor_name)
            if tuple(t.shape) == tuple(original.shape) and t.dtype == original.dtype:
                with no_grad():
                    original.copy_(t)
            else:
                original = _as_parameter_like(original, t)
    else:
        if not leave_parametrized:
            raise ValueError("Cannot leave unparametrized (`leave_parametrized=False`) a tensor that is parametrized "
                             "in terms of a sequence of tensors.")
        with no_grad():
            t = getattr(module, tensor_name)
        original = Parameter(t.detach().clone(), requires_grad=chain.original0.requires_grad) \
            if isinstance(chain.original0, Parameter) else t.detach().clone()
    delattr(type(module), tensor_name)
    del module.parametrizations[tensor_name]
    if isinstance(original, Parameter):
        module.register_parameter(tensor_name, original)
    else:
        module.register_buffer(tensor_name, original)
    if not is_parametrized(module):
        delattr(module, "parametrizations")
        module.__class__ = type(module).__bases__[0]
    return module
