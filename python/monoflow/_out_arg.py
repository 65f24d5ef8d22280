"""The ``out=`` keyword of torch's free functions (``torch.matmul(a, b, out=c)`` in the Tensors tutorial).

Each listed function of the ``monoflow`` namespace is wrapped once: without
``out`` the call goes straight to the function; with it, the result is
computed and written into ``out`` (a tuple of tensors for the functions that
return several), which is returned, with torch's rules:

- the result's dtype must cast to ``out``'s (no float into an integer
  tensor, complex into real, or numbers into bool): RuntimeError otherwise;
- an ``out`` of another shape is resized, with torch's UserWarning when it
  was not empty;
- an out= call does not record autograd: with grad mode on and an input
  or an ``out`` tensor that requires grad it raises RuntimeError, as torch
  (writing into a leaf that requires grad would change it behind autograd);
- the creation functions (zeros, arange, randn ...) take ``out``'s dtype
  when no dtype is given.
"""
import functools
import warnings

from monoflow import _C, _dtypes
from monoflow.autograd.grad_mode import no_grad

# torch's free functions that accept out= and that monoflow has (from torch's own signatures)
OUT_FUNCTIONS = """
abs absolute acos acosh add addbmm addcdiv addcmul addmm addmv addr aminmax angle any arccos arccosh arcsin arcsinh
arctan arctan2 arctanh asin asinh atan atan2 atanh baddbmm bitwise_and bitwise_left_shift bitwise_not bitwise_or
bitwise_right_shift bitwise_xor bmm bucketize cat ceil chain_matmul cholesky cholesky_inverse cholesky_solve clamp
clamp_max clamp_min clip column_stack concat concatenate copysign cos cosh cross cummax cummin cumprod cumsum deg2rad
diag diag_embed diff digamma div divide dot dstack eq erf erfc erfinv exp exp2 expm1 fix float_power floor fmax fmin
fmod frac gather gcd ge ger greater greater_equal gt heaviside histc hstack hypot i0 index_select inner inverse
isneginf isposinf kthvalue lcm ldexp le lerp less less_equal lgamma log log10 log1p log2 logaddexp logaddexp2
logcumsumexp logical_and logical_not logical_or logical_xor logsumexp lt masked_select matmul max maximum min minimum
mode msort mul multiply mv nan_to_num nanmean nanquantile ne neg negative nextafter norm not_equal outer polygamma pow
quantile rad2deg reciprocal remainder round row_stack rsqrt searchsorted sgn sigmoid sign signbit sin sinc sinh sort
sqrt square stack sub subtract take_along_dim tan tanh tensordot topk tril triu trunc vdot vstack xlogy
sum mean prod std var amax amin argmax argmin median nansum mm where
""".split()

# creation functions: out's dtype stands in for a missing dtype argument
CREATION_FUNCTIONS = "zeros ones empty full arange linspace logspace eye rand randn randint randperm".split()


def _kind(dtype):
    if dtype == _dtypes.bool_:
        return 0
    if dtype.is_complex:
        return 3
    return 2 if dtype.is_floating_point else 1


def _write(name, result, out):
    if not isinstance(out, _C.TensorBase):
        raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")
    if _kind(result.dtype) > _kind(out.dtype):
        raise RuntimeError(f"{name}(): result type {_dtypes.torch_name(result.dtype)} can't be cast to the desired output "
                           f"type {_dtypes.torch_name(out.dtype)}")
    if tuple(out.shape) != tuple(result.shape):
        if out.numel() != 0:
            warnings.warn(f"An output with one or more elements was resized since it had shape {list(out.shape)}, "
                          f"which does not match the required output shape {list(result.shape)}. This behavior is "
                          "deprecated, and in a future PyTorch release outputs will not be resized unless they have "
                          "zero elements.", UserWarning, stacklevel=4)
        out.data = _C._empty(tuple(result.shape), out.dtype, out.device)
    with no_grad():
        out.copy_(result)
    return out


def _with_out(name, fn, creation):
    @functools.wraps(fn)
    def function(*args, **kwargs):
        if "out" not in kwargs:
            return fn(*args, **kwargs)
        out = kwargs.pop("out")
        if out is None:
            return fn(*args, **kwargs)
        if creation and kwargs.get("dtype") is None and isinstance(out, _C.TensorBase):
            kwargs["dtype"] = out.dtype
        result = fn(*args, **kwargs)
        outs = out if isinstance(out, (tuple, list)) else None
        results = result if isinstance(result, tuple) else None
        if (outs is None) != (results is None) or (outs is not None and len(outs) != len(results)):
            raise TypeError(f"{name}(): argument 'out' must be "
                            f"{'a tuple of ' + str(len(results)) + ' Tensors' if results is not None else 'Tensor'}, "
                            f"not {type(out).__name__}")
        for r in (results if results is not None else (result,)) + (tuple(outs) if outs is not None else (out,)):
            if isinstance(r, _C.TensorBase) and r.requires_grad and _C.is_grad_enabled():
                raise RuntimeError(f"{name}(): functions with out=... arguments don't support automatic "
                                   "differentiation, but one of the arguments requires grad.")
        if results is None:
            return _write(name, result, out)
        written = [_write(name, r, o) for r, o in zip(results, outs)]
        return type(result)(*written) if hasattr(result, "_fields") else tuple(written)
    function.__wrapped_out__ = fn
    return function


def install(namespace):
    """Wraps the namespace's listed functions (once) so that they accept out=.
    Another name of the same function (true_divide of divide) gets the same
    wrapper, so that aliases stay one object."""
    wrappers = {}
    for names, creation in ((OUT_FUNCTIONS, False), (CREATION_FUNCTIONS, True)):
        for name in names:
            fn = getattr(namespace, name, None)
            if fn is None or not callable(fn) or hasattr(fn, "__wrapped_out__") or getattr(
                    fn, "__monoflow_not_implemented__", False):
                continue
            if id(fn) not in wrappers:
                wrappers[id(fn)] = (fn, _with_out(name, fn, creation))
    for name, value in list(vars(namespace).items()):
        fn, wrapper = wrappers.get(id(value), (None, None))
        if fn is value:
            setattr(namespace, name, wrapper)
