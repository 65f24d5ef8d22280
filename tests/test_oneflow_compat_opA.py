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


# --- bernoulli dtype= (OneFlow test_bernoulli) --------------------------------

@pytest.mark.parametrize("p", [None, 0, 1])
@pytest.mark.parametrize("dtype", [flow.float32, flow.int64, flow.float64])
def test_bernoulli_dtype_keyword(p, dtype):
    x = flow.ones(2, 3)
    y = flow.bernoulli(x, dtype=dtype) if p is None else flow.bernoulli(x, p=p, dtype=dtype)
    assert y.dtype == dtype and tuple(y.shape) == (2, 3)
    expect = np.zeros((2, 3)) if p == 0 else np.ones((2, 3))
    np.testing.assert_array_equal(y.numpy(), expect)
    assert x.bernoulli(p, dtype=dtype).dtype == dtype


def test_bernoulli_dtype_default_and_bad():
    assert flow.bernoulli(flow.full((4,), 0.5, dtype=flow.float64)).dtype == flow.float64
    g = flow.Generator(); g.manual_seed(0)
    a = flow.bernoulli(flow.full((64,), 0.5), generator=g, dtype=flow.int64)
    g.manual_seed(0)
    b = flow.bernoulli(flow.full((64,), 0.5), generator=g)
    np.testing.assert_array_equal(a.numpy(), b.numpy().astype(np.int64))
    with pytest.raises(TypeError, match="bernoulli"):
        flow.bernoulli(flow.ones(2), dtype="int64")


# --- nn.FusedBatchNorm1d/2d/3d (OneFlow test_batchnorm_add_relu) --------------

@pytest.mark.parametrize("ndim,name", [(3, "1d"), (4, "2d"), (5, "3d")])
@pytest.mark.parametrize("with_addend", [True, False])
@pytest.mark.parametrize("track", [True, False])
def test_fused_batchnorm_matches_torch_bn_add_relu(ndim, name, with_addend, track):
    rng = np.random.default_rng(0)
    shape = (3, 4) + (5,) * (ndim - 2)
    x, a = rng.standard_normal(shape).astype(np.float32), rng.standard_normal(shape).astype(np.float32)
    w, b = rng.standard_normal(4).astype(np.float32), rng.standard_normal(4).astype(np.float32)
    fm = getattr(flow.nn, "FusedBatchNorm" + name)(4, track_running_stats=track)
    tm = getattr(torch.nn, "BatchNorm" + name)(4, track_running_stats=track)
    with flow.no_grad():
        fm.weight.copy_(flow.tensor(w)); fm.bias.copy_(flow.tensor(b))
    with torch.no_grad():
        tm.weight.copy_(torch.tensor(w)); tm.bias.copy_(torch.tensor(b))
    for train in (True, False):
        fm.train(train); tm.train(train)
        fx, tx = flow.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
        fa, ta = flow.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
        fy = fm(fx, fa if with_addend else None)
        ty = torch.relu(tm(tx) + ta) if with_addend else torch.relu(tm(tx))
        np.testing.assert_allclose(fy.detach().numpy(), ty.detach().numpy(), rtol=1e-4, atol=1e-5)
        (fy * fy).sum().backward(); (ty * ty).sum().backward()
        np.testing.assert_allclose(fx.grad.numpy(), tx.grad.numpy(), rtol=1e-4, atol=1e-4)
        if with_addend:
            np.testing.assert_allclose(fa.grad.numpy(), ta.grad.numpy(), rtol=1e-4, atol=1e-4)
        if track:
            np.testing.assert_allclose(fm.running_var.numpy(), tm.running_var.numpy(), rtol=1e-5, atol=1e-6)
        else:
            assert fm.running_mean is None and fm.running_var is None
    np.testing.assert_allclose(fm.weight.grad.numpy(), tm.weight.grad.numpy(), rtol=1e-4, atol=1e-4)


def test_fused_batchnorm_rank_error():
    with pytest.raises(ValueError, match="expected 4D input"):
        flow.nn.FusedBatchNorm2d(3)(flow.randn(2, 3, 4))


# --- nn.CoinFlip (OneFlow test_coin_flip) -------------------------------------

def test_coin_flip_shape_dtype_device_and_probability():
    for p in (0.0, 1.0):
        x = flow.nn.CoinFlip(7, None, p, "cpu")()
        assert x.dtype == flow.int8 and tuple(x.shape) == (7,) and x.device == flow.device("cpu")
        np.testing.assert_array_equal(x.numpy(), np.full(7, int(p), np.int8))
    m = flow.nn.CoinFlip(4000, random_seed=-1, probability=0.3)
    a, b = m(), m()
    assert abs(a.float().mean().item() - 0.3) < 0.05
    assert (a != b).any().item()  # each call draws anew


def test_coin_flip_seed_reproducible_and_global():
    a = flow.nn.CoinFlip(32, random_seed=5)()
    b = flow.nn.CoinFlip(32, random_seed=5)()
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    g = flow.nn.CoinFlip(4, placement=flow.placement("cpu", ranks=[0]), sbp=flow.sbp.broadcast)()
    assert g.is_global and tuple(g.shape) == (4,)
    with pytest.raises(ValueError, match="CoinFlip"):
        flow.nn.CoinFlip(2, probability=1.5)
    with pytest.raises(ValueError, match="CoinFlip"):
        flow.nn.CoinFlip(2, device="cpu", placement=flow.placement("cpu", ranks=[0]), sbp=flow.sbp.broadcast)


# --- Tensor.contiguous_ (OneFlow test_contiguous) -----------------------------

def test_tensor_contiguous_inplace_matches_contiguous():
    arr = np.random.default_rng(0).standard_normal((4, 5, 6, 7)).astype(np.float32)
    x = flow.tensor(arr).permute(0, 3, 2, 1)
    assert not x.is_contiguous()
    y1 = x.contiguous()
    y2 = x.contiguous_()
    assert y2 is x and x.is_contiguous() and y1 is not x
    np.testing.assert_array_equal(y2.numpy(), np.transpose(arr, (0, 3, 2, 1)))
    assert x.stride() == y1.stride() == torch.from_numpy(arr).permute(0, 3, 2, 1).contiguous().stride()
    c = flow.ones(2, 3)
    assert c.contiguous_() is c and c.is_contiguous()


def test_tensor_contiguous_inplace_leaf_grad_and_history_refused():
    arr = np.arange(6, dtype=np.float32).reshape(3, 2)
    leaf = flow.tensor(arr).t().detach().requires_grad_()  # a non-contiguous leaf
    assert leaf.contiguous_() is leaf and leaf.is_leaf and leaf.is_contiguous()
    (leaf * flow.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])).sum().backward()
    np.testing.assert_array_equal(leaf.grad.numpy(), [[1, 2, 3], [4, 5, 6]])
    view = flow.tensor(arr, requires_grad=True).t()
    with pytest.raises(RuntimeError, match="contiguous_"):
        view.contiguous_()


# --- ctc_loss gradient as torch's (OneFlow test_ctc_loss) ---------------------

@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
@pytest.mark.parametrize("input_lengths", [[5, 5], [5, 3]])
@pytest.mark.parametrize("zero_infinity", [False, True])
def test_ctc_loss_grad_matches_torch_for_unnormalised_log_probs(reduction, input_lengths, zero_infinity):
    lp = np.random.default_rng(0).uniform(-1, 1, (5, 2, 3)).astype(np.float32)  # not log-softmaxed
    tg = np.array([[1, 2, 2], [2, 2, 1]])
    ft, tt = flow.tensor(lp, requires_grad=True), torch.tensor(lp, requires_grad=True)
    fo = flow.nn.functional.ctc_loss(ft, flow.tensor(tg), flow.tensor(input_lengths), flow.tensor([3, 2]),
                                     reduction=reduction, zero_infinity=zero_infinity)
    to = torch.nn.functional.ctc_loss(tt, torch.tensor(tg), torch.tensor(input_lengths), torch.tensor([3, 2]),
                                      reduction=reduction, zero_infinity=zero_infinity)
    np.testing.assert_allclose(fo.detach().numpy(), to.detach().numpy(), rtol=1e-5, atol=1e-6)
    (fo * 1.7).sum().backward()
    (to * 1.7).sum().backward()
    np.testing.assert_allclose(ft.grad.numpy(), tt.grad.numpy(), rtol=1e-5, atol=1e-5)


def test_ctc_loss_unbatched_grad_and_no_grad_input():
    lp = np.random.default_rng(1).uniform(-2, 0, (6, 4)).astype(np.float32)
    ft, tt = flow.tensor(lp, requires_grad=True), torch.tensor(lp, requires_grad=True)
    flow.nn.functional.ctc_loss(ft, flow.tensor([1, 3]), (6,), (2,)).backward()
    torch.nn.functional.ctc_loss(tt, torch.tensor([1, 3]), (6,), (2,)).backward()
    np.testing.assert_allclose(ft.grad.numpy(), tt.grad.numpy(), rtol=1e-5, atol=1e-6)
    out = flow.nn.functional.ctc_loss(flow.tensor(lp), flow.tensor([1, 3]), (6,), (2,))
    assert not out.requires_grad


# --- flow.exponential (OneFlow test_exponential) ------------------------------

def test_exponential_out_of_place_matches_inplace_and_rate():
    g = flow.Generator()
    g.manual_seed(0)
    x = flow.rand(2, 3, 4)
    a = flow.exponential(x, generator=g)
    g.manual_seed(0)
    b = flow.empty(2, 3, 4).exponential_(generator=g)
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert a.shape == x.shape and a.dtype == x.dtype and a is not x
    m = flow.exponential(flow.empty(20000, dtype=flow.float64), 4.0)
    assert m.dtype == flow.float64 and abs(m.mean().item() - 0.25) < 0.02 and m.min().item() >= 0
    with pytest.raises(RuntimeError, match="exponential"):
        flow.exponential(flow.ones(2, dtype=flow.int64))


# --- _C.grouped_matmul / grouped_matmul_bias (OneFlow test_grouped_matmul_bias; cuda-only there) --

@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_grouped_matmul_bias_matches_torch_linear(bias, dtype):
    rng = np.random.default_rng(0)
    problems = [(2, 40, 32)] * 3 + [(6, 16, 8)] * 2  # (m, n, k) as upstream's
    xs = [rng.standard_normal((m, k)).astype(dtype) for m, n, k in problems]
    ws = [rng.standard_normal((n, k)).astype(dtype) for m, n, k in problems]
    bs = [rng.standard_normal(n).astype(dtype) for m, n, k in problems]
    f = [flow.tensor(a) for a in xs], [flow.tensor(a) for a in ws], [flow.tensor(a) for a in bs]
    out = flow._C.grouped_matmul_bias(*f) if bias else flow._C.grouped_matmul(f[0], f[1])
    assert len(out) == len(problems)
    for y, x, w, b in zip(out, xs, ws, bs):
        ref = torch.nn.functional.linear(torch.tensor(x).float(), torch.tensor(w).float(),
                                         torch.tensor(b).float() if bias else None)
        assert y.dtype == getattr(flow, dtype)
        tol = 1e-2 if dtype == "float16" else 1e-5
        np.testing.assert_allclose(y.float().numpy(), ref.numpy(), rtol=tol, atol=tol * 10)


def test_grouped_matmul_errors_name_the_op():
    with pytest.raises(RuntimeError, match="grouped_matmul_bias"):
        flow._C.grouped_matmul_bias([flow.ones(2, 3)], [flow.ones(4, 3)], [])
    with pytest.raises(RuntimeError, match="grouped_matmul"):
        flow._C.grouped_matmul([flow.ones(2, 3)], [flow.ones(4, 5)])


# --- _C.fused_matmul_bias (OneFlow test_fused_matmul_bias; its CPU path is the unfused math) ------

@pytest.mark.parametrize("batch", [(1,), (4,), (2, 4), (2, 3, 1, 2)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("add,alpha,beta", [(False, 1.0, 1.0), (True, 1.0, 1.0), (True, 0.5, -2.0), (True, 2.0, 0.0)])
def test_fused_matmul_bias_matches_torch(batch, dtype, add, alpha, beta):
    rng = np.random.default_rng(0)
    x, w, b = (rng.uniform(-1, 1, s).astype(dtype) for s in ((*batch, 12), (7, 12), (7,)))
    a = rng.uniform(-1, 1, (*batch, 7)).astype(dtype)
    g = rng.standard_normal((*batch, 7)).astype(dtype)
    fx, fw, fb = (flow.tensor(v, requires_grad=True) for v in (x, w, b))
    tx, tw, tb = (torch.tensor(v, requires_grad=True) for v in (x, w, b))
    out = flow._C.fused_matmul_bias(fx, fw, fb, flow.tensor(a) if add else None, alpha, beta)
    ref = alpha * (tx @ tw.T) + tb + (beta * torch.tensor(a) if add else 0)
    assert out.dtype == getattr(flow, dtype) and tuple(out.shape) == tuple(ref.shape)
    tol = 1e-5 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=tol, atol=tol)
    out.backward(flow.tensor(g))
    ref.backward(torch.tensor(g))
    for f, t in ((fx, tx), (fw, tw), (fb, tb)):
        np.testing.assert_allclose(f.grad.numpy(), t.grad.numpy(), rtol=tol, atol=tol)


def test_fused_matmul_bias_checks_shapes():
    f = flow._C.fused_matmul_bias
    for args, phrase in [((flow.ones(2, 3), flow.ones(4, 3, 1), flow.ones(4)), "Weight's dim size should == 2"),
                         ((flow.ones(2, 3), flow.ones(4, 3), flow.ones(4, 1)), "Bias's dim size should == 1"),
                         ((flow.ones(2, 3), flow.ones(4, 3), flow.ones(5)), "Bias's dim is not equal"),
                         ((flow.ones(2, 5), flow.ones(4, 3), flow.ones(4)), "weight's second dim")]:
        with pytest.raises(RuntimeError, match="fused_matmul_bias") as e:
            f(*args)
        assert phrase in str(e.value)
    with pytest.raises(TypeError, match="fused_matmul_bias"):
        f([[1.0]], flow.ones(1, 1), flow.ones(1))


# --- _C.fused_matmul_bias_add_relu_dropout (OneFlow test_fused_matmul_bias_add_relu_dropout, cpu case) --

@pytest.mark.parametrize("hidden", [[], [17, 33], [8, 8, 8]])
@pytest.mark.parametrize("skip", [True, False])
def test_fused_matmul_bias_add_relu_dropout_matches_torch(hidden, skip):
    rng = np.random.default_rng(1)
    sizes = [12] + hidden + [5]
    x = rng.uniform(-1, 1, (3, 12)).astype(np.float32)
    ws = [rng.uniform(-1, 1, (o, i)).astype(np.float32) for i, o in zip(sizes[:-1], sizes[1:])]
    bs = [rng.uniform(-1, 1, o).astype(np.float32) for o in sizes[1:]]
    fx, tx = flow.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    fw, tw = [flow.tensor(w, requires_grad=True) for w in ws], [torch.tensor(w, requires_grad=True) for w in ws]
    fb, tb = [flow.tensor(b, requires_grad=True) for b in bs], [torch.tensor(b, requires_grad=True) for b in bs]
    out = flow._C.fused_matmul_bias_add_relu_dropout(fx, fw, fb, dropout_rate_list=[0.0] * len(ws),
                                                      skip_final_activation=skip)
    ref = tx
    for i, (w, b) in enumerate(zip(tw, tb)):
        ref = torch.nn.functional.linear(ref, w, b)
        if i < len(ws) - 1 or not skip:
            ref = ref.relu()
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=1e-5, atol=1e-5)
    g = rng.standard_normal(out.shape).astype(np.float32)
    out.backward(flow.tensor(g))
    ref.backward(torch.tensor(g))
    for f, t in [(fx, tx)] + list(zip(fw, tw)) + list(zip(fb, tb)):
        np.testing.assert_allclose(f.grad.numpy(), t.grad.numpy(), rtol=1e-5, atol=1e-5)


def test_fused_matmul_bias_add_relu_dropout_drops_every_layer():
    # rate 1 on the last layer zeroes the output even with skip_final_activation (dropout follows
    # every layer); a rate p keeps about 1 - p of the units, scaled by 1 / (1 - p)
    f = flow._C.fused_matmul_bias_add_relu_dropout
    x, w, b = flow.ones(4, 3), flow.ones(2000, 3), flow.ones(2000)
    assert float(f(x, [w], [b], True, [1.0]).abs().sum()) == 0.0
    y = f(x, [w], [b], True, [0.25], generator=flow.Generator().manual_seed(0)).numpy()
    np.testing.assert_allclose(y[y != 0], 4.0 / 0.75, rtol=1e-6)
    assert abs((y != 0).mean() - 0.75) < 0.03


def test_fused_matmul_bias_add_relu_dropout_checks():
    f = flow._C.fused_matmul_bias_add_relu_dropout
    x, w, b = flow.ones(2, 3), flow.ones(4, 3), flow.ones(4)
    for args, phrase in [(([], [], False, []), "greater equal than 1"),
                         (([w], [b, b], False, [0.0]), "should be equal to biases"),
                         (([w], [b], False, [0.0, 0.0]), "dropout rate list length"),
                         (([w], [b], False, [-0.1]), "Dropout rate should be >= 0.0"),
                         (([flow.ones(4, 2)], [b], False, [0.0]), "weight's second dim")]:
        with pytest.raises(RuntimeError, match="fused_matmul_bias_add_relu_dropout") as e:
            f(x, *args)
        assert phrase in str(e.value)
    with pytest.raises(TypeError, match="fused_matmul_bias_add_relu_dropout"):
        f(x, w, [b], False, [0.0])
