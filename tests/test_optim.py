"""flow.optim against torch.optim: the same parameters and gradients, step by step.

Each optimizer runs 5 steps from the same start on both frameworks, over a
grid of options, with gradients set from numpy (and once from a real
backward); parameters and every state tensor must agree (float64: to
rounding, float32: loosely). Then the Optimizer API: groups, state_dict
round trips, errors, zero_grad, closures, hooks."""
import copy

import numpy as np
import pytest
from hypothesis import given, strategies as st

import monoflow as flow

torch = pytest.importorskip("torch")

SHAPES = [(3, 4), (5,), ()]
TOL = {flow.float64: dict(rtol=1e-12, atol=1e-14), flow.float32: dict(rtol=2e-5, atol=2e-6)}
NP = {flow.float64: np.float64, flow.float32: np.float32}

OPTIONS = {
    # (dampening follows OneFlow, not torch: test_sgd_momentum_follows_oneflow)
    "SGD": [dict(lr=0.1), dict(lr=0.1, momentum=0.9), dict(lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01),
            dict(lr=0.1, weight_decay=0.1, maximize=True), dict(lr=0.1, momentum=0.5, maximize=True)],
    "Adam": [dict(), dict(lr=0.01, betas=(0.8, 0.99)), dict(lr=0.01, weight_decay=0.1),
             dict(lr=0.01, amsgrad=True), dict(lr=0.02, eps=1e-3, maximize=True, amsgrad=True, weight_decay=0.05)],
    "AdamW": [dict(), dict(lr=0.01, weight_decay=0.5), dict(lr=0.01, amsgrad=True, maximize=True)],
    "RMSprop": [dict(), dict(lr=0.01, alpha=0.9), dict(lr=0.01, centered=True), dict(lr=0.01, momentum=0.9),
                dict(lr=0.01, momentum=0.5, centered=True, weight_decay=0.1, maximize=True)],
    "Adagrad": [dict(), dict(lr=0.1, lr_decay=0.01), dict(lr=0.1, weight_decay=0.1, initial_accumulator_value=0.5),
                dict(lr=0.1, eps=1e-3, maximize=True)],
    "Adadelta": [dict(), dict(lr=0.5, rho=0.8), dict(lr=1.0, eps=1e-3, weight_decay=0.1, maximize=True)],
    "Adamax": [dict(), dict(lr=0.01, betas=(0.8, 0.99)), dict(lr=0.01, weight_decay=0.1, eps=1e-3, maximize=True)],
    "NAdam": [dict(), dict(lr=0.01, momentum_decay=0.01), dict(lr=0.01, weight_decay=0.1),
              dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True, maximize=True)],
    "RAdam": [dict(), dict(lr=0.01, betas=(0.5, 0.6)), dict(lr=0.01, weight_decay=0.1),
              dict(lr=0.01, betas=(0.5, 0.6), weight_decay=0.1, decoupled_weight_decay=True, maximize=True)],
    "ASGD": [dict(), dict(lr=0.05, t0=2), dict(lr=0.05, lambd=0.1, alpha=0.5, t0=1, weight_decay=0.1),
             dict(lr=0.05, t0=0, maximize=True)],
    "Rprop": [dict(), dict(lr=0.05, etas=(0.3, 1.5)), dict(lr=0.05, step_sizes=(1e-3, 0.06), maximize=True)],
}
GRID = [(name, opts) for name, grid in OPTIONS.items() for opts in grid]


def make_pair(arrays, device, dtype):
    """The same parameters as monoflow and torch leaves."""
    mf = [flow.tensor(a, dtype=dtype, device=device).requires_grad_() for a in arrays]
    th = [torch.tensor(a.astype(NP[dtype])).requires_grad_() for a in arrays]
    return mf, th


def set_grads(mf, th, rng, dtype, skip=()):
    for i, (p, q) in enumerate(zip(mf, th)):
        if i in skip:
            p.grad, q.grad = None, None
            continue
        g = rng.standard_normal(tuple(q.shape)).astype(NP[dtype])
        p.grad = flow.tensor(g, dtype=dtype, device=p.device)
        q.grad = torch.from_numpy(g.copy())


def assert_same(mf_opt, th_opt, mf, th, dtype):
    tol = TOL[dtype]
    for p, q in zip(mf, th):
        np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), **tol)
        mine, theirs = mf_opt.state[p], th_opt.state[q]
        assert sorted(mine) == sorted(theirs)
        for key, value in theirs.items():
            if key == "step":
                assert float(mine[key]) == float(value)
            elif not isinstance(mine[key], flow.Tensor):  # a scalar torch keeps as a 0-d tensor (NAdam, ASGD)
                assert mine[key] == value.item(), key
            else:
                np.testing.assert_allclose(mine[key].numpy(), value.numpy(), **tol, err_msg=key)


def params_arrays(seed, shapes=SHAPES):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s) for s in shapes]


@pytest.mark.parametrize("dtype", [flow.float64, flow.float32], ids=["f64", "f32"])
@pytest.mark.parametrize("name,opts", GRID, ids=[f"{n}-{i}" for i, (n, _) in enumerate(GRID)])
def test_matches_torch(name, opts, dtype, device):
    mf, th = make_pair(params_arrays(0), device, dtype)
    mf_opt, th_opt = getattr(flow.optim, name)(mf, **opts), getattr(torch.optim, name)(th, **opts)
    rng = np.random.default_rng(1)
    for step in range(5):
        # the last parameter sits out step 2: it is skipped, its state untouched
        set_grads(mf, th, rng, dtype, skip=(2,) if step == 2 else ())
        mf_opt.step()
        th_opt.step()
        assert_same(mf_opt, th_opt, mf, th, dtype)


@given(lr=st.floats(1e-3, 0.5), momentum=st.sampled_from([0.0, 0.5, 0.9]), wd=st.sampled_from([0.0, 1e-2]),
       beta1=st.floats(0.0, 0.95), beta2=st.floats(0.5, 0.999), amsgrad=st.booleans(), seed=st.integers(0, 99))
def test_random_options_f64(lr, momentum, wd, beta1, beta2, amsgrad, seed):
    for name, opts in [("SGD", dict(lr=lr, momentum=momentum, weight_decay=wd)),
                       ("Adam", dict(lr=lr, betas=(beta1, beta2), weight_decay=wd, amsgrad=amsgrad)),
                       ("RMSprop", dict(lr=lr / 10, momentum=momentum, weight_decay=wd))]:
        mf, th = make_pair(params_arrays(seed, [(4, 3)]), "cpu", flow.float64)
        mf_opt, th_opt = getattr(flow.optim, name)(mf, **opts), getattr(torch.optim, name)(th, **opts)
        rng = np.random.default_rng(seed)
        for _ in range(5):
            set_grads(mf, th, rng, flow.float64)
            mf_opt.step()
            th_opt.step()
        assert_same(mf_opt, th_opt, mf, th, flow.float64)


@pytest.mark.parametrize("name,opts", [("SGD", dict(lr=0.05, momentum=0.9)), ("Adam", dict(lr=0.05)),
                                       ("RMSprop", dict(lr=0.01, centered=True)), ("Adagrad", dict(lr=0.1))])
def test_real_backward_on_quadratic(name, opts, device):
    """Gradients from loss.backward() of sum((A w - b)^2) + |v|^2, fed by each
    framework's own autograd."""
    rng = np.random.default_rng(3)
    A, b = rng.standard_normal((6, 4)), rng.standard_normal(6)
    mf, th = make_pair([rng.standard_normal(4), rng.standard_normal(3)], device, flow.float64)
    fA, fb = flow.tensor(A, device=device), flow.tensor(b, device=device)
    tA, tb = torch.tensor(A), torch.tensor(b)
    mf_opt, th_opt = getattr(flow.optim, name)(mf, **opts), getattr(torch.optim, name)(th, **opts)
    losses = []
    for _ in range(5):
        mf_opt.zero_grad()
        th_opt.zero_grad()
        r, tr = fA @ mf[0] - fb, tA @ th[0] - tb
        loss = (r * r).sum() + (mf[1] * mf[1]).sum()
        tloss = (tr * tr).sum() + (th[1] * th[1]).sum()
        loss.backward()
        tloss.backward()
        mf_opt.step()
        th_opt.step()
        losses.append(loss.item())
        np.testing.assert_allclose(loss.item(), tloss.item(), rtol=1e-10)
    assert_same(mf_opt, th_opt, mf, th, flow.float64)
    assert losses[-1] < losses[0]


def test_param_groups_with_own_options(device):
    mf, th = make_pair(params_arrays(5), device, flow.float64)
    groups = lambda ps: [{"params": ps[:2]}, {"params": ps[2:], "lr": 0.3, "betas": (0.5, 0.9), "amsgrad": True}]
    mf_opt = flow.optim.Adam(groups(mf), lr=0.01)
    th_opt = torch.optim.Adam(groups(th), lr=0.01)
    assert mf_opt.param_groups[0]["lr"] == 0.01 and mf_opt.param_groups[1]["lr"] == 0.3
    assert mf_opt.param_groups[0]["betas"] == (0.9, 0.999) and mf_opt.param_groups[1]["amsgrad"] is True
    rng = np.random.default_rng(0)
    for _ in range(5):
        set_grads(mf, th, rng, flow.float64)
        mf_opt.step()
        th_opt.step()
    assert_same(mf_opt, th_opt, mf, th, flow.float64)

    # a group added later, with its own momentum
    extra_mf, extra_th = make_pair([np.ones(3)], device, flow.float64)
    sgd_mf = flow.optim.SGD(mf, lr=0.1)
    sgd_th = torch.optim.SGD(th, lr=0.1)
    sgd_mf.add_param_group({"params": extra_mf, "momentum": 0.9})
    sgd_th.add_param_group({"params": extra_th, "momentum": 0.9})
    for _ in range(3):
        set_grads(mf + extra_mf, th + extra_th, rng, flow.float64)
        sgd_mf.step()
        sgd_th.step()
    assert sgd_mf.param_groups[1]["lr"] == 0.1 and sgd_mf.param_groups[1]["momentum"] == 0.9
    assert_same(sgd_mf, sgd_th, mf + extra_mf, th + extra_th, flow.float64)


@pytest.mark.parametrize("name,opts", [("SGD", dict(lr=0.1, momentum=0.9)), ("Adam", dict(lr=0.01, amsgrad=True)),
                                       ("AdamW", dict(lr=0.01)), ("RMSprop", dict(lr=0.01, momentum=0.5,
                                                                                 centered=True)),
                                       ("Adagrad", dict(lr=0.1, lr_decay=0.1))])
def test_state_dict_round_trip(name, opts, device, tmp_path):
    """Save after 3 steps, load into a fresh optimizer over copies of the
    parameters (directly and through flow.save/flow.load), continue: the
    trajectories are identical."""
    arrays = params_arrays(7)
    cls = getattr(flow.optim, name)
    a = [flow.tensor(x, device=device).requires_grad_() for x in arrays]
    opt_a = cls([{"params": a[:1]}, {"params": a[1:], "lr": 0.05}], **opts)
    rng = np.random.default_rng(0)
    grads = [[rng.standard_normal(x.shape) for x in arrays] for _ in range(6)]

    def run(opt, params, steps):
        for gs in steps:
            for p, g in zip(params, gs):
                p.grad = flow.tensor(g, device=device)
            opt.step()

    run(opt_a, a, grads[:3])
    sd = opt_a.state_dict()
    assert [g["params"] for g in sd["param_groups"]] == [[0], [1, 2]]
    assert sd["param_groups"][1]["lr"] == 0.05
    assert sorted(sd["state"]) == [0, 1, 2]
    path = tmp_path / "opt.mf"
    flow.save(sd, str(path))
    copies = []
    for source in (copy.deepcopy(sd), flow.load(str(path))):
        b = [flow.tensor(p.detach().numpy().copy(), device=device).requires_grad_() for p in a]
        opt_b = cls([{"params": b[:1]}, {"params": b[1:]}], **opts)
        opt_b.load_state_dict(source)
        assert opt_b.param_groups[1]["lr"] == 0.05 and opt_b.param_groups[0]["params"][0] is b[0]
        copies.append((opt_b, b))
    run(opt_a, a, grads[3:])
    for opt_b, b in copies:
        run(opt_b, b, grads[3:])
        for p, q in zip(a, b):
            np.testing.assert_array_equal(p.detach().numpy(), q.detach().numpy())
            for key, value in opt_a.state[p].items():
                other = opt_b.state[q][key]
                if key == "step":
                    assert value == other
                else:
                    np.testing.assert_array_equal(value.numpy(), other.numpy())


def test_state_dict_matches_torch_layout_and_loads_torch_style_steps():
    mf, th = make_pair(params_arrays(1), "cpu", flow.float64)
    mf_opt, th_opt = flow.optim.Adam(mf, lr=0.01), torch.optim.Adam(th, lr=0.01)
    rng = np.random.default_rng(0)
    set_grads(mf, th, rng, flow.float64)
    mf_opt.step()
    th_opt.step()
    mine, theirs = mf_opt.state_dict(), th_opt.state_dict()
    assert mine["param_groups"][0]["params"] == theirs["param_groups"][0]["params"]
    assert sorted(mine["state"]) == sorted(theirs["state"])
    assert sorted(mine["state"][0]) == sorted(theirs["state"][0])
    # a torch-style dict: step as a 0-d float tensor
    converted = {"param_groups": mine["param_groups"],
                 "state": {k: {n: flow.tensor(v.numpy()) for n, v in s.items()} for k, s in theirs["state"].items()}}
    fresh = flow.optim.Adam([flow.tensor(p.detach().numpy()).requires_grad_() for p in mf], lr=0.01)
    fresh.load_state_dict(converted)
    assert all(s["step"] == 1 and isinstance(s["step"], int) for s in fresh.state.values())


def test_load_state_dict_casts_to_param_dtype_and_copies():
    p64 = flow.randn(3, dtype=flow.float64, requires_grad=True)
    opt = flow.optim.SGD([p64], lr=0.1, momentum=0.9)
    p64.grad = flow.ones(3, dtype=flow.float64)
    opt.step()
    sd = opt.state_dict()
    p32 = flow.randn(3, requires_grad=True)
    opt32 = flow.optim.SGD([p32], lr=0.1, momentum=0.9)
    opt32.load_state_dict(sd)
    buf = opt32.state[p32]["momentum_buffer"]
    assert buf.dtype == flow.float32
    np.testing.assert_array_equal(buf.numpy(), np.ones(3, np.float32))
    # the loaded state is the optimizer's own: stepping does not touch the dict
    p32.grad = flow.ones(3)
    opt32.step()
    np.testing.assert_array_equal(sd["state"][0]["momentum_buffer"].numpy(), np.ones(3))


def test_load_state_dict_errors():
    a, b = flow.randn(2, requires_grad=True), flow.randn(3, requires_grad=True)
    two_groups = flow.optim.SGD([{"params": [a]}, {"params": [b]}], lr=0.1).state_dict()
    with pytest.raises(ValueError, match="different number of parameter groups"):
        flow.optim.SGD([a, b], lr=0.1).load_state_dict(two_groups)
    one_group = flow.optim.SGD([a, b], lr=0.1).state_dict()
    with pytest.raises(ValueError, match="doesn't match the size of optimizer's group"):
        flow.optim.SGD([a], lr=0.1).load_state_dict(one_group)
    with pytest.raises(ValueError, match="state_dict"):
        flow.optim.SGD([a], lr=0.1).load_state_dict({"state": {}})


def test_constructor_errors():
    p = flow.randn(2, requires_grad=True)
    with pytest.raises(TypeError, match="iterable of Tensors or dicts"):
        flow.optim.SGD(p, lr=0.1)
    # OneFlow accepts an empty parameter list (torch raises); stepping it is a no-op
    empty = flow.optim.SGD([], lr=0.1)
    assert empty.param_groups == [] and empty.step() is None
    with pytest.raises(ValueError, match="non-leaf"):
        flow.optim.SGD([p * 2], lr=0.1)
    with pytest.raises(TypeError, match="can only optimize Tensors"):
        flow.optim.SGD([p, 3.0], lr=0.1)
    with pytest.raises(ValueError, match="more than one parameter group"):
        flow.optim.SGD([{"params": [p]}, {"params": [p]}], lr=0.1)
    with pytest.raises(ValueError, match="duplicate parameters"):
        flow.optim.SGD([p, p], lr=0.1)
    with pytest.raises(TypeError, match="ordered collections"):
        flow.optim.SGD([{"params": {p}}], lr=0.1)
    with pytest.raises(TypeError, match="param_group must be a dict"):
        flow.optim.SGD([p], lr=0.1).add_param_group([p])
    with pytest.raises(ValueError, match="Invalid learning rate"):
        flow.optim.Adam([p], lr=-1)
    with pytest.raises(ValueError, match="beta parameter at index 1"):
        flow.optim.Adam([p], betas=(0.9, 1.0))
    with pytest.raises(ValueError, match="required optimization parameter lr"):
        flow.optim.Optimizer([p], {"lr": flow.optim.optimizer.required})


def test_zero_grad(device):
    p = flow.randn(3, device=device, requires_grad=True)
    opt = flow.optim.SGD([p], lr=0.1)
    (p * p).sum().backward()
    g = p.grad
    opt.zero_grad(set_to_none=False)
    assert p.grad is not None
    np.testing.assert_array_equal(g.numpy(), np.zeros(3, np.float32))  # zeroed in place
    opt.zero_grad()
    assert p.grad is None
    opt.zero_grad()  # no gradient: nothing to do
    opt.step()  # parameters without a gradient are skipped
    assert p.grad is None


def test_closure_runs_under_grad_mode(device):
    p = flow.tensor([1.0, -2.0], device=device).requires_grad_()
    opt = flow.optim.SGD([p], lr=0.25)
    calls = []

    def closure():
        calls.append(flow.is_grad_enabled())
        opt.zero_grad()
        loss = (p * p).sum()
        loss.backward()
        return loss

    with flow.no_grad():
        loss = opt.step(closure)
    assert calls == [True]
    assert loss.item() == 5.0
    np.testing.assert_allclose(p.detach().numpy(), [0.5, -1.0])  # p - 0.25 * 2p
    assert opt.step() is None
    assert p.grad_fn is None and p.is_leaf


def test_step_hooks():
    p = flow.zeros(2, requires_grad=True)
    opt = flow.optim.SGD([p], lr=1.0)
    seen = []
    pre = opt.register_step_pre_hook(lambda o, args, kwargs: seen.append(("pre", o is opt)))
    opt.register_step_post_hook(lambda o, args, kwargs: seen.append(("post", float(p.sum()))))
    p.grad = flow.ones(2)
    opt.step()
    assert seen == [("pre", True), ("post", -2.0)]
    pre.remove()
    opt.step()
    assert seen[-1] == ("post", -4.0) and len(seen) == 3


def test_adagrad_state_exists_before_first_step():
    p = flow.randn(3, requires_grad=True)
    opt = flow.optim.Adagrad([p], initial_accumulator_value=0.25)
    np.testing.assert_array_equal(opt.state[p]["sum"].numpy(), np.full(3, 0.25, np.float32))
    assert opt.state_dict()["state"][0]["step"] == 0


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax", "NAdam", "RAdam",
                                  "ASGD", "Rprop"])
def test_implementation_switches_accepted(name):
    """foreach=/fused=/capturable= (torch's kernel choices) are accepted; the trajectory is the same;
    differentiable=True is refused."""
    extra = {"foreach": False}
    if name in ("SGD", "Adam", "AdamW", "Adagrad"):
        extra["fused"] = False
    mf, th = make_pair(params_arrays(0), "cpu", flow.float64)
    mf_opt = getattr(flow.optim, name)(mf, lr=0.01, **extra)
    th_opt = getattr(torch.optim, name)(th, lr=0.01, **extra)
    rng = np.random.default_rng(1)
    for _ in range(3):
        set_grads(mf, th, rng, flow.float64)
        mf_opt.step()
        th_opt.step()
    for p, q in zip(mf, th):
        np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), **TOL[flow.float64])
    with pytest.raises(NotImplementedError, match="differentiable"):
        getattr(flow.optim, name)(mf, lr=0.01, differentiable=True)


@pytest.mark.parametrize("momentum", [0.0, 0.9])
@pytest.mark.parametrize("dampening", [0.0, 0.9])
@pytest.mark.parametrize("nesterov", [False, True])
@pytest.mark.parametrize("maximize", [False, True])
def test_sgd_momentum_follows_oneflow(device, momentum, dampening, nesterov, maximize):
    # OneFlow's SGD: the momentum buffer starts at zero (torch's first step stores the undamped
    # gradient), and Nesterov takes any momentum and dampening (torch refuses some); the numpy
    # reference is OneFlow's update rule
    rng = np.random.default_rng(3)
    x0, grads, wd, lr = rng.standard_normal(6), rng.standard_normal((5, 6)), 0.1, 0.3
    p = flow.tensor(x0, dtype=flow.float64, device=device).requires_grad_()
    opt = flow.optim.SGD([p], lr=lr, momentum=momentum, dampening=dampening, nesterov=nesterov,
                         weight_decay=wd, maximize=maximize)
    x, buf = x0.copy(), np.zeros(6)
    for g in grads:
        p.grad = flow.tensor(g, dtype=flow.float64, device=device)
        opt.step()
        d = (-g if maximize else g) + wd * x
        if momentum > 0:
            buf = momentum * buf + (1 - dampening) * d
            d = d + momentum * buf if nesterov else buf
        x = x - lr * d
    np.testing.assert_allclose(p.detach().numpy(), x, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name, kw", [("Adam", {}), ("Adam", dict(weight_decay=0.1, amsgrad=True)), ("AdamW", {}),
                                      ("SGD", dict(momentum=0.9, nesterov=True)),
                                      ("RMSprop", dict(momentum=0.5, centered=True)), ("Adagrad", {}),
                                      ("Adadelta", {}), ("Adamax", {}), ("NAdam", {}), ("RAdam", {}), ("Rprop", {})])
def test_complex_parameters_update_as_their_real_view_like_torch(name, kw):
    # torch's rule (a Fourier layer's complex weights): the update runs on view_as_real(p) and its gradient
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    w0 = (rng.standard_normal(4) + 1j * rng.standard_normal(4)).astype(np.complex64)
    x0 = (rng.standard_normal((3, 4)) + 1j * rng.standard_normal((3, 4))).astype(np.complex64)
    got = []
    for lib in (flow, torch):
        p = lib.nn.Parameter(lib.tensor(w0.copy()))
        opt = getattr(lib.optim, name)([p], lr=0.05, **kw)
        for _ in range(4):
            opt.zero_grad()
            ((lib.tensor(x0) * p).abs() ** 2).sum().backward()
            opt.step()
        got.append(p.detach().numpy())
    assert got[0].dtype == np.complex64
    np.testing.assert_allclose(got[0], got[1], rtol=1e-5, atol=1e-6)
