"""monoflow.jit: torch.jit's decorators and queries, so that scripts written for TorchScript run eagerly.

monoflow has no TorchScript compiler (its compiled mode is ``nn.Graph``):
``script`` and ``trace`` return the function or module itself, so results
are those of eager mode, and say so once; the annotations (``ignore``,
``unused``, ``export``, ``annotate``) are identities and ``is_scripting()``
is False, which is what eager torch code sees too. A TorchScript archive
cannot be written or read: ``save``/``load`` raise NotImplementedError
naming the state_dict route instead."""
import warnings

__all__ = ["script", "trace", "trace_module", "ignore", "unused", "export", "interface", "is_scripting",
           "is_tracing", "annotate", "fork", "wait", "save", "load", "freeze", "optimize_for_inference",
           "ScriptModule", "ScriptFunction", "Final"]

_warned = set()


def _warn_once(what):
    if what not in _warned:
        _warned.add(what)
        warnings.warn(f"monoflow.jit.{what}() returns the callable unchanged and runs it eagerly (monoflow has no "
                      "TorchScript); use monoflow.nn.Graph for a compiled static graph", UserWarning, stacklevel=3)


def _callable(fn, op):
    if not callable(fn):
        raise TypeError(f"jit.{op}(): argument 'obj' must be a function or Module, not {type(fn).__name__}")
    return fn


def script(obj, optimize=None, _frames_up=0, _rcb=None, example_inputs=None):
    """Returns ``obj`` unchanged (eager execution in place of TorchScript compilation); a class is returned as is."""
    if isinstance(obj, type):
        return obj
    _warn_once("script")
    return _callable(obj, "script")


def trace(func, example_inputs=None, optimize=None, check_trace=True, check_inputs=None, check_tolerance=1e-5,
          strict=True, _force_outplace=False, _module_class=None, _compilation_unit=None,
          example_kwarg_inputs=None, _store_inputs=True):
    """Returns ``func`` unchanged: calling it computes what the trace would have recorded for these inputs,
    and also follows data-dependent control flow that a trace would have frozen."""
    _warn_once("trace")
    return _callable(func, "trace")


def trace_module(mod, inputs, **kwargs):
    _warn_once("trace_module")
    return _callable(mod, "trace_module")


def ignore(drop=False, **kwargs):
    """``@jit.ignore`` / ``@jit.ignore(drop=True)``: leaves the function as it is."""
    if callable(drop):
        return drop
    return lambda fn: fn


def unused(fn):
    return fn


def export(fn):
    return fn


def interface(obj):
    return obj


def is_scripting():
    """False: monoflow code always runs as Python (torch code guards TorchScript-only paths with this)."""
    return False


def is_tracing():
    return False


def _script_if_tracing(fn):
    """(torch's and OneFlow's private decorator: scripts `fn` only while tracing) `fn` itself."""
    return fn


def _overload(fn):
    """(TorchScript's overload declaration) `fn` itself."""
    return fn


_overload_method = _overload


def annotate(the_type, the_value):
    return the_value


class _Future:
    def __init__(self, value):
        self._value = value

    def wait(self):
        return self._value

    def value(self):
        return self._value

    def done(self):
        return True


def fork(func, *args, **kwargs):
    """Runs ``func`` now (no asynchronous TorchScript task) and returns a future that holds its result."""
    return _Future(func(*args, **kwargs))


def wait(future):
    return future.wait()


def freeze(mod, preserved_attrs=None, optimize_numerics=True):
    return mod


def optimize_for_inference(mod, other_methods=None):
    return mod


def save(m, f, _extra_files=None):
    raise NotImplementedError("jit.save(): monoflow cannot write TorchScript archives; save the weights with "
                              "monoflow.save(model.state_dict(), path) (or the whole module with monoflow.save(model, path))")


def load(f, map_location=None, _extra_files=None, _restore_shapes=False):
    raise NotImplementedError("jit.load(): monoflow cannot read TorchScript archives; load weights saved with "
                              "monoflow.save / torch.save(state_dict) through monoflow.load")


class ScriptModule:
    """torch.jit.ScriptModule's name, for isinstance checks: no monoflow object is one."""


class ScriptFunction:
    """torch.jit.ScriptFunction's name, for isinstance checks: no monoflow object is one."""


try:
    from typing import Final  # noqa: F401  (torch.jit.Final is typing's)
except ImportError:  # pragma: no cover
    Final = None
