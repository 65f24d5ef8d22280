"""flow.autocast follows torch's CPU autocast policy (Note [Autocast policy],
monoflow/_autocast.py): every op's output dtype under autocast is torch's
(checked op by op with torch as the oracle), values agree within the low
dtype's precision, gradients reach the float32 weights, parameter casts are
cached within a region, and a bfloat16 autocast training run tracks the
float32 run."""
import numpy as np
import pytest

import monoflow as flow
from helpers import TORCH

torch = TORCH
needs_torch = pytest.mark.skipif(torch is None, reason="torch is not installed")


def _ops(lib):
    F = lib.nn.functional
    return {
        "matmul": lambda x, w, b, x3, xi, wc, t: x @ w,
        "Tensor.matmul": lambda x, w, b, x3, xi, wc, t: x.matmul(w),
        "mm": lambda x, w, b, x3, xi, wc, t: lib.mm(x, w),
        "bmm": lambda x, w, b, x3, xi, wc, t: lib.bmm(x3, x3.transpose(1, 2)),
        "baddbmm": lambda x, w, b, x3, xi, wc, t: lib.baddbmm(x3[:, :, :4], x3, x3.transpose(1, 2)),
        "addmm": lambda x, w, b, x3, xi, wc, t: lib.addmm(b, x, w),
        "addbmm": lambda x, w, b, x3, xi, wc, t: lib.addbmm(x3[0, :, :4], x3, x3.transpose(1, 2)),
        "linear": lambda x, w, b, x3, xi, wc, t: F.linear(x, w, b),
        "conv1d": lambda x, w, b, x3, xi, wc, t: F.conv1d(x3, x3[:2, :, :3]),
        "conv2d": lambda x, w, b, x3, xi, wc, t: F.conv2d(xi, wc, wc[:, 0, 0, 0]),
        "conv_transpose2d": lambda x, w, b, x3, xi, wc, t: F.conv_transpose2d(xi, wc.transpose(0, 1)),
        "prelu": lambda x, w, b, x3, xi, wc, t: F.prelu(x, b[:1]),
        "sdpa": lambda x, w, b, x3, xi, wc, t: F.scaled_dot_product_attention(x3, x3, x3, is_causal=True),
        "einsum": lambda x, w, b, x3, xi, wc, t: lib.einsum("ij,jk->ik", x, w),
        "dot": lambda x, w, b, x3, xi, wc, t: lib.dot(b, b),
        "mv": lambda x, w, b, x3, xi, wc, t: lib.mv(w, b),
        "outer": lambda x, w, b, x3, xi, wc, t: lib.outer(b, b),
        "double matmul": lambda x, w, b, x3, xi, wc, t: x.double() @ w.double(),
        "softmax": lambda x, w, b, x3, xi, wc, t: F.softmax(x, -1),
        "softmax of low": lambda x, w, b, x3, xi, wc, t: F.softmax(x @ w, -1),
        "layer_norm of low": lambda x, w, b, x3, xi, wc, t: F.layer_norm(x @ w, (8,)),
        "gelu of low": lambda x, w, b, x3, xi, wc, t: F.gelu(x @ w),
        "mixed add": lambda x, w, b, x3, xi, wc, t: (x @ w) + b,
        "cat mixed": lambda x, w, b, x3, xi, wc, t: lib.cat([x @ w, x]),
        "sum of low": lambda x, w, b, x3, xi, wc, t: (x @ w).sum(),
        "mse_loss": lambda x, w, b, x3, xi, wc, t: F.mse_loss(x @ w, x),
        "l1_loss": lambda x, w, b, x3, xi, wc, t: F.l1_loss(x @ w, x),
        "smooth_l1_loss": lambda x, w, b, x3, xi, wc, t: F.smooth_l1_loss(x @ w, x),
        "huber_loss": lambda x, w, b, x3, xi, wc, t: F.huber_loss(x @ w, x),
        "cross_entropy": lambda x, w, b, x3, xi, wc, t: F.cross_entropy(x @ w, t),
        "nll_loss": lambda x, w, b, x3, xi, wc, t: F.nll_loss(F.log_softmax(x @ w, -1), t),
        "bce_with_logits": lambda x, w, b, x3, xi, wc, t: F.binary_cross_entropy_with_logits(x @ w, x.sigmoid()),
        "bce": lambda x, w, b, x3, xi, wc, t: F.binary_cross_entropy((x @ w).sigmoid(), x.sigmoid()),
        "kl_div": lambda x, w, b, x3, xi, wc, t: F.kl_div(F.log_softmax(x @ w, -1), x.softmax(-1), reduction="batchmean"),
        "cosine_embedding_loss": lambda x, w, b, x3, xi, wc, t: F.cosine_embedding_loss(x @ w, x, b[:4].sign()),
        "margin_ranking_loss": lambda x, w, b, x3, xi, wc, t: F.margin_ranking_loss((x @ w)[:, 0], x[:, 0],
                                                                                    b[:4].sign()),
        "soft_margin_loss": lambda x, w, b, x3, xi, wc, t: F.soft_margin_loss(x @ w, x.sign()),
        "hinge_embedding_loss": lambda x, w, b, x3, xi, wc, t: F.hinge_embedding_loss(x @ w, x.sign()),
        "triplet_margin_loss": lambda x, w, b, x3, xi, wc, t: F.triplet_margin_loss(x @ w, x, w[:4]),
        "poisson_nll_loss": lambda x, w, b, x3, xi, wc, t: F.poisson_nll_loss(x @ w, x.abs()),
        "prod": lambda x, w, b, x3, xi, wc, t: lib.prod((x @ w)[0] / 4),
        "Tensor.prod": lambda x, w, b, x3, xi, wc, t: ((x @ w)[0] / 4).prod(),
        "cdist": lambda x, w, b, x3, xi, wc, t: lib.cdist(x @ w, x),
        "trace": lambda x, w, b, x3, xi, wc, t: lib.trace(x @ w),
        "avg_pool3d": lambda x, w, b, x3, xi, wc, t: F.avg_pool3d(F.conv2d(xi, wc).unsqueeze(0), 2),
    }


def _inputs(lib, seed):
    rng = np.random.default_rng(seed)
    arrays = [rng.standard_normal(s).astype(np.float32) for s in [(4, 8), (8, 8), (8,), (2, 4, 8), (1, 3, 6, 6),
                                                                 (4, 3, 3, 3)]]
    return [lib.tensor(a) for a in arrays] + [lib.tensor(rng.integers(0, 8, 4))]


@needs_torch
@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("name", sorted(_ops(flow)))
def test_output_dtype_and_values_match_torch(name, dtype):
    with torch.autocast("cpu", dtype=getattr(torch, dtype)):
        want = _ops(torch)[name](*_inputs(torch, 0))
    with flow.autocast("cpu", dtype=getattr(flow, dtype)):
        got = _ops(flow)[name](*_inputs(flow, 0))
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1], (got.dtype, want.dtype)
    tol = 2e-2 if want.dtype in (torch.bfloat16, torch.float16) else 5e-3
    np.testing.assert_allclose(got.float().numpy(), want.float().numpy(), rtol=tol, atol=tol * 4)


def test_outside_a_region_nothing_is_cast():
    x, w = flow.randn(3, 4), flow.randn(4, 2)
    with flow.autocast("cpu"):
        assert (x @ w).dtype == flow.bfloat16
        with flow.autocast("cpu", enabled=False):
            assert (x @ w).dtype == flow.float32
        assert flow.nn.functional.linear(x, w.t()).dtype == flow.bfloat16
    assert (x @ w).dtype == flow.float32 and flow.mm(x, w).dtype == flow.float32


def test_gradients_reach_float32_weights_and_casts_are_cached():
    lin = flow.nn.Linear(4, 4)
    x = flow.randn(2, 4)
    casts = []
    orig = flow.Tensor.to

    def counting_to(self, *a, **k):
        out = orig(self, *a, **k)
        if self is lin.weight and out is not self:
            casts.append(out)
        return out

    flow.Tensor.to = counting_to
    try:
        with flow.autocast("cpu", dtype=flow.bfloat16):
            y = lin(lin(x))  # the weight is used twice: cast once
    finally:
        flow.Tensor.to = orig
    assert y.dtype == flow.bfloat16 and len(casts) == 1
    y.float().sum().backward()
    assert lin.weight.grad is not None and lin.weight.grad.dtype == flow.float32


def test_decorator_and_bad_dtype():
    @flow.autocast("cpu")
    def f(a, b):
        return a @ b

    assert f(flow.ones(2, 2), flow.ones(2, 2)).dtype == flow.bfloat16
    with pytest.warns(UserWarning, match="not supported"):
        region = flow.autocast("cpu", dtype=flow.float64)
    with region:
        assert (flow.ones(2, 2) @ flow.ones(2, 2)).dtype == flow.float32


def test_bf16_training_tracks_float32():
    def run(amp):
        flow.manual_seed(0)
        model = flow.nn.Sequential(flow.nn.Linear(16, 32), flow.nn.GELU(), flow.nn.Linear(32, 4))
        opt = flow.optim.AdamW(model.parameters(), lr=1e-2)
        g = flow.Generator().manual_seed(1)
        x, t = flow.randn(64, 16, generator=g), flow.randint(0, 4, (64,), generator=g)
        losses = []
        for _ in range(30):
            with flow.autocast("cpu", dtype=flow.bfloat16, enabled=amp):
                loss = flow.nn.functional.cross_entropy(model(x), t)
            assert loss.dtype == flow.float32
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
        return np.array(losses)

    full, mixed = run(False), run(True)
    assert mixed[-1] < 0.5 * mixed[0]  # it trains
    np.testing.assert_allclose(mixed, full, rtol=0.05, atol=0.02)


def _mlp_and_sgd():
    flow.manual_seed(0)
    model = flow.nn.Sequential(flow.nn.Linear(8, 16), flow.nn.ReLU(), flow.nn.Linear(16, 3))
    return model, flow.optim.SGD(model.parameters(), lr=0.1)


def _batch(seed):
    g = flow.Generator().manual_seed(seed)
    return flow.randn(32, 8, generator=g), flow.randint(0, 3, (32,), generator=g)


def test_graph_enable_amp_matches_eager_autocast():
    """OneFlow's graph.config.enable_amp: build runs under autocast; a training graph's
    losses equal those of the eager loop under the same region."""
    x, t = _batch(2)
    model, opt = _mlp_and_sgd()
    eager = []
    for _ in range(5):
        with flow.autocast("cpu"):
            loss = flow.nn.functional.cross_entropy(model(x), t)
        opt.zero_grad()
        loss.backward()
        opt.step()
        eager.append(loss.item())

    model, opt = _mlp_and_sgd()

    class Step(flow.nn.Graph):
        def __init__(self):
            super().__init__()
            self.m = model
            self.add_optimizer(opt)
            self.config.enable_amp(True, dtype=flow.bfloat16)

        def build(self, x, t):
            logits = self.m(x)
            assert logits.dtype == flow.bfloat16
            loss = flow.nn.functional.cross_entropy(logits, t)
            loss.backward()
            return loss

    step = Step()
    assert "amp=monoflow.bfloat16" in repr(step.config)
    graph = [step(x, t).item() for _ in range(5)]
    np.testing.assert_allclose(graph, eager, rtol=1e-6)
    with pytest.raises(TypeError, match="enable_amp"):
        step.config.enable_amp("yes")
    with pytest.raises(ValueError, match="enable_amp"):
        step.config.enable_amp(True, dtype=flow.float32)
    step.config.enable_amp()
    assert step.config.amp == flow.float16  # OneFlow's default


@needs_torch
def test_region_queries_match_torch():
    for lib in (torch, flow):
        assert not lib.is_autocast_enabled("cpu")
        assert str(lib.get_autocast_dtype("cpu")).endswith("bfloat16")
        with lib.autocast("cpu", dtype=lib.float16):
            assert lib.is_autocast_enabled("cpu") and not lib.is_autocast_enabled()
            assert str(lib.get_autocast_dtype("cpu")).endswith("float16")
            with lib.autocast("cpu", enabled=False):
                assert not lib.is_autocast_enabled("cpu")


def test_regions_are_per_thread():
    """A region in one thread neither casts another thread's ops nor ends theirs."""
    import threading

    entered, leave = threading.Event(), threading.Event()
    seen = {}

    def other():
        with flow.autocast("cpu"):
            entered.set()
            leave.wait(10)
            seen["other"] = (flow.ones(2, 2) @ flow.ones(2, 2)).dtype

    th = threading.Thread(target=other)
    th.start()
    entered.wait(10)
    assert (flow.ones(2, 2) @ flow.ones(2, 2)).dtype == flow.float32  # this thread is in no region
    with flow.autocast("cpu"):
        pass  # entering and leaving here must not end the other thread's region
    leave.set()
    th.join()
    assert seen["other"] == flow.bfloat16


def test_autocast_on_global_tensors():
    """Global tensors take the same policy: the local shard runs the low dtype, the loss float32, and
    float32 parameters get float32 gradients."""
    placement = flow.placement("cpu", ranks=[0])
    flow.manual_seed(0)
    lin = flow.nn.Linear(8, 4)
    x = flow.randn(16, 8)
    with flow.autocast("cpu", dtype=flow.bfloat16):
        ref = lin(x)
    lin.to_global(placement, flow.sbp.broadcast)
    xg = x.to_global(placement, flow.sbp.split(0))
    target = flow.zeros(16, dtype=flow.int64).to_global(placement, flow.sbp.split(0))
    with flow.autocast("cpu", dtype=flow.bfloat16):
        out = lin(xg)
        loss = flow.nn.functional.cross_entropy(out, target)
    assert out.is_global and out.dtype == flow.bfloat16 and out.sbp == (flow.sbp.split(0),)
    assert loss.dtype == flow.float32
    np.testing.assert_array_equal(out.to_local().float().numpy(), ref.float().numpy())
    loss.backward()
    assert lin.weight.grad.is_global and lin.weight.grad.dtype == flow.float32


def test_graph_enable_amp_with_gradient_accumulation():
    """enable_amp and set_gradient_accumulation_steps together: each call runs the micro-batches under
    autocast and one update, as the eager loop that accumulates the micro-batches' gradients."""
    x, t = _batch(3)
    model, opt = _mlp_and_sgd()
    eager = []
    for _ in range(4):
        opt.zero_grad()
        total = 0.0
        for xs, ts in zip(x.chunk(4), t.chunk(4)):
            with flow.autocast("cpu", dtype=flow.bfloat16):
                loss = flow.nn.functional.cross_entropy(model(xs), ts) / 4
            loss.backward()
            total += loss.item()
        opt.step()
        eager.append(total)

    model, opt = _mlp_and_sgd()

    class Step(flow.nn.Graph):
        def __init__(self):
            super().__init__()
            self.m = model
            self.add_optimizer(opt)
            self.config.enable_amp(True, dtype=flow.bfloat16)
            self.config.set_gradient_accumulation_steps(4)

        def build(self, x, t):
            logits = self.m(x)
            assert logits.dtype == flow.bfloat16
            loss = flow.nn.functional.cross_entropy(logits, t)
            loss.backward()
            return loss

    step = Step()
    graph = [step(x, t).numpy().mean() for _ in range(4)]
    np.testing.assert_allclose(graph, eager, rtol=2e-2, atol=2e-3)  # the mean of the micro-batch losses
    assert graph[-1] < graph[0]



def _scaled_function(lib, cast_inputs, record):
    def dtype_name(t):
        return str(t.dtype).split(".")[-1]

    class Scaled(lib.autograd.Function):
        @staticmethod
        @lib.amp.custom_fwd(device_type="cpu", cast_inputs=cast_inputs)
        def forward(ctx, x, w):
            ctx.save_for_backward(x, w)
            record["forward"] = (dtype_name(x), lib.is_autocast_enabled("cpu"), dtype_name(x @ w))
            return x @ w

        @staticmethod
        @lib.amp.custom_bwd(device_type="cpu")
        def backward(ctx, g):
            x, w = ctx.saved_tensors
            record["backward"] = (lib.is_autocast_enabled("cpu"), dtype_name(g @ w.t()))
            return g @ w.t(), x.t() @ g
    return Scaled


@pytest.mark.parametrize("cast_inputs", [None, "float32"])
@pytest.mark.parametrize("region", [True, False])
def test_custom_fwd_and_bwd_follow_torch(cast_inputs, region):
    # the forward's autocast state and input casts, and the same state restored in backward
    torch = pytest.importorskip("torch")
    seen = []
    for lib in (torch, flow):
        record = {}
        fn = _scaled_function(lib, None if cast_inputs is None else getattr(lib, cast_inputs), record)
        x = lib.tensor(np.arange(6.0).reshape(2, 3) / 7, dtype=lib.float32, requires_grad=True)
        w = lib.tensor(np.arange(12.0).reshape(3, 4) / 5, dtype=lib.float32, requires_grad=True)
        with lib.autocast("cpu", dtype=lib.bfloat16, enabled=region):
            y = fn.apply(x.bfloat16() if region and cast_inputs else x, w)
            out = y.float().sum()
        out.backward()
        seen.append((str(y.dtype).split(".")[-1], record, x.grad.float().detach().numpy()))
    (t_dtype, t_record, t_grad), (f_dtype, f_record, f_grad) = seen
    assert set(t_record) == {"forward", "backward"} and f_dtype == t_dtype and f_record == t_record
    np.testing.assert_allclose(f_grad, t_grad, rtol=1e-2)


def test_cuda_amp_custom_fwd_names():
    assert flow.cuda.amp.custom_fwd(cast_inputs=flow.float32).keywords == {"device_type": "cuda",
                                                                           "cast_inputs": flow.float32}
    with pytest.raises(ValueError, match="device_type"):
        flow.amp.custom_fwd(lambda ctx: None, device_type=None)


@needs_torch
@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # torch deprecates the device-specific spellings
def test_older_state_queries_answer_as_torch():
    names = ["is_autocast_cpu_enabled", "get_autocast_cpu_dtype", "get_autocast_gpu_dtype", "is_autocast_cache_enabled"]

    def answers(lib):
        return [str(getattr(lib, n)()).split(".")[-1] for n in names]

    assert answers(flow) == answers(torch)
    for kw in (dict(dtype="float16", cache_enabled=False), dict(dtype="bfloat16", cache_enabled=True)):
        with flow.autocast("cpu", dtype=getattr(flow, kw["dtype"]), cache_enabled=kw["cache_enabled"]):
            got = answers(flow)
        with torch.autocast("cpu", dtype=getattr(torch, kw["dtype"]), cache_enabled=kw["cache_enabled"]):
            want = answers(torch)
        assert got == want, kw
    assert flow.GradScaler is flow.amp.GradScaler


def test_clear_autocast_cache_drops_the_cached_casts():
    from monoflow import _autocast

    w = flow.randn(3, 3, requires_grad=True)
    with flow.autocast("cpu"):
        first = w @ w
        assert len(_autocast._state.cache) == 1  # the parameter's bfloat16 copy
        flow.clear_autocast_cache()
        assert not _autocast._state.cache
        second = w @ w  # made again
        assert len(_autocast._state.cache) == 1
    np.testing.assert_array_equal(second.float().detach().numpy(), first.float().detach().numpy())
