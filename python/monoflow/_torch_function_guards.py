"""torch._C's ``DisableTorchFunctionSubclass`` and ``DisableTorchFunction`` context managers.

monoflow does not dispatch ``__torch_function__``: an op on an instance of a
Tensor subclass runs monoflow's kernel and returns a plain ``monoflow.Tensor``,
which is what torch does inside these guards. So entering them changes nothing,
and code written for torch that wraps its calls in them (torchvision's
TVTensor) gets the results it expects there."""

__all__ = ["DisableTorchFunctionSubclass", "DisableTorchFunction"]


class DisableTorchFunctionSubclass:
    """``with DisableTorchFunctionSubclass():`` ops inside return plain tensors for subclass inputs (always so in
    monoflow).

    Example::

        >>> class Sub(flow.Tensor):
        ...     pass
        >>> with flow._C.DisableTorchFunctionSubclass():
        ...     type(flow.ones(2).as_subclass(Sub) + 1).__name__
        'Tensor'
    """

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class DisableTorchFunction(DisableTorchFunctionSubclass):
    """``with DisableTorchFunction():`` no ``__torch_function__`` override runs inside (none ever does in monoflow).

    Example::

        >>> with flow._C.DisableTorchFunction():
        ...     flow.ones(1) + 1
        tensor([2.])
    """
