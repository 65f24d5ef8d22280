"""Complex tensors (complex64, complex128).

Note [Complex through real views]
  The core stores complex64/complex128 as interleaved (real, imag) pairs, has
  them in its promotion rules, and the CPU plugin has kernels only for what
  needs no complex arithmetic: copy (and casts), fill, add, sub, neg, so that
  views, clones, casts and autograd's accumulation of complex gradients run
  in the core. Every other complex op is written here over
  ``view_as_real(x)`` (a float tensor of shape ``x.shape + (2,)`` sharing x's
  memory) with real ops. Autograd then needs nothing complex-specific:
  torch's convention for the gradient of a real loss L of a complex x is
  ``dL/dRe(x) + i dL/dIm(x)``, which is exactly the real gradient of the pair
  seen through ``view_as_complex``. The Cython bindings send complex operands
  here (``_C._set_complex_ops``; data movement in _complex_shape.py, the
  analytic functions, pow and comparisons in _complex_math.py); ops without
  a complex formula raise torch's ``op(): not implemented for 'ComplexFloat'``.
"""
import builtins

import numpy as np

from monoflow import _C, _dtypes



def _not_implemented(op, dt):
    return NotImplementedError(f"{op}(): not implemented for '{_dtypes.torch_name(dt)}'")


def is_complex(input):
    return _C.check_tensor(input, "is_complex").dtype.is_complex


# ---------------------------------------------------------------- the two views

def _raw_as_real(x):
    st = x.stride()
    return _C._reinterpret(x, x.dtype.to_real(), tuple(x.shape) + (2,), tuple(2 * s for s in st) + (1,),
                           2 * x.storage_offset())


def _raw_as_complex(r):
    if r.dtype not in (_dtypes.float32, _dtypes.float64):
        raise RuntimeError(f"view_as_complex is only supported for float and double tensors, but got a tensor of "
                           f"scalar type: {r.dtype}")
    if r.dim() == 0 or r.shape[-1] != 2:
        raise RuntimeError(_C.name_op_in_progress("Tensor must have a last dimension of size 2"))
    st = r.stride()
    if st[-1] != 1:
        raise RuntimeError(_C.name_op_in_progress("Tensor must have a last dimension with stride 1"))
    if any(s % 2 for s in st[:-1]):
        raise RuntimeError("Tensor must have a stride divisible by 2 for all but last dimension")
    if r.storage_offset() % 2:
        raise RuntimeError("Tensor must have a storage_offset divisible by 2")
    return _C._reinterpret(r, r.dtype.to_complex(), tuple(r.shape[:-1]), tuple(s // 2 for s in st[:-1]),
                           r.storage_offset() // 2)


def view_as_real(input):
    """The float view (shape + (2,)) of a complex tensor's memory (as torch.view_as_real)."""
    x = _C.check_tensor(input, "view_as_real")
    if not x.dtype.is_complex:
        raise RuntimeError("view_as_real is only supported for complex tensors")
    if not x.requires_grad:
        return _raw_as_real(x)
    from monoflow._complex_grad import ViewAsReal

    return ViewAsReal.apply(x)


def view_as_complex(input):
    """The complex view of a float tensor whose last dim holds (real, imag) pairs."""
    r = _C.check_tensor(input, "view_as_complex")
    if not r.requires_grad:
        return _raw_as_complex(r)
    from monoflow._complex_grad import ViewAsComplex

    return ViewAsComplex.apply(r)


def _pair(re, im):
    from monoflow import ops_shape

    return view_as_complex(ops_shape.stack([re, im], -1))


def _parts(x):
    r = view_as_real(x)
    return r[..., 0], r[..., 1]


def complex(real, imag):
    """real + i imag, for float32 or float64 tensors of one dtype (as torch.complex)."""
    real, imag = _C.check_tensor(real, "complex", "real"), _C.check_tensor(imag, "complex", "imag")
    if real.dtype != imag.dtype:
        raise RuntimeError(f"complex(): Expected object of scalar type {real.dtype} but got scalar type {imag.dtype} "
                           f"for second argument")
    if real.dtype not in (_dtypes.float32, _dtypes.float64, _dtypes.float16):
        raise RuntimeError(f"complex(): Expected both inputs to be Half, Float or Double tensors but got "
                           f"{real.dtype} and {imag.dtype}")
    if real.dtype == _dtypes.float16:
        raise TypeError("complex(): complex32 (ComplexHalf) is not supported in monoflow")
    shape = _C.broadcast_shapes(real.shape, imag.shape)
    return _pair(real.expand(shape), imag.expand(shape))


def polar(abs, angle):
    from monoflow import ops_math

    _C.check_tensor(abs, "polar", "abs", 1)
    _C.check_tensor(angle, "polar", "angle", 2)
    return complex(abs * ops_math.cos(angle), abs * ops_math.sin(angle))


def real(input):
    x = _C.check_tensor(input, "real")
    return _parts(x)[0] if x.dtype.is_complex else x


def imag(input):
    x = _C.check_tensor(input, "imag")
    if not x.dtype.is_complex:
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    return _parts(x)[1]


def conj(input):
    """The complex conjugate, as a new tensor (torch's is a lazy view; values
    and gradients are the same). Real tensors are returned as they are."""
    x = _C.check_tensor(input, "conj")
    if not x.dtype.is_complex:
        return x
    re, im = _parts(x)
    return _pair(re, -im)


def conj_physical(input):
    return conj(input)


def abs(input):
    from monoflow._complex_grad import PairAbs

    return PairAbs.apply(view_as_real(_C.check_tensor(input, "abs")))


def angle(input):
    from monoflow import ops_math

    x = _C.check_tensor(input, "angle")
    if not x.dtype.is_complex:
        # real input: pi where negative, 0 elsewhere, NaN kept (as torch), in x's floating dtype
        out = ops_math.where(x < 0, np.pi, 0.0) + x * 0
        return out.to(x.dtype) if x.dtype.is_floating_point else out
    re, im = _parts(x)
    return ops_math.atan2(im, re)


_UNARY = {"abs": abs}
_OP_NAMES = None


def _op_name(op):
    global _OP_NAMES
    if _OP_NAMES is None:
        from monoflow import ops_math

        _OP_NAMES = {v: k for k, v in ops_math._OP.items()}
    return _OP_NAMES.get(op, "math op")


def unary(op, x):
    """A unary math op (monoflow.ops_math op id) on a complex tensor."""
    name = _op_name(op)
    fn = _UNARY.get(name)
    if fn is not None:
        return fn(x)
    from monoflow import _complex_math

    out = _complex_math.unary(name, x)
    if out is None:
        raise _not_implemented(name, x.dtype)
    return out


def unary_(op, x):
    """The in-place form: the result is written back into x (same dtype only)."""
    out = unary(op, x)
    if out.dtype != x.dtype:
        raise RuntimeError(f"result type {out.dtype} can't be cast to the desired output type {x.dtype}")
    x.copy_(out)
    return x


def math_binary(op, a, b):
    """pow with a complex operand; atan2, remainder, logical/bitwise ops have no complex form (as torch)."""
    name = _op_name(op)
    if name == "pow":
        for v in (a, b):
            if not isinstance(v, (_C.TensorBase, bool, int, float, builtins.complex, np.number)):
                return NotImplemented
        from monoflow import _complex_math

        return _complex_math.pow(a, b)
    dt = next((v.dtype for v in (a, b) if isinstance(v, _C.TensorBase) and v.dtype.is_complex),
              _dtypes.default_complex())
    raise _not_implemented(name, dt)


def math_binary_(op, a, b):
    return _write_into(a, math_binary(op, a, b))


# ---------------------------------------------------------------- arithmetic

def _operand_dtype(v):
    if isinstance(v, _C.TensorBase):
        return v.dtype
    if isinstance(v, bool):
        return _dtypes.bool_
    if isinstance(v, int):
        return _dtypes.int64
    if isinstance(v, float):
        return _C.get_default_dtype()
    if isinstance(v, (builtins.complex, np.complexfloating)):
        return _dtypes.default_complex()
    if isinstance(v, np.bool_):
        return _dtypes.bool_
    if isinstance(v, np.integer):
        return _dtypes.int64
    if isinstance(v, np.floating):
        return _C.get_default_dtype()
    raise TypeError(f"unsupported operand type: {type(v).__name__}")


def _category(dt):
    return 3 if dt.is_complex else 2 if dt.is_floating_point else 0 if dt == _dtypes.bool_ else 1


def result_type(*operands):
    """PyTorch's promotion: tensors with dims, then 0-dim tensors, then
    numbers, a lower group counting only when its category is higher."""
    groups = [None, None, None]
    for v in operands:
        k = (0 if v.dim() else 1) if isinstance(v, _C.TensorBase) else 2
        dt = _operand_dtype(v)
        groups[k] = dt if groups[k] is None else _C.promote_types(groups[k], dt)
    out = None
    for dt in groups:
        if dt is None:
            continue
        if out is None or _category(dt) > _category(out):
            out = dt if out is None else _C.promote_types(out, dt)
    return out


def _as_complex_tensor(v, dt, like):
    if isinstance(v, _C.TensorBase):
        return v if v.dtype == dt else v.to(dt)
    v = builtins.complex(v)
    out = _C._full((), 0, dt, like.device)
    r = _raw_as_real(out)
    r[0].fill_(v.real)
    r[1].fill_(v.imag)
    return out


def binary(name, a, b):
    """a (name) b where a or b is complex: add, sub, mul, div."""
    for v in (a, b):
        if not isinstance(v, (_C.TensorBase, bool, int, float, builtins.complex, np.number)):
            return NotImplemented
    if name == "sub" and any(isinstance(v, _C.TensorBase) and v.dtype == _dtypes.bool_ for v in (a, b)):
        raise RuntimeError("sub: subtraction, the `-` operator, with a bool tensor is not supported. If you are "
                           "trying to invert a mask, use the `~` or `logical_not()` operator instead.")
    dt = result_type(a, b)
    like = a if isinstance(a, _C.TensorBase) else b
    a, b = _as_complex_tensor(a, dt, like), _as_complex_tensor(b, dt, like)
    ra, rb = view_as_real(a), view_as_real(b)
    if name in ("add", "sub"):
        # broadcast over the (..., 2) views; the pair dim lines up
        return view_as_complex(ra + rb if name == "add" else ra - rb)
    ar, ai, br, bi = ra[..., 0], ra[..., 1], rb[..., 0], rb[..., 1]
    if name == "mul":
        return _pair(ar * br - ai * bi, ar * bi + ai * br)
    d = br * br + bi * bi
    return _pair((ar * br + ai * bi) / d, (ai * br - ar * bi) / d)


def inplace(name, a, b):
    return _write_into(a, binary(name, a, b))


def _write_into(a, out):
    """An in-place op's ending: `out` written into `a`, refusing a dtype change
    as torch does (NotImplemented passes through)."""
    if out is NotImplemented:
        return out
    if out.dtype != a.dtype:
        raise RuntimeError(f"result type {_dtypes.torch_name(out.dtype)} can't be cast to the "
                           f"desired output type {a.dtype}")
    a.copy_(out)
    return a


def matmul(a, b):
    a, b = _C.check_tensor(a, "matmul", "input"), _C.check_tensor(b, "matmul", "other")
    dt = result_type(a, b) if a.dim() and b.dim() else _C.promote_types(a.dtype, b.dtype)
    if not dt.is_complex:
        raise TypeError(f"matmul(): expected a complex operand, got {a.dtype} and {b.dtype}")
    ar, ai = _parts(_as_complex_tensor(a, dt, a))
    br, bi = _parts(_as_complex_tensor(b, dt, b))
    return _pair(ar @ br - ai @ bi, ar @ bi + ai @ br)


# ---------------------------------------------------------------- reductions and the rest

def _dims(x, dim):
    if dim is None:
        return list(range(x.dim()))
    dims = [dim] if isinstance(dim, int) else list(dim)
    n = max(x.dim(), 1)
    out = []
    for d in dims:
        if not -n <= d < n:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {d})")
        out.append(d % n)
    return out


def sum(x, dim=None, keepdim=False, dtype=None):
    if dtype is not None and not dtype.is_complex:
        raise TypeError(f"sum(): can't sum a complex tensor into {dtype}")
    if dtype is not None and dtype != x.dtype:
        x = x.to(dtype)
    dims = _dims(x, dim)
    if x.dim() == 0 or not dims:
        return x.clone()
    return view_as_complex(view_as_real(x).sum(dims, keepdim).contiguous())


def mean(x, dim=None, keepdim=False, dtype=None):
    out = sum(x, dim, keepdim, dtype)
    n = 1
    for d in _dims(x, dim):
        n *= x.shape[d] if x.dim() else 1
    return view_as_complex(view_as_real(out) / n)


def item(x):
    if x.numel() != 1:
        raise RuntimeError(f"a Tensor with {x.numel()} elements cannot be converted to Scalar")
    return builtins.complex(x.detach().numpy().reshape(()).item())


def fill_(x, value):
    if not x.dtype.is_complex:
        raise RuntimeError(f"fill_(): value {value!r} cannot be converted to type {x.dtype} without overflow")
    v = builtins.complex(value)
    r = _raw_as_real(x)
    r[..., 0].fill_(v.real)
    r[..., 1].fill_(v.imag)
    return x


def full(shape, value, dtype, device):
    return fill_(_C._empty(tuple(shape), dtype, device), value)


def randn(shape, dtype, device, generator):
    """Complex normal samples: real and imaginary parts each N(0, 1/2), as torch."""
    from monoflow import ops_random

    r = ops_random.randn(tuple(shape) + (2,), dtype=dtype.to_real(), device=device, generator=generator)
    return _raw_as_complex(r * (0.5 ** 0.5))


class TensorMethods:
    @property
    def real(self):
        return real(self)

    @property
    def imag(self):
        return imag(self)

    def is_complex(self):
        return self.dtype.is_complex

    def conj(self):
        return conj(self)

    def conj_physical(self):
        return conj_physical(self)

    def resolve_conj(self):
        return self

    def is_conj(self):
        return False

    def angle(self):
        return angle(self)


def __getattr__(name):
    # _complex_shape and _complex_math (the bindings reach them as .shape and
    # .math), imported on first use: they import autograd, which imports the
    # Tensor class this module is part of
    if name in ("shape", "math"):
        import importlib

        mod = importlib.import_module(f"monoflow._complex_{name}")
        globals()[name] = mod
        return mod
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_C._set_complex_ops(__import__(__name__, fromlist=["_"]))
