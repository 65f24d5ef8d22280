"""Hostile argument values, as Python source text evaluated in the worker."""
import random

DTYPES = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64")

TENSORS = (
    "flow.zeros(3)",
    "flow.randn(2, 3)",
    "flow.randn(1, 2, 3, 4)",
    "flow.arange(6).view(2, 3)",
    "flow.tensor(1.5)",
    "flow.tensor(7)",
    "flow.tensor(True)",
    "flow.zeros(0)",
    "flow.zeros(2, 0, 3)",
    "flow.randn(4, 3).t()",
    "flow.randn(6)[::2]",
    "flow.zeros(1).expand(4)",
    "flow.zeros(2, 1).expand(2, 3)",
    "flow.tensor([float('nan'), float('inf'), -float('inf'), 0.0])",
    "flow.tensor([5, 0, -3])",
    "flow.tensor([True, False, True])",
    "flow.randint(0, 5, (3,))",
    "flow.randn(2, 3, requires_grad=True)",
    "flow.randn(3, 3)",
    "flow.randn(2, 3).expand(4, 2, 3)",
    "flow.zeros(6).as_strided((2, 2), (1, 1))",
    "flow.zeros(3, 1)",
    "flow.tensor([2**62, -2**62])",
    "flow.tensor([-1, 10**9])",
    "flow.tensor([[0, 1], [1, 0]])",
    "flow.Tensor()",
    "flow.Tensor.__new__(flow.Tensor)",
    "NoInit()",
) + tuple(f"flow.ones(2, 3, dtype=flow.{d})" for d in DTYPES) + tuple(
    f"flow.zeros(0, dtype=flow.{d})" for d in DTYPES) + tuple(f"flow.tensor(3, dtype=flow.{d})" for d in DTYPES)

INTS = ("0", "1", "-1", "2", "3", "-7", "100", "2**31", "2**62 + 2**61", "2**63 - 1", "-2**63", "2**64", "-2**62")

FLOATS = ("0.5", "-2.0", "float('nan')", "float('inf')", "-float('inf')", "1e308", "5e-324")

SIZES = ("(2, 3)", "(0,)", "()", "(-1,)", "(3, -2)", "(2**40, 2**40)", "(2**31, 2**31, 4)", "(2**63 - 1,)",
         "[2, 3]", "(2**62 + 2**61,)", "flow.Size([2, 3])", "(1.5, 2)", "(None,)", "(6, -1)")

MISC = ("None", "True", "False", "'abc'", "''", "'cpu'", "'cuda'", "'mean'", "flow.float32", "flow.int64",
        "flow.bool", "flow.float16", "object()", "[]", "[1, 2]", "[None]", "np.ones(3)", "np.zeros((2, 0))",
        "np.float32(2)", "np.array(5)", "{}", "lambda *a, **k: None", "slice(None)", "Ellipsis", "b'x'",
        "flow.device('cpu')", "1j", "[flow.zeros(2), flow.ones(2)]", "(flow.zeros(2), None)")

# Which pool a parameter name suggests, so that many cases get past argument
# parsing into the op itself.
_NAME_HINTS = (
    (("input", "other", "tensor", "self", "x", "y", "weight", "bias", "target", "src", "index", "mask", "out",
      "mat", "vec", "a", "b", "value", "values", "tensor1", "tensor2", "end", "exponent"), TENSORS),
    (("dim", "dims", "k", "n", "start", "length", "step", "offset", "diagonal", "dim0", "dim1", "groups",
      "num_classes", "chunks", "sections", "repeats", "padding_idx", "ignore_index", "generator_seed"), INTS),
    (("size", "shape", "sizes", "stride", "kernel_size", "padding", "output_size", "split_size_or_sections",
      "normalized_shape", "pad"), SIZES),
    (("p", "eps", "alpha", "beta", "lr", "momentum", "min", "max", "negative_slope", "lambd", "threshold"),
     FLOATS),
    (("dtype",), tuple(f"flow.{d}" for d in DTYPES) + ("None", "'float32'", "int")),
)


def _hinted(name):
    for names, pool in _NAME_HINTS:
        if name in names:
            return pool
    return None


def any_value(rng: random.Random) -> str:
    r = rng.random()
    if r < 0.45:
        return rng.choice(TENSORS)
    if r < 0.62:
        return rng.choice(INTS)
    if r < 0.70:
        return rng.choice(FLOATS)
    if r < 0.82:
        return rng.choice(SIZES)
    return rng.choice(MISC)


def value_for(rng: random.Random, param_name) -> str:
    pool = _hinted(param_name) if param_name else None
    if pool is not None and rng.random() < 0.7:
        return rng.choice(pool)
    return any_value(rng)


def self_value(rng: random.Random) -> str:
    """The receiver of an unbound Tensor method: mostly a tensor, sometimes not."""
    return rng.choice(TENSORS) if rng.random() < 0.8 else rng.choice(MISC + INTS[:3])
