"""Re-raising an error under the name of the op the user called.

Many public functions forward to an op with another name (``flow.put`` to ``Tensor.put_``,
``torch.lu`` to ``linalg.lu_factor``); a refusal from beneath would name the wrong op. Functions
wrapped here re-raise it as ``"op(): <message>"``, torch-style, and can refuse a non-tensor first
argument up front."""
import functools
import re

from monoflow import _C

__all__ = ["names_its_errors"]

_NAMED_ERRORS = (TypeError, ValueError, RuntimeError, IndexError, OverflowError, NotImplementedError)


def names_its_errors(fn, tensor_params=()):
    # Most of these forward to an op with another name (F.kl_div, flow.tensor...):
    # a refusal from beneath is re-raised naming the op the user called, torch-style.
    # With `tensor_params`, a first parameter of one of those names must be a tensor, refused up
    # front in the converters' words ("op(): argument 'input' (position 1) must be Tensor, not ...").
    op = fn.__name__
    pattern = re.compile(r"(?<![A-Za-z0-9_])" + op + r"(?![A-Za-z0-9_])")
    first = None
    if tensor_params:
        import inspect

        params = [p for p in inspect.signature(fn).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        first = params[0].name if params and params[0].name in tensor_params else None

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if first is not None:
            value = args[0] if args else kwargs.get(first)
            if not isinstance(value, _C.TensorBase):
                raise TypeError(f"{op}(): argument '{first}' (position 1) must be Tensor, not {type(value).__name__}")
        try:
            return fn(*args, **kwargs)
        except AttributeError as err:  # a wrong argument type met an attribute lookup
            raise TypeError(f"{op}(): {err}") from None
        except _NAMED_ERRORS as err:
            if pattern.search(str(err)) or type(err) not in _NAMED_ERRORS:
                raise
            raise type(err)(f"{op}(): {err}").with_traceback(err.__traceback__) from None

    return wrapper
