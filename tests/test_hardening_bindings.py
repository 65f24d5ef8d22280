"""Bad arguments at the binding layer (issue 14, items 3, 4 and 12): None or a
wrong type where a tensor (or an int, a dtype) is expected, and Tensor methods
called unbound with a foreign `self`, raise a TypeError that names the op and
the argument, as PyTorch's do; never a crash.

The sweeps run over the whole public surface (every Tensor method, every
function of monoflow and monoflow.nn.functional) in a child process, so that
a crash fails the test with the case's name instead of killing the run, and
so that a name added later is covered without editing this file.
"""
import json
import os
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import monoflow as flow
import monoflow.nn.functional as F
from helpers import TORCH

# ---------------------------------------------------------------- child-process sweeps

# The child prints one JSON line per case before running it ("start") and one
# after ("done" with the exception's type and message), so the parent knows
# which case a crash interrupted.
_SWEEP_PRELUDE = textwrap.dedent("""
    import inspect, json, sys, warnings
    warnings.simplefilter("ignore")
    import numpy as np
    import monoflow as flow
    import monoflow.nn.functional as F

    def run(key, fn):
        print(json.dumps({"key": key, "state": "start"}), flush=True)
        try:
            fn()
            r = {"key": key, "state": "done", "type": None, "msg": ""}
        except Exception as e:
            r = {"key": key, "state": "done", "type": type(e).__name__, "msg": str(e)[:400]}
        print(json.dumps(r), flush=True)
""")


def _sweep(body, timeout=600):
    """Runs the sweep `body` (Python source using run(key, fn)) in a child;
    returns {key: (exception type name or None, message)}; fails naming the
    case that crashed the child."""
    proc = subprocess.run([sys.executable, "-c", _SWEEP_PRELUDE + textwrap.dedent(body)], capture_output=True,
                          text=True, timeout=timeout, env=dict(os.environ, PYTHONFAULTHANDLER="1"))
    results, last = {}, None
    for line in proc.stdout.splitlines():
        if not line.startswith("{"):
            continue
        r = json.loads(line)
        if r["state"] == "start":
            last = r["key"]
        else:
            results[r["key"]] = (r["type"], r["msg"])
            last = None
    assert proc.returncode == 0 and last is None, (
        f"the sweep died (rc {proc.returncode}) in case {last!r}:\n{proc.stderr[-3000:]}")
    return results


# Tensor attributes that are not methods of a tensor: the class machinery and
# what Python itself defines on every class.
_NOT_TENSOR_METHODS = set(dir(object)) | {"__init_subclass__", "__class_getitem__", "__weakref__", "__dict__",
                                          "__module__", "__array_priority__", "__annotations__"}


def test_every_tensor_method_refuses_a_foreign_self():
    results = _sweep("""
        T = flow.Tensor
        skip = set(dir(object)) | {"__init_subclass__", "__class_getitem__", "__weakref__", "__dict__",
                                   "__module__", "__array_priority__", "__annotations__"}
        for name in sorted(dir(T)):
            if name in skip:
                continue
            attr = inspect.getattr_static(T, name)
            if (isinstance(attr, (staticmethod, classmethod)) or isinstance(attr, type)
                    or getattr(attr, "__monoflow_not_implemented__", False)):  # a reserved name: always raises
                continue
            for tag, self_ in (("None", None), ("str", "abc"), ("ndarray", np.ones(3)), ("int", 5)):
                if type(attr).__name__ == "getset_descriptor":  # a property of TensorBase
                    if self_ is not None:  # __get__(None, T) is the class's own access: the descriptor
                        run(f"{name}|{tag}|get", lambda: attr.__get__(self_, T))
                    run(f"{name}|{tag}|set", lambda: attr.__set__(self_, None))
                elif callable(attr):
                    fn = getattr(T, name)
                    run(f"{name}|{tag}|call", lambda: fn(self_))
                    run(f"{name}|{tag}|call1", lambda: fn(self_, 1))
    """)
    assert len(results) > 1000  # the sweep saw the whole class
    wrong = {k: v for k, v in results.items() if v[0] != "TypeError"}
    assert not wrong, f"{len(wrong)} cases did not raise TypeError: {dict(list(wrong.items())[:40])}"


def _public_functions():
    out = []
    for prefix, mod in (("flow", flow), ("F", F)):
        for name in sorted(dir(mod)):
            fn = getattr(mod, name)
            if name.startswith("_") or isinstance(fn, type) or not callable(fn) or type(fn).__name__ == "module":
                continue
            out.append(f"{prefix}.{name}")
    return out


# Parameter names that hold a tensor in torch's signatures (a required one of
# these given None must be refused with a TypeError naming the function).
_TENSOR_PARAMS = {"input", "other", "tensor", "self", "mat1", "mat2", "vec", "vec1", "vec2", "mat", "x1", "x2",
                  "target", "weight", "condition", "end", "tensor1", "tensor2", "index", "mask", "src", "mean",
                  "std", "query", "key", "value", "anchor", "positive", "negative", "log_probs", "targets",
                  "running_mean", "running_var", "start", "elements", "test_elements", "A", "B", "LU", "x", "y"}


def _tensor_taking_functions():
    import inspect

    out = []
    for qual in _public_functions():
        prefix, name = qual.split(".")
        fn = getattr(flow if prefix == "flow" else F, name)
        try:
            params = list(inspect.signature(fn).parameters.values())
        except (TypeError, ValueError):
            continue
        required = [p for p in params if p.default is inspect.Parameter.empty
                    and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        if required and required[0].name in _TENSOR_PARAMS:
            out.append((qual, len(required)))
    return out


# The functions whose None check is still missing (an AttributeError from
# inside): each a defect to fix, listed so that a new function is held to the
# rule at once. Remove a name when its function is fixed.
_NONE_NOT_YET_CHECKED = {
    # monoflow/ops_join.py
    "flow.broadcast_to", "flow.dsplit", "flow.hsplit", "flow.kron", "flow.split_with_sizes", "flow.tensor_split",
    "flow.vsplit",
    # monoflow/ops_layout.py
    "flow.diag", "flow.diag_embed", "flow.diagflat", "flow.index_add", "flow.index_copy", "flow.index_fill",
    "flow.masked_scatter", "flow.narrow_copy", "flow.ravel", "flow.repeat_interleave", "flow.rot90",
    "flow.scatter_reduce", "flow.select_scatter", "flow.slice_scatter", "flow.take", "flow.trace", "flow.unflatten",
    # monoflow/ops_matrix.py
    "flow.cdist", "flow.cross", "flow.dist", "flow.inner", "flow.matrix_power",
    # monoflow/ops_pointwise.py
    "flow.copysign", "flow.divide", "flow.float_power", "flow.greater", "flow.greater_equal", "flow.isin", "flow.less",
    "flow.less_equal", "flow.multiply", "flow.not_equal", "flow.rsub", "flow.subtract", "flow.true_divide", "flow.xlogy",
    # monoflow/nn/functional/pixel_shuffle.py
    "F.native_channel_shuffle",
}

# torch's forms: "op(): argument 'name' ..." (our converters) or "descriptor
# 'op' for ... objects doesn't apply to ..." (a Tensor method taken unbound)
_NAMED = re.compile(r"^(\w+(\.\w+)*\(\): argument '\w+'|descriptor '\w+' for )")


def test_every_function_refuses_none_for_its_tensors():
    cases = _tensor_taking_functions()
    assert len(cases) > 150
    results = _sweep(f"""
        for qual, n in {cases!r}:
            prefix, name = qual.split(".")
            fn = getattr(flow if prefix == "flow" else F, name)
            run(qual + "|None", lambda: fn(*[None] * n))
            x = flow.zeros(3)
            if n > 1:
                run(qual + "|x,None", lambda: fn(x, *[None] * (n - 1)))
    """)
    wrong = {}
    for key, (typ, msg) in results.items():
        qual, tag = key.split("|")
        if qual in _NONE_NOT_YET_CHECKED:
            continue
        if tag == "None" and (typ != "TypeError" or not _NAMED.match(msg)):
            wrong[key] = (typ, msg)
        elif typ not in (None, "TypeError", "ValueError", "RuntimeError", "IndexError", "NotImplementedError"):
            wrong[key] = (typ, msg)
    assert not wrong, f"{len(wrong)} cases: {dict(list(wrong.items())[:40])}"


# Tensor methods whose tensor argument is not checked yet (the same defects as
# _NONE_NOT_YET_CHECKED, reached through the method)
_METHOD_NONE_NOT_YET_CHECKED = {"cross", "inner", "kron", "masked_scatter", "masked_scatter_", "slice_scatter", "take"}


def test_bound_methods_refuse_none_arguments_without_crashing():
    results = _sweep("""
        T = flow.Tensor
        skip = set(dir(object)) | {"__init_subclass__", "__class_getitem__", "__weakref__", "__dict__",
                                   "__module__", "__array_priority__", "__annotations__", "__iter__",
                                   "register_hook", "retain_grad", "backward", "__reduce__", "__getstate__"}
        for name in sorted(dir(T)):
            attr = inspect.getattr_static(T, name)
            if name in skip or not callable(attr) or isinstance(attr, (staticmethod, classmethod, type)):
                continue
            for tag, args in (("None", (None,)), ("None,None", (None, None)), ("str", ("abc",))):
                run(f"{name}|{tag}", lambda: getattr(flow.zeros(3), name)(*args))
    """)
    # a clean exception or a result; never a crash (_sweep fails on one) nor a
    # stray AttributeError/SystemError from inside the binding
    wrong = {k: v for k, v in results.items() if v[0] in ("SystemError", "AttributeError")
             and k.split("|")[0] not in _METHOD_NONE_NOT_YET_CHECKED}
    assert not wrong, f"{len(wrong)} cases: {dict(list(wrong.items())[:40])}"


# ---------------------------------------------------------------- the reproducers

_NONE_OTHER = ["minimum", "maximum", "matmul", "copy_", "expand_as"]


@pytest.mark.parametrize("name", _NONE_OTHER)
def test_none_as_the_other_tensor(name):
    argname = "src" if name == "copy_" else "other"
    with pytest.raises(TypeError, match=rf"^{name}\(\): argument '{argname}' \(position 1\) must be Tensor, not NoneType$"):
        getattr(flow.zeros(3), name)(None)


@pytest.mark.skipif(TORCH is None, reason="torch is not installed")
@pytest.mark.parametrize("name", ["minimum", "maximum", "matmul", "expand_as"])
def test_none_message_is_torchs(name):
    with pytest.raises(TypeError) as theirs:
        getattr(TORCH.zeros(3), name)(None)
    with pytest.raises(TypeError) as ours:
        getattr(flow.zeros(3), name)(None)
    assert str(ours.value) == str(theirs.value)


def test_data_setter_refuses_non_tensors():
    x = flow.zeros(3)
    for bad in (None, 1.0, np.ones(3)):
        with pytest.raises(TypeError, match="Variable data has to be a tensor"):
            x.data = bad
    assert x.shape == (3,)


@pytest.mark.parametrize("call", [lambda: flow.bernoulli(None), lambda: flow.var_mean(None),
                                  lambda: flow.std_mean(None), lambda: flow.mean(None), lambda: flow.flipud(-100),
                                  lambda: flow.fliplr(None), lambda: flow.addmm(None, None, None)],
                         ids=["bernoulli", "var_mean", "std_mean", "mean", "flipud", "fliplr", "addmm"])
def test_functions_name_themselves_and_the_argument(call):
    with pytest.raises(TypeError, match=r"^\w+\(\): argument '\w+' (\(position \d\) )?must be Tensor, not \w+"):
        call()


@pytest.mark.parametrize("unbound, self_", [(flow.Tensor.sum, None), (flow.Tensor.view, "abc"),
                                            (flow.Tensor.item, np.ones(3)), (flow.Tensor.add, 1.5),
                                            (flow.Tensor.dim, [1, 2]), (flow.Tensor.float, None),
                                            (flow.Tensor.mean, "abc"), (flow.Tensor.__repr__, np.ones(3)),
                                            (flow.Tensor.__bool__, None)])
def test_descriptor_message_for_a_foreign_self(unbound, self_):
    # C methods (TensorBase) are checked by CPython, Python ones by Tensor's
    # metaclass (monoflow/_tensor_type.py), with the same message
    name = unbound.__name__
    with pytest.raises(TypeError, match=rf"^descriptor '{name}' for 'monoflow(\._C\.TensorBase|\.Tensor)' objects "
                                        rf"doesn't apply to a "
                                        rf"'{type(self_).__module__ + '.' if type(self_).__module__ != 'builtins' else ''}"
                                        rf"{type(self_).__name__}' object$"):
        unbound(self_)


def test_property_of_a_foreign_object():
    with pytest.raises(TypeError, match="doesn't apply to a 'str' object"):
        flow.Tensor.shape.__get__("abc", flow.Tensor)
    with pytest.raises(TypeError, match="doesn't apply to a 'NoneType' object"):
        flow.Tensor.requires_grad.__set__(None, True)


@pytest.mark.parametrize("call, message", [
    (lambda x: x.transpose("a", 0), r"^transpose\(\): argument 'dim0' \(position 1\) must be int, not str$"),
    (lambda x: x.unsqueeze(None), r"^unsqueeze\(\): argument 'dim' \(position 1\) must be int, not NoneType$"),
    (lambda x: x.unsqueeze(1.5), r"^unsqueeze\(\): argument 'dim' \(position 1\) must be int, not float$"),
    (lambda x: x.narrow(0, "a", 1), r"^narrow\(\): argument 'start' \(position 2\) must be int, not str$"),
    (lambda x: x.softmax(None), r"^softmax\(\): argument 'dim' must be int, not NoneType$"),
    (lambda x: x.topk("a"), r"^topk\(\): argument 'k' must be int, not str$"),
    (lambda x: x.sum(dtype=3), r"^sum\(\): argument 'dtype' must be monoflow.dtype, not int$"),
    (lambda x: x.view("abc"), r"^view\(\)"),
    (lambda x: x.size("a"), r"^size\(\): argument 'dim' \(position 1\) must be int, not str$"),
    (lambda x: x.squeeze("a"), r"^squeeze\(\): argument 'dim' \(position 1\) must be int, not str$"),
    (lambda x: x.cumsum(0, dtype="float"), r"^cumsum\(\): argument 'dtype' must be monoflow.dtype, not str$"),
    (lambda x: x.uniform_("a", 1), r"^uniform_\(\): argument 'from' must be float, not str$"),
    (lambda x: flow.promote_types(None, flow.float32),
     r"^promote_types\(\): argument 'type1' \(position 1\) must be monoflow.dtype, not NoneType$"),
])
def test_scalar_arguments_are_named(call, message):
    with pytest.raises(TypeError, match=message):
        call(flow.zeros(3))


def test_int_argument_out_of_range_names_the_op():
    with pytest.raises(OverflowError, match=r"^unsqueeze\(\): argument 'dim'"):
        flow.zeros(3).unsqueeze(2 ** 70)


def test_int_like_arguments_still_accepted():
    x = flow.zeros(2, 3)
    assert x.transpose(np.int64(0), 1).shape == (3, 2)
    assert x.unsqueeze(flow.tensor(0)).shape == (1, 2, 3)
    assert x.size(np.int32(1)) == 3
    assert x.narrow(1, 1, 2).shape == (2, 2)


def test_composite_ops_report_their_own_name():
    with pytest.raises(RuntimeError, match="^addmm"):
        flow.addmm(flow.zeros(2, 3), flow.zeros(4, 5), flow.zeros(5, 6))
    with pytest.raises((RuntimeError, ValueError), match="^batch_norm"):
        F.batch_norm(flow.zeros(2, 3), flow.zeros(4), flow.zeros(4))
