"""Rounding to float32, for the optimizer scalars torch keeps as 0-d float32
tensors (NAdam's mu_product, ASGD's eta and mu): keeping them as Python
floats rounded the same way gives torch's trajectory without a tensor read
per step."""
import struct


def f32(x):
    """x rounded to the nearest float32, as a Python float."""
    return struct.unpack("f", struct.pack("f", x))[0]
