"""Uninitialised parameter storage for the layer constructors (device=/dtype=),
and the optional per-feature affine parameters of the normalisation layers."""
from monoflow import _C
from monoflow.nn import init
from monoflow.nn.parameter import Parameter


def empty(*shape, device=None, dtype=None):
    return _C._empty(tuple(shape), dtype or _C.get_default_dtype(), device)


def affine_parameters(module, shape, affine, bias, device=None, dtype=None):
    """Registers module.weight and module.bias of `shape` (uninitialised; see
    reset_affine), or None for the ones that affine=False / bias=False turn off."""
    if affine:
        module.weight = Parameter(empty(*shape, device=device, dtype=dtype))
        if bias:
            module.bias = Parameter(empty(*shape, device=device, dtype=dtype))
        else:
            module.register_parameter("bias", None)
    else:
        module.register_parameter("weight", None)
        module.register_parameter("bias", None)


def reset_affine(module):
    # The identity map: weight 1, bias 0.
    if module.weight is not None:
        init.ones_(module.weight)
    if module.bias is not None:
        init.zeros_(module.bias)


def factory_kwargs(kwargs):
    """torch.nn.factory_kwargs: the ``device``/``dtype``/``memory_format`` entries of ``kwargs``, merged
    with an explicit ``factory_kwargs`` dict entry, ready to pass to tensor factories; any other key
    raises ``TypeError``.

    Args:
        kwargs (dict, optional): keyword arguments of a module's constructor; ``None`` gives ``{}``.

    Example::

        >>> nn.factory_kwargs({'device': 'cpu', 'factory_kwargs': {'dtype': flow.float64}})
        {'dtype': monoflow.float64, 'device': 'cpu'}
    """
    if kwargs is None:
        return {}
    simple = {"device", "dtype", "memory_format"}
    expected = simple | {"factory_kwargs"}
    if not kwargs.keys() <= expected:
        raise TypeError(f"unexpected kwargs {kwargs.keys() - expected}")
    out = dict(kwargs.get("factory_kwargs", {}))
    for key in simple:
        if key in kwargs:
            if key in out:
                raise TypeError(f"{key} specified twice, in **kwargs and in factory_kwargs")
            out[key] = kwargs[key]
    return out
