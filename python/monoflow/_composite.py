"""Helpers shared by the ops modules written as compositions of core ops
(ops_pointwise, ops_join, ops_layout, ops_stats, ops_set, ops_matrix)."""
import numbers

import numpy as np

from monoflow import _C, _dtypes


def wrap_dim(op, dim, nd):
    """dim in [0, nd) (a 0-D tensor has one dim for this purpose, as in torch)."""
    n = max(nd, 1)
    if type(dim) is not int:
        dim = _C.check_int(dim, op, "dim")
    if not -n <= dim < n:
        raise IndexError(f"{op}(): Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return dim % n


def int_tuple(op, name, v):
    """v (an int, or a sequence of ints) as a tuple of ints; else torch's
    TypeError "op(): argument 'name' must be tuple of ints, not T"."""
    if isinstance(v, numbers.Integral) and not isinstance(v, bool):
        return (int(v),)
    try:
        items = tuple(v)
    except TypeError:
        items = None
    if items is None or not all(isinstance(i, numbers.Integral) and not isinstance(i, bool) for i in items):
        raise TypeError(f"{op}(): argument '{name}' must be tuple of ints, not {type(v).__name__}")
    return items


def int_pair(op, name, v):
    """v (an int, or a pair of ints) as a pair, as torch's _pair arguments (kernel_size, stride ...);
    TypeError for other types, ValueError for another length."""
    if isinstance(v, int):
        return (v, v)
    if not isinstance(v, (tuple, list)) or not all(isinstance(x, int) for x in v):
        raise TypeError(f"{op}(): argument '{name}' must be tuple of ints, not {type(v).__name__}")
    if len(v) != 2:
        raise ValueError(f"{op}(): argument '{name}' must be an int or a pair of ints, but got {tuple(v)!r}")
    return tuple(v)


def number(op, name, pos, v):
    """v, torch's Number argument (an int, float or bool, numpy scalars too),
    as a float; else TypeError "op(): argument 'name' (position pos) must be
    Number, not T"."""
    if isinstance(v, (bool, np.bool_)):
        return float(v)
    if isinstance(v, (str, bytes, _C.TensorBase)) or not isinstance(v, numbers.Real):
        raise TypeError(f"{op}(): argument '{name}' (position {pos}) must be Number, not {type(v).__name__}")
    return float(v)


def boolean(op, name, pos, v):
    """v if it is a bool (a numpy bool too); else torch's TypeError "op():
    argument 'name' (position pos) must be bool, not T" (an int included)."""
    if isinstance(v, (bool, np.bool_)):
        return v
    raise TypeError(f"{op}(): argument '{name}' (position {pos}) must be bool, not {type(v).__name__}")


def flag(op, name, v):
    """The truth value of a flag written in Python in torch (``if inplace:``,
    so any scalar goes: a bool, an int, a numpy or one-element value); an
    array or a tensor of several elements, whose truth value is ambiguous,
    is refused by a TypeError "op(): argument 'name' must be bool, not T".
    op None: the public op in progress is named."""
    if type(v) is bool:
        return v
    try:
        return bool(v)
    except (ValueError, RuntimeError, TypeError):
        msg = f"argument '{name}' must be bool, not {type(v).__name__}"
        raise TypeError(f"{op}(): {msg}" if op else _C.name_op_in_progress(msg)) from None


def comparable(op, input, other):
    """input, checked as the Tensor a comparison `op` takes, with `other` a
    Tensor or a Number (Python's own "'<' not supported between instances"
    names no op)."""
    _C.check_tensor(input, op, "input", 1)
    if not isinstance(other, (_C.TensorBase, numbers.Number)):
        raise TypeError(f"{op}(): argument 'other' (position 2) must be Tensor or Number, not {type(other).__name__}")
    return input


def host_tensor(arr, dtype, device):
    """A tensor of `dtype` on `device` copied from the numpy array `arr` (0-D stays 0-D)."""
    arr = np.asarray(arr, order="C")
    out = _C._from_host_array(arr, arr.shape, _dtypes.from_numpy(arr.dtype), device)
    return out if out.dtype == dtype else out.to(dtype)


def rename_call_error(e, fn, name):
    """A TypeError of Python's own about the call of `fn` ("lt() takes 2
    positional arguments but 3 were given"), made to name `name`, the op that
    forwarded the call (an alias or wrapper), in place."""
    msg = str(e)
    for called in (getattr(fn, "__qualname__", None), getattr(fn, "__name__", None)):
        if called and msg.startswith(called + "()") and e.args == (msg,):
            e.args = (f"{name}(){msg[len(called) + 2:]}",)
            return


def method(fn, name=None):
    """fn(self, ...) as a Tensor method."""
    name = name or fn.__name__

    def bound(self, *args, **kwargs):
        try:
            return fn(self, *args, **kwargs)
        except TypeError as e:  # (free when nothing is raised)
            rename_call_error(e, fn, name)
            raise

    bound.__doc__ = fn.__doc__
    return _named(bound, name)


def _recorded(self, args, kwargs):
    # whether autograd records the call: some tensor argument requires grad, in grad mode
    return _C.is_grad_enabled() and any(isinstance(a, _C.TensorBase) and a.requires_grad
                                        for a in (self, *args, *kwargs.values()))


def inplace_method(fn, name=None):
    """The in-place method name_: fn's result copied into self (in self's dtype). When autograd
    records it, fn reads a clone of self: fn's backward may need self's old values, which the
    copy overwrites (mul_, xlogy_, hypot_ ... raised 'modified by an inplace operation')."""
    name = (name or fn.__name__) + "_"

    def bound(self, *args, **kwargs):
        try:
            result = fn(self.clone() if _recorded(self, args, kwargs) else self, *args, **kwargs)
        except TypeError as e:
            rename_call_error(e, fn, name)
            raise
        # as torch: the result must cast to self's dtype (deg2rad_ of an int tensor truncated to 0)
        if isinstance(result, _C.TensorBase) and isinstance(self, _C.TensorBase) and \
                not _C.can_cast(result.dtype, self.dtype):
            raise RuntimeError(f"{name}: result type {_dtypes.torch_name(result.dtype)} can't be cast to the "
                               f"desired output type {_dtypes.torch_name(self.dtype)}")
        return self.copy_(result)

    return _named(bound, name)


def _named(bound, name):
    """The method `bound` named Tensor.`name`, its code too: the frame then
    names the op for an error raised underneath (Note [Naming the op in
    progress] in _args.pxi)."""
    bound.__name__ = name
    bound.__qualname__ = f"Tensor.{name}"
    bound.__code__ = bound.__code__.replace(co_name=name, co_qualname=f"Tensor.{name}")
    return bound
