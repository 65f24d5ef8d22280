"""optim.swa_utils against torch: AveragedModel (SWA mean, EMA through
multi_avg_fn and avg_fn, use_buffers), SWALR's lr sequence, update_bn."""
import numpy as np
import pytest

import monoflow as flow

torch = pytest.importorskip("torch")
import torch.optim.swa_utils  # noqa: E402


def twins():
    torch.manual_seed(0)
    t = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4), torch.nn.Linear(4, 2)).double()
    m = flow.nn.Sequential(flow.nn.Linear(3, 4), flow.nn.BatchNorm1d(4), flow.nn.Linear(4, 2)).double()
    m.load_state_dict({k: flow.tensor(v.detach().numpy()) for k, v in t.state_dict().items()})
    return t, m


def train_steps(lib, model, opt, data):
    for x in data:
        opt.zero_grad()
        model(lib.tensor(x)).pow(2).sum().backward()
        opt.step()
        yield


@pytest.mark.parametrize("kind", ["swa", "ema-multi", "ema", "buffers"])
def test_averaged_model(kind):
    t, m = twins()
    tsw, msw = torch.optim.swa_utils, flow.optim.swa_utils
    kw_t, kw_m = {}, {}
    if kind == "ema-multi":
        kw_t = dict(multi_avg_fn=tsw.get_ema_multi_avg_fn(0.9))
        kw_m = dict(multi_avg_fn=msw.get_ema_multi_avg_fn(0.9))
    elif kind == "ema":
        kw_t, kw_m = dict(avg_fn=tsw.get_ema_avg_fn(0.8)), dict(avg_fn=msw.get_ema_avg_fn(0.8))
    elif kind == "buffers":  # float buffers only: torch's averaging cannot handle num_batches_tracked
        kw_t = kw_m = dict(use_buffers=True)
        t, m = t[0], m[0]
        t.register_buffer("scale", torch.ones(4, dtype=torch.float64))
        m.register_buffer("scale", flow.ones(4, dtype=flow.float64))
    tavg, mavg = tsw.AveragedModel(t, **kw_t), msw.AveragedModel(m, **kw_m)
    topt, mopt = torch.optim.SGD(t.parameters(), lr=0.1), flow.optim.SGD(m.parameters(), lr=0.1)
    data = [np.random.default_rng(i).standard_normal((5, 3)) for i in range(4)]
    for _ in zip(train_steps(torch, t, topt, data), train_steps(flow, m, mopt, data)):
        if kind == "buffers":
            t.scale.mul_(1.5)
            m.scale.mul_(1.5)
        tavg.update_parameters(t)
        mavg.update_parameters(m)
    tsd, msd = tavg.state_dict(), mavg.state_dict()
    assert sorted(tsd) == sorted(msd)
    for k in tsd:
        np.testing.assert_allclose(msd[k].numpy(), tsd[k].numpy(), rtol=1e-10, atol=1e-12, err_msg=k)
    x = np.random.default_rng(9).standard_normal((2, 3))
    if kind == "buffers":
        np.testing.assert_allclose(mavg.module.scale.numpy(), tavg.module.scale.numpy(), rtol=1e-12)
    tavg.eval()
    mavg.eval()
    np.testing.assert_allclose(mavg(flow.tensor(x)).detach().numpy(), tavg(torch.tensor(x)).detach().numpy(),
                               rtol=1e-10)


@pytest.mark.parametrize("kwargs", [dict(swa_lr=0.05), dict(swa_lr=[0.01, 0.2], anneal_epochs=3,
                                                                anneal_strategy="linear"),
                                    dict(swa_lr=0.03, anneal_epochs=0)])
def test_swalr_sequence(kwargs):
    def run(lib):
        opt = lib.optim.SGD([{"params": [lib.zeros(2, requires_grad=True)], "lr": lr} for lr in (0.1, 0.5)])
        sched = lib.optim.swa_utils.SWALR(opt, **kwargs)
        out = []
        for _ in range(15):
            opt.step()
            sched.step()
            out.append(sched.get_last_lr())
        return out
    assert run(flow) == run(torch)
    with pytest.raises(ValueError, match="anneal_strategy"):
        flow.optim.swa_utils.SWALR(flow.optim.SGD([flow.zeros(1, requires_grad=True)], lr=0.1), 0.1,
                                   anneal_strategy="exp")


def test_update_bn():
    t, m = twins()
    loader = [(np.random.default_rng(i).standard_normal((6, 3)),) for i in range(3)]
    torch.optim.swa_utils.update_bn([(torch.tensor(x[0]),) for x in loader], t)
    flow.optim.swa_utils.update_bn([(flow.tensor(x[0]),) for x in loader], m)
    for name in ("running_mean", "running_var"):
        np.testing.assert_allclose(getattr(m[1], name).numpy(), getattr(t[1], name).numpy(), rtol=1e-10)
    assert m[1].momentum == 0.1 and m.training
