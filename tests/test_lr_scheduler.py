"""flow.optim.lr_scheduler against torch.optim.lr_scheduler: the learning-rate
sequences (every group, 30-100 steps) must be torch's, rounding included."""
import math
import warnings

import pytest

import monoflow as flow
from monoflow.optim import lr_scheduler as mf_sched

torch = pytest.importorskip("torch")
th_sched = torch.optim.lr_scheduler


def optimizers(name="SGD", lrs=(0.1, 0.02), **opts):
    """A monoflow and a torch optimizer with one group per lr."""
    mf = getattr(flow.optim, name)([{"params": [flow.zeros(2, requires_grad=True)], "lr": lr} for lr in lrs], **opts)
    th = getattr(torch.optim, name)([{"params": [torch.zeros(2, requires_grad=True)], "lr": lr} for lr in lrs],
                                    **opts)
    return mf, th


def lr_trace(opt, sched, steps, momentum=False):
    out = [list(sched.get_last_lr())]
    for _ in range(steps):
        opt.step()
        sched.step()
        lrs = [g["lr"] for g in opt.param_groups]
        assert lrs == sched.get_last_lr()
        if momentum:
            lrs += [g.get("momentum", g.get("betas", (None,))[0]) for g in opt.param_groups]
        out.append(lrs)
    return out


class Scale:
    """A callable object: its state goes into the state_dict (functions do not)."""

    def __init__(self, base):
        self.base = base

    def __call__(self, epoch):
        return self.base ** epoch


# (name, kwargs); kwargs may be a function of the module, for lambdas and nested schedulers
CASES = [
    ("StepLR", dict(step_size=7, gamma=0.5)),
    ("MultiStepLR", dict(milestones=[5, 12, 12, 30], gamma=0.3)),
    ("ExponentialLR", dict(gamma=0.93)),
    ("CosineAnnealingLR", dict(T_max=10)),
    ("CosineAnnealingLR", dict(T_max=13, eta_min=0.001)),
    ("LambdaLR", dict(lr_lambda=[lambda e: 1 / (e + 1), lambda e: 0.95 ** e])),
    ("LambdaLR", dict(lr_lambda=Scale(0.97))),
    ("MultiplicativeLR", dict(lr_lambda=lambda e: 0.9 if e % 3 else 1.01)),
    ("LinearLR", dict(start_factor=0.1, total_iters=10)),
    ("LinearLR", dict(start_factor=1.0, end_factor=0.05, total_iters=25)),
    ("ConstantLR", dict(factor=0.25, total_iters=8)),
    ("PolynomialLR", dict(total_iters=20, power=2.0)),
    ("CosineAnnealingWarmRestarts", dict(T_0=7)),
    ("CosineAnnealingWarmRestarts", dict(T_0=3, T_mult=2, eta_min=0.001)),
]


@pytest.mark.parametrize("name,kwargs", CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CASES)])
def test_sequence_matches_torch(name, kwargs):
    mf_opt, th_opt = optimizers()
    a = lr_trace(mf_opt, getattr(mf_sched, name)(mf_opt, **kwargs), 60)
    b = lr_trace(th_opt, getattr(th_sched, name)(th_opt, **kwargs), 60)
    assert a == b
    assert [g["initial_lr"] for g in mf_opt.param_groups] == [0.1, 0.02]


@pytest.mark.parametrize("name,kwargs", [c for c in CASES if c[0] in ("StepLR", "MultiStepLR", "ExponentialLR",
                                                                       "CosineAnnealingLR", "LinearLR")])
def test_closed_form_with_epoch_argument(name, kwargs):
    """step(epoch) (deprecated) jumps to an epoch through the closed form."""
    mf_opt, th_opt = optimizers()
    mf, th = getattr(mf_sched, name)(mf_opt, **kwargs), getattr(th_sched, name)(th_opt, **kwargs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for epoch in (3, 17, 4, 40, 41):
            mf_opt.step()
            th_opt.step()
            mf.step(epoch)
            th.step(epoch)
            assert mf.get_last_lr() == pytest.approx(th.get_last_lr(), rel=1e-15, abs=0)


def test_two_schedulers_chain():
    """Chainable schedulers compose on one optimizer (Note [Chainable vs closed form])."""
    seqs = []
    for mod, opt in zip((mf_sched, th_sched), optimizers()):
        s1 = mod.ExponentialLR(opt, gamma=0.9)
        s2 = mod.StepLR(opt, step_size=4, gamma=0.5)
        seq = []
        for _ in range(30):
            opt.step()
            s1.step()
            s2.step()
            seq.append([g["lr"] for g in opt.param_groups])
        seqs.append(seq)
    assert seqs[0] == seqs[1]


def sequential(mod, opt):
    warm = mod.LinearLR(opt, start_factor=0.01, total_iters=5)
    cos = mod.CosineAnnealingLR(opt, T_max=40, eta_min=1e-4)
    return mod.SequentialLR(opt, schedulers=[warm, cos], milestones=[5])


def test_sequential_warmup_then_cosine():
    mf_opt, th_opt = optimizers("AdamW")
    a = lr_trace(mf_opt, sequential(mf_sched, mf_opt), 50)
    b = lr_trace(th_opt, sequential(th_sched, th_opt), 50)
    assert a == b
    assert a[0] == [0.1 * 0.01, 0.02 * 0.01] and a[5] == [0.1, 0.02]


def test_chained_scheduler():
    seqs = []
    for mod, opt in zip((mf_sched, th_sched), optimizers()):
        sched = mod.ChainedScheduler([mod.ConstantLR(opt, factor=0.5, total_iters=4),
                                      mod.ExponentialLR(opt, gamma=0.9)])
        seqs.append(lr_trace(opt, sched, 30))
    assert seqs[0] == seqs[1]


@pytest.mark.parametrize("name,kwargs", [("SGD", dict(momentum=0.9)), ("Adam", {})])
@pytest.mark.parametrize("extra", [dict(), dict(anneal_strategy="linear", three_phase=True, pct_start=0.25)])
def test_one_cycle(name, kwargs, extra):
    mf_opt, th_opt = optimizers(name, **kwargs)
    a = lr_trace(mf_opt, mf_sched.OneCycleLR(mf_opt, max_lr=[1.0, 0.5], total_steps=50, **extra), 49, True)
    b = lr_trace(th_opt, th_sched.OneCycleLR(th_opt, max_lr=[1.0, 0.5], total_steps=50, **extra), 49, True)
    assert a == b
    with pytest.raises(ValueError, match="Tried to step 51 times"):
        sched = mf_sched.OneCycleLR(mf_opt, max_lr=1.0, total_steps=50)
        for _ in range(51):
            mf_opt.step()
            sched.step()


METRICS = [10, 9, 9.5, 9.2, 9.1, 9.3, 9.0, 8.0, 8.1, 8.2, 8.3, 8.05, 8.4, 7.0, 7.5, 7.6, 7.7, 7.8, 7.9, 8.0,
           6.0, 6.1, 6.0, 6.2, 6.3, 6.4, 6.5, 6.6, 6.7, 6.8, 6.9, 7.0, 7.1, 7.2, 7.3]


@pytest.mark.parametrize("kwargs", [
    dict(patience=2),
    dict(patience=1, factor=0.5, cooldown=2),
    dict(mode="max", patience=1, factor=0.5, threshold=0.01),
    dict(patience=0, factor=0.3, threshold_mode="abs", threshold=0.15, min_lr=[0.01, 0.001]),
    dict(patience=0, factor=0.1, min_lr=0.005, eps=1e-3),
])
def test_reduce_on_plateau(kwargs):
    seqs = []
    for mod, opt in zip((mf_sched, th_sched), optimizers()):
        sched = mod.ReduceLROnPlateau(opt, **kwargs)
        seq = []
        for m in METRICS:
            opt.step()
            sched.step(m)
            seq.append((list(sched.get_last_lr()), sched.num_bad_epochs, sched.cooldown_counter, sched.best))
        seqs.append(seq)
    assert seqs[0] == seqs[1]
    assert seqs[0][-1][0] != [0.1, 0.02]  # it did reduce


def test_reduce_on_plateau_state_dict_and_errors():
    opt, _ = optimizers()
    sched = mf_sched.ReduceLROnPlateau(opt, patience=1)
    for m in (3, 3, 3):
        sched.step(m)
    fresh = mf_sched.ReduceLROnPlateau(opt, patience=5)
    fresh.load_state_dict(sched.state_dict())
    assert fresh.patience == 1 and fresh.best == 3 and fresh.last_epoch == 3
    with pytest.raises(ValueError, match="Factor should be < 1.0"):
        mf_sched.ReduceLROnPlateau(opt, factor=1.0)
    with pytest.raises(ValueError, match="mode avg is unknown"):
        mf_sched.ReduceLROnPlateau(opt, mode="avg")
    with pytest.raises(ValueError, match="expected 2 min_lrs"):
        mf_sched.ReduceLROnPlateau(opt, min_lr=[0.1])


@pytest.mark.parametrize("make", [
    lambda mod, opt: mod.CosineAnnealingLR(opt, T_max=12, eta_min=0.01),
    lambda mod, opt: mod.StepLR(opt, step_size=4, gamma=0.7),
    lambda mod, opt: mod.LambdaLR(opt, lr_lambda=Scale(0.9)),
    sequential,
], ids=["cosine", "step", "lambda", "sequential"])
def test_state_dict_round_trip(make):
    """Stop after 15 steps, rebuild optimizer and scheduler from their state
    dicts, continue: the same sequence as an uninterrupted run (and as torch)."""
    opt, th_opt = optimizers()
    full = lr_trace(opt, make(mf_sched, opt), 40)
    assert full == lr_trace(th_opt, make(th_sched, th_opt), 40)

    opt, _ = optimizers()
    sched = make(mf_sched, opt)
    first = lr_trace(opt, sched, 15)
    opt_sd, sched_sd = opt.state_dict(), sched.state_dict()
    assert "optimizer" not in sched_sd
    opt2, _ = optimizers()
    sched2 = make(mf_sched, opt2)  # scheduler first, then the optimizer's state (as torch documents)
    opt2.load_state_dict(opt_sd)
    sched2.load_state_dict(sched_sd)
    rest = lr_trace(opt2, sched2, 25)
    assert first + rest[1:] == full


def test_lambda_state_dict_keeps_callable_object_state():
    opt, _ = optimizers()
    obj = Scale(0.5)
    sched = mf_sched.LambdaLR(opt, lr_lambda=[obj, lambda e: 1.0])
    sd = sched.state_dict()
    assert sd["lr_lambdas"] == [{"base": 0.5}, None]
    obj2 = Scale(0.1)
    sched2 = mf_sched.LambdaLR(opt, lr_lambda=[obj2, lambda e: 1.0])
    sched2.load_state_dict(sd)
    assert obj2.base == 0.5


def test_resume_with_last_epoch():
    opt, th_opt = optimizers()
    for group in opt.param_groups:
        group["initial_lr"] = group["lr"]
    for group in th_opt.param_groups:
        group["initial_lr"] = group["lr"]
    a = lr_trace(opt, mf_sched.CosineAnnealingLR(opt, T_max=10, last_epoch=4), 20)
    b = lr_trace(th_opt, th_sched.CosineAnnealingLR(th_opt, T_max=10, last_epoch=4), 20)
    assert a == b
    fresh, _ = optimizers()
    with pytest.raises(KeyError, match="initial_lr"):
        mf_sched.StepLR(fresh, step_size=3, last_epoch=5)


def test_errors_and_warnings():
    opt, _ = optimizers()
    with pytest.raises(TypeError, match="is not an Optimizer"):
        mf_sched.StepLR(object(), step_size=3)
    with pytest.raises(ValueError, match="Expected 2 lr_lambdas, but got 1"):
        mf_sched.LambdaLR(opt, lr_lambda=[lambda e: 1.0])
    with pytest.raises(ValueError, match="Starting multiplicative factor"):
        mf_sched.LinearLR(opt, start_factor=0)
    with pytest.raises(ValueError, match="one more than the number of milestone"):
        mf_sched.SequentialLR(opt, [mf_sched.StepLR(opt, 2)], milestones=[3])
    fresh, _ = optimizers()
    sched = mf_sched.StepLR(fresh, step_size=2)
    with pytest.warns(UserWarning, match="before `optimizer.step\\(\\)`"):
        sched.step()
    assert math.isclose(fresh.param_groups[0]["lr"], 0.1)


@pytest.mark.parametrize("kwargs", [dict(base_lr=0.01, max_lr=0.1, step_size_up=4),
                                    dict(base_lr=[0.01, 0.001], max_lr=[0.1, 0.05], step_size_up=3,
                                         step_size_down=5, mode="triangular2"),
                                    dict(base_lr=0.01, max_lr=0.1, step_size_up=5, mode="exp_range", gamma=0.97),
                                    dict(base_lr=0.01, max_lr=0.1, step_size_up=2, scale_fn=lambda x: 0.5 ** x,
                                         scale_mode="iterations", cycle_momentum=False)])
@pytest.mark.parametrize("name", ["SGD", "Adam"])
def test_cyclic_lr(kwargs, name):
    """CyclicLR's lr and momentum (or beta1) sequences, per batch."""
    opts = dict(momentum=0.9) if name == "SGD" else {}
    mf_opt, th_opt = optimizers(name, **opts)
    a = lr_trace(mf_opt, mf_sched.CyclicLR(mf_opt, **kwargs), 40, momentum=kwargs.get("cycle_momentum", True))
    b = lr_trace(th_opt, th_sched.CyclicLR(th_opt, **kwargs), 40, momentum=kwargs.get("cycle_momentum", True))
    assert a == b


def test_cyclic_lr_errors_and_state_dict():
    mf_opt, th_opt = optimizers()
    with pytest.raises(ValueError, match="mode is invalid"):
        mf_sched.CyclicLR(mf_opt, 0.01, 0.1, mode="nope")
    with pytest.raises(ValueError, match="momentum or beta1"):
        mf_sched.CyclicLR(flow.optim.Adagrad([flow.zeros(2, requires_grad=True)]), 0.01, 0.1)
    sched = mf_sched.CyclicLR(mf_opt, 0.01, 0.1, step_size_up=3, scale_fn=lambda x: 1.0)
    for _ in range(4):
        mf_opt.step()
        sched.step()
    state = sched.state_dict()
    assert state["_scale_fn_custom"] is None and state["last_epoch"] == 4
    other = mf_sched.CyclicLR(optimizers()[0], 0.01, 0.1, step_size_up=3, scale_fn=lambda x: 1.0)
    other.load_state_dict(state)
    assert other.last_epoch == 4 and other.get_lr() == sched.get_lr()


def test_warm_restarts_fractional_epochs_and_errors():
    """step(epoch) with fractional epochs (the per-batch use) follows torch."""
    mf_opt, th_opt = optimizers()
    mf = mf_sched.CosineAnnealingWarmRestarts(mf_opt, T_0=4, T_mult=2)
    th = th_sched.CosineAnnealingWarmRestarts(th_opt, T_0=4, T_mult=2)
    for epoch in [0.25 * i for i in range(60)]:
        mf_opt.step()
        th_opt.step()
        mf.step(epoch)
        th.step(epoch)
        assert mf.get_last_lr() == th.get_last_lr()
    for bad in (dict(T_0=0), dict(T_0=2.5), dict(T_0=3, T_mult=0)):
        with pytest.raises(ValueError):
            mf_sched.CosineAnnealingWarmRestarts(optimizers()[0], **bad)
    with pytest.raises(ValueError, match="non-negative epoch"):
        mf.step(-1)
    assert mf_sched._LRScheduler is mf_sched.LRScheduler


def _lr_trace(lib, make, steps=12):
    p = lib.nn.Parameter(lib.zeros(1))
    opt = lib.optim.SGD([p], lr=0.5)
    sched, out = make(lib, opt), []
    for _ in range(steps):
        opt.step()
        out.append(sched.get_last_lr()[0])
        sched.step()
    return out


def test_polynomial_lr_takes_torch_positionals_and_oneflow_keywords():
    # torch's positional form, exactly torch's values
    got = _lr_trace(flow, lambda L, o: L.optim.lr_scheduler.PolynomialLR(o, 4, 2.0))
    want = _lr_trace(torch, lambda L, o: L.optim.lr_scheduler.PolynomialLR(o, 4, 2.0))
    assert got == pytest.approx(want, abs=1e-12)
    # OneFlow's keywords, against the formula of its implementation (cycle: step 0 counts as step 1)
    for cycle in (False, True):
        got = _lr_trace(flow, lambda L, o: L.optim.lr_scheduler.PolynomialLR(
            o, decay_batch=5, end_learning_rate=1e-5, power=2, cycle=cycle))
        want = []
        for step in range(12):
            step = max(step, 1) if cycle else step
            horizon = 5 * math.ceil(step / 5) if cycle else 5
            want.append((0.5 - 1e-5) * (1 - min(step, horizon) / horizon) ** 2 + 1e-5)
        assert got == pytest.approx(want, abs=1e-12)
    # OneFlow's default end_learning_rate with decay_batch
    assert _lr_trace(flow, lambda L, o: L.optim.lr_scheduler.PolynomialLR(o, decay_batch=2))[-1] == pytest.approx(1e-4)
    with pytest.raises(ValueError, match="PolynomialLR"):
        flow.optim.lr_scheduler.PolynomialLR(flow.optim.SGD([flow.nn.Parameter(flow.zeros(1))], lr=1.0), 0)
