"""OneFlow's ``oneflow.sysconfig``: how this build was made (scripts and OneFlow's own tests branch on
``flow.sysconfig.with_cuda()``), and where its headers and libraries are, for building extensions.

Here CUDA is a device plugin (see :mod:`monoflow.devices`): "built with CUDA" means a CUDA plugin is
loaded in this process.
"""
import os

__all__ = ["with_cuda", "get_cuda_version", "with_rdma", "with_mlir", "cmake_build_type", "get_include",
           "get_lib", "get_compile_flags", "get_link_flags"]


def with_cuda():
    """Whether CUDA is available to this monoflow: a CUDA device plugin is loaded.

    Example::

        >>> import monoflow as flow
        >>> flow.sysconfig.with_cuda() == flow.cuda.is_available()
        True
    """
    from monoflow import cuda

    return bool(cuda.is_available())


def get_cuda_version():
    """The CUDA version as OneFlow gives it, ``major * 1000 + minor * 10`` (``11070`` for 11.7); ``0``
    without CUDA.

    Example::

        >>> import monoflow as flow
        >>> flow.sysconfig.get_cuda_version() if not flow.sysconfig.with_cuda() else 0
        0
    """
    from monoflow import version

    v = version.cuda
    if not v or not isinstance(v, str):
        return 0
    parts = v.split(".")
    try:
        return int(parts[0]) * 1000 + (int(parts[1]) * 10 if len(parts) > 1 else 0)
    except ValueError:
        return 0


def with_rdma():
    """Whether this build has OneFlow's RDMA transport: never in monoflow (``False``).

    Example::

        >>> import monoflow as flow
        >>> flow.sysconfig.with_rdma()
        False
    """
    return False


def with_mlir():
    """Whether this build has OneFlow's MLIR code generation: never in monoflow (``False``).

    Example::

        >>> import monoflow as flow
        >>> flow.sysconfig.with_mlir()
        False
    """
    return False


def cmake_build_type():
    """The CMake build type of the core (``"Release"``; ``"Debug"`` when ``monoflow.version.debug``).

    Example::

        >>> import monoflow as flow
        >>> flow.sysconfig.cmake_build_type()
        'Release'
    """
    from monoflow import version

    return "Debug" if version.debug else "Release"


def get_include():
    """The directory of monoflow's C headers (``monoflow/plugin.h``, the device plugin ABI).

    Example::

        >>> import monoflow as flow, os
        >>> os.path.basename(flow.sysconfig.get_include())
        'include'
    """
    from monoflow import devices

    return devices.get_include()


def get_lib():
    """The directory holding monoflow's compiled libraries (the package directory).

    Example::

        >>> import monoflow as flow, os
        >>> os.path.isdir(flow.sysconfig.get_lib())
        True
    """
    from monoflow import _C

    return os.path.dirname(os.path.abspath(_C.__file__))


def get_compile_flags():
    """Compiler flags for code built against monoflow's headers (a list of strings).

    Example::

        >>> import monoflow as flow
        >>> flow.sysconfig.get_compile_flags()[0].startswith("-I")
        True
    """
    return ["-I" + get_include(), "-std=c++17"]


def get_link_flags():
    """Linker flags for code linked against monoflow: its library directory (a list of strings).
    Device plugins need none: they are loaded by the core through the C ABI.

    Example::

        >>> import monoflow as flow
        >>> flow.sysconfig.get_link_flags()[0].startswith("-L")
        True
    """
    return ["-L" + get_lib()]
