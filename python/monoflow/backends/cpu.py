"""torch.backends.cpu: the instruction set monoflow's CPU kernels were built for."""
from monoflow import _plugins

__all__ = ["get_cpu_capability"]


def get_cpu_capability():
    """The widest instruction set the loaded CPU plugin uses: ``"AVX512"``, ``"AVX2"`` or
    ``"DEFAULT"`` (Note [Three builds of the CPU plugin]), as torch names its own.

    Example::

        >>> flow.backends.cpu.get_cpu_capability() in ("AVX512", "AVX2", "DEFAULT")
        True
    """
    path = _plugins.cpu_plugin_path()
    for name, lib, _ in _plugins._CPU_BUILDS:
        if path.endswith(lib):
            return name.upper()
    return "DEFAULT"
