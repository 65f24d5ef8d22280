"""torch's ``__torch_function__`` dispatch checks, as torch.nn.functional exposes them. Code copied
from torch's functional layer starts with ``if has_torch_function(...): return
handle_torch_function(...)``; monoflow has no ``__torch_function__`` overrides, so the checks say no
and that code takes its ordinary path."""

__all__ = ["has_torch_function", "has_torch_function_unary", "has_torch_function_variadic",
           "handle_torch_function"]


def has_torch_function(relevant_args):
    """Whether any of `relevant_args` overrides ``__torch_function__``: never in monoflow (False).

    Args:
        relevant_args (iterable): the arguments to check.

    Example::

        >>> F.has_torch_function((flow.ones(1),))
        False
    """
    return False


def has_torch_function_unary(obj):
    """:func:`has_torch_function` for one argument: False.

    Args:
        obj: the argument.

    Example::

        >>> F.has_torch_function_unary(flow.ones(1))
        False
    """
    return False


def has_torch_function_variadic(*args):
    """:func:`has_torch_function` for several arguments: False.

    Args:
        *args: the arguments.

    Example::

        >>> F.has_torch_function_variadic(flow.ones(1), flow.ones(1))
        False
    """
    return False


def handle_torch_function(public_api, relevant_args, *args, **kwargs):
    """Dispatches to a ``__torch_function__`` override; reached only after a ``has_torch_function`` check
    said yes, which never happens in monoflow: calls ``public_api`` directly.

    Args:
        public_api (callable): the function being overridden.
        relevant_args (iterable): the arguments that were checked.
        *args: the call's arguments.
        **kwargs: its keyword arguments.

    Example::

        >>> F.handle_torch_function(flow.add, (), flow.ones(1), 1).tolist()
        [2.0]
    """
    if not callable(public_api):
        raise TypeError(f"handle_torch_function(): public_api must be callable, got {type(public_api).__name__}")
    return public_api(*args, **kwargs)
