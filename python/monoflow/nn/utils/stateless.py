"""functional_call (torch.nn.utils.stateless / torch.func): runs a module
with some of its parameters and buffers replaced by given tensors, for one
call, e.g. the adapted weights of meta-learning. The replacements go
straight into the owning modules' tables and the originals come back when
the call returns (or raises)."""
from monoflow import _C

__all__ = ["functional_call"]


def _owner(module, dotted):
    *path, leaf = dotted.split(".")
    for part in path:
        module = getattr(module, part)
    return module, leaf


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *, tie_weights=True, strict=False):
    """Calls ``module(*args, **kwargs)`` with the given tensors in place of the module's own parameters and
    buffers, then restores them (torch.func-style functional use of a module).

    Args:
        module (Module): the module to call.
        parameter_and_buffer_dicts (dict or sequence of dict): tensors by dotted name (as
            :meth:`~monoflow.nn.Module.named_parameters`); a name in two dicts raises ``ValueError``.
        args (tuple or Tensor, optional): the positional arguments. Default: ``None``.
        kwargs (dict, optional): the keyword arguments. Default: ``None``.
        tie_weights (bool): names that alias one tensor in the module get the same replacement. Default:
            ``True``.
        strict (bool): require exactly the module's parameters and buffers (else ``RuntimeError``).
            Default: ``False``.

    Example::

        >>> from monoflow.nn.utils.stateless import functional_call
        >>> m = nn.Linear(2, 1)
        >>> params = {'weight': flow.tensor([[1.0, 2.0]]), 'bias': flow.tensor([0.5])}
        >>> functional_call(m, params, (flow.tensor([[1.0, 1.0]]),))
        tensor([[3.5000]])
    """
    dicts = parameter_and_buffer_dicts
    if isinstance(dicts, dict):
        dicts = [dicts]
    replacements = {}
    for d in dicts:
        for name, value in d.items():
            if name in replacements:
                raise ValueError(f"{name} appeared in multiple dictionaries; behavior of functional call is "
                                 "ambiguous")
            replacements[name] = value
    if tie_weights:
        # names that alias one tensor in the module get the same replacement
        aliases = {}
        for name, t in list(module.named_parameters(remove_duplicate=False)) + list(
                module.named_buffers(remove_duplicate=False)):
            aliases.setdefault(id(t), []).append(name)
        for names in aliases.values():
            given = [n for n in names if n in replacements]
            if given:
                for n in names:
                    replacements.setdefault(n, replacements[given[0]])
    if strict:
        expected = {n for n, _ in module.named_parameters()} | {n for n, _ in module.named_buffers()}
        missing, unexpected = sorted(expected - set(replacements)), sorted(set(replacements) - expected)
        if missing or unexpected:
            raise RuntimeError(f"Error(s) in reparametrizing for {type(module).__name__}: missing keys {missing}, "
                               f"unexpected keys {unexpected}")
    saved = []
    try:
        for name, value in replacements.items():
            owner, leaf = _owner(module, name)
            if not isinstance(value, _C.TensorBase) and value is not None:
                raise TypeError(f"functional_call: the value for '{name}' must be a Tensor, not "
                                f"{type(value).__name__}")
            table = owner._parameters if leaf in owner._parameters else (
                owner._buffers if leaf in owner._buffers else None)
            if table is None:
                raise AttributeError(f"functional_call: '{name}' is neither a parameter nor a buffer of the module")
            saved.append((table, leaf, table[leaf]))
            table[leaf] = value
        args = () if args is None else (args if isinstance(args, tuple) else (args,))
        return module(*args, **(kwargs or {}))
    finally:
        for table, leaf, original in reversed(saved):
            table[leaf] = original
