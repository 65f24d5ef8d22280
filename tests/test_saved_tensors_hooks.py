"""autograd.graph.saved_tensors_hooks / save_on_cpu / disable_saved_tensors_hooks against torch,
for the tensors a Python autograd.Function saves with ctx.save_for_backward (built-in operators'
saves: test_saved_tensors_hooks_builtin.py)."""
import numpy as np
import pytest
import torch

import monoflow as flow


def _fn(lib):
    class MulExp(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            e = x.exp()
            ctx.save_for_backward(e, y)
            return e * y

        @staticmethod
        def backward(ctx, g):
            e, y = ctx.saved_tensors
            return g * e * y, g * e

    return MulExp


def _run(lib, x, y, ctxmgr_factory):
    xs = lib.tensor(x, requires_grad=True)
    ys = lib.tensor(y, requires_grad=True)
    with ctxmgr_factory(lib):
        out = _fn(lib).apply(xs, ys * 2)
    (out * out).sum().backward()
    return out.detach().numpy(), xs.grad.numpy(), ys.grad.numpy()


def test_pack_unpack_called_and_grads_match_torch():
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((3, 4)).astype(np.float32), rng.standard_normal((3, 4)).astype(np.float32)
    logs = {}

    def factory(lib):
        log = logs.setdefault(lib.__name__, [])

        def pack(t):
            log.append(("pack", tuple(t.shape)))
            return ("box", t * 1)

        def unpack(p):
            log.append(("unpack",))
            assert p[0] == "box"
            return p[1]

        return lib.autograd.graph.saved_tensors_hooks(pack, unpack)

    got, want = _run(flow, x, y, factory), _run(torch, x, y, factory)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    # the Function's own two saves and the two unpacks at backward (the mul by 2 saves nothing, in
    # either framework; built-in ops' saves are tested in test_saved_tensors_hooks_builtin.py)
    mf = logs["monoflow"]
    assert mf == [("pack", (3, 4)), ("pack", (3, 4)), ("unpack",), ("unpack",)]
    assert logs["torch"] == mf


def test_save_on_cpu_and_nested_hooks():
    rng = np.random.default_rng(1)
    x, y = rng.standard_normal(5).astype(np.float32), rng.standard_normal(5).astype(np.float32)
    got = _run(flow, x, y, lambda lib: lib.autograd.graph.save_on_cpu())
    want = _run(torch, x, y, lambda lib: lib.autograd.graph.save_on_cpu())
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    seen = []
    outer = flow.autograd.graph.saved_tensors_hooks(lambda t: seen.append("outer") or t, lambda t: t)
    inner = flow.autograd.graph.saved_tensors_hooks(lambda t: seen.append("inner") or t, lambda t: t)
    with outer:
        with inner:
            _fn(flow).apply(flow.ones(2, requires_grad=True), flow.ones(2))
        _fn(flow).apply(flow.ones(2, requires_grad=True), flow.ones(2))
    assert seen == ["inner", "inner", "outer", "outer"]


def test_bad_unpack_and_disabled():
    hooks = flow.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: 3)
    with hooks:
        out = _fn(flow).apply(flow.ones(2, requires_grad=True), flow.ones(2))
    with pytest.raises(TypeError):
        out.sum().backward()
    with pytest.raises(TypeError):
        flow.autograd.graph.saved_tensors_hooks(1, lambda t: t)
    with flow.autograd.graph.disable_saved_tensors_hooks("no hooks here"):
        with pytest.raises(RuntimeError, match="no hooks here"):
            with flow.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
                pass
    with torch.autograd.graph.disable_saved_tensors_hooks("no hooks here"):
        with pytest.raises(RuntimeError, match="no hooks here"):
            with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
                pass
