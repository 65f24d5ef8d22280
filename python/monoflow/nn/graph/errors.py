"""Errors raised while tracing a graph's build(), restated so they name the
graph class and the line of build (or of code it called) that raised."""
import os
import traceback

__all__ = ["build_error"]

_TRACE_MARK = "inside a graph trace"
# monoflow's package directory (this file is monoflow/nn/graph/errors.py)
_PACKAGE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _is_user_code(filename):
    # monoflow's own Python and Cython frames (the .pyx/.pxi report relative paths) are not
    return not (os.path.abspath(filename).startswith(_PACKAGE) or filename.endswith((".pyx", ".pxi")))


def _location(exc, build_code):
    """'file:line in fn' for the deepest frame of build's call that is user code,
    preferring the build frame itself when nothing deeper is user code."""
    frames = traceback.extract_tb(exc.__traceback__)
    in_build = False
    where = None
    for fs in frames:
        if fs.filename == build_code.co_filename and fs.name == build_code.co_name:
            in_build = True
        if in_build and _is_user_code(fs.filename):
            where = f"{fs.filename}:{fs.lineno} in {fs.name}: {(fs.line or '').strip()}"
    return where


def build_error(graph, exc):
    """A RuntimeError naming the graph when exc is the foundation's refusal of a
    host read (or data-dependent control flow) during the trace; None otherwise."""
    msg = str(exc)
    if not isinstance(exc, RuntimeError) or _TRACE_MARK not in msg:
        return None
    name = type(graph).__name__
    where = _location(exc, type(graph).build.__code__)
    at = f" (at {where})" if where else ""
    return RuntimeError(f"{name}.build(): {msg}. This happened inside build{at}. A graph records build once, "
                        f"so tensor values cannot be read there (.numpy(), .item(), printing, or Python control flow "
                        f"on tensor values): move such code out of build or express it with tensor ops")
