"""The fuzz targets (public functions and Tensor methods) and the cases drawn for them."""
import inspect
import random

from . import values

# Calls that change process-wide state for the cases that follow, or that
# wait on other processes by design; everything else is fair game (workers
# run in a scratch directory, so file-writing calls are harmless).
SKIP = {
    "flow": {"set_default_dtype", "set_default_tensor_type", "set_printoptions", "set_num_threads",
             "set_warning_handler", "set_num_interop_threads", "use_deterministic_algorithms",
             "set_default_device"},
    "F": set(),
    "flow.Tensor": {"__init_subclass__", "__subclasshook__", "__class_getitem__", "__del__", "__dealloc__",
                    "__getattribute__", "__setattr__", "__delattr__", "__dir__", "__sizeof__", "__reduce_ex__",
                    "__getstate__", "__format__"},
}

PREAMBLE = (
    "import inspect\n"
    "import math\n"
    "import numpy as np\n"
    "import monoflow as flow\n"
    "F = flow.nn.functional\n"
    "class NoInit(flow.Tensor):\n"
    "    def __init__(self):  # never calls super().__init__\n"
    "        pass\n"
    "def tensor_attr(self, name):  # monoflow's own descriptor, whatever self is\n"
    "    d = inspect.getattr_static(flow.Tensor, name)\n"
    "    return d.__get__(self, flow.Tensor) if hasattr(type(d), '__get__') else getattr(self, name)\n"
)


def _params(fn):
    """Positional parameter names and keyword-only names, or None when unknown."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return None
    pos, kw = [], []
    for p in sig.parameters.values():
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            pos.append(p.name)
        elif p.kind == p.KEYWORD_ONLY:
            kw.append(p.name)
        elif p.kind == p.VAR_POSITIONAL:
            pos.append("*" + p.name)
    return pos, kw


class Target:
    def __init__(self, qualname, fn, method):
        self.qualname = qualname  # source text naming the callable
        self.method = method  # an (unbound) Tensor method: the first argument is `self`
        self.params = _params(fn)

    def __repr__(self):
        return self.qualname


def public_targets():
    import monoflow as flow
    from monoflow.nn import functional as F

    out = []
    for prefix, ns in (("flow", flow), ("F", F)):
        for name in sorted(dir(ns)):
            if name.startswith("_") or name in SKIP[prefix]:
                continue
            obj = getattr(ns, name)
            if inspect.ismodule(obj) or not callable(obj):
                continue
            if getattr(obj, "__module__", "") and not str(getattr(obj, "__module__", "")).startswith("monoflow"):
                continue  # re-exported builtins/typing helpers
            out.append(Target(f"{prefix}.{name}", obj, method=False))
    for name in sorted(dir(flow.Tensor)):
        # (private helpers such as _copy_to_host(ptr) take raw addresses by design)
        private = name.startswith("_") and not (name.startswith("__") and name.endswith("__"))
        if private or name in SKIP["flow.Tensor"]:
            continue
        attr = inspect.getattr_static(flow.Tensor, name)
        if isinstance(attr, (property, type)) or inspect.isdatadescriptor(attr):
            out.append(Target(f"flow.Tensor.{name}", None, method="attribute"))
            continue
        obj = getattr(flow.Tensor, name)
        if callable(obj):
            out.append(Target(f"flow.Tensor.{name}", obj, method=True))
    return out


def draw_case(target: Target, rng: random.Random) -> str:
    """One call of `target` as a line of Python source."""
    name = target.qualname
    if target.method == "attribute":
        attr = name.rsplit(".", 1)[1]
        # (the descriptor of flow.Tensor itself: getattr(np.array(5), 'mT') would fuzz numpy)
        return f"tensor_attr({values.self_value(rng)}, {attr!r})"
    params = target.params
    pos_names = []
    kw_names = []
    if params is not None:
        pos_names, kw_names = params
        if target.method and pos_names and not pos_names[0].startswith("*"):
            pos_names = pos_names[1:]  # drop `self`
    # Usually the signature's arity (to reach the op's own checks), sometimes any.
    if params is None or rng.random() < 0.25:
        n = rng.randint(0, 4)
        # (no signature, as for most Cython methods: each argument gets the
        # pool of a typical parameter, so sizes and strides come often)
        guess = ("dim", "size", "stride", "input", "p", None)
        names = [pos_names[i] if i < len(pos_names) else rng.choice(guess) for i in range(n)]
    else:
        names = []
        for p in pos_names:
            if p.startswith("*"):
                names += [None] * rng.randint(0, 3)
                break
            if rng.random() < 0.85 or not names:
                names.append(p)
    args = [values.value_for(rng, p) for p in names]
    kwargs = {}
    for k in kw_names:
        if rng.random() < 0.3:
            kwargs[k] = values.value_for(rng, k)
    parts = args + [f"{k}={v}" for k, v in kwargs.items()]
    if target.method:
        parts.insert(0, values.self_value(rng))
    return f"{name}({', '.join(parts)})"


def draw_cases(targets, per_target, seed):
    """`per_target` cases for each target, deterministic in `seed` and the
    target's name alone: adding a public name changes no other target's cases."""
    cases = []
    for t in targets:
        rng = random.Random(f"{seed}:{t.qualname}")
        for _ in range(per_target):
            cases.append((t.qualname, draw_case(t, rng)))
    return cases
