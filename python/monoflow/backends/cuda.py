"""torch.backends.cuda: matmul precision switches and whether CUDA is there."""
import contextlib
import warnings

from monoflow import _C


class _MatmulSwitches:
    """torch.backends.cuda.matmul: settable precision switches."""

    def __init__(self):
        self.allow_tf32 = False
        self.allow_fp16_reduced_precision_reduction = True
        self.allow_bf16_reduced_precision_reduction = True

    def __repr__(self):
        return (f"matmul(allow_tf32={self.allow_tf32}, allow_fp16_reduced_precision_reduction="
                f"{self.allow_fp16_reduced_precision_reduction})")


matmul = _MatmulSwitches()


def is_built():
    """True when a CUDA device plugin is loaded (monoflow's devices come from plugins)."""
    return "cuda" in _C.device_types()


# Which scaled-dot-product-attention kernels a CUDA device may use: switches
# kept for scripts that set and read them (no loaded plugin has flash or
# memory-efficient attention kernels; the math path is what runs).
_sdp = {"flash": True, "mem_efficient": True, "math": True}


def flash_sdp_enabled():
    return _sdp["flash"]


def mem_efficient_sdp_enabled():
    return _sdp["mem_efficient"]


def math_sdp_enabled():
    return _sdp["math"]


def enable_flash_sdp(enabled):
    _sdp["flash"] = bool(enabled)


def enable_mem_efficient_sdp(enabled):
    _sdp["mem_efficient"] = bool(enabled)


def enable_math_sdp(enabled):
    _sdp["math"] = bool(enabled)


@contextlib.contextmanager
def sdp_kernel(enable_flash=True, enable_math=True, enable_mem_efficient=True, enable_cudnn=True):
    """torch's deprecated context manager choosing the attention kernels (nn.attention.sdpa_kernel
    replaces it): sets the switches above inside the block and restores them after."""
    warnings.warn("`torch.backends.cuda.sdp_kernel()` is deprecated. In the future, this context manager will be "
                  "removed. Please see `torch.nn.attention.sdpa_kernel()` for the new context manager, with updated "
                  "signature.", FutureWarning, stacklevel=3)
    saved = dict(_sdp)
    _sdp.update(flash=bool(enable_flash), math=bool(enable_math), mem_efficient=bool(enable_mem_efficient))
    try:
        yield
    finally:
        _sdp.clear()
        _sdp.update(saved)
