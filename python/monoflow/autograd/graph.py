"""torch.autograd.graph's context managers over the tensors saved for backward.

The hooks see every tensor saved for backward: those the built-in operators save inside the C++
engine (Note [Saved-tensor hooks] in monoflow/autograd.h: the pair is pushed there too) and those
a Python ``autograd.Function`` saves with ``ctx.save_for_backward`` (packed here).
"""
import threading

from monoflow import _C

__all__ = ["saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks", "Node"]

# The class of every grad_fn; each node name (MulBackward0, ...) is a subclass of its own.
Node = _C.Node

_state = threading.local()  # torch keeps the hook stack per thread


def _stack():
    if not hasattr(_state, "hooks"):
        _state.hooks = []
        _state.disabled = None
    return _state.hooks


def current_hooks():
    """The innermost (pack_hook, unpack_hook) pair, or None; RuntimeError while they are disabled."""
    stack = _stack()
    if not stack:
        return None
    if _state.disabled is not None:
        raise RuntimeError(_state.disabled)
    return stack[-1]


class saved_tensors_hooks:
    """Context manager: ``pack_hook(tensor)`` is called on each tensor saved for backward and its
    result kept instead; ``unpack_hook(packed)`` is called when backward reads the tensor back and
    must return a tensor of the same value.

    Example::

        >>> packed = []
        >>> with flow.autograd.graph.saved_tensors_hooks(lambda t: packed.append(t) or t, lambda t: t):
        ...     pass
    """

    def __init__(self, pack_hook, unpack_hook):
        if not callable(pack_hook) or not callable(unpack_hook):
            raise TypeError("saved_tensors_hooks(): pack_hook and unpack_hook must be callable")
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        _stack()
        if _state.disabled is not None:
            raise RuntimeError(_state.disabled)
        _stack().append((self.pack_hook, self.unpack_hook))
        _C._push_saved_tensors_hooks(self.pack_hook, self.unpack_hook)
        return self

    def __exit__(self, *exc):
        _C._pop_saved_tensors_hooks()
        _stack().pop()


class save_on_cpu(saved_tensors_hooks):
    """Context manager: tensors saved for backward are kept on the CPU and moved back to their
    device when backward needs them.

    Args:
        pin_memory (bool): pin the CPU copies (ignored where pinning is not available). Default: ``False``.
        device_type (str): the accelerator type. Default: ``"cuda"``.
    """

    def __init__(self, pin_memory=False, device_type="cuda"):
        def pack(t):
            cpu = t.detach().to("cpu")
            if pin_memory and hasattr(cpu, "pin_memory"):
                try:
                    cpu = cpu.pin_memory()
                except RuntimeError:  # no accelerator: nothing to pin for
                    pass
            return (t.device, cpu)

        def unpack(packed):
            device, cpu = packed
            return cpu.to(device)

        super().__init__(pack, unpack)


class disable_saved_tensors_hooks:
    """Context manager: while active, using saved-tensor hooks raises ``RuntimeError(error_message)``."""

    def __init__(self, error_message):
        self.error_message = error_message

    def __enter__(self):
        _stack()
        self._prev = _state.disabled
        _state.disabled = self.error_message
        return self

    def __exit__(self, *exc):
        _state.disabled = self._prev
