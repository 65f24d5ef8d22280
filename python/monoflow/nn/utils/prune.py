"""Pruning (torch.nn.utils.prune): masks a parameter in place of deleting it.

Pruning ``module.weight`` moves the parameter to ``weight_orig``, adds a
buffer ``weight_mask``, and a forward pre-hook that sets the plain
attribute ``weight = weight_orig * weight_mask`` before every call; the
gradient reaches ``weight_orig`` through the product. Pruning the same
parameter again prunes among the entries still unmasked (a
PruningContainer keeps the history); ``remove`` makes the pruning
permanent.
"""
from abc import ABC, abstractmethod
import numbers

from monoflow import _C, _creation
from monoflow.autograd.grad_mode import no_grad
from monoflow.nn.utils.convert_parameters import parameters_to_vector
from monoflow.ops_random import rand, rand_like
from monoflow.ops_reduce import topk

__all__ = ["BasePruningMethod", "PruningContainer", "Identity", "RandomUnstructured", "L1Unstructured",
           "RandomStructured", "LnStructured", "CustomFromMask", "identity", "random_unstructured",
           "l1_unstructured", "random_structured", "ln_structured", "global_unstructured", "custom_from_mask",
           "remove", "is_pruned"]


def _validate_amount(amount):
    if not isinstance(amount, numbers.Real) or isinstance(amount, bool):
        raise TypeError(f"Invalid type for amount: {amount}. Must be int or float.")
    if (isinstance(amount, numbers.Integral) and amount < 0) or (
            not isinstance(amount, numbers.Integral) and (float(amount) > 1.0 or float(amount) < 0.0)):
        raise ValueError(f"amount={amount} should either be a float in the range [0, 1] or a non-negative integer")


def _count(amount, size):
    """How many of ``size`` units ``amount`` (an int, or a fraction) prunes."""
    if isinstance(amount, numbers.Integral):
        if amount > size:
            raise ValueError(f"amount={amount} should be smaller than the number of parameters to prune={size}")
        return int(amount)
    return round(amount * size)


class BasePruningMethod(ABC):
    """The base of the pruning methods: a subclass writes ``compute_mask(t, default_mask)``, the new mask
    of tensor ``t`` given the current one.

    ``Method.apply(module, name, *args, importance_scores=None, **kwargs)`` prunes ``module.<name>``;
    the method's instances are the forward pre-hooks that recompute ``<name> = <name>_orig *
    <name>_mask``. A parameter pruned twice gets a :class:`PruningContainer` of both methods.
    ``PRUNING_TYPE`` is ``'unstructured'``, ``'structured'`` or ``'global'``.

    Example::

        >>> from monoflow.nn.utils import prune
        >>> class KeepPositive(prune.BasePruningMethod):
        ...     PRUNING_TYPE = 'unstructured'
        ...     def compute_mask(self, t, default_mask):
        ...         return default_mask * (t > 0)
        >>> m = nn.Linear(3, 2)
        >>> method = KeepPositive.apply(m, 'weight')
        >>> bool((m.weight >= 0).all()), type(method).__name__
        (True, 'KeepPositive')
    """

    _tensor_name = None
    PRUNING_TYPE = "unstructured"

    def __call__(self, module, inputs):
        setattr(module, self._tensor_name, self.apply_mask(module))

    @abstractmethod
    def compute_mask(self, t, default_mask):
        ...

    def apply_mask(self, module):
        orig = getattr(module, self._tensor_name + "_orig")
        mask = getattr(module, self._tensor_name + "_mask")
        return orig * mask.to(dtype=orig.dtype)

    @classmethod
    def apply(cls, module, name, *args, importance_scores=None, **kwargs):
        """Prunes ``module.<name>`` with a method built from the arguments; returns the method."""
        previous = None
        for key, hook in list(module._forward_pre_hooks.items()):
            if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
                previous = hook
                del module._forward_pre_hooks[key]
        method = cls(*args, **kwargs)
        method._tensor_name = name
        if previous is not None:
            container = previous if isinstance(previous, PruningContainer) else PruningContainer(previous)
            container.add_pruning_method(method)
            method = container
        orig = getattr(module, name)
        if importance_scores is not None and tuple(importance_scores.shape) != tuple(orig.shape):
            raise ValueError(f"importance_scores should have the same shape as parameter {name} of {module}")
        if previous is None:  # first pruning of this parameter: move it aside
            module.register_parameter(name + "_orig", orig)
            del module._parameters[name]
            default_mask = _creation.ones_like(orig)
        else:
            default_mask = getattr(module, name + "_mask").detach().clone()
        with no_grad():
            scores = importance_scores if importance_scores is not None else orig
            mask = method.compute_mask(scores.detach(), default_mask=default_mask)
        module.register_buffer(name + "_mask", mask)
        setattr(module, name, method.apply_mask(module))
        module.register_forward_pre_hook(method)
        return method

    def prune(self, t, default_mask=None, importance_scores=None):
        """``t`` with this method's mask applied (no module involved)."""
        scores = importance_scores if importance_scores is not None else t
        default_mask = default_mask if default_mask is not None else _creation.ones_like(t)
        return t * self.compute_mask(scores, default_mask=default_mask)

    def remove(self, module):
        """Makes the pruning permanent: ``<name>`` becomes a plain parameter again."""
        name = self._tensor_name
        if name is None:
            raise ValueError(f"Module {module} has to be pruned before pruning can be removed")
        weight = self.apply_mask(module)
        if hasattr(module, name):
            delattr(module, name)
        orig = module._parameters[name + "_orig"]
        with no_grad():
            orig.copy_(weight.detach())
        del module._parameters[name + "_orig"]
        del module._buffers[name + "_mask"]
        module.register_parameter(name, orig)


class PruningContainer(BasePruningMethod):
    """Successive prunings of one parameter: each new method prunes among the entries the previous ones
    kept (built by :meth:`BasePruningMethod.apply` when a parameter is pruned again).

    Args:
        methods (BasePruningMethod): the methods, in the order they were applied.

    Example::

        >>> from monoflow.nn.utils import prune
        >>> m = prune.l1_unstructured(nn.Linear(4, 4), 'weight', amount=4)
        >>> m = prune.l1_unstructured(m, 'weight', amount=4)
        >>> int((m.weight_mask == 0).sum())
        8
    """

    def __init__(self, *methods):
        self._pruning_methods = ()
        for m in methods:
            self.add_pruning_method(m)

    def add_pruning_method(self, method):
        if not isinstance(method, BasePruningMethod) and method is not None:
            raise TypeError(f"{type(method)} is not a BasePruningMethod subclass")
        if self._tensor_name is None:
            self._tensor_name = method._tensor_name
        elif method._tensor_name != self._tensor_name:
            raise ValueError(f"Can only add pruning methods acting on the parameter named '{self._tensor_name}' "
                             f"to PruningContainer. Found '{method._tensor_name}'")
        self._pruning_methods += (method,)

    def __len__(self):
        return len(self._pruning_methods)

    def __iter__(self):
        return iter(self._pruning_methods)

    def __getitem__(self, i):
        return self._pruning_methods[i]

    def compute_mask(self, t, default_mask):
        method = self._pruning_methods[-1]
        if method.PRUNING_TYPE == "unstructured":
            kept = default_mask.reshape(-1) == 1
            flat_t, new = t.reshape(-1), default_mask.reshape(-1).clone()
            partial = method.compute_mask(flat_t[kept], default_mask=new[kept])
            new[kept] = partial.to(dtype=new.dtype)
            return new.reshape(default_mask.shape)
        if method.PRUNING_TYPE == "structured":
            # prune among the slices along `dim` that are not entirely masked yet
            dim = method.dim if method.dim >= 0 else t.dim() + method.dim
            others = [d for d in range(t.dim()) if d != dim]
            alive = default_mask.sum(dim=others) != 0 if others else default_mask != 0
            index = alive.nonzero().reshape(-1)
            partial = method.compute_mask(t.index_select(dim, index),
                                          default_mask=default_mask.index_select(dim, index))
            new = default_mask.clone()
            new.index_copy_(dim, index, partial.to(dtype=new.dtype))
            return new
        return method.compute_mask(t, default_mask=default_mask)


class Identity(BasePruningMethod):
    """A pruning method that prunes nothing (an all-ones mask), to give a parameter the pruned form.

    Args:
        args: none.
        kwargs: none.

    Example::

        >>> from monoflow.nn.utils import prune
        >>> m = prune.identity(nn.Linear(2, 2), 'weight')
        >>> m.weight_mask
        tensor([[1., 1.],
                [1., 1.]])
    """

    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t, default_mask):
        return default_mask

    @classmethod
    def apply(cls, module, name):
        return super().apply(module, name)


class RandomUnstructured(BasePruningMethod):
    """Prunes ``amount`` entries of the tensor chosen at random. Use it through its function form or
    ``<Method>.apply(module, name, ...)``.

    Args:
        amount (int or float): how many entries to prune: a count, or a fraction in ``[0, 1]`` of the
            total.

    Example::

        >>> from monoflow.nn.utils import prune
        >>> m = prune.random_unstructured(nn.Linear(4, 4), 'weight', amount=0.25)
        >>> int((m.weight_mask == 0).sum())
        4
    """
    PRUNING_TYPE = "unstructured"

    def __init__(self, amount):
        _validate_amount(amount)
        self.amount = amount

    def compute_mask(self, t, default_mask):
        k = _count(self.amount, t.numel())
        mask = default_mask.clone()
        if k:
            _, idx = topk(rand_like(t).reshape(-1), k)
            mask.reshape(-1)[idx] = 0
        return mask

    @classmethod
    def apply(cls, module, name, amount):
        return super().apply(module, name, amount=amount)


class L1Unstructured(BasePruningMethod):
    """Prunes the ``amount`` entries of smallest absolute value. Use it through its function form or
    ``<Method>.apply(module, name, ...)``.

    Args:
        amount (int or float): how many entries to prune: a count, or a fraction in ``[0, 1]`` of the
            total.

    Example::

        >>> from monoflow.nn.utils import prune
        >>> m = prune.l1_unstructured(nn.Linear(4, 4), 'weight', amount=0.5)
        >>> int((m.weight == 0).sum())
        8
    """
    PRUNING_TYPE = "unstructured"

    def __init__(self, amount):
        _validate_amount(amount)
        self.amount = amount

    def compute_mask(self, t, default_mask):
        k = _count(self.amount, t.numel())
        mask = default_mask.clone()
        if k:
            _, idx = topk(t.abs().reshape(-1), k, largest=False)
            mask.reshape(-1)[idx] = 0
        return mask

    @classmethod
    def apply(cls, module, name, amount, importance_scores=None):
        return super().apply(module, name, amount=amount, importance_scores=importance_scores)


def _slice_mask(t, dim, keep, default_mask):
    """default_mask with the slices along ``dim`` not in ``keep`` zeroed."""
    mask = _creation.zeros_like(t)
    index = [slice(None)] * t.dim()
    index[dim] = keep
    mask[tuple(index)] = 1
    return mask * default_mask


class RandomStructured(BasePruningMethod):
    """Prunes ``amount`` whole slices along ``dim``, chosen at random. Use it through its function form or
    ``<Method>.apply(module, name, ...)``.

    Args:
        amount (int or float): how many slices to prune: a count, or a fraction in ``[0, 1]`` of the
            slices.
        dim (int): the dim of the slices (e.g. 0: output channels). Default: ``-1``.

    Example::

        >>> from monoflow.nn.utils import prune
        >>> m = prune.random_structured(nn.Linear(4, 3), 'weight', amount=1, dim=0)
        >>> (m.weight_mask.sum(1) == 0).sum().item()
        1
    """
    PRUNING_TYPE = "structured"

    def __init__(self, amount, dim=-1):
        _validate_amount(amount)
        self.amount, self.dim = amount, dim

    def compute_mask(self, t, default_mask):
        n = t.shape[self.dim]
        k = _count(self.amount, n)
        if k == 0:
            return default_mask
        _, keep = topk(rand(n, device=t.device), n - k)
        return _slice_mask(t, self.dim, keep, default_mask)

    @classmethod
    def apply(cls, module, name, amount, dim=-1):
        return super().apply(module, name, amount=amount, dim=dim)


class LnStructured(BasePruningMethod):
    """Prunes the ``amount`` slices along ``dim`` of smallest L-``n`` norm. Use it through its function
    form or ``<Method>.apply(module, name, ...)``.

    Args:
        amount (int or float): how many slices to prune: a count, or a fraction in ``[0, 1]`` of the
            slices.
        n (int, float or str): the norm order (as ``Tensor.norm``'s ``p``).
        dim (int): the dim of the slices. Default: ``-1``.

    Example::

        >>> from monoflow.nn.utils import prune
        >>> m = prune.ln_structured(nn.Linear(4, 3), 'weight', amount=1, n=2, dim=0)
        >>> (m.weight_mask.sum(1) == 0).sum().item()
        1
    """
    PRUNING_TYPE = "structured"

    def __init__(self, amount, n, dim=-1):
        _validate_amount(amount)
        self.amount, self.n, self.dim = amount, n, dim

    def compute_mask(self, t, default_mask):
        size = t.shape[self.dim]
        k = _count(self.amount, size)
        if k == 0:
            return default_mask
        dim = self.dim if self.dim >= 0 else t.dim() + self.dim
        others = [d for d in range(t.dim()) if d != dim]
        norms = t.norm(p=self.n, dim=others) if others else t.abs()
        _, keep = topk(norms, size - k)
        return _slice_mask(t, dim, keep, default_mask)

    @classmethod
    def apply(cls, module, name, amount, n, dim, importance_scores=None):
        return super().apply(module, name, amount=amount, n=n, dim=dim, importance_scores=importance_scores)


class CustomFromMask(BasePruningMethod):
    """Prunes with a mask given by the caller (zeros are pruned). Use it through its function form or
    ``<Method>.apply(module, name, ...)``.

    Args:
        mask (Tensor): the mask, the parameter's shape.

    Example::

        >>> from monoflow.nn.utils import prune
        >>> m = prune.custom_from_mask(nn.Linear(2, 1), 'weight', flow.tensor([[1.0, 0.0]]))
        >>> m.weight_mask
        tensor([[1., 0.]])
    """

    PRUNING_TYPE = "global"

    def __init__(self, mask):
        self.mask = mask

    def compute_mask(self, t, default_mask):
        if tuple(default_mask.shape) != tuple(self.mask.shape):
            raise RuntimeError(f"CustomFromMask: the mask has shape {list(self.mask.shape)}, the parameter "
                               f"{list(default_mask.shape)}")
        return default_mask * self.mask.to(dtype=default_mask.dtype)

    @classmethod
    def apply(cls, module, name, mask):
        return super().apply(module, name, mask=mask)


def identity(module, name):
    """Gives ``module.<name>`` the pruned form with an all-ones mask (prunes nothing).

    ``module.<name>`` becomes ``<name>_orig * <name>_mask``: the parameter moves to ``<name>_orig``, the
    mask is the buffer ``<name>_mask``, and a forward pre-hook recomputes the product. :func:`remove`
    makes it permanent.

    Args:
        module (Module): the module that holds the tensor.
        name (str): the name of the parameter to prune (e.g. ``'weight'``).

    Returns:
        Module: ``module``.

    Example::

        >>> from monoflow.nn.utils import prune
        >>> m = prune.identity(nn.Linear(2, 2), 'bias')
        >>> m.bias_mask
        tensor([1., 1.])
    """
    Identity.apply(module, name)
    return module


def random_unstructured(module, name, amount):
    """Prunes ``amount`` entries of ``module.<name>`` chosen at random.

    ``module.<name>`` becomes ``<name>_orig * <name>_mask``: the parameter moves to ``<name>_orig``, the
    mask is the buffer ``<name>_mask``, and a forward pre-hook recomputes the product. :func:`remove`
    makes it permanent.

    Args:
        module (Module): the module that holds the tensor.
        name (str): the name of the parameter to prune (e.g. ``'weight'``).
        amount (int or float): how many entries to prune: a count, or a fraction in ``[0, 1]`` of the
            total.

    Returns:
        Module: ``module``.

    Example::

        >>> from monoflow.nn.utils import prune
        >>> m = prune.random_unstructured(nn.Linear(4, 4), 'weight', amount=3)
        >>> int((m.weight_mask == 0).sum())
        3
    """
    RandomUnstructured.apply(module, name, amount)
    return module


def l1_unstructured(module, name, amount, importance_scores=None):
    """Prunes the ``amount`` entries of ``module.<name>`` of smallest absolute value.

    ``module.<name>`` becomes ``<name>_orig * <name>_mask``: the parameter moves to ``<name>_orig``, the
    mask is the buffer ``<name>_mask``, and a forward pre-hook recomputes the product. :func:`remove`
    makes it permanent.

    Args:
        module (Module): the module that holds the tensor.
        name (str): the name of the parameter to prune (e.g. ``'weight'``).
        amount (int or float): how many entries to prune: a count, or a fraction in ``[0, 1]`` of the
            total.
        importance_scores (Tensor, optional): scores of the parameter's shape to rank by instead of its
            values. Default: ``None``.

    Returns:
        Module: ``module``.

    Example::

        >>> from monoflow.nn.utils import prune
        >>> m = prune.l1_unstructured(nn.Linear(4, 4), 'weight', amount=0.5)
        >>> sorted(dict(m.named_buffers())), int((m.weight == 0).sum())
        (['weight_mask'], 8)
    """
    L1Unstructured.apply(module, name, amount=amount, importance_scores=importance_scores)
    return module


def random_structured(module, name, amount, dim):
    """Prunes ``amount`` whole slices of ``module.<name>`` along ``dim``, chosen at random.

    ``module.<name>`` becomes ``<name>_orig * <name>_mask``: the parameter moves to ``<name>_orig``, the
    mask is the buffer ``<name>_mask``, and a forward pre-hook recomputes the product. :func:`remove`
    makes it permanent.

    Args:
        module (Module): the module that holds the tensor.
        name (str): the name of the parameter to prune (e.g. ``'weight'``).
        amount (int or float): how many slices to prune: a count, or a fraction in ``[0, 1]`` of the
            slices.
        dim (int): the dim of the slices.

    Returns:
        Module: ``module``.

    Example::

        >>> from monoflow.nn.utils import prune
        >>> m = prune.random_structured(nn.Linear(4, 3), 'weight', amount=2, dim=0)
        >>> (m.weight_mask.sum(1) == 0).sum().item()
        2
    """
    RandomStructured.apply(module, name, amount, dim)
    return module


def ln_structured(module, name, amount, n, dim, importance_scores=None):
    """Prunes the ``amount`` slices of ``module.<name>`` along ``dim`` of smallest L-``n`` norm.

    ``module.<name>`` becomes ``<name>_orig * <name>_mask``: the parameter moves to ``<name>_orig``, the
    mask is the buffer ``<name>_mask``, and a forward pre-hook recomputes the product. :func:`remove`
    makes it permanent.

    Args:
        module (Module): the module that holds the tensor.
        name (str): the name of the parameter to prune (e.g. ``'weight'``).
        amount (int or float): how many slices to prune: a count, or a fraction in ``[0, 1]`` of the
            slices.
        n (int, float or str): the norm order.
        dim (int): the dim of the slices.
        importance_scores (Tensor, optional): scores of the parameter's shape to rank by instead of its
            values. Default: ``None``.

    Returns:
        Module: ``module``.

    Example::

        >>> from monoflow.nn.utils import prune
        >>> m = prune.ln_structured(nn.Conv2d(2, 4, 3), 'weight', amount=0.5, n=1, dim=0)
        >>> (m.weight_mask.sum((1, 2, 3)) == 0).sum().item()
        2
    """
    LnStructured.apply(module, name, amount, n, dim, importance_scores=importance_scores)
    return module


def custom_from_mask(module, name, mask):
    """Prunes ``module.<name>`` with the given mask (its zeros are pruned).

    ``module.<name>`` becomes ``<name>_orig * <name>_mask``: the parameter moves to ``<name>_orig``, the
    mask is the buffer ``<name>_mask``, and a forward pre-hook recomputes the product. :func:`remove`
    makes it permanent.

    Args:
        module (Module): the module that holds the tensor.
        name (str): the name of the parameter to prune (e.g. ``'weight'``).
        mask (Tensor): the mask, the parameter's shape.

    Returns:
        Module: ``module``.

    Example::

        >>> from monoflow.nn.utils import prune
        >>> m = prune.custom_from_mask(nn.Linear(2, 1), 'weight', flow.tensor([[0.0, 1.0]]))
        >>> bool(m.weight[0, 0] == 0), bool(m.weight[0, 1] == m.weight_orig[0, 1])
        (True, True)
    """
    CustomFromMask.apply(module, name, mask)
    return module


def global_unstructured(parameters, pruning_method, importance_scores=None, **kwargs):
    """Prunes several parameters together: ``pruning_method`` ranks all their entries as one vector (e.g.
    the smallest 20% over the whole model).

    Args:
        parameters (iterable of (Module, str)): the ``(module, name)`` pairs to prune.
        pruning_method (type): an unstructured method class, e.g. :class:`L1Unstructured` (others raise
            ``TypeError``).
        importance_scores (dict, optional): ``{(module, name): scores}`` to rank by instead of the
            values. Default: ``None``.
        kwargs: the method's arguments, e.g. ``amount=0.2``.

    Example::

        >>> from monoflow.nn.utils import prune
        >>> a, b = nn.Linear(4, 4), nn.Linear(4, 4)
        >>> prune.global_unstructured([(a, 'weight'), (b, 'weight')], prune.L1Unstructured, amount=8)
        >>> int((a.weight == 0).sum() + (b.weight == 0).sum())
        8
    """
    if isinstance(parameters, _C.TensorBase) or not hasattr(parameters, "__iter__"):
        raise TypeError("global_unstructured(): parameters must be an iterable of (module, name) pairs")
    parameters = list(parameters)
    importance_scores = importance_scores if importance_scores is not None else {}
    if not isinstance(importance_scores, dict):
        raise TypeError("global_unstructured(): importance_scores must be a dict")
    with no_grad():
        scores = parameters_to_vector([importance_scores.get((m, n), getattr(m, n)).detach() for m, n in parameters])
        default = parameters_to_vector([getattr(m, n + "_mask", _creation.ones_like(getattr(m, n))).detach()
                                        for m, n in parameters])
        container = PruningContainer()
        container._tensor_name = "temp"
        method = pruning_method(**kwargs)
        method._tensor_name = "temp"
        if method.PRUNING_TYPE != "unstructured":
            raise TypeError(f'Only "unstructured" PRUNING_TYPE supported for the `pruning_method`. Found method '
                            f"{pruning_method} of type {method.PRUNING_TYPE}")
        container.add_pruning_method(method)
        final = container.compute_mask(scores, default)
    offset = 0
    for module, name in parameters:
        param = getattr(module, name)
        n = param.numel()
        custom_from_mask(module, name, mask=final[offset:offset + n].reshape(param.shape))
        offset += n


def remove(module, name):
    """Makes the pruning of ``module.<name>`` permanent: the pruned values become the plain parameter
    ``<name>`` again (``<name>_orig``, ``<name>_mask`` and the hook go). Raises ``ValueError`` when it
    is not pruned.

    Args:
        module (Module): the module that holds the tensor.
        name (str): the name of the parameter to prune (e.g. ``'weight'``).

    Returns:
        Module: ``module``.

    Example::

        >>> from monoflow.nn.utils import prune
        >>> m = prune.l1_unstructured(nn.Linear(4, 4), 'weight', amount=0.5)
        >>> m = prune.remove(m, 'weight')
        >>> hasattr(m, 'weight_orig'), int((m.weight == 0).sum())
        (False, 8)
    """
    for key, hook in list(module._forward_pre_hooks.items()):
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            return module
    raise ValueError(f"Parameter '{name}' of module {module} has to be pruned before pruning can be removed")


def is_pruned(module):
    """Whether any submodule of ``module`` has a pruned parameter.

    Args:
        module (Module): the module to inspect.

    Example::

        >>> from monoflow.nn.utils import prune
        >>> m = nn.Sequential(nn.Linear(2, 2), nn.ReLU())
        >>> prune.is_pruned(m)
        False
        >>> _ = prune.identity(m[0], 'weight')
        >>> prune.is_pruned(m)
        True
    """
    return any(isinstance(hook, BasePruningMethod)
               for m in module.modules() for hook in m._forward_pre_hooks.values())

