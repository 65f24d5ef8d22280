"""monoflow.library / monoflow.ops (torch.library, torch.ops) against torch: defining operators, kernels per
dispatch key, fake kernels, backward formulas, the refusals torch gives, and the torchvision namespace."""
import itertools

import numpy as np
import pytest

import monoflow as flow

torch = pytest.importorskip("torch")
_ids = itertools.count()


def _ns():
    return f"mf_test_ns{next(_ids)}"


def _both(schema, kernel_t, kernel_m, key="CompositeExplicitAutograd"):
    """The same operator in torch and in monoflow: (torch op, monoflow op, monoflow ns)."""
    ns_t, ns_m = _ns(), _ns()
    lt = torch.library.Library(ns_t, "DEF")
    lt.define(schema)
    name = schema[:schema.index("(")]
    lt.impl(name, kernel_t, key)
    lm = flow.library.Library(ns_m, "DEF")
    lm.define(schema)
    lm.impl(name, kernel_m, key)
    _both.keep.append((lt, lm))  # torch drops the registrations when its Library is collected
    return getattr(getattr(torch.ops, ns_t), name), getattr(getattr(flow.ops, ns_m), name), ns_m


_both.keep = []


def test_define_impl_call_with_defaults_and_kwargs():
    top, mop, _ = _both("scaled(Tensor x, float alpha=2.0) -> Tensor", lambda x, alpha=2.0: x * alpha,
                        lambda x, alpha=2.0: x * alpha)
    a = np.array([1.0, -2.0, 3.5])
    for kw in ({}, {"alpha": 0.5}):
        np.testing.assert_array_equal(mop(flow.tensor(a), **kw).numpy(), top(torch.tensor(a), **kw).numpy())
    np.testing.assert_array_equal(mop.default(flow.tensor(a), 3.0).numpy(), top.default(torch.tensor(a), 3.0).numpy())
    for op, lib in ((top, torch), (mop, flow)):  # torch's argument errors are RuntimeErrors
        with pytest.raises(RuntimeError, match="argument"):
            op(lib.tensor(a), 1.0, 2.0)
        with pytest.raises(RuntimeError, match="beta"):
            op(lib.tensor(a), beta=1.0)
        with pytest.raises(RuntimeError, match="missing value for argument 'x'"):
            op()


def test_missing_operator_is_attribute_error_as_in_torch():
    with pytest.raises(AttributeError):
        torch.ops.mf_absent_ns.nothing
    with pytest.raises(AttributeError):
        flow.ops.mf_absent_ns.nothing
    assert not hasattr(flow.ops.mf_absent_ns, "nothing")


def test_registrations_on_an_undefined_operator_raise_runtime_error():
    for lib in (torch, flow):
        with pytest.raises(RuntimeError, match="does not exist"):
            lib.library.register_fake("mf_absent_ns::op", lambda x: x)
    with pytest.raises(RuntimeError, match="does not exist"):
        flow.library.register_autograd("mf_absent_ns::op", lambda ctx, g: g)
    with pytest.raises(RuntimeError, match="does not exist"):
        flow.library.Library("mf_absent_ns", "IMPL").impl("op", lambda x: x, "CPU")


def test_second_python_kernel_for_a_key_is_refused():
    _, mop, ns = _both("ident(Tensor x) -> Tensor", lambda x: x.clone(), lambda x: x.clone())
    with pytest.raises(RuntimeError, match="already"):
        flow.library.Library(ns, "IMPL").impl("ident", lambda x: x, "CompositeExplicitAutograd")
    flow.library.Library(ns, "IMPL").impl("ident", lambda x: x * 0, "CompositeExplicitAutograd", allow_override=True)
    assert mop(flow.ones(2)).tolist() == [0.0, 0.0]


def test_define_twice_and_bad_schema():
    ns = _ns()
    lib = flow.library.Library(ns, "DEF")
    lib.define("f(Tensor x) -> Tensor")
    with pytest.raises(RuntimeError, match="already defined"):
        lib.define("f(Tensor x) -> Tensor")
    with pytest.raises(RuntimeError, match="schema"):
        lib.define("g Tensor x")
    with pytest.raises(RuntimeError, match="IMPL"):
        flow.library.Library(ns, "IMPL").define("h(Tensor x) -> Tensor")
    with pytest.raises(ValueError):
        flow.library.Library(ns, "BAD")


def test_no_kernel_for_the_backend_is_not_implemented_error_as_in_torch():
    ns_t, ns_m = _ns(), _ns()
    lt = torch.library.Library(ns_t, "DEF")
    lt.define("cudaonly(Tensor x) -> Tensor")
    lt.impl("cudaonly", lambda x: x, "CUDA")
    lm = flow.library.Library(ns_m, "DEF")
    lm.define("cudaonly(Tensor x) -> Tensor")
    lm.impl("cudaonly", lambda x: x, "CUDA")
    with pytest.raises(NotImplementedError):
        getattr(torch.ops, ns_t).cudaonly(torch.ones(1))
    with pytest.raises(NotImplementedError, match="CPU"):
        getattr(flow.ops, ns_m).cudaonly(flow.ones(1))


def test_device_kernel_is_chosen_before_composite():
    ns = _ns()
    flow.library.define(f"{ns}::which", "(Tensor x) -> Tensor")
    flow.library.impl(f"{ns}::which", "default", lambda x: x * 0 + 1)
    assert getattr(flow.ops, ns).which(flow.zeros(1)).item() == 1
    flow.library.impl(f"{ns}::which", "cpu", lambda x: x * 0 + 2)
    assert getattr(flow.ops, ns).which(flow.zeros(1)).item() == 2
    assert flow.library.get_kernel(f"{ns}::which", "CPU")(flow.zeros(1)).item() == 2
    with pytest.raises(RuntimeError, match="no kernel"):
        flow.library.get_kernel(f"{ns}::which", "CUDA")


def test_register_autograd_gradient_matches_torch():
    def setup(ctx, inputs, output):
        ctx.save_for_backward(inputs[0])
        ctx.p = inputs[1]

    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * ctx.p * x ** (ctx.p - 1), None

    top, mop, ns = _both("powp(Tensor x, float p) -> Tensor", lambda x, p: x ** p, lambda x, p: x ** p)
    torch.library.register_autograd(top._qualified_op_name, backward, setup_context=setup)
    flow.library.register_autograd(f"{ns}::powp", backward, setup_context=setup)
    a = np.array([0.5, 1.5, 2.0])
    t, m = torch.tensor(a, requires_grad=True), flow.tensor(a, requires_grad=True)
    top(t, 3.0).sum().backward()
    mop(m, 3.0).sum().backward()
    np.testing.assert_allclose(m.grad.numpy(), t.grad.numpy())
    with flow.no_grad():  # no backward is recorded without grad mode
        assert not mop(m, 3.0).requires_grad


def test_backward_returning_the_wrong_count_is_refused():
    ns = _ns()
    flow.library.define(f"{ns}::bad", "(Tensor x, float p) -> Tensor")
    flow.library.impl(f"{ns}::bad", "default", lambda x, p: x * p)
    flow.library.register_autograd(f"{ns}::bad", lambda ctx, g: g)
    x = flow.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="gradient"):
        getattr(flow.ops, ns).bad(x, 2.0).sum().backward()


def test_fake_kernel_runs_for_meta_inputs():
    ns = _ns()
    flow.library.define(f"{ns}::rows", "(Tensor x) -> Tensor")
    flow.library.impl(f"{ns}::rows", "cpu", lambda x: x.sum(1))

    @flow.library.register_fake(f"{ns}::rows")
    def _(x):
        return x.new_empty(x.shape[0])

    assert getattr(flow.ops, ns).rows(flow.empty(5, 2, device="meta")).shape == (5,)
    assert getattr(flow.ops, ns).rows(flow.ones(3, 2)).tolist() == [2.0, 2.0, 2.0]
    with pytest.raises(RuntimeError, match="already has a fake"):
        flow.library.register_fake(f"{ns}::rows", lambda x: x)
    assert flow.library.impl_abstract is flow.library.register_fake


def test_autocast_kernel_and_exclude_guard():
    ns = _ns()
    flow.library.define(f"{ns}::ac", "(Tensor x) -> Tensor")
    flow.library.impl(f"{ns}::ac", "cpu", lambda x: x * 0 + 1)
    lib = flow.library.Library(ns, "IMPL")
    lib.impl("ac", lambda x: x * 0 + 5, "AutocastCPU")
    op = getattr(flow.ops, ns).ac
    assert op(flow.zeros(1)).item() == 1
    with flow.autocast("cpu", dtype=flow.bfloat16):
        assert op(flow.zeros(1)).item() == 5
        keys = flow._C.DispatchKeySet(flow._C.DispatchKey.AutocastCPU)
        with flow._C._ExcludeDispatchKeyGuard(keys):
            assert op(flow.zeros(1)).item() == 1
    with pytest.raises(ValueError, match="dispatch key"):
        lib.impl("ac", lambda x: x, "NoSuchKey")


def test_dispatch_key_set_algebra_as_torch():
    for C in (torch._C, flow._C):
        a = C.DispatchKeySet(C.DispatchKey.AutocastCPU)
        b = C.DispatchKeySet(C.DispatchKey.AutocastCUDA)
        u = a | b
        assert u.has(C.DispatchKey.AutocastCPU) and u.has(C.DispatchKey.AutocastCUDA)
        assert not (u - a).has(C.DispatchKey.AutocastCPU)
    with pytest.raises(TypeError):
        flow._C._ExcludeDispatchKeyGuard("AutocastCPU")


def test_load_library_cannot_load_a_libtorch_extension(tmp_path):
    path = tmp_path / "ext.so"
    path.write_bytes(b"")
    with pytest.raises(OSError, match="Could not load this library"):
        flow.ops.load_library(str(path))
    with pytest.raises(OSError):
        torch.ops.load_library(str(path))


def test_custom_ops_get_ctx_says_there_is_no_fake_mode():
    with pytest.raises(RuntimeError, match="fake tensor mode"):
        flow._custom_ops.get_ctx()


def _nms_reference(boxes, scores, thr):
    order = list(np.argsort(-scores, kind="stable"))
    keep = []
    while order:
        i = order.pop(0)
        keep.append(i)
        rest = []
        for j in order:
            w = max(0.0, min(boxes[i, 2], boxes[j, 2]) - max(boxes[i, 0], boxes[j, 0]))
            h = max(0.0, min(boxes[i, 3], boxes[j, 3]) - max(boxes[i, 1], boxes[j, 1]))
            inter = w * h
            area = lambda b: (b[2] - b[0]) * (b[3] - b[1])  # noqa: E731
            if inter / (area(boxes[i]) + area(boxes[j]) - inter) <= thr:
                rest.append(j)
        order = rest
    return keep


def test_torchvision_namespace_nms_and_roi_align():
    rng = np.random.default_rng(0)
    xy = rng.random((40, 2)) * 50
    boxes = np.concatenate([xy, xy + 5 + rng.random((40, 2)) * 20], 1).astype(np.float32)
    scores = rng.random(40).astype(np.float32)
    got = flow.ops.torchvision.nms(flow.tensor(boxes), flow.tensor(scores), 0.3)
    assert got.dtype == flow.int64
    assert got.tolist() == _nms_reference(boxes, scores, 0.3)
    assert "torchvision::nms(Tensor dets" in flow.ops.torchvision.nms._schema
    feat = flow.tensor(rng.standard_normal((1, 2, 8, 8)).astype(np.float32))
    rois = flow.tensor([[0, 1.0, 1.0, 6.0, 5.0]])
    np.testing.assert_allclose(flow.ops.torchvision.roi_align(feat, rois, 1.0, 2, 2, 2, True).numpy(),
                               flow.roi_align(feat, rois, 1.0, 2, 2, 2, True).numpy())
    with pytest.raises(NotImplementedError, match="torchvision::qnms"):
        flow.ops.torchvision.qnms(flow.tensor(boxes), flow.tensor(scores), 0.3)
    with pytest.raises(NotImplementedError, match="torchvision::roi_pool"):
        flow.ops.torchvision.roi_pool(feat, rois, 1.0, 2, 2)
    # torchvision registers fake kernels for these at import, which needs them defined
    flow.library.register_fake("torchvision::qnms", lambda d, s, t: d.new_empty(0), allow_override=True)
