"""Generate docs/compatibility.md: which PyTorch and OneFlow names monoflow has.

The PyTorch side is read from the installed torch by introspection; the OneFlow
side from the name lists in tools/oneflow_api/ (OneFlow is not installable
here, so its documented API reference is stored as data).  Each name gets one
status, by the rules written into the generated file (STATUS_RULES below).

    python tools/compat_map.py                       # write docs/compatibility.md
    python tools/compat_map.py --json counts.json    # also save the counts
    python tools/compat_map.py --before before.json  # "before" column (default:
                                                     # tools/compat_map_before.json)
    python tools/compat_map.py --source DIR --json before.json --no-doc
        # measure the monoflow package under DIR (e.g. a git worktree's python/)
        # instead of the installed one
"""

import argparse
import importlib
import inspect
import json
import os
import sys
import types
import warnings

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ONEFLOW_API_DIR = os.path.join(ROOT, "tools", "oneflow_api")
DEFAULT_DOC = os.path.join(ROOT, "docs", "compatibility.md")
# Counts at the session start (commit 5496c21), written by --json; see its "_note".
DEFAULT_BEFORE = os.path.join(ROOT, "tools", "compat_map_before.json")

# (label, torch module or attribute path) -- monoflow's counterpart is the
# same path with "torch" replaced by "monoflow".
TORCH_NAMESPACES = [
    "torch",
    "torch.Tensor",
    "torch.nn",
    "torch.nn.functional",
    "torch.optim",
    "torch.optim.lr_scheduler",
    "torch.utils.data",
    "torch.distributed",
    "torch.autograd",
    "torch.cuda",
    "torch.backends",
    "torch.accelerator",
]

# OneFlow namespaces, each read from tools/oneflow_api/<file>.
ONEFLOW_NAMESPACES = [
    ("oneflow", "oneflow.txt"),
    ("oneflow.Tensor", "Tensor.txt"),
    ("oneflow.nn", "nn.txt"),
    ("oneflow.nn.functional", "nn.functional.txt"),
    ("oneflow.env", "env.txt"),
    ("oneflow.comm", "comm.txt"),
    ("oneflow.sbp", "sbp.txt"),
    ("oneflow.nn.Graph", "nn.Graph.txt"),
]

STATUS_RULES = """\
Status rules:

- **missing**: the name is not an attribute of the monoflow namespace, or the
  attribute is an explicit not-implemented placeholder (an object marked
  `__monoflow_not_implemented__`, whose call raises `NotImplementedError`
  naming the feature; see `python/monoflow/_not_implemented.py`).
- **differs**: present, but measurably not the same thing: torch has a class
  where monoflow has a function, or the signature lacks parameters torch's
  has (parameter names compared with `inspect.signature` when both sides are
  inspectable and monoflow's takes no `**kwargs`; classes compare `__init__`;
  when monoflow takes `*args`, torch's positional-only parameters are not
  counted). The lacking parameter names are listed.
- **present**: otherwise. Torch functions implemented in C have no inspectable
  signature, so they are present once the name exists.
- Public names of a torch module: its `__all__` plus every `dir()` name not
  starting with `_`, leaving out modules from outside torch, objects imported
  from other packages (`os`, `typing`, ...), plain constants, for `torch`
  itself names from private modules (torch's rule: public only through
  `__all__`; note `torch.__all__` itself lists many TorchScript/JIT types), and
  for submodules Python classes and functions imported from another public
  torch module (`torch.nn.functional.Tensor`). For `torch.Tensor`: every
  attribute not starting with `_`.
- OneFlow names come from its API reference sources (see
  `tools/oneflow_api/*.txt`); without OneFlow installed only presence is
  checked for them (present / missing, never differs)."""


def _quiet_getattr(obj, name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return getattr(obj, name)


def _resolve(path):
    """Import 'a.b.c' as a module, or as an attribute of its longest module prefix."""
    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:]:
            obj = _quiet_getattr(obj, attr)
        return obj
    raise ImportError(path)


def torch_public_names(obj):
    if isinstance(obj, type):
        return sorted(n for n in dir(obj) if not n.startswith("_"))
    names = set(getattr(obj, "__all__", ()))
    for name in dir(obj):
        if name.startswith("_") or name in names:
            continue
        try:
            value = _quiet_getattr(obj, name)
        except Exception:
            continue
        if isinstance(value, types.ModuleType):
            if value.__name__.startswith("torch."):
                names.add(name)
            continue
        if isinstance(value, (bool, int, float, str, dict, list, tuple, set)):
            continue  # module-level flags, constants and notes not exported in __all__
        if _imported_helper(obj.__name__, value):
            continue
        names.add(name)
    return sorted(names)


def _imported_helper(namespace, value):
    """True for a dir() name that is not part of `namespace`'s own API."""
    owner = getattr(value, "__module__", None)
    if not isinstance(owner, str):
        return False
    if owner.split(".")[0] not in ("torch", "builtins"):
        return True  # typing, functools, ...
    private_owner = any(part.startswith("_") for part in owner.split("."))
    if namespace == "torch":
        # `from torch._C import *` leaves JIT internals in dir(torch); torch's
        # own rule: a name from a private module is public only via __all__.
        return private_owner
    inside = owner == namespace or owner.startswith(namespace + ".")
    if inside:
        return False
    if isinstance(value, type):
        return not owner.startswith("torch._C")  # C classes keep their public home here
    return inspect.isfunction(value)  # Python helpers imported from elsewhere


def read_oneflow_names(filename):
    with open(os.path.join(ONEFLOW_API_DIR, filename)) as f:
        return [line.strip() for line in f if line.strip() and not line.startswith("#")]


def is_placeholder(obj):
    return bool(getattr(type(obj), "__monoflow_not_implemented__", False))


def _lookup(namespace, dotted):
    obj = namespace
    for attr in dotted.split("."):
        obj = _quiet_getattr(obj, attr)
    return obj


def _signature(obj):
    target = obj.__init__ if isinstance(obj, type) else obj
    if target is object.__init__:
        return None
    try:
        return inspect.signature(target)
    except (TypeError, ValueError):
        return None


def lacking_parameters(torch_obj, mono_obj):
    """Names of torch's parameters that monoflow's signature cannot accept."""
    ref, ours = _signature(torch_obj), _signature(mono_obj)
    if ref is None or ours is None:
        return []
    kinds = {p.kind for p in ours.parameters.values()}
    if inspect.Parameter.VAR_KEYWORD in kinds:
        return []
    has_var_positional = inspect.Parameter.VAR_POSITIONAL in kinds
    lacking = []
    for p in ref.parameters.values():
        if p.name == "self" or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        if p.kind == p.POSITIONAL_ONLY and has_var_positional:
            continue
        if p.name not in ours.parameters:
            lacking.append(p.name)
    return lacking


def classify(name, mono_ns, torch_ns=None):
    """('present' | 'missing' | 'differs', detail) for one name."""
    if mono_ns is None:
        return "missing", ""
    try:
        ours = _lookup(mono_ns, name)
    except Exception:
        return "missing", ""
    if is_placeholder(ours):
        return "missing", "placeholder"
    if torch_ns is None:
        return "present", ""
    try:
        ref = _quiet_getattr(torch_ns, name)
    except Exception:
        return "present", ""
    if isinstance(ref, type) and not isinstance(ours, type) and callable(ours):
        return "differs", "a function; torch has a class"
    if callable(ref) and callable(ours):
        lacking = lacking_parameters(ref, ours)
        if lacking:
            return "differs", "lacks " + ", ".join(lacking)
    return "present", ""


def _kind(namespace, name):
    try:
        value = _quiet_getattr(namespace, name)
    except Exception:
        return "other"
    if isinstance(value, types.ModuleType):
        return "module"
    if isinstance(value, type):
        return "class"
    return "function" if callable(value) else "other"


def _mono_namespace(path):
    try:
        return _resolve(path)
    except Exception:
        return None


def build_map():
    """{label: {'reference', 'monoflow', 'names': {name: (status, detail)}, 'kinds': {name: kind}}}."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch's deprecation notices on attribute access
        return _build_map()


def _build_map():
    import torch  # the reference

    result = {}
    for label in TORCH_NAMESPACES:
        torch_ns = _resolve(label)
        mono_path = "monoflow" + label[len("torch"):]
        mono_ns = _mono_namespace(mono_path)
        public = torch_public_names(torch_ns)
        names = {n: classify(n, mono_ns, torch_ns) for n in public}
        kinds = {n: _kind(torch_ns, n) for n in public}
        result[label] = {"reference": "torch " + torch.__version__, "monoflow": mono_path,
                         "names": names, "kinds": kinds}
    for label, filename in ONEFLOW_NAMESPACES:
        mono_path = "monoflow" + label[len("oneflow"):]
        mono_ns = _mono_namespace(mono_path)
        names = {n: classify(n, mono_ns) for n in read_oneflow_names(filename)}
        kinds = {n: "class" if n.split(".")[-1][:1].isupper() else "other" for n in names}  # no objects to inspect
        result[label] = {"reference": "tools/oneflow_api/" + filename, "monoflow": mono_path,
                         "names": names, "kinds": kinds}
    return result


def counts(mapping):
    out = {}
    for label, entry in mapping.items():
        statuses = [s for s, _ in entry["names"].values()]
        out[label] = {
            "present": statuses.count("present"),
            "missing": statuses.count("missing"),
            "differs": statuses.count("differs"),
            "total": len(statuses),
        }
    return out


KIND_HEADINGS = {"function": "functions", "class": "classes", "module": "modules", "other": "other names"}


def _fmt_counts(c):
    return "%d / %d / %d" % (c["present"], c["missing"], c["differs"])


def render(mapping, before=None, before_note=""):
    now = counts(mapping)
    lines = [
        "# Compatibility map: PyTorch and OneFlow names in monoflow",
        "",
        "Generated by `python tools/compat_map.py` from the real namespaces; do not",
        "edit by hand. Regenerate after adding names.",
        "",
        STATUS_RULES,
        "",
        "## Counts",
        "",
    ]
    if before:
        if before_note:
            lines += ["Before: " + before_note, ""]
        lines.append("| namespace | monoflow | total | present | missing | differs | before: present / missing / differs |")
        lines.append("|---|---|---:|---:|---:|---:|---|")
    else:
        lines.append("| namespace | monoflow | total | present | missing | differs |")
        lines.append("|---|---|---:|---:|---:|---:|")
    for label, c in now.items():
        row = "| `%s` | `%s` | %d | %d | %d | %d |" % (
            label, mapping[label]["monoflow"], c["total"], c["present"], c["missing"], c["differs"])
        if before:
            row += " %s |" % (_fmt_counts(before[label]) if label in before else "n/a")
        lines.append(row)
    for label, entry in mapping.items():
        by_status = {"present": [], "missing": [], "differs": []}
        for name, (status, detail) in entry["names"].items():
            by_status[status].append((name, detail))
        lines += ["", "## `%s` (reference: %s)" % (label, entry["reference"]), ""]
        missing = by_status["missing"]
        lines.append("**Missing (%d)**%s" % (len(missing), "" if missing else ": none"))
        for kind in ("function", "class", "module", "other"):
            group = [(n, d) for n, d in missing if entry["kinds"].get(n, "other") == kind]
            if group:
                lines.append("- %s (%d): " % (KIND_HEADINGS[kind], len(group)) + ", ".join(
                    "`%s`%s" % (n, " (placeholder)" if d else "") for n, d in group))
        lines.append("")
        lines.append("**Differs (%d)**%s" % (len(by_status["differs"]), ":" if by_status["differs"] else ": none"))
        if by_status["differs"]:
            lines.append("")
            lines += ["- `%s`: %s" % (n, d) for n, d in by_status["differs"]]
        lines.append("")
        lines.append("**Present (%d)**: " % len(by_status["present"]) + (
            " ".join("`%s`" % n for n, _ in by_status["present"]) or "none"))
    return "\n".join(lines) + "\n"


def _use_source_tree(source):
    """Import monoflow from `source` instead of the editable install's redirect."""
    sys.meta_path[:] = [f for f in sys.meta_path if type(f).__name__ != "ScikitBuildRedirectingFinder"]
    sys.path.insert(0, os.path.abspath(source))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=DEFAULT_DOC, help="markdown file to write")
    parser.add_argument("--json", help="also write the counts to this JSON file")
    parser.add_argument("--before", default=DEFAULT_BEFORE if os.path.exists(DEFAULT_BEFORE) else None,
                        help="JSON counts (from --json) shown as the 'before' column")
    parser.add_argument("--source", help="directory holding the monoflow package to measure")
    parser.add_argument("--no-doc", action="store_true", help="write only --json")
    args = parser.parse_args(argv)
    if args.source:
        _use_source_tree(args.source)
    mapping = build_map()
    now = counts(mapping)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(now, f, indent=1, sort_keys=True)
    if not args.no_doc:
        before, note = None, ""
        if args.before:
            with open(args.before) as f:
                data = json.load(f)
            note = data.pop("_note", "")
            before = data
        with open(args.out, "w") as f:
            f.write(render(mapping, before, note))
    for label, c in now.items():
        print("%-28s %s  (total %d)" % (label, _fmt_counts(c), c["total"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
