"""Uninitialised parameter storage for the layer constructors (device=/dtype=)."""
from monoflow import _C


def empty(*shape, device=None, dtype=None):
    return _C.empty(tuple(shape), dtype or _C.get_default_dtype(), device)
