"""monoflow.nn.attention: torch.nn.attention's choice of scaled_dot_product_attention kernels.

monoflow has one implementation of ``scaled_dot_product_attention`` (the math
one) on every device, so ``sdpa_kernel`` only checks its argument: code that
pins a backend (``with sdpa_kernel(SDPBackend.FLASH_ATTENTION):``) runs unchanged."""
import contextlib
import enum

__all__ = ["SDPBackend", "sdpa_kernel"]


class SDPBackend(enum.IntEnum):
    """The kernels torch may pick for scaled_dot_product_attention (same names and values)."""
    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4


@contextlib.contextmanager
def sdpa_kernel(backends, set_priority=False):
    """Context manager naming the backend(s) scaled_dot_product_attention may use; in monoflow the math
    implementation serves them all.

    Args:
        backends (SDPBackend or list of SDPBackend): the allowed backends.
        set_priority (bool): whether the list's order is a priority (accepted for torch compatibility).
    """
    listed = backends if isinstance(backends, (list, tuple)) else [backends]
    for b in listed:
        if not isinstance(b, SDPBackend):
            raise TypeError(f"sdpa_kernel(): argument 'backends' must be SDPBackend or a list of SDPBackend, "
                            f"not {type(b).__name__}")
    yield
