"""Writes the generated pages of the site (see conf.py).

- guide/: one page per ``##`` section of README.md;
- topics/: one page per file of docs/ (including it, not copying it);
- api/: one page per public namespace, an autodoc entry per public name,
  chosen by the same rules as tests/test_docs.py.
"""
import importlib
import inspect
import os
import re

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

NAMESPACES = [
    "monoflow", "monoflow.Tensor", "monoflow.nn", "monoflow.nn.functional", "monoflow.nn.init",
    "monoflow.nn.utils", "monoflow.optim", "monoflow.optim.lr_scheduler", "monoflow.utils.data",
    "monoflow.autograd", "monoflow.linalg", "monoflow.special", "monoflow.fft",
    "monoflow.distributed", "monoflow.comm", "monoflow.sbp", "monoflow.env",
    "monoflow.multiprocessing", "monoflow.cuda", "monoflow.amp", "monoflow.backends",
    "monoflow.accelerator",
]


def _write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    # Unchanged pages keep their time stamp, so Sphinx rebuilds only what changed.
    if os.path.exists(path) and open(path, encoding="utf-8").read() == text:
        return
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def _slug(title):
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")


def readme_sections():
    """(title, markdown) of each ``## `` section of the README, outside code blocks."""
    text = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    sections, title, lines, in_code = [], None, [], False
    for line in text.splitlines():
        if line.startswith("```"):
            in_code = not in_code
        if not in_code and line.startswith("## "):
            if title:
                sections.append((title, "\n".join(lines)))
            title, lines = line[3:].strip(), []
        elif title:
            lines.append(line)
    if title:
        sections.append((title, "\n".join(lines)))
    return sections


def _public_names(namespace):
    """The public names of a namespace, as tests/test_docs.py selects them."""
    if namespace == "monoflow.Tensor":
        tensor = importlib.import_module("monoflow").Tensor
        names = []
        for name in dir(tensor):
            owner = next((k for k in tensor.__mro__ if name in vars(k)), object)
            if not name.startswith("_") and owner is not object and \
                    not getattr(vars(owner)[name], "__monoflow_not_implemented__", False):
                names.append((name, vars(owner)[name]))
        return names
    module = importlib.import_module(namespace)
    names = getattr(module, "__all__", None) or [n for n in dir(module) if not n.startswith("_")]
    out = []
    for name in sorted(names):
        obj = getattr(module, name, None)
        if obj is None or inspect.ismodule(obj) or getattr(obj, "__monoflow_not_implemented__", False):
            continue
        if not (inspect.isclass(obj) or callable(obj)):
            continue
        if not (getattr(obj, "__module__", None) or "monoflow").startswith("monoflow"):
            continue
        out.append((name, obj))
    return out


def api_page(namespace, documented):
    """The page of `namespace`. `documented` maps each object already on a
    page to its qualified name: an object met again (an alias, or a name
    re-exported by another namespace) gets a line pointing there instead of a
    second description."""
    title = f"``{namespace}``"
    lines = [title, "=" * len(title), ""]
    if namespace == "monoflow.Tensor":
        lines += [".. autoclass:: monoflow.Tensor", "   :no-members:", ""]
        for name, attr in _public_names(namespace):
            kind = "autoattribute" if inspect.isdatadescriptor(attr) or isinstance(attr, property) else "automethod"
            lines += [f".. {kind}:: monoflow.Tensor.{name}", ""]
        return "\n".join(lines)
    lines += [f".. module:: {namespace}", ""]
    tensor = importlib.import_module("monoflow").Tensor
    for name, obj in _public_names(namespace):
        role = "class" if inspect.isclass(obj) else "func"
        first = documented.setdefault(id(obj), f"{namespace}.{name}")
        if obj is tensor:  # it has a page of its own, its methods one by one
            lines += [f"``{namespace}.{name}``: see :doc:`monoflow.Tensor`.", ""]
        elif first != f"{namespace}.{name}":
            lines += [f"``{namespace}.{name}`` is :{role}:`{first}`.", ""]
        elif inspect.isclass(obj):
            lines += [f".. autoclass:: {namespace}.{name}", "   :members:", ""]
        else:
            lines += [f".. autofunction:: {namespace}.{name}", ""]
    return "\n".join(lines)


def write_all(site):
    out = os.path.join(site, "generated")
    guide = []
    for title, body in readme_sections():
        slug = _slug(title)
        guide.append(slug)
        _write(os.path.join(out, "guide", f"{slug}.md"), f"# {title}\n{body}\n")
    topics = []
    for name in sorted(os.listdir(os.path.join(ROOT, "docs"))):
        if name.endswith(".md"):
            topics.append(name[:-3])
            rel = os.path.relpath(os.path.join(ROOT, "docs", name), os.path.join(out, "topics"))
            _write(os.path.join(out, "topics", name), f"```{{include}} {rel}\n```\n")
    api, documented = [], {}
    for namespace in NAMESPACES:
        try:
            page = api_page(namespace, documented)
        except ImportError:
            continue  # a namespace this build does not have
        api.append(namespace)
        _write(os.path.join(out, "api", f"{namespace}.rst"), page)
    toc = lambda caption, folder, items: "\n".join(  # noqa: E731
        [f".. toctree::", f"   :caption: {caption}", "   :maxdepth: 1", ""]
        + [f"   generated/{folder}/{item}" for item in items]) + "\n"
    _write(os.path.join(out, "toc.inc"), "\n".join([
        toc("Guide (the README, one page per section)", "guide", guide),
        toc("Topics", "topics", topics),
        toc("API reference", "api", api),
    ]))
