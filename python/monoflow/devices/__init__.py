"""Registered device types, plugin loading and the CPU-fallback counters."""
import os

from monoflow import _C
from monoflow._plugins import DeviceWarning, failed, load  # noqa: F401


def available():
    """Names of the registered device types, "cpu" first."""
    return _C.device_types()


def count(device_type):
    return _C.device_count(device_type)


def info(device_type):
    """The plugin's path, whether its memory is host memory, and per-device properties."""
    return _C.device_info(device_type)


def fallback_counts():
    """{(device type, op): times the op ran on the CPU for want of a kernel}."""
    return _C.fallback_counts()


def get_include():
    """Directory holding ``monoflow/plugin.h``, for building device plugins."""
    here = os.path.dirname(os.path.abspath(_C.__file__))
    installed = os.path.join(here, "include")
    if os.path.exists(os.path.join(installed, "monoflow", "plugin.h")):
        return installed
    # editable installs: the headers are in the source tree
    return os.path.abspath(os.path.join(here, "..", "..", "core", "include"))
