"""Test set-up: builds the out-of-tree test device plugin, registers it, and
parametrises device-generic tests over every registered device type."""
import hashlib
import os
import sys
import tempfile
import warnings

import pytest
from hypothesis import HealthCheck, settings

import monoflow as flow

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "plugins"))
from build_testdev import build_testdev  # noqa: E402

# Hypothesis: few examples in CI (2 cores, shared), more locally. The
# `device` fixture is an immutable string, so sharing it across examples of
# one test is safe.
_SUPPRESS = [HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
# CI draws the same examples every run (a landing must not depend on luck);
# the dev profile explores new ones each time.
settings.register_profile("ci", max_examples=15, deadline=None, suppress_health_check=_SUPPRESS, derandomize=True)
settings.register_profile("dev", max_examples=100, deadline=None, suppress_health_check=_SUPPRESS)
# The sanitizer stage (.ci/sanitize) runs every test under ASan + UBSan, a few
# times slower: every test and code path, fewer random examples each.
settings.register_profile("sanitize", max_examples=4, deadline=None, suppress_health_check=_SUPPRESS, derandomize=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))

# One build dir per checkout and monoflow install, so that clones and venvs
# never fight over one CMake cache.
_KEY = hashlib.sha1(f"{HERE}|{flow.devices.get_include()}".encode()).hexdigest()[:10]
BUILD_DIR = os.environ.get("MONOFLOW_TESTDEV_BUILD",
                           os.path.join(tempfile.gettempdir(), f"monoflow-testdev-{os.getuid()}-{_KEY}"))
PLUGINS = build_testdev(BUILD_DIR, flow.devices.get_include())
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    flow.devices.load(PLUGINS["testdev"])

DEVICES = flow.devices.available()


@pytest.fixture(params=DEVICES)
def device(request):
    """Each registered device type, index 0."""
    return f"{request.param}:0"


@pytest.fixture
def plugins():
    """name -> path of the test plugin libraries (see tests/plugins/build_testdev.py)."""
    return dict(PLUGINS)


@pytest.fixture(autouse=True)
def _quiet_fallback_warnings():
    # The CPU-fallback warning is asserted by its own tests; elsewhere it is noise.
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=flow.devices.DeviceWarning)
        yield


@pytest.fixture(autouse=True)
def _seeded():
    # A process starts from a seed of its own (as in torch); every test starts
    # from the same one, so that a run does not depend on luck or on order.
    flow.manual_seed(20261202)
    yield


@pytest.fixture(scope="session")
def testdev_lib():
    """The testdev plugin's control functions (testdev_*) through ctypes.

    dlopen() of the path the core loaded returns the same library instance,
    so these read and steer the very plugin the tests run on."""
    import ctypes

    lib = ctypes.CDLL(PLUGINS["testdev"])
    sigs = {
        "testdev_fail_next_allocations": (None, [ctypes.c_int]),
        "testdev_set_memory_limit": (None, [ctypes.c_uint64]),
        "testdev_live_bytes": (ctypes.c_uint64, []),
        "testdev_live_allocations": (ctypes.c_int64, []),
        "testdev_allocation_count": (ctypes.c_int64, []),
        "testdev_kernel_launches": (ctypes.c_int64, [ctypes.c_char_p]),
        "testdev_fail_next_kernels": (None, [ctypes.c_int]),
        "testdev_reset_counters": (None, []),
    }
    for name, (restype, argtypes) in sigs.items():
        fn = getattr(lib, name)
        fn.restype = restype
        fn.argtypes = argtypes
    return lib
