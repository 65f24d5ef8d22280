"""torch._dynamo.utils's ``is_compile_supported``, which libraries ask before they route a call through
torch.compile."""
from monoflow._C import device as _device

__all__ = ["is_compile_supported"]


def is_compile_supported(device_type):
    """Whether ``monoflow.compile`` accepts code running on ``device_type``: True for every device, since it runs
    the function eagerly (see monoflow.compile).

    Args:
        device_type (str or monoflow.device): ``"cpu"``, ``"cuda"``, ...

    Example::

        >>> from monoflow._dynamo.utils import is_compile_supported
        >>> is_compile_supported("cpu")
        True
    """
    _device(device_type)  # an unknown device type raises as in torch
    return True
