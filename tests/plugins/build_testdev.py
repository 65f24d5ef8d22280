"""Build the out-of-tree test device plugin (tests/plugins/testdev).

The plugin is a standalone CMake project that only uses the public header
``monoflow/plugin.h``; this module configures and builds it with cmake + ninja
and returns the paths of the resulting shared libraries. It deliberately does
not import monoflow.

    from build_testdev import build_testdev
    libs = build_testdev("/tmp/testdev-build", "/path/to/monoflow/core/include")
    libs["testdev"]   # -> absolute path of libmonoflow_testdev.so

Command line: ``python build_testdev.py BUILD_DIR INCLUDE_DIR`` prints the dict
as JSON.
"""

from __future__ import annotations

import contextlib
import os
import random
import shutil
import subprocess
import sys

SOURCE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "testdev")

# Key -> library built by the CMake project (all land in the build dir root).
BUILT = ("testdev", "badabi", "nullentry", "failreg", "noentry", "nolasterror", "badstrides")
CORRUPT_SIZE = 4096
CORRUPT_SEED = 0x6D6F6E6F  # deterministic garbage, identical on every build


def _lib_path(build_dir: str, name: str) -> str:
    return os.path.join(build_dir, f"libmonoflow_{name}.so")


@contextlib.contextmanager
def _locked(build_dir: str):
    """Serialise concurrent builds of the same directory (e.g. pytest-xdist)."""
    try:
        import fcntl
    except ImportError:  # not POSIX: no locking
        yield
        return
    with open(os.path.join(build_dir, ".build_testdev.lock"), "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def _run(cmd: list[str], what: str) -> None:
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if proc.returncode != 0:
        raise RuntimeError(
            f"testdev plugin {what} failed (exit code {proc.returncode}): "
            f"{' '.join(cmd)}\n{proc.stdout}"
        )


def _cached(build_dir: str, key: str) -> str | None:
    cache = os.path.join(build_dir, "CMakeCache.txt")
    try:
        with open(cache) as f:
            for line in f:
                name, sep, value = line.partition("=")
                if sep and name.split(":", 1)[0] == key:
                    return value.rstrip("\n")
    except OSError:
        pass
    return None


def _write_corrupt(path: str) -> None:
    data = random.Random(CORRUPT_SEED).randbytes(CORRUPT_SIZE)
    data = b"\x00GARBAGE" + data[8:]  # never an ELF (or any other) magic number
    try:
        with open(path, "rb") as f:
            if f.read() == data:
                return
    except OSError:
        pass
    tmp = f"{path}.{os.getpid()}.tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


def build_testdev(build_dir: str, include_dir: str) -> dict[str, str]:
    """Configure (if needed) and build the testdev plugin project in `build_dir`.

    `include_dir` is the directory that contains ``monoflow/plugin.h``. An
    existing build in `build_dir` is reused (ninja rebuilds only what changed).

    Returns absolute paths keyed by name:
      testdev    libmonoflow_testdev.so, the working plugin ("testdev", 2 devices)
      badabi     libmonoflow_badabi.so, abi_major = MF_ABI_MAJOR + 1
      nullentry  libmonoflow_nullentry.so, monoflow_device_plugin() returns NULL
      failreg    libmonoflow_failreg.so, register_kernels -> MF_ERR_INTERNAL
      noentry    libmonoflow_noentry.so, no monoflow_device_plugin symbol
      nolasterror  libmonoflow_nolasterror.so, failures leave last_error() empty
      badstrides   libmonoflow_badstrides.so, `add` ignores its inputs' strides
      corrupt    libmonoflow_corrupt.so, a file of garbage bytes (not a library)
      missing    libmonoflow_missing.so, a path that does not exist

    Raises RuntimeError (with cmake's output) when cmake is missing or the
    configure/build step fails.
    """
    build_dir = os.path.abspath(build_dir)
    include_dir = os.path.abspath(include_dir)
    cmake = shutil.which("cmake")
    if cmake is None:
        raise RuntimeError("testdev plugin build: cmake not found on PATH")
    if not os.path.isfile(os.path.join(include_dir, "monoflow", "plugin.h")):
        raise RuntimeError(f"testdev plugin build: {include_dir} does not contain monoflow/plugin.h")
    os.makedirs(build_dir, exist_ok=True)

    with _locked(build_dir):
        cached_include = _cached(build_dir, "MONOFLOW_INCLUDE_DIR")
        cached_source = _cached(build_dir, "CMAKE_HOME_DIRECTORY")
        if (
            cached_include is None
            or os.path.abspath(cached_include) != include_dir
            or cached_source is None
            or os.path.realpath(cached_source) != os.path.realpath(SOURCE_DIR)
        ):
            # CMake refuses to reuse a cache made for another source tree (e.g.
            # a fresh clone after a checkout elsewhere): start that dir afresh.
            if cached_source is not None and os.path.realpath(cached_source) != os.path.realpath(SOURCE_DIR):
                shutil.rmtree(os.path.join(build_dir, "CMakeFiles"), ignore_errors=True)
                for stale in ("CMakeCache.txt", "build.ninja", ".ninja_deps", ".ninja_log"):
                    if os.path.exists(os.path.join(build_dir, stale)):
                        os.remove(os.path.join(build_dir, stale))
            _run(
                [
                    cmake,
                    "-S", SOURCE_DIR,
                    "-B", build_dir,
                    "-G", "Ninja",
                    "-DCMAKE_BUILD_TYPE=Release",
                    f"-DMONOFLOW_INCLUDE_DIR={include_dir}",
                ],
                "configure",
            )
        _run([cmake, "--build", build_dir], "build")

        paths = {name: _lib_path(build_dir, name) for name in BUILT}
        for name, path in paths.items():
            if not os.path.isfile(path):
                raise RuntimeError(f"testdev plugin build: {name} was not produced at {path}")

        paths["corrupt"] = _lib_path(build_dir, "corrupt")
        _write_corrupt(paths["corrupt"])

        paths["missing"] = _lib_path(build_dir, "missing")
        if os.path.lexists(paths["missing"]):
            os.remove(paths["missing"])
    return paths


if __name__ == "__main__":
    import json

    if len(sys.argv) != 3:
        sys.exit(f"usage: {sys.argv[0]} BUILD_DIR INCLUDE_DIR")
    print(json.dumps(build_testdev(sys.argv[1], sys.argv[2]), indent=2))
