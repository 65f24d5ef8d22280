"""The reduce ops: functions (monoflow.<name>) and the matching Tensor methods.

Reductions over dims (mean, prod, max/min, amax/amin, argmax/argmin,
var/std, norm, logsumexp, all/any), scans (cumsum, cumprod), softmax and
log_softmax, sort/argsort and topk, with PyTorch's signatures. (`sum` lives
in the foundation: TensorBase.sum and monoflow._functional.sum.) Rules and
errors are the C++ core's; this module only sorts out argument forms.
"""
import collections as _collections
import sys as _sys
import types as _types

from monoflow import _C, _autocast
from monoflow import _composite as _c

__all__ = [
    "mean", "prod", "max", "var_mean", "std_mean", "min", "amax", "amin", "argmax", "argmin", "var", "std", "norm", "logsumexp",
    "all", "any", "cumsum", "cumprod", "softmax", "log_softmax", "sort", "argsort", "topk", "return_types",
]


# ---------------------------------------------------------------- named results

# A module object, like torch.return_types, so that `import monoflow.return_types`
# and pickling by qualified name work; every op family with several outputs adds its types here.
return_types = _sys.modules.setdefault(
    "monoflow.return_types",
    _types.ModuleType("monoflow.return_types", "Named tuples of ops with several outputs (torch.return_types)."))


def _structseq(name, fields=("values", "indices")):
    """A named tuple registered and printed as monoflow.return_types.<name>, in torch's form."""
    cls = _collections.namedtuple(name, list(fields))
    cls.__module__ = "monoflow.return_types"

    def __repr__(self):
        parts = ",\n".join(f"{f}={v!r}" for f, v in zip(cls._fields, self))
        return f"{_C.api_name()}.return_types.{name}(\n{parts})"

    cls.__repr__ = __repr__
    setattr(return_types, name, cls)
    return cls


for _name in ("max", "min", "sort", "topk"):
    _structseq(_name)
del _name


# ---------------------------------------------------------------- argument forms

def _logical_dims(op, dim):
    """all/any's dim: None, an int or a sequence of ints (checked here: the
    empty sequence is handled before the binding sees it)."""
    if dim is None or type(dim) is int:
        return dim
    if isinstance(dim, (tuple, list)):
        return _c.int_tuple(op, "dim", dim)
    return _C.check_int(dim, op, "dim", 1)


def _var_args(op, dim, unbiased, correction):
    """(dim, correction) from PyTorch's var/std forms: var(x, unbiased),
    var(x, dim, unbiased, keepdim), var(x, dim, correction=c)."""
    if isinstance(dim, bool):  # var(x, True): the legacy unbiased flag
        if unbiased is not None:
            raise TypeError(f"{op}(): got the unbiased flag twice")
        unbiased, dim = dim, None
    if unbiased is not None and correction is not None:
        raise TypeError(f"{op}(): pass either unbiased or correction, not both")
    if correction is None:
        correction = 0 if unbiased is False else 1
    return dim, correction


def _norm_order(p, dim):
    """The vector-norm order of torch.norm's p ('fro' is the 2-norm of the
    flattened dims)."""
    if p is None:
        p = "fro"
    if isinstance(p, str):
        if p == "fro":
            if dim is not None and not isinstance(dim, int) and len(dim) > 2:
                raise RuntimeError(f"norm(): the Frobenius norm takes at most 2 dims, got {tuple(dim)}")
            return 2.0
        if p == "nuc":
            raise NotImplementedError("norm(): the nuclear norm (p='nuc') is not supported")
        raise RuntimeError(f"norm(): order {p!r} is not supported")
    if isinstance(p, bool) or not isinstance(p, (int, float)):
        raise TypeError(f"norm(): p must be a number or 'fro', got {type(p).__name__}")
    return float(p)


# ---------------------------------------------------------------- functions

def mean(input, dim=None, keepdim=False, *, dtype=None):
    return _C.check_tensor(input, "mean").mean(dim, keepdim, dtype=dtype)


@_autocast.fp32
def prod(input, dim=None, keepdim=False, *, dtype=None):
    return _C.check_tensor(input, "prod").prod(dim, keepdim, dtype=dtype)


def max(input, dim=None, keepdim=False):
    return _C.check_tensor(input, "max").max(dim, keepdim)


def min(input, dim=None, keepdim=False):
    return _C.check_tensor(input, "min").min(dim, keepdim)


def amax(input, dim=(), keepdim=False):
    return _C.check_tensor(input, "amax").amax(dim, keepdim)


def amin(input, dim=(), keepdim=False):
    return _C.check_tensor(input, "amin").amin(dim, keepdim)


def argmax(input, dim=None, keepdim=False):
    return _C.check_tensor(input, "argmax").argmax(dim, keepdim)


def argmin(input, dim=None, keepdim=False):
    return _C.check_tensor(input, "argmin").argmin(dim, keepdim)


def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    return _C.check_tensor(input, "var").var(dim, unbiased, keepdim, correction=correction)


def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    return _C.check_tensor(input, "std").std(dim, unbiased, keepdim, correction=correction)


def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """(var, mean) over the same dims; differentiable through both."""
    _C.check_tensor(input, "var_mean", "input", 1)
    if input.dtype.is_complex:  # (Tensor.var has the complex form)
        return input.var(dim, unbiased, keepdim, correction=correction), input.mean(dim, keepdim)
    dim, correction = _var_args("var_mean", dim, unbiased, correction)
    return _C.reduce_var(input, dim, correction, keepdim), _C.reduce_mean(input, dim, keepdim, None)


def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """(std, mean) over the same dims; differentiable through both."""
    _C.check_tensor(input, "std_mean", "input", 1)
    if input.dtype.is_complex:
        return input.std(dim, unbiased, keepdim, correction=correction), input.mean(dim, keepdim)
    dim, correction = _var_args("std_mean", dim, unbiased, correction)
    return _C.reduce_std(input, dim, correction, keepdim), _C.reduce_mean(input, dim, keepdim, None)


def norm(input, p="fro", dim=None, keepdim=False, dtype=None):
    return _C.check_tensor(input, "norm").norm(p, dim, keepdim, dtype=dtype)


def logsumexp(input, dim, keepdim=False):
    return _C.check_tensor(input, "logsumexp").logsumexp(dim, keepdim)


def all(input, dim=None, keepdim=False):
    return _C.check_tensor(input, "all").all(dim, keepdim)


def any(input, dim=None, keepdim=False):
    return _C.check_tensor(input, "any").any(dim, keepdim)


def cumsum(input, dim, *, dtype=None):
    return _C.check_tensor(input, "cumsum").cumsum(dim, dtype=dtype)


def cumprod(input, dim, *, dtype=None):
    return _C.check_tensor(input, "cumprod").cumprod(dim, dtype=dtype)


def softmax(input, dim, dtype=None):
    return _C.check_tensor(input, "softmax").softmax(dim, dtype=dtype)


def log_softmax(input, dim, dtype=None):
    return _C.check_tensor(input, "log_softmax").log_softmax(dim, dtype=dtype)


def sort(input, dim=-1, descending=False, stable=False):
    return _C.check_tensor(input, "sort").sort(dim, descending, stable=stable)


def argsort(input, dim=-1, descending=False, stable=False):
    return _C.check_tensor(input, "argsort").argsort(dim, descending, stable=stable)


def topk(input, k, dim=-1, largest=True, sorted=True):
    return _C.check_tensor(input, "topk").topk(k, dim, largest, sorted)


# ---------------------------------------------------------------- Tensor methods

class TensorMethods:
    """Mixed into monoflow.Tensor."""

    def mean(self, dim=None, keepdim=False, *, dtype=None):
        return _C.reduce_mean(self, dim, keepdim, dtype)

    @_autocast.fp32
    def prod(self, dim=None, keepdim=False, *, dtype=None):
        return _C.reduce_prod(self, dim, keepdim, dtype)

    def max(self, dim=None, keepdim=False):
        """max(): the largest element; max(dim): (values, indices); max(other): maximum."""
        if isinstance(dim, _C.TensorBase):
            return self.maximum(dim)
        if dim is None:
            if keepdim:
                raise TypeError("max(): keepdim needs a dim")
            return _C.reduce_max_all(self)
        return return_types.max(*_C.reduce_max_dim(self, dim, keepdim))

    def min(self, dim=None, keepdim=False):
        """min(): the smallest element; min(dim): (values, indices); min(other): minimum."""
        if isinstance(dim, _C.TensorBase):
            return self.minimum(dim)
        if dim is None:
            if keepdim:
                raise TypeError("min(): keepdim needs a dim")
            return _C.reduce_min_all(self)
        return return_types.min(*_C.reduce_min_dim(self, dim, keepdim))

    def amax(self, dim=(), keepdim=False):
        return _C.reduce_amax(self, dim, keepdim)

    def amin(self, dim=(), keepdim=False):
        return _C.reduce_amin(self, dim, keepdim)

    def argmax(self, dim=None, keepdim=False):
        return _C.reduce_argmax(self, dim, keepdim)

    def argmin(self, dim=None, keepdim=False):
        return _C.reduce_argmin(self, dim, keepdim)

    def var(self, dim=None, unbiased=None, keepdim=False, *, correction=None):
        dim, correction = _var_args("var", dim, unbiased, correction)
        if self.dtype.is_complex:  # the spread of |x - mean|^2: the parts' variances add up
            return _C.reduce_var(self.real, dim, correction, keepdim) + _C.reduce_var(self.imag, dim, correction,
                                                                                     keepdim)
        return _C.reduce_var(self, dim, correction, keepdim)

    def std(self, dim=None, unbiased=None, keepdim=False, *, correction=None):
        if self.dtype.is_complex:
            return self.var(dim, unbiased, keepdim, correction=correction).sqrt()
        dim, correction = _var_args("std", dim, unbiased, correction)
        return _C.reduce_std(self, dim, correction, keepdim)

    def norm(self, p="fro", dim=None, keepdim=False, dtype=None):
        x = self.abs() if self.dtype.is_complex else self  # a complex vector's norm is its moduli's
        return _C.reduce_vector_norm(x, _norm_order(p, dim), dim, keepdim, dtype)

    def logsumexp(self, dim, keepdim=False):
        return _C.reduce_logsumexp(self, dim, keepdim)

    def all(self, dim=None, keepdim=False):
        dim = _logical_dims("all", dim)
        if self.dtype.is_complex:
            self = self != 0
        if dim == ():  # PyTorch reduces nothing for dim=()
            return _C.reduce_all(self.unsqueeze(-1), -1, keepdim=False)
        return _C.reduce_all(self, dim, keepdim)

    def any(self, dim=None, keepdim=False):
        dim = _logical_dims("any", dim)
        if self.dtype.is_complex:
            self = self != 0
        if dim == ():
            return _C.reduce_any(self.unsqueeze(-1), -1, keepdim=False)
        return _C.reduce_any(self, dim, keepdim)

    def cumsum(self, dim, *, dtype=None):
        # (a bad dtype, a tensor's is_complex method included: the binding names it)
        if self.dtype.is_complex or (isinstance(dtype, _C.dtype) and dtype.is_complex):
            from monoflow import _complex_shape

            return _complex_shape.cumsum(self, dim, dtype)
        return _C.reduce_cumsum(self, dim, dtype)

    def cumprod(self, dim, *, dtype=None):
        if self.dtype.is_complex or (isinstance(dtype, _C.dtype) and dtype.is_complex):
            from monoflow import _complex_shape

            return _complex_shape.cumprod(self, dim, dtype)
        return _C.reduce_cumprod(self, dim, dtype)

    def cumsum_(self, dim, *, dtype=None):
        return self.copy_(_C.reduce_cumsum(self, dim, dtype))

    def cumprod_(self, dim, *, dtype=None):
        return self.copy_(_C.reduce_cumprod(self, dim, dtype))

    def softmax(self, dim, dtype=None):
        return _C.reduce_softmax(self, dim, dtype)

    def log_softmax(self, dim, dtype=None):
        return _C.reduce_log_softmax(self, dim, dtype)

    def sort(self, dim=-1, descending=False, *, stable=False):
        return return_types.sort(*_C.reduce_sort(self, dim, descending, stable))

    def argsort(self, dim=-1, descending=False, *, stable=False):
        return _C.reduce_argsort(self, dim, descending, stable)

    def topk(self, k, dim=-1, largest=True, sorted=True):
        return return_types.topk(*_C.reduce_topk(self, k, dim, largest, sorted))
