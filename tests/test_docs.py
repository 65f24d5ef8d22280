"""Every public name has a docstring that helps: a summary, each argument
named, and an example that runs (issue: help() that helps).

The rules, per kind of object:
- functions, methods and classes: a summary line; every parameter of the
  signature named in the text; an ``Example::`` whose ``>>>`` lines run and
  print what the text says (doctest, with ELLIPSIS and NORMALIZE_WHITESPACE).
  An in-place method (``add_``) may instead say "In-place version of" the op
  whose text has the example.
- exception classes and attributes (``Tensor.shape``): a summary line.
A name that only reserves a feature (monoflow._not_implemented) is exempt.
"""
import doctest
import importlib
import inspect
import re

import numpy as np
import pytest

import monoflow as flow

NAMESPACES = [
    "monoflow", "monoflow.nn", "monoflow.nn.functional", "monoflow.nn.init",
    "monoflow.nn.utils", "monoflow.optim", "monoflow.optim.lr_scheduler",
    "monoflow.utils.data", "monoflow.distributed", "monoflow.autograd",
    "monoflow.linalg", "monoflow.special", "monoflow.fft", "monoflow.cuda", "monoflow.amp",
    "monoflow.sbp", "monoflow.env", "monoflow.comm", "monoflow.multiprocessing",
    "monoflow.backends", "monoflow.accelerator", "monoflow.asyncs", "monoflow.utils.vision.transforms",
    "monoflow.utils.vision.datasets",
]
SKIP_PARAMS = {"self", "cls", "args", "kwargs"}
MIN_SUMMARY = 12  # characters: more than a name repeated


def _module(namespace):
    try:
        return importlib.import_module(namespace)
    except ImportError:
        pytest.skip(f"{namespace} is not part of this build")


def _public(namespace):
    """(qualified name, object) for the namespace's public callables and classes."""
    module = _module(namespace)
    names = getattr(module, "__all__", None) or [n for n in dir(module) if not n.startswith("_")]
    for name in names:
        obj = getattr(module, name, None)
        if obj is None or inspect.ismodule(obj) or getattr(obj, "__monoflow_not_implemented__", False):
            continue
        if not (inspect.isclass(obj) or callable(obj)):
            continue  # constants and instances (dtypes, sbp objects) share their class's doc
        if not (getattr(obj, "__module__", None) or "monoflow").startswith("monoflow"):
            continue  # a name re-exported from the standard library
        yield f"{namespace}.{name}", obj


def _tensor_attributes():
    for name in dir(flow.Tensor):
        if name.startswith("_"):
            continue
        for klass in flow.Tensor.__mro__:
            if name in vars(klass):
                attr = vars(klass)[name]
                break
        if klass is object or getattr(attr, "__monoflow_not_implemented__", False):
            continue
        yield f"monoflow.Tensor.{name}", attr


def _objects(namespace):
    return list(_tensor_attributes()) if namespace == "monoflow.Tensor" else list(_public(namespace))


def _signature_params(obj):
    target = obj
    if inspect.isclass(obj):
        target = obj.__init__ if "__init__" in vars(obj) or not issubclass(obj, Exception) else None
    try:
        sig = inspect.signature(obj if inspect.isclass(obj) else target)
    except (TypeError, ValueError):
        return None
    return [p.name for p in sig.parameters.values() if p.name not in SKIP_PARAMS]


def _problems(qualname, obj):
    """What the docstring of `obj` lacks (empty: nothing)."""
    if isinstance(obj, (property, staticmethod, classmethod)):
        obj = obj.__func__ if not isinstance(obj, property) else obj
    doc = inspect.getdoc(obj) or ""
    if isinstance(obj, property) or (inspect.isdatadescriptor(obj) and not inspect.isclass(obj)):
        return [] if len(doc.strip()) >= MIN_SUMMARY else ["no summary"]
    if inspect.isclass(obj) and issubclass(obj, BaseException):
        return [] if len(doc.strip()) >= MIN_SUMMARY else ["no summary"]
    if inspect.isclass(obj) and doc == inspect.getdoc(object):
        doc = ""
    if len(doc.strip()) < MIN_SUMMARY:
        return ["no docstring"]
    name = qualname.rsplit(".", 1)[1]
    if name.endswith("_") and "In-place version of" in doc:
        return []  # the out-of-place op's text names the arguments and has the example
    problems = []
    params = _signature_params(obj)
    if params is None:
        if not re.match(rf"(Tensor\.)?{re.escape(name)}\(", doc):
            problems.append("no signature (start the text with the call, name(...))")
    else:
        missing = [p for p in params if not re.search(rf"\b{re.escape(p)}\b", doc)]
        if missing:
            problems.append(f"arguments not described: {', '.join(missing)}")
    if ">>>" not in doc:
        problems.append("no example (>>>)")
    return problems


ALL = NAMESPACES + ["monoflow.Tensor"]


@pytest.mark.parametrize("namespace", ALL)
def test_every_public_name_has_a_docstring(namespace):
    bad = {}
    for qualname, obj in _objects(namespace):
        problems = _problems(qualname, obj)
        if problems:
            bad[qualname] = problems
    report = "\n".join(f"  {name}: {'; '.join(p)}" for name, p in sorted(bad.items()))
    assert not bad, f"{len(bad)} public names of {namespace} lack documentation:\n{report}"


def _examples(namespace):
    """The distinct docstrings of the namespace that hold examples."""
    seen, docs = set(), []
    for qualname, obj in _objects(namespace):
        doc = inspect.getdoc(obj.fget if isinstance(obj, property) else obj) or ""
        if ">>>" in doc and doc not in seen:
            seen.add(doc)
            docs.append((qualname, doc))
    return docs


@pytest.mark.parametrize("namespace", ALL)
def test_docstring_examples_run(namespace):
    parser = doctest.DocTestParser()
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    failures = []
    for qualname, doc in _examples(namespace):
        flow.manual_seed(0)
        globs = {"flow": flow, "np": np, "nn": flow.nn, "F": flow.nn.functional}
        test = parser.get_doctest(doc, globs, qualname, None, 0)
        out = []
        runner = doctest.DocTestRunner(optionflags=flags)
        runner.run(test, out=out.append)
        if runner.failures:
            failures.append("".join(out))
    assert not failures, f"{len(failures)} docstring examples of {namespace} fail:\n" + "\n".join(failures)


def test_the_checker_catches_what_it_should():
    def undocumented(x, y):
        pass

    def half(x, y):
        """Adds x to something, and that is all there is."""

    def full(x, y):
        """Adds x to y, that is what it does.

        Example::

            >>> 1 + 1
            2
        """

    assert _problems("m.undocumented", undocumented) == ["no docstring"]
    assert _problems("m.half", half) == ["arguments not described: y", "no example (>>>)"]
    assert _problems("m.full", full) == []


def test_one_text_shows_on_the_function_and_the_method():
    assert flow.add.__doc__ and flow.Tensor.add.__doc__
    body = inspect.getdoc(flow.add).split("\n", 1)[1].strip()
    assert body in inspect.getdoc(flow.Tensor.add)
    assert inspect.getdoc(flow.Tensor.add).startswith("Tensor.add(other")
    assert list(inspect.signature(flow.Tensor.add).parameters) == ["self", "other", "alpha"]


def test_the_text_shows_on_the_tensor_method_taken_from_the_class():
    # help(flow.Tensor.abs): Tensor's metaclass hands out Python methods
    # wrapped, and the wrapper must carry the text (not an older, empty one)
    assert inspect.getdoc(flow.Tensor.abs).startswith("Tensor.abs() -> Tensor")
    assert inspect.getdoc(flow.Tensor.absolute).startswith("Tensor.abs() -> Tensor")  # the same method
    assert "In-place version of" in inspect.getdoc(flow.Tensor.clamp_)
