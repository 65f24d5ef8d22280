"""The op property suite: every (op, dtype) kernel a plugin registers, run
through monoflow on its device and compared with the CPU.

A *driver* knows how to reach one op's kernel from the Python API: it draws
random inputs (numpy arrays) for a dtype and a shape, and a function of
tensors that calls the op. The suite places the inputs on the device in a
random layout (contiguous, permuted, sliced with steps: non-contiguous
strides; broadcast operands get stride 0 from the core), runs the function
there and on the CPU with contiguous copies of the same values, and compares
shapes, dtypes and values (exactly for integers and bools, within a
tolerance of the dtype for floating results; NaN where the CPU has NaN).
Shapes include 0-d and zero-size tensors. Both sides raising the same
exception class is agreement too. It also checks that the op did not fall
back to the CPU (the plugin registers a kernel for it, so the core must use
it). Ops without a driver are listed as "not covered".
"""
import numpy as np

FLOATS = ("float16", "bfloat16", "float32", "float64")
INTS = ("uint8", "int8", "int16", "int32", "int64")
COMPLEX = ("complex64", "complex128")
HALF = ("float16", "bfloat16")

# (rtol, atol) per result dtype
TOLERANCE = {"float16": (2e-3, 2e-3), "bfloat16": (1.6e-2, 1.6e-2), "float32": (2e-5, 2e-6),
             "float64": (1e-10, 1e-12), "complex64": (2e-5, 2e-6), "complex128": (1e-10, 1e-12)}

GRAPH_ONLY = {"fused_elementwise", "matmul_epilogue", "conv_epilogue"}
INFO = {}  # what checks_for learnt: the device type


class Fail(Exception):
    pass


class NotCovered(Exception):
    pass


# --------------------------------------------------------------------------- inputs


def values(rng, dtype, shape, kind="any"):
    """Random numpy values for a monoflow dtype (half types as float32)."""
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if dtype in INTS:
        lo, hi = (0, 40) if dtype == "uint8" else (-20, 20)
        if kind == "nonzero":
            v = rng.integers(1, 20, shape)
            if dtype != "uint8":
                v = v * rng.choice([-1, 1], shape)
            return v.astype(dtype)
        if kind in ("positive", "unit", "small"):
            lo, hi = (0, 4) if kind != "positive" else (1, 20)
        return rng.integers(lo, hi, shape).astype(dtype)
    np_dtype = "float32" if dtype in HALF else dtype
    if dtype in COMPLEX:
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    if kind == "positive":
        v = rng.uniform(0.1, 4.0, shape)
    elif kind == "unit":
        v = rng.uniform(-0.95, 0.95, shape)
    elif kind == "ge1":
        v = rng.uniform(1.0, 4.0, shape)
    elif kind == "nonzero":
        v = rng.uniform(0.5, 3.0, shape) * rng.choice([-1, 1], shape)
    elif kind == "small":
        v = rng.uniform(-2.0, 2.0, shape)
    else:
        v = rng.standard_normal(shape) * 2
        # round half away: keeps floor/round/trunc from sitting on ties through casts
        v = np.round(v * 64) / 64 + 1 / 256
    return np.asarray(v, dtype=np_dtype)


def random_shape(rng, case, min_ndim=0, max_ndim=3, max_size=5):
    """Case 0 is 0-d (when allowed), case 1 zero-size, then random shapes."""
    if case == 0 and min_ndim == 0:
        return ()
    ndim = int(rng.integers(max(min_ndim, 1), max_ndim + 1))
    shape = [int(rng.integers(1, max_size + 1)) for _ in range(ndim)]
    if case == 1:
        shape[int(rng.integers(0, ndim))] = 0
    return tuple(shape)


def broadcast_partner(rng, shape):
    """A shape that broadcasts with `shape` (some dims set to 1, maybe fewer dims)."""
    other = [1 if rng.random() < 0.3 else s for s in shape]
    drop = int(rng.integers(0, len(other) + 1)) if other and rng.random() < 0.3 else 0
    return tuple(other[drop:])


# --------------------------------------------------------------------------- drivers


class Driver:
    """How to reach an op. `make(rng, dtype, case)` -> (arrays, fn, kwargs): the
    inputs, and fn(flow, *tensors) calling the op. `dtypes` limits the kernel
    dtypes it can drive; `tol` scales the tolerance; `random` compares
    properties (`check(out_numpy, arrays)`) instead of values."""

    def __init__(self, make, dtypes=None, tol=1.0, layouts=True, check=None):
        self.make, self.dtypes, self.tol, self.layouts, self.check = make, dtypes, tol, layouts, check

    def drives(self, dtype):
        return self.dtypes is None or dtype in self.dtypes


DRIVERS = {}


def _unary(name, call, kind="any", dtypes=None, tol=1.0):
    def make(rng, dt, case):
        return [values(rng, dt, random_shape(rng, case), kind)], call
    DRIVERS[name] = Driver(make, dtypes, tol)


def _binary(name, call, kind_b="any", dtypes=None, tol=1.0, kind_a="any"):
    def make(rng, dt, case):
        shape = random_shape(rng, case)
        a, b = shape, broadcast_partner(rng, shape)
        if rng.random() < 0.5:
            a, b = b, a
        a, b = values(rng, dt, a, kind_a), values(rng, dt, b, kind_b)
        if kind_b == "nonzero" and case == 2 and b.size:
            b.flat[0] = 0  # a zero divisor: inf/NaN for floats, an error for integers, as on the CPU
        return [a, b], call
    DRIVERS[name] = Driver(make, dtypes, tol)


def _scalar(name, call, dtypes=None, nonzero=False):
    def make(rng, dt, case):
        x = values(rng, dt, random_shape(rng, case), "nonzero" if name == "rdiv_scalar" else "any")
        s = (3 if dt in INTS else 1.75) if not nonzero else (3 if dt in INTS else -1.25)
        return [x], lambda flow, t: call(flow, t, s)
    DRIVERS[name] = Driver(make, dtypes)


def _f(flow):
    return flow.nn.functional


# unary math (docs/kernels/math.md)
for _name, _kind in [("exp", "small"), ("exp2", "small"), ("log", "positive"), ("log2", "positive"),
                     ("log10", "positive"), ("log1p", "positive"), ("expm1", "small"), ("sqrt", "positive"),
                     ("rsqrt", "positive"), ("sin", "any"), ("cos", "any"), ("tan", "unit"), ("asin", "unit"),
                     ("acos", "unit"), ("atan", "any"), ("sinh", "small"), ("cosh", "small"), ("tanh", "any"),
                     ("asinh", "any"), ("acosh", "ge1"), ("atanh", "unit"), ("sigmoid", "any"), ("erf", "any"),
                     ("erfc", "any"), ("reciprocal", "nonzero"), ("floor", "any"), ("ceil", "any"),
                     ("trunc", "any"), ("round", "any")]:
    _unary(_name, lambda flow, x, n=_name: getattr(flow, n)(x), _kind, FLOATS)
for _name in ("neg", "abs", "sign", "isnan", "isinf", "isfinite", "logical_not", "bitwise_not", "square"):
    _unary(_name, lambda flow, x, n=_name: getattr(flow, n)(x))
_unary("relu", lambda flow, x: flow.relu(x))
_unary("gelu", lambda flow, x: _f(flow).gelu(x), dtypes=FLOATS)
_unary("silu", lambda flow, x: _f(flow).silu(x), dtypes=FLOATS)
_unary("softplus", lambda flow, x: _f(flow).softplus(x, beta=1.5, threshold=3.0), dtypes=FLOATS)
_unary("round_decimals", lambda flow, x: flow.round(x, decimals=2), dtypes=FLOATS)

# binary math
for _name in ("add", "sub", "mul", "maximum", "minimum", "eq", "ne", "lt", "le", "gt", "ge",
              "logical_and", "logical_or", "logical_xor", "bitwise_and", "bitwise_or", "bitwise_xor"):
    _binary(_name, lambda flow, a, b, n=_name: getattr(flow, n)(a, b))
_binary("div", lambda flow, a, b: flow.div(a, b), "nonzero", FLOATS + COMPLEX)
_binary("floor_divide", lambda flow, a, b: flow.floor_divide(a, b), "nonzero")
_binary("remainder", lambda flow, a, b: flow.remainder(a, b), "nonzero")
_binary("fmod", lambda flow, a, b: flow.fmod(a, b), "nonzero")
_binary("atan2", lambda flow, a, b: flow.atan2(a, b), dtypes=FLOATS)
_binary("pow", lambda flow, a, b: flow.pow(a, b), "small", kind_a="positive", tol=4.0,
        dtypes=FLOATS + ("uint8", "int8", "int16", "int32", "int64"))
_binary("clamp_min", lambda flow, a, b: flow.clamp_min(a, b))
_binary("clamp_max", lambda flow, a, b: flow.clamp_max(a, b))
_binary("add_alpha", lambda flow, a, b: flow.add(a, b, alpha=2))
_binary("lerp_scalar", lambda flow, a, b: flow.lerp(a, b, 0.3), dtypes=FLOATS)

# scalar forms
_scalar("add_scalar", lambda flow, x, s: x + s)
_scalar("sub_scalar", lambda flow, x, s: x - s)
_scalar("rsub_scalar", lambda flow, x, s: s - x)
_scalar("mul_scalar", lambda flow, x, s: x * s)
_scalar("div_scalar", lambda flow, x, s: x / s, dtypes=FLOATS + COMPLEX, nonzero=True)
_scalar("rdiv_scalar", lambda flow, x, s: s / x, dtypes=FLOATS + COMPLEX)


def _ternary(name, call, dtypes, kinds=("any", "any", "any"), cond=False):
    def make(rng, dt, case):
        shape = random_shape(rng, case)
        shapes = [shape, broadcast_partner(rng, shape), broadcast_partner(rng, shape)]
        rng.shuffle(shapes)
        arrays = [values(rng, "bool" if (cond and i == 0) else dt, s, kinds[i]) for i, s in enumerate(shapes)]
        return arrays, call
    DRIVERS[name] = Driver(make, dtypes)


_ternary("where", lambda flow, c, a, b: flow.where(c, a, b), None, cond=True)
_ternary("clamp", lambda flow, x, lo, hi: flow.clamp(x, lo, hi), FLOATS + INTS)
_ternary("lerp", lambda flow, s, e, w: flow.lerp(s, e, w), FLOATS, ("any", "any", "unit"))
_ternary("addcmul", lambda flow, x, a, b: flow.addcmul(x, a, b, value=0.5), FLOATS + INTS[1:])
_ternary("addcdiv", lambda flow, x, a, b: flow.addcdiv(x, a, b, value=0.5), FLOATS, ("any", "any", "nonzero"))


# reductions (docs/kernels/reduce.md)
def _reduction(name, call, dtypes=None, kind="any", nonempty=False, one_dim=False, tol=1.0):
    def make(rng, dt, case):
        shape = random_shape(rng, case if not nonempty else case + 2, min_ndim=0)
        x = values(rng, dt, shape, kind)
        ndim = len(shape)
        if ndim == 0 or rng.random() < 0.25:
            dims = None if not one_dim or not ndim else (0,)
        else:
            k = 1 if one_dim else int(rng.integers(1, ndim + 1))
            dims = tuple(int(d) for d in rng.choice(ndim, size=k, replace=False))
        keep = bool(rng.random() < 0.5)
        return [x], lambda flow, t: call(flow, t, dims, keep)
    DRIVERS[name] = Driver(make, dtypes, tol)


def _dims_call(fn):
    def call(flow, t, dims, keep):
        if dims is None:
            return fn(flow, t)
        return fn(flow, t, dim=dims, keepdim=keep)
    return call


_reduction("sum", _dims_call(lambda flow, t, **kw: flow.sum(t, **kw)), tol=10.0)
_reduction("prod", _dims_call(lambda flow, t, **kw: flow.prod(t, dim=kw["dim"][0], keepdim=kw["keepdim"])
                              if kw else flow.prod(t)), kind="small", one_dim=True, tol=10.0)
_reduction("mean", _dims_call(lambda flow, t, **kw: flow.mean(t, **kw)), FLOATS, tol=10.0)
_reduction("amax", _dims_call(lambda flow, t, **kw: flow.amax(t, **kw)), nonempty=True)
_reduction("amin", _dims_call(lambda flow, t, **kw: flow.amin(t, **kw)), nonempty=True)
_reduction("all", _dims_call(lambda flow, t, **kw: flow.all(t, dim=kw["dim"][0], keepdim=kw["keepdim"])
                             if kw else flow.all(t)), one_dim=True)
_reduction("any", _dims_call(lambda flow, t, **kw: flow.any(t, dim=kw["dim"][0], keepdim=kw["keepdim"])
                             if kw else flow.any(t)), one_dim=True)
_reduction("var", _dims_call(lambda flow, t, **kw: flow.var(t, **kw)), FLOATS, tol=10.0)
_reduction("std", _dims_call(lambda flow, t, **kw: flow.std(t, **kw)), FLOATS, tol=10.0)
_reduction("logsumexp", lambda flow, t, dims, keep: flow.logsumexp(t, dim=dims if dims is not None else
                                                                  tuple(range(t.dim())), keepdim=keep),
           FLOATS, tol=10.0)
_reduction("vector_norm", _dims_call(lambda flow, t, **kw: flow.linalg.vector_norm(t, 3, **kw)), FLOATS,
           tol=10.0)


def _max_like(name):
    def call(flow, t, dims, keep):
        if dims is None:
            return getattr(flow, "argmax" if name == "max" else "argmin")(t)
        return tuple(getattr(flow, name)(t, dim=dims[0], keepdim=keep))
    _reduction(name, call, nonempty=True, one_dim=True)


_max_like("max")
_max_like("min")


def _dimwise(name, call, dtypes=None, kind="any", tol=1.0, min_last=0):
    def make(rng, dt, case):
        shape = random_shape(rng, case)
        if min_last and shape:
            shape = shape[:-1] + (max(shape[-1], min_last),)
        x = values(rng, dt, shape, kind)
        dim = int(rng.integers(0, len(shape))) if shape else 0
        return [x], lambda flow, t: call(flow, t, dim)
    DRIVERS[name] = Driver(make, dtypes, tol)


_dimwise("cumsum", lambda flow, t, d: flow.cumsum(t, d), tol=10.0)
_dimwise("cumprod", lambda flow, t, d: flow.cumprod(t, d), kind="small", tol=10.0)
_dimwise("softmax", lambda flow, t, d: flow.softmax(t, d), FLOATS, tol=4.0)
_dimwise("log_softmax", lambda flow, t, d: flow.log_softmax(t, d), FLOATS, tol=4.0)
_dimwise("sort", lambda flow, t, d: tuple(flow.sort(t, dim=d, descending=True)))
_dimwise("topk", lambda flow, t, d: tuple(flow.topk(t, min(2, t.shape[d] if t.dim() else 1),
                                                   dim=d if t.dim() else 0)), min_last=0)


def _matmul(rng, dt, case):
    m, k, n = (int(rng.integers(0 if case == 1 else 1, 6)) for _ in range(3))
    batch = tuple(int(s) for s in rng.integers(1, 4, int(rng.integers(0, 3))))
    a_batch = tuple(1 if rng.random() < 0.3 else s for s in batch)
    return [values(rng, dt, a_batch + (m, k), "small"), values(rng, dt, batch + (k, n), "small")], \
        lambda flow, a, b: flow.matmul(a, b)


DRIVERS["matmul"] = Driver(_matmul, tol=20.0)


# creation, copies and shape ops
def _fill(rng, dt, case):
    shape = random_shape(rng, case)
    value = True if dt == "bool" else (7 if dt in INTS else 2.5)
    return [], lambda flow: flow.full(shape, value, dtype=getattr(flow, dt), device=_DEVICE[0])


def _arange(rng, dt, case):
    if dt in INTS:
        start, end, step = int(rng.integers(-5, 5)), int(rng.integers(5, 30)), int(rng.integers(1, 4))
    else:
        start, end, step = -1.5, float(rng.uniform(0, 6)), 0.25
    return [], lambda flow: flow.arange(start, end, step, dtype=getattr(flow, dt), device=_DEVICE[0])


def _copy(rng, dt, case):
    """Even cases: a strided copy in the same dtype; odd ones: a cast to
    another dtype the plugin registers `copy` for (any, for MF_DTYPE_ANY)."""
    outs = _OUT_DTYPES[0]
    if "any" in outs:
        targets = [d for d in ("bool",) + INTS + FLOATS + COMPLEX if d != dt and (d in COMPLEX) <= (dt in COMPLEX)]
    else:
        targets = sorted(d for d in outs if d != dt)
    if case % 2 == 0 or not targets:
        return [values(rng, dt, random_shape(rng, case))], lambda flow, t: t.contiguous()
    target = str(rng.choice(targets))
    x = values(rng, dt, random_shape(rng, case), "small")
    if target in ("uint8", "bool") and dt not in ("bool",) + COMPLEX:
        x = np.abs(x)  # float -> unsigned of a negative value is undefined in C
    return [x], lambda flow, t: t.to(getattr(flow, target))


def _flip(rng, dt, case):
    shape = random_shape(rng, case)
    dims = tuple(d for d in range(len(shape)) if rng.random() < 0.6) or ((0,) if shape else ())
    return [values(rng, dt, shape)], lambda flow, t: flow.flip(t, dims) if dims else t.clone()


def _tri(name):
    def make(rng, dt, case):
        shape = random_shape(rng, case, min_ndim=2)
        diag = int(rng.integers(-2, 3))
        return [values(rng, dt, shape)], lambda flow, t: getattr(flow, name)(t, diag)
    return make


def _masked_fill(rng, dt, case):
    shape = random_shape(rng, case)
    value = True if dt == "bool" else (5 if dt in INTS else -3.5)
    return [values(rng, dt, shape), values(rng, "bool", shape)], \
        lambda flow, t, m: t.masked_fill(m, value)


def _index(rng, dt, case):
    shape = random_shape(rng, case + 2, min_ndim=1)
    idx = rng.integers(-shape[0], shape[0], int(rng.integers(0, 6)))
    return [values(rng, dt, shape), idx.astype("int64")], lambda flow, t, i: t[i]


def _index_put(rng, dt, case):
    shape = random_shape(rng, case + 2, min_ndim=1)
    idx = rng.permutation(shape[0])[:int(rng.integers(0, shape[0] + 1))].astype("int64")
    vals = values(rng, dt, (len(idx),) + shape[1:])

    def call(flow, t, i, v):
        out = t.clone()
        out.index_put_((i,), v, accumulate=bool(dt != "bool"))
        return out
    return [values(rng, dt, shape), idx, vals], call


def _nonzero(rng, dt, case):
    return [values(rng, dt, random_shape(rng, case), "small")], lambda flow, t: flow.nonzero(t)


DRIVERS["fill"] = Driver(_fill, layouts=False)
DRIVERS["arange"] = Driver(_arange, FLOATS + INTS, layouts=False)
DRIVERS["copy"] = Driver(_copy)
DRIVERS["flip"] = Driver(_flip)
DRIVERS["tril"] = Driver(_tri("tril"))
DRIVERS["triu"] = Driver(_tri("triu"))
DRIVERS["masked_fill"] = Driver(_masked_fill)
DRIVERS["index"] = Driver(_index)
DRIVERS["index_put"] = Driver(_index_put)
DRIVERS["nonzero"] = Driver(_nonzero)
DRIVERS["nonzero_count"] = Driver(lambda rng, dt, case: (
    [values(rng, dt, random_shape(rng, case), "small")], lambda flow, t: flow.count_nonzero(t)))


# nn (docs/kernels/nn.md); backward kernels are reached through autograd
def _grads(flow, forward, *tensors):
    leaves = [t.detach().requires_grad_() for t in tensors]
    y = forward(*leaves)
    first = y[0] if isinstance(y, tuple) else y
    gy = flow.ones_like(first) * 0.5 + flow.arange(first.numel(), dtype=first.dtype,
                                                    device=first.device).reshape(first.shape) * 0.01
    first.backward(gy)
    return (first.detach(),) + tuple(leaf.grad for leaf in leaves)


def _conv(rng, dt, case):
    groups = int(rng.choice([1, 2]))
    n, c, o = int(rng.integers(1, 3)), 2 * groups, 2 * groups
    h, w = (int(s) for s in rng.integers(5, 9, 2))  # room for a dilated 3x2 kernel
    x, wt = values(rng, dt, (n, c, h, w), "small"), values(rng, dt, (o, c // groups, 3, 2), "small")
    bias = values(rng, dt, (o,), "small")
    stride, pad, dil = int(rng.integers(1, 3)), int(rng.integers(0, 2)), int(rng.integers(1, 3))
    return [x, wt, bias], lambda flow, x, w, b: _grads(
        flow, lambda x, w, b: _f(flow).conv2d(x, w, b, stride=stride, padding=pad, dilation=dil, groups=groups),
        x, w, b)


def _conv_transpose(rng, dt, case):
    n, c, o = int(rng.integers(1, 3)), 2, 3
    h, w = (int(s) for s in rng.integers(3, 6, 2))
    x, wt = values(rng, dt, (n, c, h, w), "small"), values(rng, dt, (c, o, 3, 3), "small")
    return [x, wt], lambda flow, x, w: _f(flow).conv_transpose2d(x, w, stride=2, padding=1, output_padding=1)


def _pool(kind):
    def make(rng, dt, case):
        shape = (int(rng.integers(1, 3)), int(rng.integers(1, 3))) + tuple(int(s) for s in rng.integers(4, 9, 2))
        x = values(rng, dt, shape)

        def call(flow, t):
            F = _f(flow)  # noqa: N806
            if kind == "max":
                return _grads(flow, lambda t: tuple(F.max_pool2d(t, 3, stride=2, padding=1, return_indices=True)), t)
            if kind == "avg":
                return _grads(flow, lambda t: F.avg_pool2d(t, 3, stride=2, padding=1, count_include_pad=False), t)
            if kind == "adaptive_avg":
                return _grads(flow, lambda t: F.adaptive_avg_pool2d(t, (3, 2)), t)
            return tuple(F.adaptive_max_pool2d(t, (3, 2), return_indices=True))
        return [x], call
    return make


def _layer_norm(rng, dt, case):
    shape = (int(rng.integers(1, 4)), int(rng.integers(1, 5)), int(rng.integers(2, 6)))
    x, w, b = values(rng, dt, shape), values(rng, dt, shape[-1:]), values(rng, dt, shape[-1:])
    return [x, w, b], lambda flow, x, w, b: _grads(
        flow, lambda x, w, b: _f(flow).layer_norm(x, shape[-1:], w, b, eps=1e-5), x, w, b)


for _name in ("conv2d", "conv2d_weight_grad"):
    DRIVERS[_name] = Driver(_conv, FLOATS, tol=20.0)
DRIVERS["conv_transpose2d"] = Driver(_conv_transpose, FLOATS, tol=20.0)
for _name, _kind in (("max_pool2d", "max"), ("max_pool2d_backward", "max"), ("avg_pool2d", "avg"),
                     ("avg_pool2d_backward", "avg"), ("adaptive_avg_pool2d", "adaptive_avg"),
                     ("adaptive_avg_pool2d_backward", "adaptive_avg"), ("adaptive_max_pool2d", "adaptive_max")):
    DRIVERS[_name] = Driver(_pool(_kind), FLOATS, tol=4.0)
for _name in ("layer_norm", "layer_norm_backward"):
    DRIVERS[_name] = Driver(_layer_norm, FLOATS, tol=20.0)


def _sgd(rng, dt, case):
    shape = random_shape(rng, case + 2, min_ndim=1)
    p, g = values(rng, dt, shape), values(rng, dt, shape)

    def call(flow, p, g):
        param = flow.nn.Parameter(p.clone())
        opt = flow.optim.SGD([param], lr=0.1, momentum=0.9, weight_decay=0.01)
        for _ in range(2):
            param.grad = g.clone()
            opt.step()
        return param.detach()
    return [p, g], call


DRIVERS["sgd_momentum"] = Driver(_sgd, FLOATS, tol=4.0)


# random kernels: values depend on the device's generator, so check properties
def _random(kind):
    def make(rng, dt, case):
        shape = random_shape(rng, case)

        def call(flow):
            dev = _DEVICE[0]
            if kind == "uniform":
                return flow.rand(shape, dtype=getattr(flow, dt), device=dev)
            if kind == "normal":
                return flow.randn(shape, dtype=getattr(flow, dt), device=dev)
            if kind == "randint":
                return flow.randint(-3, 9, shape, dtype=getattr(flow, dt), device=dev)
            return flow.bernoulli(flow.full(shape, 0.5, dtype=getattr(flow, dt), device=dev))
        return [], call

    def check(out):
        if kind == "uniform" and out.size and not ((out >= 0) & (out < 1)).all():
            raise Fail("uniform values outside [0, 1)")
        if kind == "normal" and not np.isfinite(out).all():
            raise Fail("normal values not finite")
        if kind == "randint" and out.size and not ((out >= -3) & (out < 9)).all():
            raise Fail("randint values outside [-3, 9)")
        if kind == "bernoulli" and not np.isin(out, (0, 1)).all():
            raise Fail("bernoulli values other than 0 and 1")
    dtypes = FLOATS if kind != "randint" else INTS[1:] + FLOATS
    return Driver(make, dtypes, layouts=False, check=check)


for _name in ("uniform", "normal", "randint", "bernoulli"):
    DRIVERS[_name] = _random(_name)


# --------------------------------------------------------------------------- running

_DEVICE = ["cpu"]  # the device the drivers create tensors on (set by checks_for)
_OUT_DTYPES = [set()]  # output dtypes registered for the (op, dtype) being checked


def _to_flow(flow, array, dtype, device, layout, rng):
    """A tensor of `dtype` on `device` holding `array`, in `layout`."""
    ft = getattr(flow, dtype)
    shape = array.shape
    if layout == "permuted" and len(shape) >= 2:
        perm = rng.permutation(len(shape))
        inverse = np.argsort(perm)
        base = flow.tensor(np.asarray(array.transpose(perm), order="C")).to(ft)
        return base.to(device).permute(*[int(i) for i in inverse])
    if layout == "sliced" and len(shape) >= 1:
        big = np.zeros(tuple(2 * s + 1 for s in shape), dtype=array.dtype)
        index = tuple(slice(1, 1 + 2 * s, 2) for s in shape)
        big[index] = array
        return flow.tensor(big).to(ft).to(device)[index]
    return flow.tensor(array).to(ft).to(device)


def _to_numpy(flow, t):
    t = t.cpu()
    name = str(t.dtype).replace("monoflow.", "")
    if name in HALF:
        return t.to(flow.float32).numpy(), name
    return t.numpy(), name


def _flatten(out):
    if isinstance(out, (tuple, list)):
        return [o for item in out for o in _flatten(item)]
    return [out]


def _compare(flow, got, want, tol_scale, what):
    got, want = _flatten(got), _flatten(want)
    if len(got) != len(want):
        raise Fail(f"{what}: {len(got)} outputs, the CPU gives {len(want)}")
    for k, (g, w) in enumerate(zip(got, want)):
        if g is None or w is None:
            if (g is None) != (w is None):
                raise Fail(f"{what}: output {k} is {g!r}, the CPU gives {w!r}")
            continue
        if tuple(g.shape) != tuple(w.shape):
            raise Fail(f"{what}: output {k} has shape {tuple(g.shape)}, the CPU gives {tuple(w.shape)}")
        gn, gd = _to_numpy(flow, g)
        wn, wd = _to_numpy(flow, w)
        if gd != wd:
            raise Fail(f"{what}: output {k} has dtype {gd}, the CPU gives {wd}")
        if wd in TOLERANCE:
            rtol, atol = TOLERANCE[wd]
            ok = np.isclose(gn, wn, rtol=rtol * tol_scale, atol=atol * tol_scale, equal_nan=True)
        else:
            ok = gn == wn
        if not np.all(ok):
            bad = np.argwhere(~np.asarray(ok))[0]
            at = tuple(int(i) for i in bad)
            raise Fail(f"{what}: output {k}[{', '.join(map(str, at))}] is {gn[at]!r}, the CPU gives {wn[at]!r}"
                       f" ({int((~np.asarray(ok)).sum())} of {ok.size} elements differ)")


def _layout_name(rng, driver, arrays):
    out = []
    for a in arrays:
        layout = str(rng.choice(["contiguous", "permuted", "sliced"])) if driver.layouts else "contiguous"
        if (layout == "permuted" and a.ndim < 2) or (layout == "sliced" and a.ndim < 1):
            layout = "contiguous"
        out.append(layout)
    return out


def run_op(flow, device, device_type, op, dtype, examples, seed, out_dtypes=()):
    driver = DRIVERS[op]
    _OUT_DTYPES[0] = set(out_dtypes)
    rng = np.random.default_rng([seed, sum(map(ord, op)), sum(map(ord, dtype))])
    fell_back, refused = 0, []
    for case in range(examples):
        arrays, call = driver.make(rng, dtype, case)
        layouts = _layout_name(rng, driver, arrays)
        input_dtypes = [dtype if a.dtype != np.bool_ or dtype == "bool" else "bool" for a in arrays]
        if op in ("index", "index_put") and len(arrays) > 1:
            input_dtypes[1] = "int64"
        shapes = ", ".join(f"{tuple(a.shape)} {lay}" for a, lay in zip(arrays, layouts)) or "no inputs"
        what = f"case {case} ({shapes})"
        try:
            _DEVICE[0] = "cpu"
            want = call(flow, *[flow.tensor(a).to(getattr(flow, d)) for a, d in zip(arrays, input_dtypes)])
            flow.synchronize()
            want_exc = None
        except Exception as exc:  # the op refuses this input: the device must refuse it too
            want, want_exc = None, exc
        _DEVICE[0] = device
        before = flow.devices.fallback_counts().get((device_type, op), 0)
        try:
            ins = [_to_flow(flow, a, d, device, lay, rng) for a, d, lay in zip(arrays, input_dtypes, layouts)]
            got = call(flow, *ins)
            if driver.check is None:
                _flatten(got)  # materialise on the device before comparing
            flow.synchronize()  # an asynchronous kernel error surfaces here
            got_exc = None
        except Exception as exc:
            got, got_exc = None, exc
        finally:
            _DEVICE[0] = "cpu"
        if want_exc is not None or got_exc is not None:
            if want_exc is None:
                raise Fail(f"{what}: raised {type(got_exc).__name__}: {got_exc}; the CPU computes it")
            if got_exc is None:
                raise Fail(f"{what}: succeeded, the CPU raises {type(want_exc).__name__}: {want_exc}")
            if type(got_exc) is not type(want_exc):
                raise Fail(f"{what}: raised {type(got_exc).__name__}: {got_exc}; the CPU raises "
                           f"{type(want_exc).__name__}: {want_exc}")
            refused.append(f"{type(want_exc).__name__}: {want_exc}")
            continue
        if driver.check is not None:
            for out in _flatten(got):
                if str(out.device).split(":")[0] != device_type:
                    raise Fail(f"{what}: the result is on {out.device}, not on {device}")
                driver.check(_to_numpy(flow, out)[0])
        else:
            for out in _flatten(got):
                if out is not None and str(out.device).split(":")[0] != device_type:
                    raise Fail(f"{what}: the result is on {out.device}, not on {device}")
            _compare(flow, got, want, driver.tol, what)
        fell_back += flow.devices.fallback_counts().get((device_type, op), 0) - before
    if fell_back and device_type != "cpu":
        raise Fail(f"'{op}' ran through the CPU fallback {fell_back} time(s) although the plugin registers "
                   f"a {dtype} kernel for it")
    if len(refused) == examples:
        raise NotCovered(f"the CPU refuses every drawn case ({refused[0]})")
    return f"{examples} cases" + (f", {len(refused)} refused alike by both devices" if refused else "")


def checks_for(path, options=()):
    """(name, fn) for every (op, input dtype) the plugin at `path` registers."""
    import warnings

    opts = dict(o.lstrip("-").split("=", 1) for o in options if "=" in o)
    examples = int(opts.get("examples", 6))
    seed = int(opts.get("seed", 0))
    # the public namespace itself: the drivers call the ops as users do, through monoflow's API, many of them
    # by name (getattr(flow, op), getattr(flow, dtype_name)); run_op hands it to each driver
    import monoflow as flow
    from monoflow.devices.conformance import abi
    from monoflow.devices.conformance.library import Library

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            device_type = flow.devices.load(path)
    except Exception as exc:
        message = f"the core refuses the plugin: {exc}"

        def refused():
            raise Fail(message)
        return [("the core loads the plugin", refused)]
    status, kernels = Library(path).kernels()
    if status != abi.OK:
        kernels = kernels  # what was offered before the failure still gets checked
    outs = {}
    for k in kernels:
        outs.setdefault((k.op, abi.dtype_name(k.in_dtype)), set()).add(abi.dtype_name(k.out_dtype))
    pairs = list(outs)
    INFO["device_type"] = device_type
    device = f"{device_type}:0"
    out = []
    for op, dtype in sorted(pairs):
        name = f"{op}({dtype})"
        driver = DRIVERS.get(op)
        if op in GRAPH_ONLY:
            reason = "graph-only kernel, reached by nn.Graph fusion, not by eager ops"
        elif driver is None:
            reason = "no driver for this op"
        elif not driver.drives(dtype):
            reason = f"the driver does not reach a {dtype} kernel"
        else:
            reason = None
        if reason:
            out.append((name, lambda reason=reason: _not_covered(reason)))
            continue

        def fn(op=op, dtype=dtype):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                flow.manual_seed(seed)
                return run_op(flow, device, device_type, op, dtype, examples, seed, outs[(op, dtype)])
        out.append((name, fn))
    return out


def _not_covered(reason):
    raise NotCovered(reason)
