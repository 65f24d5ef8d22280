"""torch.backends.mps: Apple's Metal device, available when an 'mps' plugin is loaded."""
from monoflow import _C


def is_available():
    return "mps" in _C.device_types() and _C.device_count("mps") > 0


def is_built():
    return "mps" in _C.device_types()
