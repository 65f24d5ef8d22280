"""Loads the collective binding (monoflow._dist) on first use, so that
`import monoflow` works even where its libraries cannot be loaded."""
_mod = None


def lib():
    global _mod
    if _mod is None:
        try:
            from monoflow import _dist
        except ImportError as e:
            raise RuntimeError(f"monoflow.distributed: the collective library cannot be loaded ({e}); "
                               "reinstall monoflow (with libgloo-dev installed for the gloo backend)") from e
        _mod = _dist
    return _mod
