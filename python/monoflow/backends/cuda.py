"""torch.backends.cuda: matmul precision switches and whether CUDA is there."""
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


def flash_sdp_enabled():
    return False


def mem_efficient_sdp_enabled():
    return False


def math_sdp_enabled():
    return True


def enable_flash_sdp(enabled):
    pass


def enable_mem_efficient_sdp(enabled):
    pass


def enable_math_sdp(enabled):
    pass
