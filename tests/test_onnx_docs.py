"""monoflow.onnx's public names follow the docstring rules test_docs.py checks
for the other namespaces: a summary, every argument named, an example that runs."""

import doctest
import inspect

import numpy as np
import pytest

pytest.importorskip("onnx")

import monoflow as flow  # noqa: E402
import monoflow.onnx  # noqa: E402,F401
from test_docs import _problems  # noqa: E402


def _public():
    return [(f"monoflow.onnx.{n}", getattr(flow.onnx, n)) for n in flow.onnx.__all__]


def test_onnx_public_names_have_docstrings():
    bad = {q: p for q, obj in _public() if (p := _problems(q, obj))}
    assert not bad, bad


def test_onnx_docstring_examples_run():
    parser, flags = doctest.DocTestParser(), doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    for qualname, obj in _public():
        doc = inspect.getdoc(obj) or ""
        if ">>>" not in doc:
            continue
        globs = {"flow": flow, "np": np, "nn": flow.nn, "F": flow.nn.functional}
        out = []
        runner = doctest.DocTestRunner(optionflags=flags)
        runner.run(parser.get_doctest(doc, globs, qualname, None, 0), out=out.append)
        assert not runner.failures, "".join(out)
