"""OneFlow module-test compatibility (helper opA): behaviours found by running
OneFlow's python/oneflow/test/modules tests against monoflow, checked against
torch or numpy."""
import threading

import numpy as np
import pytest
import torch

import monoflow as flow


# --- flow.asyncs (OneFlow test_asyncs_thread) ---------------------------------

def test_asyncs_thread_context_results_unchanged():
    worker = flow.asyncs.Thread()
    with flow.asyncs.thread(worker) as w:
        assert w is worker and flow.asyncs.current_thread() is worker
        x = flow.ones(3) * 2
        assert flow.ones(1)[0] == 1
    assert flow.asyncs.current_thread() is None
    np.testing.assert_array_equal(x.numpy(), np.full(3, 2.0, np.float32))


def test_asyncs_thread_nests_is_thread_local_and_decorates():
    a, b = flow.asyncs.Thread(), flow.asyncs.Thread()
    assert a.thread_global_id != b.thread_global_id
    seen = []
    with flow.asyncs.thread(a):
        with flow.asyncs.thread(b):
            t = threading.Thread(target=lambda: seen.append(flow.asyncs.current_thread()))
            t.start(); t.join()
            assert flow.asyncs.current_thread() is b
        assert flow.asyncs.current_thread() is a
    assert seen == [None]

    @flow.asyncs.thread(b)
    def f():
        return flow.asyncs.current_thread()
    assert f() is b and flow.asyncs.current_thread() is None


def test_asyncs_thread_rejects_non_thread():
    with pytest.raises(TypeError, match="asyncs.thread"):
        flow.asyncs.thread(3)


# --- autograd out_grads= (OneFlow test_autograd_grad) -------------------------

def test_autograd_grad_out_grads_alias_matches_torch():
    xf = flow.tensor(10.0, requires_grad=True)
    xt = torch.tensor(10.0, requires_grad=True)
    yf, yt = xf * xf * xf, xt * xt * xt
    (gf,) = flow.autograd.grad(outputs=yf, inputs=xf, out_grads=flow.ones_like(yf), create_graph=True)
    (gt,) = torch.autograd.grad(outputs=yt, inputs=xt, grad_outputs=torch.ones_like(yt), create_graph=True)
    assert gf.item() == pytest.approx(gt.item())
    (ggf,) = flow.autograd.grad(gf, xf, out_grads=flow.ones_like(gf))
    (ggt,) = torch.autograd.grad(gt, xt, grad_outputs=torch.ones_like(gt))
    assert ggf.item() == pytest.approx(ggt.item())
    with pytest.raises(TypeError, match="out_grads"):
        flow.autograd.grad(yf, xf, grad_outputs=flow.ones_like(yf), out_grads=flow.ones_like(yf))


def test_autograd_backward_out_grads_alias():
    x = flow.tensor([1.0, 2.0], requires_grad=True)
    flow.autograd.backward(x * 3, out_grads=flow.tensor([1.0, 2.0]))
    np.testing.assert_allclose(x.grad.numpy(), [3.0, 6.0])
