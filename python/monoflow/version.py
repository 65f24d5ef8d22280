"""torch.version's fields for monoflow: the package version and the toolkits it was built
against (scripts print them, or branch on ``torch.version.cuda is not None``)."""

__all__ = ["__version__", "cuda", "hip", "rocm", "xpu", "debug", "git_version"]

__version__ = "0.1.0"  # monoflow.__version__
git_version = "Unknown"
debug = False


def _cuda_version():
    """The CUDA toolkit version when the CUDA device plugin is loaded, else None (torch's CPU build)."""
    try:
        from monoflow import cuda
        if not cuda.is_available():
            return None
        v = getattr(cuda, "_toolkit_version", None)
        return v() if callable(v) else (v or "unknown")
    except Exception:  # a failing plugin query means no CUDA here
        return None


cuda = _cuda_version()
hip = None
rocm = None
xpu = None
