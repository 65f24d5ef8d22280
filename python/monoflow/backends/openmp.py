"""torch.backends.openmp: whether monoflow's CPU plugin runs on an OpenMP
runtime (it links one when the build found it)."""
import functools


@functools.lru_cache(maxsize=None)
def is_available():
    try:
        with open("/proc/self/maps") as maps:
            return any("libgomp" in line or "libomp" in line for line in maps)
    except OSError:
        return False
