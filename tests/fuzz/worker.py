"""Fuzz worker: reads cases (JSON lines) on stdin, runs each, answers on stdout.

Protocol, one JSON object per line: in {"id": N, "target": "flow.x", "code": "..."};
out {"id": N, "outcome": "ok" | "raised" | "unnamed" | "bad", "detail": "..."}. A worker that
dies mid-case, or answers too late, is handled by the runner (runner.py).
"""
import inspect
import json
import os
import re
import resource
import sys
import warnings

# The worker's own memory ceiling: a huge allocation must fail as a clean
# OutOfMemoryError/MemoryError, and must not take the machine down with it.
_MEMORY_LIMIT = int(os.environ.get("MONOFLOW_FUZZ_MEMORY_LIMIT", str(4 << 30)))

# Signs of an implementation detail leaking into a user-facing message.
CXX_MARKERS = ("std::", "enforce fail", "basic_string", "bad_alloc", "vector::", "terminate called",
               "c10::", "Assertion `", "returned NULL without setting", "returned a result with an exception set")


# A clean exception must also name the op it came from, torch-style
# ("addmm(): argument 'mat1' ..."); one that names only a building block
# ("add: shapes ... cannot be broadcast" from addmm) is "unnamed". The op's
# name is the target's last component (F.batch_norm -> batch_norm). Accepted
# aliases, matched case-insensitively as a whole identifier:
# - the callable's own __name__ (what Python itself reports for an alias,
#   e.g. "abs() takes 1 positional argument" for flow.absolute);
# - in-place `add_`: also `add`;
# - dunder methods: the bare name and, for the reflected/in-place forms, the
#   forward op (__radd__, __iadd__ -> add), plus _DUNDER_ALIASES (the op or
#   the Python builtin a dunder implements: __truediv__ -> div, __len__ -> len);
#   an in-place dunder also the aliases' in-place ops (__itruediv__ -> div_).
# - a class (flow.Generator): also its constructor, __init__ / __new__.
# Exempt: allocation failures (MemoryError: from the allocator), and a dunder
# called with the wrong number of arguments (CPython's own slot check,
# "expected 1 argument, got 0", as for torch's tensors).
_SLOT_ARITY = re.compile(r"^\s*expected \d+ arguments?, got \d+$")
_DUNDER_ALIASES = {
    "getitem": ("index", "indexing", "index_select"), "setitem": ("index", "indexing", "index_put", "index_put_"),
    "truediv": ("div", "divide", "true_divide"), "floordiv": ("floor_divide", "div"), "mod": ("remainder", "fmod"),
    "matmul": ("mm",), "pow": ("float_power",), "and": ("bitwise_and", "logical_and"),
    "or": ("bitwise_or", "logical_or"), "xor": ("bitwise_xor", "logical_xor"), "invert": ("bitwise_not",),
    "lshift": ("bitwise_left_shift",), "rshift": ("bitwise_right_shift",), "neg": ("negative",),
    "pos": ("positive",), "abs": ("absolute",), "eq": ("equal",), "ne": ("not_equal",), "lt": ("less",),
    "le": ("less_equal",), "gt": ("greater",), "ge": ("greater_equal",), "mul": ("multiply",),
    "sub": ("subtract",), "bool": ("Boolean",), "array": ("numpy",), "dlpack": ("to_dlpack",),
    "deepcopy": ("copy", "clone"), "reduce": ("pickle",), "setstate": ("pickle",), "iter": ("iteration",),
    "reversed": ("flip",), "new": ("Tensor",), "init": ("Tensor",),
}
_REFLECTED = re.compile(r"^[ri](add|sub|mul|matmul|truediv|floordiv|mod|pow|and|or|xor|lshift|rshift|div)$")


def op_names(target, fn=None):
    """The names a message of `target` (e.g. "flow.Tensor.add_") may use for the op."""
    name = target.rsplit(".", 1)[-1]
    names = {name}
    own = getattr(fn, "__name__", None)
    if isinstance(own, str) and own and own != "<lambda>":
        names.add(own)
    if isinstance(fn, type):
        names.update({"__init__", "__new__"})
    for n in list(names):
        if n.startswith("__") and n.endswith("__") and len(n) > 4:
            bare = n[2:-2]
            m = _REFLECTED.match(bare)
            fwd = m.group(1) if m else bare
            names.update({bare, fwd, fwd + "_"} if m else {bare})
            aliases = _DUNDER_ALIASES.get(fwd, ())
            names.update(aliases)
            if m and bare.startswith("i"):  # __itruediv__ runs div_: the in-place op
                names.update(a + "_" for a in aliases)
        elif n.endswith("_") and len(n) > 1:
            names.add(n[:-1])
    return names


def names_op(msg, names):
    """True when one of `names` occurs in `msg` as a whole identifier."""
    return any(re.search(r"(?<![A-Za-z0-9_])" + re.escape(n) + r"(?![A-Za-z0-9_])", msg, re.IGNORECASE)
               for n in names)


def classify_exception(exc, names=None):
    """'raised' for a clean Python exception that names the op (one of
    `names`; any when None), 'unnamed' for a clean one that does not, 'bad'
    with a reason otherwise."""
    msg = str(exc)
    if isinstance(exc, SystemError):
        return "bad", f"SystemError: {msg}"
    for marker in CXX_MARKERS:
        if marker in msg:
            return "bad", f"{type(exc).__name__} with a C++ message: {msg[:300]}"
    detail = f"{type(exc).__name__}: {msg[:200]}"
    dunder_arity = isinstance(exc, TypeError) and _SLOT_ARITY.match(msg) and any(n[:2] == "__" for n in names or ())
    if names and not isinstance(exc, MemoryError) and not dunder_arity and not names_op(msg, names):
        return "unnamed", detail
    return "raised", detail


def _namespace():
    import math

    import numpy as np

    import monoflow as flow

    class NoInit(flow.Tensor):
        def __init__(self):  # never calls super().__init__
            pass

    def tensor_attr(self, name):  # monoflow's own descriptor, whatever self is (PREAMBLE's)
        d = inspect.getattr_static(flow.Tensor, name)
        return d.__get__(self, flow.Tensor) if hasattr(type(d), "__get__") else getattr(self, name)

    return {"flow": flow, "F": flow.nn.functional, "np": np, "math": math, "inspect": inspect, "NoInit": NoInit,
            "tensor_attr": tensor_attr}


def _exercise(result, flow):
    """Uses what a call returned as a program would: prints it, reads all of it
    (clone) and writes it (fill_), so that a view addressing memory outside its
    storage shows as the crash it is. A clean refusal here is fine."""
    for t in result if isinstance(result, (tuple, list)) else (result,):
        if not isinstance(t, flow.Tensor):
            continue
        for use in (repr, lambda t: t.clone(), lambda t: t.detach().fill_(1)):
            try:
                use(t)
            except Exception:  # noqa: BLE001 - only a signal or a hang would be a finding
                pass


def _target_object(target, ns):
    """The callable `target` names (for its __name__), or None."""
    obj = ns
    for i, part in enumerate(target.split(".")):
        try:
            obj = obj[part] if i == 0 else getattr(obj, part)
        except (KeyError, AttributeError):
            return None
    return obj


def run_case(code, ns, target=None):
    """(outcome, detail) of one case; `target` (e.g. "flow.addmm") is the op
    whose name a clean exception must carry."""
    flow = ns["flow"]
    try:
        result = eval(code, ns)  # noqa: S307 - the fuzz case is our own source text
        _exercise(result, flow)
        flow.synchronize()  # an asynchronous kernel error belongs to this case
        return "ok", type(result).__name__
    except BaseException as e:  # noqa: BLE001 - classifying is the point
        if isinstance(e, (KeyboardInterrupt, SystemExit)):
            return "bad", f"{type(e).__name__} escaped"
        try:
            flow.synchronize()
        except BaseException:  # noqa: BLE001 - drained, belongs to this case
            pass
        return classify_exception(e, op_names(target, _target_object(target, ns)) if target else None)
    finally:
        flow.set_default_dtype(flow.float32)
        flow.set_grad_enabled(True)


def main():
    if "libasan" in os.environ.get("LD_PRELOAD", ""):
        # Under AddressSanitizer the address space holds its shadow (terabytes,
        # reserved): an RLIMIT_AS would fail every later mapping. ASan's own
        # max_allocation_size_mb (.ci/sanitize) is the ceiling there.
        pass
    else:
        resource.setrlimit(resource.RLIMIT_AS, (_MEMORY_LIMIT, _MEMORY_LIMIT))
    warnings.simplefilter("ignore")
    # The protocol gets private copies of stdin/stdout: whatever the code
    # under test prints or reads must not corrupt it.
    proto_in = os.fdopen(os.dup(0), "r")
    out = os.fdopen(os.dup(1), "w")
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    ns = _namespace()
    out.write(json.dumps({"ready": True}) + "\n")  # imported: the per-case timeout starts now
    out.flush()
    for line in proto_in:
        case = json.loads(line)
        outcome, detail = run_case(case["code"], ns, case.get("target"))
        out.write(json.dumps({"id": case["id"], "outcome": outcome, "detail": detail}) + "\n")
        out.flush()


if __name__ == "__main__":
    main()
