"""Top-level in-place functions (``monoflow.exp_(x)``, OneFlow's ``oneflow.sin_``):
each calls the Tensor method of the same name, so it modifies and returns `input`
exactly as ``input.<name>(...)`` does (autograd, version counter, errors)."""
from monoflow import _C
from monoflow import _composite as _c

# Names torch (and OneFlow) export at the top level whose Tensor method exists.
_METHODS = (
    "abs_", "acos_", "acosh_", "addmv_", "arccos_", "arccosh_", "arcsin_", "arcsinh_", "arctan_", "arctanh_",
    "asin_", "asinh_", "atan_", "atanh_", "ceil_", "clamp_", "clamp_max_", "clamp_min_", "clip_", "cos_", "cosh_",
    "deg2rad_", "detach_", "erf_", "erfc_", "exp2_", "exp_", "expm1_", "fill_", "fix_", "floor_", "frac_", "gcd_",
    "index_put_", "lcm_", "ldexp_", "lerp_", "log10_", "log1p_", "log2_", "log_", "logit_", "nan_to_num_",
    "negative_", "rad2deg_", "reciprocal_", "round_", "rsqrt_", "sigmoid_", "sin_", "sinc_", "sinh_", "sqrt_",
    "square_", "tan_", "tanh_", "trunc_", "xlogy_", "zero_",
)

__all__ = list(_METHODS) + ["detach", "fill"]


def _inplace(name):
    def fn(input, *args, **kwargs):
        method = getattr(_C.check_tensor(input, name, "input"), name)
        try:
            return method(*args, **kwargs)
        except TypeError as e:  # (an alias's method names itself: fix_ reaches trunc_)
            _c.rename_call_error(e, method, name)
            raise

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"In-place version of ``monoflow.{name[:-1]}``: ``{name}(input, ...)`` is "
                  f"``input.{name}(...)`` and returns `input`.")
    return fn


for _name in _METHODS:
    globals()[_name] = _inplace(_name)
del _name


def detach(input):
    """``input.detach()``: a view of `input` outside the autograd graph.

    Example::

        >>> import monoflow as flow
        >>> flow.detach(flow.ones(2, requires_grad=True)).requires_grad
        False
    """
    return _C.check_tensor(input, "detach", "input").detach()


def fill(input, value):
    """A new tensor shaped and typed as `input`, every element `value` (torch.fill).

    Example::

        >>> import monoflow as flow
        >>> flow.fill(flow.zeros(2), 3.0)
        tensor([3., 3.])
    """
    _C.check_tensor(input, "fill", "input")
    try:
        return input.clone().fill_(value)
    except (TypeError, RuntimeError) as e:  # fill_'s words name fill_
        msg = str(e)
        if e.args != (msg,) or not msg.startswith("fill_"):
            raise
        raise type(e)("fill" + msg[len("fill_"):]) from None
