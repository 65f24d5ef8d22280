"""The op cases the global-ops property test runs (global_worker.py, suite
'ops'): each generator draws one random call (shapes, dtypes, arguments)
from a numpy generator; the worker draws the input SBPs and compares the
global run with the local one, values and gradients.

A case is written once with the flow API and runs unchanged on local and on
global tensors. Sizes go up to 5 (1 to 3 with `tiny`), so that splits over 2
and 4 ranks are often uneven and some ranks hold nothing.
"""
import numpy as np

import monoflow as flow
import monoflow.nn.functional as F


class Arr:
    """One input: its logical value, whether it gets a gradient, and the
    SBPs it may take (None: any; partial/split narrow that)."""

    def __init__(self, array, grad=True, partial=True, split=True, sbps=None):
        self.array, self.grad, self.partial, self.split, self.sbps = np.asarray(array), grad, partial, split, sbps


class Case:
    def __init__(self, inputs, fn, note="", check=None, backward=True, any_error=False):
        self.inputs, self.fn, self.note = inputs, fn, note
        self.check, self.check_values = check, check is None
        self.backward, self.any_error = backward, any_error


CASES = []


def case(label, forms=None):
    """Registers a generator; with `forms`, one case per form (the generator
    gets it as `form`), so that one round reaches every form of every op."""
    def register(gen):
        if forms is None:
            CASES.append((label, gen))
        else:
            for f in forms:
                CASES.append((f"{label}: {f}", lambda rng, tiny, _f=f: gen(rng, tiny, _f)))
        return gen
    return register


# ------------------------------------------------------------ drawing

def shape(rng, tiny, lo=1, hi=3, min_size=1):
    top = 3 if tiny else 5
    return tuple(int(rng.integers(min_size, top + 1)) for _ in range(int(rng.integers(lo, hi + 1))))


def fdtype(rng):
    return [np.float32, np.float64][rng.integers(2)]


def floats(rng, shp, lo=-2.0, hi=2.0, dtype=None):
    return rng.uniform(lo, hi, shp).astype(dtype or fdtype(rng))


def away_from_zero(rng, shp, lo=0.3, hi=2.0, dtype=None):
    sign = np.where(rng.random(shp) < 0.5, -1.0, 1.0)
    return (sign * rng.uniform(lo, hi, shp)).astype(dtype or fdtype(rng))


def bools(rng, shp):
    return rng.random(shp) < 0.5


def ints(rng, shp, lo=-5, hi=6, dtype=np.int64):
    return rng.integers(lo, hi, shp).astype(dtype)


def broadcastable(rng, out):
    """A shape that broadcasts to `out`: some dims 1, some leading ones dropped."""
    s = [1 if rng.random() < 0.3 else d for d in out]
    drop = int(rng.integers(0, len(out) + 1)) if rng.random() < 0.3 else 0
    return tuple(s[drop:])


def dim_of(rng, ndim):
    d = int(rng.integers(ndim))
    return d - ndim if rng.random() < 0.3 else d


def pick(rng, seq):
    return seq[int(rng.integers(len(seq)))]


# ------------------------------------------------------------ elementwise

DOMAIN = {"log": (0.2, 3), "log2": (0.2, 3), "log10": (0.2, 3), "log1p": (-0.5, 3), "sqrt": (0.2, 3),
          "rsqrt": (0.2, 3), "asin": (-0.9, 0.9), "acos": (-0.9, 0.9), "atanh": (-0.9, 0.9), "acosh": (1.2, 3),
          "arcsin": (-0.9, 0.9), "arccos": (-0.9, 0.9), "arctanh": (-0.9, 0.9), "arccosh": (1.2, 3),
          "reciprocal": (0.3, 3), "tan": (-1.2, 1.2)}
UNARY = ["exp", "exp2", "log", "log2", "log10", "log1p", "expm1", "sqrt", "rsqrt", "sin", "cos", "tan", "asin",
         "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "sigmoid", "erf", "erfc", "reciprocal",
         "abs", "sign", "relu", "floor", "ceil", "round", "trunc", "square", "arcsin", "arccos", "arctan", "arcsinh",
         "arccosh", "arctanh", "absolute", "fix"]
for _name in UNARY:
    @case(_name, ["method", "function", "in place"])
    def _gen(rng, tiny, form, _name=_name):
        lo, hi = DOMAIN.get(_name, (-2, 2))
        x = floats(rng, shape(rng, tiny, 0, 3), lo, hi)
        if form == "method":
            return Case([Arr(x)], lambda t: getattr(t, _name)())
        if form == "function":
            return Case([Arr(x)], lambda t: getattr(flow, _name)(t))
        # on a copy, which keeps the input's layout (maybe P: written back)
        return Case([Arr(x)], lambda t: getattr(t.clone(), _name + "_")())


ACTIVATIONS = {
    "F.gelu": lambda t: F.gelu(t), "F.gelu tanh": lambda t: F.gelu(t, approximate="tanh"),
    "F.silu": lambda t: F.silu(t), "flow.silu": lambda t: flow.silu(t),
    "F.softplus": lambda t: F.softplus(t, beta=2.0, threshold=1.5), "F.leaky_relu": lambda t: F.leaky_relu(t, 0.2),
    "F.elu": lambda t: F.elu(t), "F.hardtanh": lambda t: F.hardtanh(t), "F.relu6": lambda t: F.relu6(t * 4),
    "F.mish": lambda t: F.mish(t), "F.hardswish": lambda t: F.hardswish(t * 2),
    "F.hardsigmoid": lambda t: F.hardsigmoid(t * 2), "F.logsigmoid": lambda t: F.logsigmoid(t),
    "F.selu": lambda t: F.selu(t), "F.celu": lambda t: F.celu(t, 0.5), "F.softsign": lambda t: F.softsign(t),
    "F.tanhshrink": lambda t: F.tanhshrink(t), "F.threshold": lambda t: F.threshold(t, 0.1, 2.0),
    "F.hardshrink": lambda t: F.hardshrink(t), "F.softshrink": lambda t: F.softshrink(t),
    "F.relu": lambda t: F.relu(t), "F.relu inplace": lambda t: F.relu(t.clone(), inplace=True),
    "F.relu(x, True)": lambda t: F.relu(t.clone(), True),
    "F.leaky_relu inplace": lambda t: F.leaky_relu(t.clone(), 0.1, True),
    "F.relu_": lambda t: F.relu_(t.clone()), "F.sigmoid": lambda t: F.sigmoid(t), "F.tanh": lambda t: F.tanh(t),
    "flow.relu": lambda t: flow.relu(t), "flow.selu": lambda t: flow.selu(t), "flow.gelu": lambda t: flow.gelu(t),
    "flow.softplus": lambda t: flow.softplus(t), "flow.celu": lambda t: flow.celu(t),
    "F.softmin": lambda t: F.softmin(t, dim=-1),
    "neg": lambda t: t.neg(), "flow.neg": lambda t: flow.neg(t), "-x": lambda t: -t, "+x": lambda t: +t,
    "abs(x)": lambda t: abs(t), "clone": lambda t: t.clone(), "flow.clone": lambda t: flow.clone(t),
    "contiguous": lambda t: t.t().contiguous() if t.dim() == 2 else t.contiguous(),
    "round decimals": lambda t: t.round(decimals=1), "clamp": lambda t: t.clamp(-0.5, 0.7),
    "clamp_min": lambda t: t.clamp_min(0.1), "clamp_max": lambda t: flow.clamp_max(t, 0.1),
    "clip": lambda t: flow.clip(t, min=-0.3), "clip method": lambda t: t.clip(max=0.3),
    "clamp_": lambda t: t.clone().clamp_(max=0.2), "clip_": lambda t: t.clone().clip_(-1, 1),
    "clamp_min_": lambda t: t.clone().clamp_min_(0.0), "clamp_max_": lambda t: t.clone().clamp_max_(0.0),
    "flow.clamp_min": lambda t: flow.clamp_min(t, -0.2),
}
for _label, _fn in ACTIVATIONS.items():
    @case(_label)
    def _gen(rng, tiny, _fn=_fn):
        return Case([Arr(floats(rng, shape(rng, tiny, 1, 3)))], _fn)


@case("isnan/isinf/isfinite", ["isnan", "isinf", "isfinite", "flow.isnan"])
def _gen(rng, tiny, form):
    x = floats(rng, shape(rng, tiny, 1, 3))
    x.flat[0] = np.nan
    if x.size > 1:
        x.flat[-1] = np.inf
    if form == "flow.isnan":
        return Case([Arr(x, partial=False)], lambda t: flow.isnan(t))
    return Case([Arr(x, partial=False)], lambda t: getattr(t, form)())


NOT = {"bitwise_not": lambda t: t.bitwise_not(), "~ (bool)": lambda t: ~t, "~ (int)": lambda t: ~t,
       "logical_not": lambda t: t.logical_not(), "flow.logical_not": lambda t: flow.logical_not(t),
       "bitwise_not_": lambda t: t.clone().bitwise_not_(), "logical_not_": lambda t: t.clone().logical_not_(),
       "flow.bitwise_not": lambda t: flow.bitwise_not(t)}


@case("not", list(NOT))
def _gen(rng, tiny, form):
    shp = shape(rng, tiny, 1, 3)
    x = bools(rng, shp) if form in ("~ (bool)", "logical_not_") else \
        floats(rng, shp) if form.endswith("logical_not") else ints(rng, shp)
    return Case([Arr(x)], NOT[form])


DIVISORS = ("/", "div", "flow.div", "remainder", "%", "fmod", "floor_divide", "//", "flow.floor_divide",
            "remainder_", "fmod_", "floor_divide_", "/=", "//=", "%=", "div_")
BINARY = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b, "/": lambda a, b: a / b,
    "add": lambda a, b: a.add(b), "add alpha": lambda a, b: flow.add(a, b, alpha=2.5), "sub": lambda a, b: a.sub(b),
    "sub alpha": lambda a, b: a.sub(b, alpha=0.5), "mul": lambda a, b: flow.mul(a, b), "div": lambda a, b: a.div(b),
    "mul method": lambda a, b: a.mul(b), "flow.sub": lambda a, b: flow.sub(a, b),
    "flow.div": lambda a, b: flow.div(a, b), "maximum": lambda a, b: a.maximum(b),
    "minimum": lambda a, b: flow.minimum(a, b), "max(a, b)": lambda a, b: a.max(b),
    "min(a, b)": lambda a, b: flow.min(a, b), "atan2": lambda a, b: a.atan2(b),
    "arctan2": lambda a, b: flow.arctan2(a, b), "pow": lambda a, b: a.abs().add(0.5).pow(b),
    "flow.pow": lambda a, b: flow.pow(a.abs() + 0.5, b), "**": lambda a, b: (a.abs() + 0.5) ** b,
    "remainder": lambda a, b: a.remainder(b), "%": lambda a, b: a % b, "fmod": lambda a, b: flow.fmod(a, b),
    "floor_divide": lambda a, b: a.floor_divide(b), "//": lambda a, b: a // b,
    "flow.floor_divide": lambda a, b: flow.floor_divide(a, b), "flow.remainder": lambda a, b: flow.remainder(a, b),
    "+=": lambda a, b: _iop(a, b, "__iadd__"), "-=": lambda a, b: _iop(a, b, "__isub__"),
    "*=": lambda a, b: _iop(a, b, "__imul__"), "/=": lambda a, b: _iop(a, b, "__itruediv__"),
    "//=": lambda a, b: _iop(a, b, "__ifloordiv__"), "%=": lambda a, b: _iop(a, b, "__imod__"),
    "**=": lambda a, b: _iop(a.abs() + 0.5, b, "__ipow__"), "add_": lambda a, b: a.clone().add_(b, alpha=2),
    "sub_": lambda a, b: a.clone().sub_(b), "mul_": lambda a, b: a.clone().mul_(b),
    "div_": lambda a, b: a.clone().div_(b), "pow_": lambda a, b: (a.abs() + 0.5).pow_(b),
    "atan2_": lambda a, b: a.clone().atan2_(b), "arctan2_": lambda a, b: a.clone().arctan2_(b),
    "remainder_": lambda a, b: a.clone().remainder_(b), "fmod_": lambda a, b: a.clone().fmod_(b),
    "floor_divide_": lambda a, b: a.clone().floor_divide_(b),
}


def _iop(a, b, op):
    t = a.clone()
    return getattr(t, op)(b)


for _label, _fn in BINARY.items():
    @case(_label)
    def _gen(rng, tiny, _fn=_fn, _label=_label):
        out = shape(rng, tiny, 0, 3)
        inplace = _label.endswith("=") or _label.endswith("_")
        sa, sb = (out, broadcastable(rng, out)) if inplace or rng.random() < 0.5 else (broadcastable(rng, out), out)
        dt = fdtype(rng)
        a = floats(rng, sa, dtype=dt)
        b = away_from_zero(rng, sb, dtype=dt) if _label in DIVISORS else floats(rng, sb, dtype=dt)
        return Case([Arr(a), Arr(b)], _fn)


COMPARE = {"==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b, "<=": lambda a, b: a <= b,
           ">": lambda a, b: a > b, ">=": lambda a, b: a >= b, "eq": lambda a, b: flow.eq(a, b),
           "ne": lambda a, b: flow.ne(a, b), "lt": lambda a, b: flow.lt(a, b), "le": lambda a, b: flow.le(a, b),
           "gt": lambda a, b: flow.gt(a, b), "ge": lambda a, b: flow.ge(a, b)}
for _label, _fn in COMPARE.items():
    @case(_label)
    def _gen(rng, tiny, _fn=_fn):
        out = shape(rng, tiny, 1, 3)
        return Case([Arr(ints(rng, out, -2, 3)), Arr(ints(rng, broadcastable(rng, out), -2, 3))], _fn)


LOGICAL = {"logical_and": lambda a, b: a.logical_and(b), "logical_or": lambda a, b: flow.logical_or(a, b),
           "logical_xor": lambda a, b: a.logical_xor(b), "flow.logical_and": lambda a, b: flow.logical_and(a, b),
           "bitwise_and": lambda a, b: a.bitwise_and(b), "bitwise_or": lambda a, b: flow.bitwise_or(a, b),
           "bitwise_xor": lambda a, b: a.bitwise_xor(b), "flow.bitwise_xor": lambda a, b: flow.bitwise_xor(a, b),
           "&": lambda a, b: a & b, "|": lambda a, b: a | b, "^": lambda a, b: a ^ b,
           "&=": lambda a, b: _iop(a, b, "__iand__"), "|=": lambda a, b: _iop(a, b, "__ior__"),
           "^=": lambda a, b: _iop(a, b, "__ixor__"), "logical_and_": lambda a, b: a.clone().logical_and_(b),
           "logical_or_": lambda a, b: a.clone().logical_or_(b),
           "logical_xor_": lambda a, b: a.clone().logical_xor_(b),
           "bitwise_and_": lambda a, b: a.clone().bitwise_and_(b), "bitwise_or_": lambda a, b: a.clone().bitwise_or_(b),
           "bitwise_xor_": lambda a, b: a.clone().bitwise_xor_(b),
           "flow.bitwise_and": lambda a, b: flow.bitwise_and(a, b),
           "flow.logical_xor": lambda a, b: flow.logical_xor(a, b)}
for _label, _fn in LOGICAL.items():
    @case(_label, ["bool", "int"])
    def _gen(rng, tiny, form, _fn=_fn):
        out = shape(rng, tiny, 1, 3)
        sb = broadcastable(rng, out)
        if form == "bool":
            return Case([Arr(bools(rng, out)), Arr(bools(rng, sb))], _fn)
        return Case([Arr(ints(rng, out, 0, 8)), Arr(ints(rng, sb, 0, 8))], _fn)


SCALAR = {"x+2": lambda t: t + 2, "2+x": lambda t: 2 + t, "x-2": lambda t: t - 2, "2-x": lambda t: 2 - t,
          "x*2": lambda t: t * 2, "2*x": lambda t: 2.0 * t, "x/2": lambda t: t / 2, "2/x": lambda t: 2 / t,
          "x**2": lambda t: t ** 2, "2**x": lambda t: 2 ** t, "x//0.7": lambda t: t // 0.7,
          "2//x": lambda t: 2 // t, "x%0.7": lambda t: t % 0.7, "2%x": lambda t: 2.0 % t,
          "add(x, 2)": lambda t: flow.add(t, 2), "x.add(2, alpha)": lambda t: t.add(2, alpha=3),
          "add(2, x, alpha)": lambda t: flow.add(2, t, alpha=3), "sub(2, x)": lambda t: flow.sub(2, t),
          "mul(2, x)": lambda t: flow.mul(2, t),
          "x.sub(2)": lambda t: t.sub(2), "x.mul(2)": lambda t: t.mul(2), "x.div(2)": lambda t: t.div(2),
          "pow(x, 3)": lambda t: flow.pow(t, 3), "pow(2, x)": lambda t: flow.pow(2, t),
          "x+=2": lambda t: _iop(t, 2, "__iadd__"), "x*=2": lambda t: _iop(t, 2, "__imul__"),
          "x/=2": lambda t: _iop(t, 2, "__itruediv__"), "x-=2": lambda t: _iop(t, 2, "__isub__"),
          "x.mul_(3)": lambda t: t.clone().mul_(3), "x.add_(3)": lambda t: t.clone().add_(3),
          "x.div_(3)": lambda t: t.clone().div_(3), "x==0.5": lambda t: t == 0.5, "x>0": lambda t: t > 0,
          "(x>0)&True": lambda t: (t > 0) & True, "True|(x>0)": lambda t: True | (t > 0),
          "x+np.float32(2)": lambda t: t + np.float32(2), "np.float32(2)-x": lambda t: np.float32(2) - t,
          "x*np.float32(2)": lambda t: t * np.float32(2),
          "True^(x>0)": lambda t: True ^ (t > 0), "True&(x>0)": lambda t: True & (t > 0),
          "maximum(x, 0-d)": lambda t: t.maximum(t.sum() * 0)}
for _label, _fn in SCALAR.items():
    @case(_label)
    def _gen(rng, tiny, _fn=_fn):
        return Case([Arr(away_from_zero(rng, shape(rng, tiny, 0, 3)))], _fn)


# ------------------------------------------------------------ ternary

@case("where", ["tensors", "other=0", "input=1.5", "method", "condition from x"])
def _gen(rng, tiny, form):
    out = shape(rng, tiny, 1, 3)
    dt = fdtype(rng)
    c = bools(rng, broadcastable(rng, out))
    x, y = floats(rng, out, dtype=dt), floats(rng, broadcastable(rng, out), dtype=dt)
    if form == "tensors":
        return Case([Arr(c), Arr(x), Arr(y)], lambda c, x, y: flow.where(c, x, y))
    if form == "other=0":
        return Case([Arr(c), Arr(x)], lambda c, x: flow.where(c, x, 0.0))
    if form == "input=1.5":
        return Case([Arr(c), Arr(x)], lambda c, x: flow.where(c, 1.5, x))
    if form == "method":
        return Case([Arr(c), Arr(x), Arr(y)], lambda c, x, y: x.where(c, y))
    return Case([Arr(x), Arr(y)], lambda x, y: flow.where(x > 0, x, y))


@case("masked_fill", ["value 0", "value -1.5", "tensor value", "in place", "in place 0"])
def _gen(rng, tiny, form):
    out = shape(rng, tiny, 1, 3)
    x, m = floats(rng, out), bools(rng, broadcastable(rng, out))
    if form == "value 0":
        return Case([Arr(x), Arr(m)], lambda x, m: x.masked_fill(m, 0.0))
    if form == "value -1.5":
        return Case([Arr(x), Arr(m)], lambda x, m: flow.masked_fill(x, m, -1.5))
    if form == "tensor value":
        return Case([Arr(x), Arr(m), Arr(floats(rng, (), dtype=x.dtype))], lambda x, m, v: x.masked_fill(m, v))
    if form == "in place":
        return Case([Arr(x), Arr(m)], lambda x, m: x.clone().masked_fill_(m, 2.0))
    return Case([Arr(x), Arr(m)], lambda x, m: x.clone().masked_fill_(m, 0))


@case("lerp", ["number weight", "tensor weight", "in place"])
def _gen(rng, tiny, form):
    out = shape(rng, tiny, 1, 3)
    dt = fdtype(rng)
    a, b = floats(rng, out, dtype=dt), floats(rng, broadcastable(rng, out), dtype=dt)
    if form == "number weight":
        return Case([Arr(a), Arr(b)], lambda a, b: a.lerp(b, 0.3))
    if form == "tensor weight":
        return Case([Arr(a), Arr(b), Arr(floats(rng, broadcastable(rng, out), 0, 1, dt))],
                    lambda a, b, w: flow.lerp(a, b, w))
    return Case([Arr(a), Arr(b)], lambda a, b: a.clone().lerp_(b, 0.7))


ADDC = {"addcmul": lambda a, b, c: a.addcmul(b, c, value=0.5),
        "flow.addcdiv": lambda a, b, c: flow.addcdiv(a, b, c, value=2),
        "addcmul_": lambda a, b, c: a.clone().addcmul_(b, c),
        "addcdiv_": lambda a, b, c: a.clone().addcdiv_(b, c, value=-1),
        "flow.addcmul": lambda a, b, c: flow.addcmul(a, b, c), "addcdiv": lambda a, b, c: a.addcdiv(b, c)}


@case("addc", list(ADDC))
def _gen(rng, tiny, form):
    out = shape(rng, tiny, 1, 3)
    dt = fdtype(rng)
    a = floats(rng, out, dtype=dt)
    b, c = floats(rng, broadcastable(rng, out), dtype=dt), away_from_zero(rng, broadcastable(rng, out), dtype=dt)
    return Case([Arr(a), Arr(b), Arr(c)], ADDC[form])


@case("clamp with tensor bounds", ["both", "min", "max"])
def _gen(rng, tiny, form):
    out = shape(rng, tiny, 1, 3)
    dt = fdtype(rng)
    x = floats(rng, out, dtype=dt)
    lo, hi = floats(rng, broadcastable(rng, out), -1.5, -0.2, dt), floats(rng, broadcastable(rng, out), 0.2, 1.5, dt)
    if form == "both":
        return Case([Arr(x), Arr(lo), Arr(hi)], lambda x, lo, hi: x.clamp(lo, hi))
    if form == "min":
        return Case([Arr(x), Arr(lo)], lambda x, lo: flow.clamp(x, min=lo))
    return Case([Arr(x), Arr(hi)], lambda x, hi: x.clamp_max(hi))


# ------------------------------------------------------------ casts, fills, likes

CASTS = {"to(float64)": lambda t: t.to(flow.float64), "to(dtype=float32)": lambda t: t.to(dtype=flow.float32),
         "float()": lambda t: t.float(), "double()": lambda t: t.double(), "half()": lambda t: t.half(),
         "bfloat16()": lambda t: t.bfloat16(), "int()": lambda t: t.int(), "long()": lambda t: t.long(),
         "short()": lambda t: t.short(), "char()": lambda t: t.char(), "byte()": lambda t: t.abs().byte(),
         "bool()": lambda t: t.bool(), "type(float64)": lambda t: t.type(flow.float64),
         "to('cpu', float64)": lambda t: t.to("cpu", flow.float64), "type_as": lambda t: t.type_as(t.long()),
         "to(other)": lambda t: t.to(t.double()), "cpu()": lambda t: t.cpu() * 1}
for _label, _fn in CASTS.items():
    @case(_label, ["float input", "int input"])
    def _gen(rng, tiny, form, _fn=_fn):
        shp = shape(rng, tiny, 0, 3)
        return Case([Arr(floats(rng, shp, -4, 4) if form == "float input" else ints(rng, shp))], _fn)


FILLS = {"copy_": lambda x, y: x.clone().copy_(y) * 1.0, "fill_ tensor": lambda x, y: x.clone().fill_(y.sum()) + y,
         "fill_ 1.5": lambda x, y: x.clone().fill_(1.5) + y,
         "fill_ 0": lambda x, y: x.clone().fill_(0) + y, "zero_": lambda x, y: x.clone().zero_() + y}


@case("fill", list(FILLS))
def _gen(rng, tiny, form):
    out = shape(rng, tiny, 0, 3)
    x = floats(rng, out)
    return Case([Arr(x), Arr(floats(rng, broadcastable(rng, out), dtype=x.dtype))], FILLS[form])


LIKES = {"zeros_like": lambda t: flow.zeros_like(t), "ones_like": lambda t: flow.ones_like(t),
         "full_like": lambda t: flow.full_like(t, 2.5), "full_like 0": lambda t: flow.full_like(t, 0),
         "zeros_like int": lambda t: flow.zeros_like(t, dtype=flow.int64) + t.long(),
         "empty_like": lambda t: tuple(flow.empty_like(t).shape)}


@case("like", list(LIKES))
def _gen(rng, tiny, form):
    return Case([Arr(floats(rng, shape(rng, tiny, 0, 3)))], LIKES[form])


# ------------------------------------------------------------ reductions

def _dims(rng, ndim):
    """None, one dim, or a tuple of dims (maybe negative)."""
    r = rng.random()
    if r < 0.2 or ndim == 0:
        return None
    if r < 0.6:
        return dim_of(rng, ndim)
    k = int(rng.integers(1, ndim + 1))
    return tuple(int(d) for d in rng.permutation(ndim)[:k])


@case("sum", ["all", "dim", "keepdim", "flow.sum", "bool"])
def _gen(rng, tiny, form):
    x = floats(rng, shape(rng, tiny, 0, 3))
    dim, keep = _dims(rng, x.ndim), bool(rng.random() < 0.5)
    if form == "all":
        return Case([Arr(x)], lambda t: t.sum())
    if form == "dim" and dim is not None:
        return Case([Arr(x)], lambda t: t.sum(dim), f"dim={dim}")
    if form == "bool":
        return Case([Arr(bools(rng, x.shape))], lambda t: t.sum(dim), f"dim={dim}")
    if form == "flow.sum":
        return Case([Arr(x)], lambda t: flow.sum(t, dim=dim, keepdim=keep), f"dim={dim} keepdim={keep}")
    return Case([Arr(x)], lambda t: t.sum(dim, keepdim=keep), f"dim={dim} keepdim={keep}")


@case("mean", ["method", "flow.mean", "int input (an error)"])
def _gen(rng, tiny, form):
    x = floats(rng, shape(rng, tiny, 0, 3))
    dim, keep = _dims(rng, x.ndim), bool(rng.random() < 0.4)
    if form == "method":
        return Case([Arr(x)], lambda t: t.mean() if dim is None else t.mean(dim, keep), f"dim={dim} keep={keep}")
    if form == "flow.mean":
        return Case([Arr(x)], lambda t: flow.mean(t, dim=dim, keepdim=keep), f"dim={dim} keep={keep}")
    return Case([Arr(ints(rng, x.shape))], lambda t: t.mean())


REDUCE = {"prod": lambda t, d, k: t.prod(d, k), "flow.prod": lambda t, d, k: flow.prod(t),
          "amax": lambda t, d, k: t.amax(d, k), "amin": lambda t, d, k: flow.amin(t, d, k),
          "amax()": lambda t, d, k: t.amax(), "logsumexp": lambda t, d, k: t.logsumexp(d, k),
          "flow.logsumexp": lambda t, d, k: flow.logsumexp(t, d),
          "max()": lambda t, d, k: t.max(), "min()": lambda t, d, k: flow.min(t),
          "max(dim)": lambda t, d, k: t.max(d, k), "min(dim)": lambda t, d, k: t.min(d),
          "flow.max(dim).values": lambda t, d, k: flow.max(t, dim=d).values,
          "argmax()": lambda t, d, k: t.argmax(), "argmin(dim)": lambda t, d, k: flow.argmin(t, d, k),
          "argmax(dim)": lambda t, d, k: t.argmax(d, keepdim=k),
          "var": lambda t, d, k: t.var(d, False, k), "std": lambda t, d, k: t.std(d, keepdim=k, correction=0),
          "flow.var": lambda t, d, k: flow.var(t, d), "flow.std": lambda t, d, k: flow.std(t, d, True, k),
          "var(unbiased)": lambda t, d, k: t.var(True), "var_mean": lambda t, d, k: flow.var_mean(t, d, keepdim=k),
          "std_mean": lambda t, d, k: flow.std_mean(t, d),
          "norm": lambda t, d, k: t.norm(2, d, k), "norm p=1": lambda t, d, k: flow.norm(t, p=1, dim=d),
          "norm fro": lambda t, d, k: t.norm(), "norm p=3": lambda t, d, k: t.norm(3.0, d, keepdim=k)}


@case("reduce", list(REDUCE))
def _gen(rng, tiny, form):
    # single-dim reductions get one dim, the others a dim or a tuple of them
    single = form in ("prod", "logsumexp", "flow.logsumexp", "max(dim)", "min(dim)", "flow.max(dim).values",
                      "argmin(dim)", "argmax(dim)")
    positive = form.startswith("prod") or form.startswith("flow.prod")
    x = floats(rng, shape(rng, tiny, 1, 3, min_size=2 if "var" in form or "std" in form else 1),
               0.5 if positive else -2, 1.5 if positive else 2)
    d = dim_of(rng, x.ndim) if single else (_dims(rng, x.ndim) or 0)
    keep = bool(rng.random() < 0.5)
    return Case([Arr(x)], lambda t: REDUCE[form](t, d, keep), f"dim={d} keepdim={keep}")


@case("all/any", ["all()", "any()", "all(dim)", "any(dim, keepdim)", "flow.any"])
def _gen(rng, tiny, form):
    x = rng.random(shape(rng, tiny, 0, 3)) < 0.8
    d = dim_of(rng, x.ndim) if x.ndim else None
    fns = {"all()": lambda t: t.all(), "any()": lambda t: t.any(), "all(dim)": lambda t: t.all(d),
           "any(dim, keepdim)": lambda t: t.any(d, keepdim=True), "flow.any": lambda t: flow.any(t)}
    return Case([Arr(x)], fns[form] if x.ndim or form in ("all()", "any()", "flow.any") else fns["all()"],
                f"dim={d}")


SCANS = {"cumsum": lambda t, d: t.cumsum(d), "flow.cumprod": lambda t, d: flow.cumprod(t, d),
         "cumsum_": lambda t, d: t.clone().cumsum_(d), "cumprod_": lambda t, d: t.clone().cumprod_(dim=d),
         "flow.cumsum": lambda t, d: flow.cumsum(t, dim=d), "cumprod": lambda t, d: t.cumprod(d),
         "softmax": lambda t, d: t.softmax(d), "log_softmax": lambda t, d: t.log_softmax(d),
         "F.softmax": lambda t, d: F.softmax(t, dim=d), "F.log_softmax": lambda t, d: F.log_softmax(t, d),
         "flow.softmax": lambda t, d: flow.softmax(t, d), "flow.log_softmax": lambda t, d: flow.log_softmax(t, dim=d),
         "F.softmin": lambda t, d: F.softmin(t, d), "sort": lambda t, d: t.sort(d),
         "flow.sort": lambda t, d: flow.sort(t, d, descending=True), "argsort": lambda t, d: t.argsort(d),
         "flow.argsort": lambda t, d: flow.argsort(t, dim=d, descending=True),
         "topk": lambda t, d: t.topk(1 + t.shape[d] // 2, d),
         "flow.topk": lambda t, d: flow.topk(t, t.shape[d], dim=d, largest=False),
         "flip": lambda t, d: t.flip(d), "flow.flip": lambda t, d: flow.flip(t, [0, d]),
         "roll": lambda t, d: t.roll(2, d), "flow.roll": lambda t, d: flow.roll(t, (1, -1), (0, d)),
         "roll flat": lambda t, d: t.roll(3)}


@case("along a dim", list(SCANS))
def _gen(rng, tiny, form):
    x = floats(rng, shape(rng, tiny, 1, 3), 0.5, 1.5)
    d = dim_of(rng, x.ndim)
    return Case([Arr(x)], lambda t: SCANS[form](t, d), f"dim={d}")


MATRIX = {"fliplr": lambda t, k: t.fliplr(), "flow.flipud": lambda t, k: flow.flipud(t),
          "flipud": lambda t, k: t.flipud(), "flow.fliplr": lambda t, k: flow.fliplr(t),
          "tril": lambda t, k: t.tril(k), "flow.triu": lambda t, k: flow.triu(t, k),
          "tril_": lambda t, k: t.clone().tril_(k), "triu_": lambda t, k: t.clone().triu_(diagonal=k),
          "flow.tril": lambda t, k: flow.tril(t), "triu": lambda t, k: t.triu(k)}


@case("matrix", list(MATRIX))
def _gen(rng, tiny, form):
    x = floats(rng, shape(rng, tiny, 2, 3))
    k = int(rng.integers(-1, 2))
    return Case([Arr(x)], lambda t: MATRIX[form](t, k), f"k={k}")


@case("layer_norm", ["affine", "no affine", "weight only"])
def _gen(rng, tiny, form):
    x = floats(rng, shape(rng, tiny, 1, 3, min_size=2))
    k = int(rng.integers(1, x.ndim + 1))
    norm = x.shape[-k:]
    w, b = floats(rng, norm, 0.5, 1.5, x.dtype), floats(rng, norm, dtype=x.dtype)
    if form == "affine":
        return Case([Arr(x), Arr(w), Arr(b)], lambda x, w, b: F.layer_norm(x, norm, w, b), f"k={k}")
    if form == "no affine":
        return Case([Arr(x)], lambda x: F.layer_norm(x, norm, eps=1e-3), f"k={k}")
    return Case([Arr(x), Arr(w)], lambda x, w: F.layer_norm(x, list(norm), weight=w), f"k={k}")


# ------------------------------------------------------------ matmul

MATMUL_SHAPES = ["2d", "batched", "(...,k)@(k,m)", "vector@matrix", "(...,k)@vector", "vector@vector",
                 "matrix@batched"]
MATMUL_FNS = {"@": lambda x, y: x @ y, "matmul": lambda x, y: x.matmul(y),
              "flow.matmul": lambda x, y: flow.matmul(x, y),
              "mm": lambda x, y: flow.mm(x, y), "mm method": lambda x, y: x.mm(y), "bmm": lambda x, y: flow.bmm(x, y),
              "bmm method": lambda x, y: x.bmm(y), "mv": lambda x, y: x.mv(y), "flow.mv": lambda x, y: flow.mv(x, y),
              "dot": lambda x, y: flow.dot(x, y), "dot method": lambda x, y: x.dot(y),
              "__rmatmul__": lambda x, y: y.__rmatmul__(x)}


@case("matmul", MATMUL_SHAPES + list(MATMUL_FNS)[3:])
def _gen(rng, tiny, form):
    top = 3 if tiny else 5
    n, k, m = (int(v) for v in rng.integers(1, top + 1, 3))
    dt = fdtype(rng)
    fn = MATMUL_FNS[pick(rng, ["@", "matmul", "flow.matmul"])]
    if form in MATMUL_FNS:
        fn = MATMUL_FNS[form]
        batch = (int(rng.integers(1, top + 1)),)
        a, b = {"bmm": (batch + (n, k), batch + (k, m)), "bmm method": (batch + (n, k), batch + (k, m)),
                "mv": ((n, k), (k,)), "flow.mv": ((n, k), (k,)), "dot": ((k,), (k,)),
                "dot method": ((k,), (k,))}.get(form, ((n, k), (k, m)))
    elif form == "2d":
        a, b = (n, k), (k, m)
    elif form == "batched":  # with broadcast batch dims
        batch = shape(rng, tiny, 1, 2)
        a, b = batch + (n, k), broadcastable(rng, batch) + (k, m)
    elif form == "(...,k)@(k,m)":
        a, b = shape(rng, tiny, 1, 2) + (n, k), (k, m)
    elif form == "vector@matrix":
        a, b = (k,), (k, m)
    elif form == "(...,k)@vector":
        a, b = shape(rng, tiny, 1, 2) + (n, k), (k,)
    elif form == "vector@vector":
        a, b = (k,), (k,)
    else:
        a, b = (n, k), shape(rng, tiny, 1, 1) + (k, m)
    return Case([Arr(floats(rng, a, dtype=dt)), Arr(floats(rng, b, dtype=dt))], fn, f"{a} @ {b}")


@case("addmm", ["flow.addmm", "method"])
def _gen(rng, tiny, form):
    top = 3 if tiny else 5
    n, k, m = (int(v) for v in rng.integers(1, top + 1, 3))
    dt = fdtype(rng)
    inp = floats(rng, broadcastable(rng, (n, m)), dtype=dt)
    fn = (lambda i, a, b: flow.addmm(i, a, b, beta=0.5, alpha=2.0)) if form == "flow.addmm" else \
        (lambda i, a, b: i.addmm(a, b))
    return Case([Arr(inp), Arr(floats(rng, (n, k), dtype=dt)), Arr(floats(rng, (k, m), dtype=dt))], fn)


@case("linear", ["bias", "no bias"])
def _gen(rng, tiny, form):
    top = 3 if tiny else 5
    fin, fout = (int(v) for v in rng.integers(1, top + 1, 2))
    dt = fdtype(rng)
    x = floats(rng, shape(rng, tiny, 0, 2) + (fin,), dtype=dt)
    w, b = floats(rng, (fout, fin), dtype=dt), floats(rng, (fout,), dtype=dt)
    if form == "bias":
        return Case([Arr(x), Arr(w), Arr(b)], lambda x, w, b: F.linear(x, w, b))
    return Case([Arr(x), Arr(w)], lambda x, w: F.linear(x, w))


@case("outer/ger/einsum", ["outer", "ger", "einsum"])
def _gen(rng, tiny, form):
    dt = fdtype(rng)
    if form == "einsum":
        x = floats(rng, shape(rng, tiny, 1, 2) + (3,), dtype=dt)
        return Case([Arr(x), Arr(floats(rng, (3, 2), dtype=dt))], lambda a, b: flow.einsum("...ij,jk->...ki", a, b)
                    if a.dim() > 1 else flow.einsum("j,jk->k", a, b))
    a, b = floats(rng, (int(rng.integers(1, 5)),), dtype=dt), floats(rng, (int(rng.integers(1, 5)),), dtype=dt)
    return Case([Arr(a), Arr(b)], (lambda a, b: flow.outer(a, b)) if form == "outer" else
                (lambda a, b: a.outer(b) + flow.ger(a, b)))


# ------------------------------------------------------------ shape ops

def _reshape_target(rng, shp):
    """A new shape of the same size: adjacent dims merged, dims factored, 1s added."""
    dims = list(shp)
    out = []
    i = 0
    while i < len(dims):
        if i + 1 < len(dims) and rng.random() < 0.3:
            out.append(dims[i] * dims[i + 1])
            i += 2
            continue
        d = dims[i]
        f = next((f for f in (2, 3) if d % f == 0 and d > f), None)
        if f and rng.random() < 0.4:
            out += [f, d // f]
        else:
            out.append(d)
        i += 1
    if rng.random() < 0.3:
        out.insert(int(rng.integers(len(out) + 1)), 1)
    if out and rng.random() < 0.3:
        out[int(rng.integers(len(out)))] = -1
    return tuple(out)


RESHAPES = {"reshape": lambda t, s: t.reshape(s), "view": lambda t, s: t.view(*s),
            "flow.reshape": lambda t, s: flow.reshape(t, s), "reshape(shape=)": lambda t, s: t.reshape(shape=s),
            "view_as": lambda t, s: t.view_as(t.reshape(s)), "reshape(-1)": lambda t, s: t.reshape(-1),
            "reshape_as": lambda t, s: t.reshape_as(t.view(s))}


@case("reshape", list(RESHAPES))
def _gen(rng, tiny, form):
    x = floats(rng, shape(rng, tiny, 1, 3))
    tgt = _reshape_target(rng, x.shape)
    return Case([Arr(x)], lambda t: RESHAPES[form](t, tgt), f"-> {tgt}")


@case("flatten", ["method", "flow.flatten"])
def _gen(rng, tiny, form):
    x = floats(rng, shape(rng, tiny, 0, 4))
    n = max(x.ndim, 1)
    s = int(rng.integers(n))
    e = int(rng.integers(s, n))
    if form == "method":
        return Case([Arr(x)], lambda t: t.flatten(s, e), f"{s}..{e}")
    return Case([Arr(x)], lambda t: flow.flatten(t, start_dim=s), f"{s}..")


SQUEEZE = {"squeeze()": lambda t, d, u: t.squeeze(), "squeeze(d)": lambda t, d, u: t.squeeze(d),
           "flow.squeeze": lambda t, d, u: flow.squeeze(t, d), "unsqueeze": lambda t, d, u: t.unsqueeze(u),
           "flow.unsqueeze": lambda t, d, u: flow.unsqueeze(t, u),
           "x[None].squeeze(0)": lambda t, d, u: t[None].squeeze(0)}


@case("squeeze", list(SQUEEZE))
def _gen(rng, tiny, form):
    shp = tuple(1 if rng.random() < 0.4 else d for d in shape(rng, tiny, 1, 4))
    x = floats(rng, shp)
    d, u = dim_of(rng, x.ndim), int(rng.integers(-x.ndim - 1, x.ndim + 1))
    return Case([Arr(x)], lambda t: SQUEEZE[form](t, d, u), f"d={d} u={u}")


@case("expand", ["expand", "expand_as"])
def _gen(rng, tiny, form):
    out = shape(rng, tiny, 1, 3)
    small = broadcastable(rng, out)
    x = floats(rng, small)
    lead = len(out) - len(small)
    sizes = list(out[:lead]) + [-1 if (s == o and rng.random() < 0.5) else o for s, o in zip(small, out[lead:])]
    if form == "expand":
        return Case([Arr(x)], lambda t: t.expand(*sizes) * 1.0, f"{small} -> {sizes}")
    return Case([Arr(x), Arr(floats(rng, out, dtype=x.dtype))], lambda t, o: t.expand_as(o) + o, f"{small} as {out}")


@case("repeat", ["repeat", "tile", "flow.tile"])
def _gen(rng, tiny, form):
    x = floats(rng, shape(rng, tiny, 1, 3))
    reps = [int(rng.integers(1, 3)) for _ in range(x.ndim + int(rng.integers(0, 2)))]
    if form == "repeat":
        return Case([Arr(x)], lambda t: t.repeat(*reps), f"{reps}")
    if form == "tile":
        return Case([Arr(x)], lambda t: t.tile(reps[1:] or [2]), f"{reps[1:]}")
    return Case([Arr(x)], lambda t: flow.tile(t, reps), f"{reps}")


PERMUTES = {"transpose": lambda t, a: t.transpose(a["d0"], a["d1"]),
            "flow.transpose": lambda t, a: flow.transpose(t, a["d0"], a["d1"]),
            "swapaxes": lambda t, a: t.swapaxes(a["d0"], a["d1"]),
            "flow.swapaxes": lambda t, a: flow.swapaxes(t, a["d0"], a["d1"]),
            "swapdims": lambda t, a: t.swapdims(a["d0"], a["d1"]),
            "flow.swapdims": lambda t, a: flow.swapdims(t, a["d0"], a["d1"]),
            "permute": lambda t, a: t.permute(*a["perm"]), "flow.permute": lambda t, a: flow.permute(t, a["perm"]),
            "movedim": lambda t, a: t.movedim(a["src"], a["dst"]),
            "flow.movedim": lambda t, a: flow.movedim(t, a["src"][0], a["dst"][0]),
            "moveaxis": lambda t, a: t.moveaxis(a["src"][0], a["dst"][0]),
            "flow.moveaxis": lambda t, a: flow.moveaxis(t, a["src"], a["dst"]),
            "T": lambda t, a: t.T, "mT": lambda t, a: t.mT, "t": lambda t, a: t.t()}


@case("permute", list(PERMUTES))
def _gen(rng, tiny, form):
    lo, hi = (1, 2) if form == "t" else (2, 4) if form == "mT" else (1, 4)
    x = floats(rng, shape(rng, tiny, lo, hi))
    n = x.ndim
    src = [int(p) for p in rng.permutation(n)[:int(rng.integers(1, n + 1))]]
    a = {"d0": dim_of(rng, n), "d1": dim_of(rng, n), "perm": [int(p) for p in rng.permutation(n)], "src": src,
         "dst": [int(p) for p in rng.permutation(n)[:len(src)]]}
    return Case([Arr(x)], lambda t: PERMUTES[form](t, a), f"{a}")


@case("cat/stack", ["cat", "concat", "concatenate", "stack", "flow.stack"])
def _gen(rng, tiny, form):
    base = shape(rng, tiny, 1, 3)
    d = dim_of(rng, len(base))
    k = int(rng.integers(1, 4))
    dt = fdtype(rng)
    if form.endswith("stack"):
        sd = int(rng.integers(-len(base) - 1, len(base) + 1))
        return Case([Arr(floats(rng, base, dtype=dt)) for _ in range(k)], lambda *ts: flow.stack(list(ts), sd),
                    f"dim={sd}")
    shapes = []
    for _ in range(k):
        s = list(base)
        s[d] = int(rng.integers(1, 4))
        shapes.append(tuple(s))
    fn = {"cat": lambda *ts: flow.cat(ts, d), "concat": lambda *ts: flow.concat(list(ts), dim=d),
          "concatenate": lambda *ts: flow.concatenate(ts, d)}[form]
    return Case([Arr(floats(rng, s, dtype=dt)) for s in shapes], fn, f"dim={d} {shapes}")


SLICES = {"narrow": lambda t, a: t.narrow(a["d"], a["start"], a["length"]),
          "flow.narrow": lambda t, a: flow.narrow(t, a["d"], a["start"], a["length"]),
          "select": lambda t, a: t.select(a["d"], a["start"]), "flow.select": lambda t, a: flow.select(t, a["d"], -1),
          "split": lambda t, a: t.split(a["s"], a["d"]),
          "flow.split": lambda t, a: flow.split(t, a["sections"], dim=a["d"]),
          "chunk": lambda t, a: t.chunk(a["s"], a["d"]), "flow.chunk": lambda t, a: flow.chunk(t, 2, a["d"]),
          "unbind": lambda t, a: t.unbind(a["d"]), "flow.unbind": lambda t, a: flow.unbind(t, dim=a["d"]),
          "iterate": lambda t, a: list(t), "diagonal": lambda t, a: t.diagonal(a["off"], a["d1"], a["d2"]),
          "flow.diagonal": lambda t, a: flow.diagonal(t, offset=a["off"], dim1=a["d1"], dim2=a["d2"]) * 1.0,
          "unfold": lambda t, a: t.unfold(a["d"], a["s"], a["step"]) * 1.0}


@case("slice", list(SLICES))
def _gen(rng, tiny, form):
    x = floats(rng, shape(rng, tiny, 2 if "diagonal" in form else 1, 3))
    d = dim_of(rng, x.ndim)
    size = x.shape[d]
    start = int(rng.integers(size))
    cuts = sorted(int(c) for c in rng.integers(0, size + 1, 2))
    d1, d2 = (int(v) for v in rng.permutation(x.ndim)[:2]) if x.ndim > 1 else (0, 0)
    a = {"d": d, "start": start, "length": int(rng.integers(0, size - start + 1)), "s": int(rng.integers(1, size + 1)),
         "sections": [cuts[0], cuts[1] - cuts[0], size - cuts[1]], "off": int(rng.integers(-1, 2)), "d1": d1,
         "d2": d2, "step": int(rng.integers(1, 3))}
    return Case([Arr(x)], lambda t: SLICES[form](t, a), f"{a}")


def _basic_index(rng, shp):
    items = []
    for d in shp:
        r = rng.random()
        if r < 0.3:
            items.append(slice(None))
        elif r < 0.5:
            items.append(int(rng.integers(-d, d)))
        elif r < 0.75:
            a = int(rng.integers(0, d))
            items.append(slice(a, int(rng.integers(a, d + 1)), pick(rng, [None, 1, 2])))
        elif r < 0.85:
            items.append(None)
            items.append(slice(None))
        else:
            items.append(slice(0, d))
    if rng.random() < 0.3 and items:
        items = items[:int(rng.integers(len(items)))] + [Ellipsis]
    if len(items) == 1 and rng.random() < 0.5:
        return items[0]
    return tuple(items)


@case("__getitem__", ["basic", "int list", "tensor", "[..., tensor]"])
def _gen(rng, tiny, form):
    x = floats(rng, shape(rng, tiny, 1, 3))
    if form == "basic":
        idx = _basic_index(rng, x.shape)
        return Case([Arr(x)], lambda t: t[idx], f"[{idx}]")
    if form == "int list":
        idx = [int(i) for i in rng.integers(0, x.shape[0], 3)]
        return Case([Arr(x)], lambda t: t[idx], f"[{idx}]")
    index = rng.integers(-x.shape[-1], x.shape[-1], shape(rng, tiny, 1, 2))
    if form == "tensor":
        index = index % x.shape[0]
        return Case([Arr(x), Arr(index, partial=False)], lambda t, i: t[i])
    return Case([Arr(x), Arr(index, partial=False)], lambda t, i: t[..., i])


@case("__setitem__", ["basic = number", "basic = tensor", "mask = 0", "mask = 1.5", "int = 0", "tensor index"])
def _gen(rng, tiny, form):
    x = floats(rng, shape(rng, tiny, 1, 3))
    if form.startswith("basic"):
        idx = _basic_index(rng, x.shape)
        if form == "basic = number":
            def fn(t):
                y = t.clone()
                y[idx] = 0.5
                return y
            return Case([Arr(x)], fn, f"[{idx}]")
        v = floats(rng, broadcastable(rng, np.asarray(x)[idx].shape), dtype=x.dtype)

        def fn(t, v):
            y = t.clone()
            y[idx] = v
            return y
        return Case([Arr(x), Arr(v)], fn, f"[{idx}] = {v.shape}")
    if form.startswith("mask"):
        value = 0 if form == "mask = 0" else 1.5

        def fn(t):
            y = t.clone()
            y[y > 0.3] = value
            return y
        return Case([Arr(x)], fn)
    if form == "tensor index":
        idx = rng.integers(0, x.shape[0], int(rng.integers(1, 4)))

        def fn(t, i):
            y = t.clone()
            y[i] = 2.0
            return y
        return Case([Arr(x), Arr(idx, partial=False)], fn)
    i = int(rng.integers(x.shape[0]))

    def fn(t):
        y = t.clone()
        y[i] = 0
        return y
    return Case([Arr(x)], fn, f"[{i}]")


@case("gather", ["gather", "flow.gather", "take_along_dim", "index_select", "flow.index_select"])
def _gen(rng, tiny, form):
    x = floats(rng, shape(rng, tiny, 1, 3))
    d = dim_of(rng, x.ndim)
    if "gather" in form:
        ishape = tuple(int(rng.integers(1, s + 1)) if i != d % x.ndim else int(rng.integers(1, 4))
                       for i, s in enumerate(x.shape))
        idx = rng.integers(0, x.shape[d], ishape)
        fn = (lambda t, i: t.gather(d, i)) if form == "gather" else (lambda t, i: flow.gather(t, d, i))
        return Case([Arr(x), Arr(idx, partial=False)], fn, f"dim={d} {ishape}")
    if form == "take_along_dim":
        ishape = list(x.shape)
        ishape[d] = int(rng.integers(1, 4))
        idx = rng.integers(0, x.shape[d], ishape)
        return Case([Arr(x), Arr(idx, partial=False)], lambda t, i: flow.take_along_dim(t, i, d), f"dim={d}")
    idx = rng.integers(0, x.shape[d], int(rng.integers(1, 5)))
    fn = (lambda t, i: t.index_select(d, i)) if form == "index_select" else (lambda t, i: flow.index_select(t, d, i))
    return Case([Arr(x), Arr(idx, partial=False)], fn, f"dim={d}")


# ------------------------------------------------------------ nn

@case("embedding", ["plain", "padding_idx"])
def _gen(rng, tiny, form):
    top = 3 if tiny else 5
    n, e = (int(v) for v in rng.integers(1, top + 2, 2))
    idx, w = rng.integers(0, n, shape(rng, tiny, 1, 2)), floats(rng, (n, e))
    if form == "plain":
        return Case([Arr(idx, partial=False), Arr(w)], lambda i, w: F.embedding(i, w))
    return Case([Arr(idx, partial=False), Arr(w)], lambda i, w: F.embedding(i, w, padding_idx=0))


@case("classification loss", [f"{f} {r}" for f in ("ce", "nll", "ce smoothing", "ce weight", "ce probabilities",
                                                   "ce one sample positional")
                              for r in ("mean", "sum", "none")])
def _gen(rng, tiny, form):
    kind, red = form.rsplit(" ", 1)
    top = 3 if tiny else 5
    n, c = int(rng.integers(1, top + 2)), int(rng.integers(2, top + 1))
    spatial = shape(rng, tiny, 0, 1)
    x = floats(rng, (n, c) + spatial)
    target = rng.integers(0, c, (n,) + spatial)
    if rng.random() < 0.3:
        target.flat[0] = -100
    tgt = Arr(target, partial=False)
    if kind == "ce":
        return Case([Arr(x), tgt], lambda x, t: F.cross_entropy(x, t, reduction=red))
    if kind == "nll":
        return Case([Arr(x), tgt], lambda x, t: F.nll_loss(F.log_softmax(x, 1), t, reduction=red))
    if kind == "ce smoothing":
        return Case([Arr(x), tgt], lambda x, t: F.cross_entropy(x, t, reduction=red, label_smoothing=0.1))
    if kind == "ce weight":
        w = floats(rng, (c,), 0.5, 1.5, x.dtype)
        return Case([Arr(x), tgt, Arr(w)], lambda x, t, w: F.cross_entropy(x, t, weight=w, reduction=red))
    if kind == "ce probabilities":
        p = rng.random((n, c) + spatial).astype(x.dtype)
        p /= p.sum(1, keepdims=True)
        return Case([Arr(x), Arr(p, grad=False)], lambda x, p: F.cross_entropy(x, p, reduction=red))
    # one sample: input (C,) and a 0-d target, the legacy positional form
    first = (0,) * len(spatial)
    return Case([Arr(x[(0, slice(None)) + first]), Arr(target[(0,) + first] % c, partial=False)],
                lambda x, t: F.cross_entropy(x, t, None, None, -100, None, red))


POINTWISE_LOSSES = {
    "mse_loss": lambda a, b, r: F.mse_loss(a, b, reduction=r), "l1_loss": lambda a, b, r: F.l1_loss(a, b, reduction=r),
    "smooth_l1_loss": lambda a, b, r: F.smooth_l1_loss(a, b, reduction=r, beta=0.5),
    "huber_loss": lambda a, b, r: F.huber_loss(a, b, reduction=r, delta=0.7),
    "binary_cross_entropy": lambda a, b, r: F.binary_cross_entropy(a.sigmoid(), b.sigmoid(), reduction=r),
    "binary_cross_entropy_with_logits": lambda a, b, r: F.binary_cross_entropy_with_logits(a, b.sigmoid(),
                                                                                           reduction=r),
    "kl_div": lambda a, b, r: F.kl_div(F.log_softmax(a, -1), F.softmax(b, -1),
                                       reduction="batchmean" if r == "mean" else r),
    "soft_margin_loss": lambda a, b, r: F.soft_margin_loss(a, b.sign(), reduction=r),
}
for _label, _fn in POINTWISE_LOSSES.items():
    @case(_label, ["mean", "sum", "none"])
    def _gen(rng, tiny, red, _fn=_fn):
        shp = shape(rng, tiny, 1, 3)
        dt = fdtype(rng)
        return Case([Arr(floats(rng, shp, dtype=dt)), Arr(floats(rng, shp, dtype=dt))], lambda a, b: _fn(a, b, red))


@case("conv", ["conv1d", "conv2d", "conv1d no bias", "conv2d no bias"])
def _gen(rng, tiny, form):
    n, cin, cout = (int(v) for v in rng.integers(1, 4, 3))
    dt = fdtype(rng)
    two = form.startswith("conv2d")
    k = int(rng.integers(1, 3))
    spatial = (int(rng.integers(k, k + 3)),) * (2 if two else 1)
    x = floats(rng, (n, cin) + spatial, dtype=dt)
    w = floats(rng, (cout, cin) + (k,) * len(spatial), dtype=dt)
    conv = F.conv2d if two else F.conv1d
    if form.endswith("no bias"):
        return Case([Arr(x), Arr(w)], lambda x, w: conv(x, w, stride=2))
    return Case([Arr(x), Arr(w), Arr(floats(rng, (cout,), dtype=dt))], lambda x, w, b: conv(x, w, b, padding=1))


@case("conv_transpose2d", ["bias", "no bias"])
def _gen(rng, tiny, form):
    n, cin, cout = (int(v) for v in rng.integers(1, 4, 3))
    dt = fdtype(rng)
    x = floats(rng, (n, cin, int(rng.integers(1, 4)), int(rng.integers(1, 4))), dtype=dt)
    w = floats(rng, (cin, cout, 2, 2), dtype=dt)
    if form == "bias":
        return Case([Arr(x), Arr(w), Arr(floats(rng, (cout,), dtype=dt))],
                    lambda x, w, b: F.conv_transpose2d(x, w, b, stride=2))
    return Case([Arr(x), Arr(w)], lambda x, w: F.conv_transpose2d(x, w, padding=1))


PADS = {"constant 0": lambda t, p: F.pad(t, p), "constant 1.5": lambda t, p: F.pad(t, p, value=1.5),
        "reflect": lambda t, p: F.pad(t, [min(v, 1) for v in p], mode="reflect"),
        "replicate": lambda t, p: flow.pad(t, p, mode="replicate"),
        "crop": lambda t, p: F.pad(t, [-min(v, 1) if k == 0 else v for k, v in enumerate(p)])}


@case("pad", list(PADS))
def _gen(rng, tiny, form):
    x = floats(rng, shape(rng, tiny, 2, 3, min_size=2))
    k = int(rng.integers(1, 3))
    amounts = [int(v) for v in rng.integers(0, 3, 2 * k)]
    return Case([Arr(x)], lambda t: PADS[form](t, amounts), f"pad={amounts}")


@case("one_hot", ["num_classes", "num_classes=-1", "flow.one_hot"])
def _gen(rng, tiny, form):
    idx = rng.integers(0, 4, shape(rng, tiny, 1, 2))
    fn = {"num_classes": lambda t: F.one_hot(t, 5), "num_classes=-1": lambda t: F.one_hot(t),
          "flow.one_hot": lambda t: flow.one_hot(t, num_classes=4)}[form]
    return Case([Arr(idx, partial=False)], fn)


COMPOSED = {
    "cosine_similarity": lambda a, b: F.cosine_similarity(a, b, dim=-1),
    "pairwise_distance": lambda a, b: F.pairwise_distance(a, b),
    "bilinear": lambda a, b: F.bilinear(a, b, a[:2].unsqueeze(-1) * b[:2].unsqueeze(-2)),
    "instance_norm": lambda a, b: F.instance_norm(a.unsqueeze(0)),
    "triplet_margin_loss": lambda a, b: F.triplet_margin_loss(a, b, a * 0.5 - b),
    "poisson_nll_loss": lambda a, b: F.poisson_nll_loss(a, b.abs()),
    "gaussian_nll_loss": lambda a, b: F.gaussian_nll_loss(a, b, b.abs() + 0.1),
    "cosine_embedding_loss": lambda a, b: F.cosine_embedding_loss(a, b, a[:, 0].sign()),
    "margin_ranking_loss": lambda a, b: F.margin_ranking_loss(a[:, 0], b[:, 0], (a[:, 0] - b[:, 0]).sign()),
    "hinge_embedding_loss": lambda a, b: F.hinge_embedding_loss(a, b.sign()),
}


@case("composed", list(COMPOSED))
def _gen(rng, tiny, form):
    # nn.functional compositions with no rule of their own: op by op
    shp = (int(rng.integers(2, 4)), int(rng.integers(2, 4)))
    dt = fdtype(rng)
    return Case([Arr(away_from_zero(rng, shp, dtype=dt)), Arr(away_from_zero(rng, shp, dtype=dt))], COMPOSED[form])


POOLS = {"max_pool2d": lambda t: F.max_pool2d(t, 2), "avg_pool2d": lambda t: F.avg_pool2d(t, 2, stride=1),
         "adaptive_avg_pool2d": lambda t: F.adaptive_avg_pool2d(t, 1),
         "adaptive_max_pool2d": lambda t: F.adaptive_max_pool2d(t, (1, 2)),
         "max_pool2d indices": lambda t: F.max_pool2d(t, 2, return_indices=True),
         "max_pool1d": lambda t: F.max_pool1d(t, 2), "avg_pool1d": lambda t: F.avg_pool1d(t, 2),
         "adaptive_avg_pool1d": lambda t: F.adaptive_avg_pool1d(t, 2),
         "adaptive_max_pool1d": lambda t: F.adaptive_max_pool1d(t, 1),
         "max_pool3d": lambda t: F.max_pool3d(t, 2), "avg_pool3d": lambda t: F.avg_pool3d(t, 2, stride=1),
         "max_pool3d indices": lambda t: F.max_pool3d(t, (1, 2, 2), return_indices=True),
         "avg_pool3d divisor": lambda t: F.avg_pool3d(t, 2, 1, 1, True, False, 3),
         "adaptive_avg_pool3d": lambda t: F.adaptive_avg_pool3d(t, (1, 2, 1)),
         "adaptive_max_pool3d": lambda t: F.adaptive_max_pool3d(t, 1)}


@case("pool", list(POOLS))
def _gen(rng, tiny, form):
    n, c = (int(v) for v in rng.integers(1, 4, 2))
    spatial = tuple(int(rng.integers(2, 6)) for _ in range(int(form.split()[0][-2])))
    return Case([Arr(floats(rng, (n, c) + spatial))], POOLS[form])


DATA_DEPENDENT = {"nonzero": lambda t: flow.nonzero(t), "nonzero as_tuple": lambda t: flow.nonzero(t, as_tuple=True),
                  "Tensor.nonzero": lambda t: t.nonzero(), "argwhere": lambda t: flow.argwhere(t),
                  "where(condition)": lambda t: flow.where(t != 0)}


@case("data-dependent shape", list(DATA_DEPENDENT))
def _gen(rng, tiny, form):
    # the positions of the non-zeros: only the whole tensor knows how many
    shp = shape(rng, tiny, 1, 3)
    x = np.where(rng.random(shp) < 0.4, 0.0, floats(rng, shp)).astype(fdtype(rng))
    return Case([Arr(x, grad=False)], DATA_DEPENDENT[form], backward=False)


@case("nn fold", ["unfold", "unfold unbatched", "fold", "fold unbatched"])
def _gen(rng, tiny, form):
    # nn.functional.unfold (im2col) and fold (col2im): not Tensor.unfold
    n, c = int(rng.integers(1, 4)), int(rng.integers(1, 3))
    h, w = (int(v) for v in rng.integers(2, 5, 2))
    lead = (n,) if "unbatched" not in form else ()
    if form.startswith("unfold"):
        return Case([Arr(floats(rng, lead + (c, h, w)))], lambda t: F.unfold(t, 2, padding=1))
    blocks = (h - 1) * (w - 1)  # kernel 2, stride 1
    return Case([Arr(floats(rng, lead + (c * 4, blocks)))], lambda t: F.fold(t, (h, w), 2))


COMPOSITES = {"diag vector": lambda t: flow.diag(t.flatten()), "diag offset": lambda t: t.flatten().diag(-2),
              "diag matrix": lambda t: flow.diag(t.reshape(t.shape[0], -1), 1),
              "vector_norm": lambda t: flow.linalg.vector_norm(t),
              "vector_norm inf dim": lambda t: flow.linalg.vector_norm(t, float("inf"), dim=0),
              "vector_norm 3 keepdim": lambda t: flow.linalg.vector_norm(t, 3, dim=-1, keepdim=True),
              "vector_norm 1 float64": lambda t: flow.linalg.vector_norm(t, 1, dtype=flow.float64),
              "linalg.norm": lambda t: flow.linalg.norm(t),
              "vector_norm 0": lambda t: flow.linalg.vector_norm(t, 0)}


@case("composite", list(COMPOSITES))
def _gen(rng, tiny, form):
    # ops the global layer builds from global ops (dispatch.COMPOSITES)
    x = away_from_zero(rng, shape(rng, tiny, 1, 3))
    if form == "vector_norm 0":
        x = np.where(rng.random(x.shape) < 0.3, 0.0, x).astype(x.dtype)
    return Case([Arr(x)], COMPOSITES[form], backward=form != "vector_norm 0")


@case("composition", ["glu", "prelu", "normalize", "group_norm", "batch_norm eval", "batch_norm train",
                      "sdpa", "sdpa causal", "sdpa mask", "sdpa dropout"])
def _gen(rng, tiny, form):
    top = 3 if tiny else 4
    n, c, s = int(rng.integers(2, top + 1)), 2 * int(rng.integers(1, 3)), int(rng.integers(1, top + 1))
    dt = fdtype(rng)
    x = floats(rng, (n, c, s), dtype=dt)
    if form == "glu":
        return Case([Arr(x)], lambda t: F.glu(t, 1))
    if form == "prelu":
        return Case([Arr(x), Arr(floats(rng, (c,), 0.1, 0.5, dt))], lambda t, w: F.prelu(t, w))
    if form == "normalize":
        return Case([Arr(x)], lambda t: F.normalize(t, dim=1))
    if form == "group_norm":
        return Case([Arr(x), Arr(floats(rng, (c,), 0.5, 1.5, dt)), Arr(floats(rng, (c,), dtype=dt))],
                    lambda t, w, b: F.group_norm(t, 2, w, b))
    if form == "batch_norm eval":
        mean, var = floats(rng, (c,), dtype=dt), floats(rng, (c,), 0.5, 2, dt)
        return Case([Arr(x), Arr(mean, grad=False), Arr(var, grad=False)],
                    lambda t, m, v: F.batch_norm(t, m, v, training=False))
    if form == "batch_norm train":  # over a split batch: synchronised statistics
        return Case([Arr(x)], lambda t: F.batch_norm(t, None, None, training=True))
    q, k, v = (floats(rng, (n, 2, s, 4), dtype=dt) for _ in range(3))
    if form == "sdpa":
        return Case([Arr(q), Arr(k), Arr(v)], lambda q, k, v: F.scaled_dot_product_attention(q, k, v))
    if form == "sdpa causal":
        return Case([Arr(q), Arr(k), Arr(v)], lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True))
    if form == "sdpa mask":
        m = bools(rng, (s, s))
        m[:, 0] = True  # every query attends somewhere
        return Case([Arr(q), Arr(k), Arr(v), Arr(m)],
                    lambda q, k, v, m: F.scaled_dot_product_attention(q, k, v, attn_mask=m))
    # random: the kept weights are checked through the values' scale only
    return Case([Arr(q, grad=False), Arr(k, grad=False), Arr(v, grad=False)],
                lambda q, k, v: tuple(F.scaled_dot_product_attention(q, k, v, dropout_p=0.5).shape),
                backward=False)


def _dropout_check(p):
    """Kept elements are x / (1 - p), and the gradient of out.sum() is the
    mask over (1 - p): the mask the forward drew (the ranks drew their pieces')."""
    scale = 1 / (1 - p)

    def check(g, w, locs, globs):
        x = globs[0].detach().numpy()
        out = g.detach().numpy()
        kept = out != 0
        if not np.allclose(out[kept], (x * scale)[kept], rtol=1e-5, atol=1e-6):
            return f"dropout: kept elements are not x / (1 - p): {out.tolist()} for {x.tolist()}"
        g.sum().backward()
        grad = globs[0].grad.detach().numpy()
        if not np.allclose(grad, kept * scale, rtol=1e-5, atol=1e-6):
            return f"dropout: gradient {grad.tolist()} is not the mask {kept.tolist()} / (1 - p)"
        return None
    return check


DROPOUTS = {"eval": lambda t: F.dropout(t, 0.4, training=False), "p=0": lambda t: F.dropout(t, 0.0),
            "dropout1d eval": lambda t: F.dropout1d(t, 0.5, training=False),
            "dropout2d eval": lambda t: F.dropout2d(t[..., None], 0.5, training=False),
            "dropout3d eval": lambda t: F.dropout3d(t[..., None, None], 0.5, training=False),
            "alpha_dropout eval": lambda t: F.alpha_dropout(t, 0.5)}


@case("dropout", list(DROPOUTS) + ["train p=0.3", "train p=0.5", "dropout1d train"])
def _gen(rng, tiny, form):
    x = away_from_zero(rng, shape(rng, tiny, 2 if "1d" in form else 1, 3, min_size=2))
    if form in DROPOUTS:  # the identity on any layout
        return Case([Arr(x)], DROPOUTS[form])
    if form == "dropout1d train":
        return Case([Arr(x)], lambda t: F.dropout1d(t, 0.5), check=_dropout_check(0.5), backward=False)
    p = float(form.split("=")[1])
    return Case([Arr(x)], lambda t: F.dropout(t, p), check=_dropout_check(p), backward=False)


def _random_check(lo, hi, integral=False):
    """Values in [lo, hi], and one value: every rank holds the same logical tensor."""
    def check(g, w, locs, globs):
        import monoflow.distributed as dist

        v = g.detach().numpy().astype(np.float64)
        if v.size and (v.min() < lo or v.max() > hi):
            return f"random values outside [{lo}, {hi}]: {v.tolist()}"
        if integral and not np.array_equal(v, np.round(v)):
            return f"random integers are not integral: {v.tolist()}"
        # the whole tensor gathered on every rank: the same everywhere
        whole = g.detach().to_global(sbp=(flow.sbp.broadcast,) * len(g.sbp)).to_local().double()
        mine = flow.tensor([float(whole.sum().item()), float((whole * whole).sum().item())], dtype=flow.float64)
        everyone = [flow.zeros(2, dtype=flow.float64) for _ in range(dist.get_world_size())]
        dist.all_gather(everyone, mine)
        sums = [e.tolist() for e in everyone]
        if any(s != sums[0] for s in sums):
            return f"ranks hold different values of one random tensor: checksums {sums}"
        return None
    return check


RANDOM = {"normal_": (lambda t: t.detach().clone().normal_(), (-50, 50), False),
          "uniform_": (lambda t: t.detach().clone().uniform_(2, 3), (2, 3), False),
          "bernoulli_": (lambda t: t.detach().clone().bernoulli_(0.5), (0, 1), True),
          "random_": (lambda t: t.detach().clone().random_(0, 5), (0, 4), True),
          "flow.bernoulli": (lambda t: flow.bernoulli(t.detach()), (0, 1), True),
          "bernoulli": (lambda t: t.detach().bernoulli(), (0, 1), True),
          "bernoulli(p)": (lambda t: t.detach().bernoulli(0.3), (0, 1), True),
          "rand_like": (lambda t: flow.rand_like(t), (0, 1), False),
          "randn_like": (lambda t: flow.randn_like(t), (-50, 50), False),
          "randint_like": (lambda t: flow.randint_like(t, 1, 4), (1, 3), True)}


@case("random", list(RANDOM))
def _gen(rng, tiny, form):
    x = floats(rng, shape(rng, tiny, 1, 3, min_size=2), 0.0, 1.0)
    fn, (lo, hi), integral = RANDOM[form]
    return Case([Arr(x, grad=False)], fn, check=_random_check(lo, hi, integral), backward=False)
