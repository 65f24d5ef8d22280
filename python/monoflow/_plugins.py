"""Finding and loading device plugins.

Built-in plugins ship in ``monoflow/lib``. Third-party ones are found through
the entry-point group ``monoflow.devices`` (an entry point resolves to a path,
a list of paths, or a callable returning either) and the environment variable
``MONOFLOW_DEVICE_PLUGINS`` (paths separated by ``os.pathsep``). A plugin that
fails to load is reported with a warning and listed by
``monoflow.devices.failed()``; it never stops ``import monoflow``.

Built-in accelerator plugins (``BUILTIN_PLUGINS``: OpenCL, CUDA) are loaded
after the CPU when their library was built; OpenCL's (``DEFERRED_BUILTINS``)
at the first use of its device type instead. One whose runtime is absent on this
machine (its loader library missing, no platform or no device) is skipped
without a warning: a CPU-only machine imports cleanly. The reason is kept in
``skipped()``. ``MONOFLOW_DISABLE_PLUGINS=opencl,cuda`` (comma separated,
``all`` for every built-in) skips built-ins on purpose.
"""
import ctypes
import glob
import os
import warnings
from importlib import metadata

from monoflow import _C

ENV_VAR = "MONOFLOW_DEVICE_PLUGINS"
ENTRY_POINT_GROUP = "monoflow.devices"
DISABLE_VAR = "MONOFLOW_DISABLE_PLUGINS"

# Accelerator plugins shipped in monoflow/lib as libmonoflow_<name>.so, in load order.
BUILTIN_PLUGINS = ("opencl", "cuda")
# Built-ins loaded at the first use of their device type, not at import (Note [Deferred plugins] in
# core/include/monoflow/backend.h): initialising PoCL's OpenCL platform starts its worker threads,
# and where threads are exhausted it aborts the process, which import monoflow must never do.
DEFERRED_BUILTINS = ("opencl",)

_failed = []
_skipped = []

# Note [Quiet built-ins]
#   A built-in plugin is built wherever its toolkit was found, but the machine
#   that imports monoflow may lack the runtime (no libOpenCL.so.1, no ICD, no
#   GPU). Those failures are the normal CPU-only case, not a defect, so they are
#   recorded in skipped() and never warned about. Any other failure of a
#   built-in (ABI mismatch, a registration error) is a bug and is reported
#   like a third-party plugin's.
_RUNTIME_ABSENT = ("reports no devices", "cannot open shared object file")


class DeviceWarning(UserWarning):
    """A device plugin could not be loaded, or an op fell back to the CPU."""


def lib_dir():
    return os.path.join(os.path.dirname(os.path.abspath(_C.__file__)), "lib")


CPU_ISA_VAR = "MONOFLOW_CPU_ISA"
# The builds of the CPU plugin, widest first, with the CPU flags each needs
# (Note [Three builds of the CPU plugin] in devices/cpu/CMakeLists.txt).
_AVX2_FLAGS = {"avx2", "fma", "f16c"}
_AVX512_FLAGS = _AVX2_FLAGS | {"avx512f", "avx512bw", "avx512vl", "avx512dq"}
_CPU_BUILDS = (("avx512", "libmonoflow_cpu_avx512.so", _AVX512_FLAGS),
               ("avx2", "libmonoflow_cpu_avx2.so", _AVX2_FLAGS))


def _cpu_flags():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def cpu_plugin_path():
    """The CPU plugin for this machine: the widest build (AVX-512, then AVX2 + FMA) that
    was built (x86-64) and whose instructions the CPU has, else the baseline one (Note
    [Three builds of the CPU plugin] in devices/cpu/CMakeLists.txt).
    ``MONOFLOW_CPU_ISA=baseline|avx2|avx512`` picks one by name (where it was built)."""
    wanted = os.environ.get(CPU_ISA_VAR, "auto").lower()
    names = [name for name, _, _ in _CPU_BUILDS]
    if wanted not in ["auto", "baseline"] + names:
        raise RuntimeError(f"{CPU_ISA_VAR}={wanted!r}: expected auto, baseline, " + " or ".join(names))
    flags = _cpu_flags() if wanted == "auto" else set()
    for name, lib, needs in _CPU_BUILDS:
        path = os.path.join(lib_dir(), lib)
        if (wanted == name or (wanted == "auto" and needs <= flags)) and os.path.exists(path):
            return path
    return os.path.join(lib_dir(), "libmonoflow_cpu.so")


def _preload_openblas():
    # The CPU plugin links the OpenBLAS of the scipy-openblas32 wheel; loading
    # it globally first lets the dynamic linker resolve it by soname wherever
    # the wheel lives (regular, editable or --target installs alike).
    import scipy_openblas32

    libdir = scipy_openblas32.get_lib_dir()
    for name in os.listdir(libdir):
        if name.startswith("lib") and ".so" in name:
            ctypes.CDLL(os.path.join(libdir, name), mode=ctypes.RTLD_GLOBAL)


def _preload_cuda_libraries():
    # The CUDA plugin opens cuBLAS at run time by soname ("libcublas.so.13",
    # then ".12"; Note [The CUDA driver, opened at run time] in
    # devices/cuda/driver.h). Where the nvidia-cublas wheel is installed
    # (nvidia-cublas for CUDA 13, nvidia-cublas-cu12), loading its
    # libraries globally first lets that dlopen find them. Nothing happens
    # without the plugin or the wheel; the driver (libcuda.so.1) is never
    # in a wheel.
    if not os.path.exists(os.path.join(lib_dir(), "libmonoflow_cuda.so")) and "cuda" not in os.environ.get(ENV_VAR, ""):
        return
    try:
        import importlib.util

        spec = importlib.util.find_spec("nvidia")
    except Exception:
        return
    roots = list(spec.submodule_search_locations or []) if spec else []
    for name in ("libcublasLt.so.13", "libcublas.so.13", "libcublasLt.so.12", "libcublas.so.12"):
        for root in roots:  # nvidia/<any>/lib: the wheels' layouts differ between releases
            for path in sorted(glob.glob(os.path.join(root, "*", "lib", name))):
                try:
                    ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
                except OSError:
                    pass


def _report(source, exc):
    message = f"monoflow: device plugin from {source} was not loaded: {exc}"
    _failed.append((source, str(exc)))
    warnings.warn(message, DeviceWarning, stacklevel=3)


def _entry_point_paths():
    try:
        eps = metadata.entry_points(group=ENTRY_POINT_GROUP)
    except Exception as exc:  # a broken distribution must not break import
        _report(f"entry points '{ENTRY_POINT_GROUP}'", exc)
        return []
    found = []
    for ep in eps:
        source = f"entry point '{ep.name}' ({ep.value})"
        try:
            target = ep.load()
            if callable(target):
                target = target()
            paths = [target] if isinstance(target, (str, os.PathLike)) else list(target)
            found.extend((source, os.fspath(p)) for p in paths)
        except Exception as exc:
            _report(source, exc)
    return found


def _disabled_builtins():
    names = {n.strip().lower() for n in os.environ.get(DISABLE_VAR, "").split(",") if n.strip()}
    return set(BUILTIN_PLUGINS) if "all" in names else names


def _load_builtins():
    disabled = _disabled_builtins()
    loaded = _C.loaded_device_types()
    for name in BUILTIN_PLUGINS:
        path = os.path.join(lib_dir(), f"libmonoflow_{name}.so")
        if name in disabled:
            _skipped.append((name, f"disabled by ${DISABLE_VAR}"))
            continue
        if not os.path.exists(path):
            _skipped.append((name, "not built"))
            continue
        if name in loaded:  # an explicit path (env var, entry point) won
            _skipped.append((name, f"already provided by {_C.device_info(name)['path']}"))
            continue
        if name in DEFERRED_BUILTINS and _runtime_present(name):
            _C.defer_plugin(name, path)
            continue
        try:
            load(path)
        except Exception as exc:
            if any(marker in str(exc) for marker in _RUNTIME_ABSENT):
                _skipped.append((name, str(exc)))
            else:
                _report(f"built-in plugin '{name}' ({path})", exc)


def load(path):
    """Loads one plugin library now; returns its device type. Raises RuntimeError."""
    return _C.load_plugin(os.fspath(path))


# Note [A short OpenMP spin]
#   libgomp's idle team members spin ~300000 pauses (milliseconds) before they
#   sleep, without yielding. On a machine with few cores, a thread that needs
#   the CPU one of them spins on (the Python thread woken by a finished kernel,
#   the stream worker woken by a launch) waits for the scheduler tick: each
#   parallel kernel after a short idle took exactly 4 ms on 2 vCPUs (a 256x256
#   matmul at 8 GFLOP/s instead of 200). A spin of 10000 bounds that wait to a
#   fraction of a millisecond and costs nothing in back-to-back kernels (see
#   also Note [A preemption point before each parallel region] in
#   devices/cpu/threads.cpp). It is the default only: OMP_WAIT_POLICY or
#   GOMP_SPINCOUNT set by the user win. libgomp reads it when the CPU plugin,
#   its only user here, is loaded. (PyTorch's wheel ships a libgomp.so.1 of
#   the same soname: in a process that imports both, the first one loaded
#   serves both, so a torch imported after monoflow spins as briefly.)
def _runtime_present(name):
    # Note [Quiet built-ins] for a deferred plugin: without an OpenCL loader or ICD on this machine it
    # is skipped now, as before, rather than listed and failing at first use. (The cheap check opens
    # the loader library only: it starts no platform.)
    if name != "opencl":
        return True
    try:
        ctypes.CDLL("libOpenCL.so.1")
    except OSError as exc:
        _skipped.append((name, f"cannot load device plugin: {exc}"))
        return False
    return True


OPENMP_SPIN = "10000"


def _default_openmp_spin():
    if "OMP_WAIT_POLICY" not in os.environ and "GOMP_SPINCOUNT" not in os.environ:
        os.environ["GOMP_SPINCOUNT"] = OPENMP_SPIN


def discover():
    _default_openmp_spin()
    _preload_openblas()
    _C.set_warning_handler(lambda msg: warnings.warn(msg, DeviceWarning, stacklevel=2))
    _C.load_plugin(cpu_plugin_path())  # the CPU must exist
    candidates = _entry_point_paths()
    env = os.environ.get(ENV_VAR, "")
    candidates += [(f"${ENV_VAR} ({p})", p) for p in env.split(os.pathsep) if p]
    for source, path in candidates:
        try:
            load(path)
        except Exception as exc:
            _report(source, exc)
    _preload_cuda_libraries()
    _load_builtins()  # after the explicit paths, so that one can replace a built-in


def failed():
    """(source, reason) for every plugin that failed to load since import."""
    return list(_failed)


def skipped():
    """(name, reason) for every built-in plugin not loaded at import: disabled,
    not built, or its runtime absent on this machine (Note [Quiet built-ins])."""
    return list(_skipped)
