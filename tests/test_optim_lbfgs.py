"""flow.optim.LBFGS against torch.optim.LBFGS: the same closure on the same
float64 parameters takes the same trajectory (with and without the strong
Wolfe line search, short and long histories), and a small sine-fitting
model in the style of the time-series LBFGS scripts trains to torch's loss."""
import numpy as np
import pytest

import monoflow as flow

torch = pytest.importorskip("torch")


def rosenbrock(lib, x):
    return ((1 - x[:-1]) ** 2 + 100 * (x[1:] - x[:-1] ** 2) ** 2).sum()


def run(lib, opt_cls, start, steps, **opts):
    x = lib.tensor(start, dtype=lib.float64).requires_grad_()
    opt = opt_cls([x], **opts)
    losses, points = [], []

    def closure():
        opt.zero_grad()
        loss = rosenbrock(lib, x)
        loss.backward()
        return loss

    for _ in range(steps):
        losses.append(float(opt.step(closure).detach()))
        points.append(x.detach().numpy().copy())
    return losses, points, opt


@pytest.mark.parametrize("opts", [dict(), dict(line_search_fn="strong_wolfe"),
                                  dict(history_size=3, max_iter=7), dict(lr=0.5, history_size=2),
                                  dict(line_search_fn="strong_wolfe", history_size=4, max_iter=10, max_eval=11),
                                  dict(tolerance_grad=1e-3, tolerance_change=1e-4, line_search_fn="strong_wolfe")],
                         ids=["plain", "wolfe", "hist3", "lr-half", "wolfe-short", "tolerances"])
def test_rosenbrock_trajectory_matches_torch(opts):
    start = np.array([-1.2, 1.0, 0.5, -0.3])
    mine, mine_pts, mopt = run(flow, flow.optim.LBFGS, start, 6, **opts)
    theirs, their_pts, topt = run(torch, torch.optim.LBFGS, start, 6, **opts)
    np.testing.assert_allclose(mine, theirs, rtol=1e-9, atol=1e-12)
    for a, b in zip(mine_pts, their_pts):
        np.testing.assert_allclose(a, b, rtol=1e-8, atol=1e-10)
    key_m, key_t = mopt.param_groups[0]["params"][0], topt.param_groups[0]["params"][0]
    assert mopt.state[key_m]["func_evals"] == topt.state[key_t]["func_evals"]
    assert mopt.state[key_m]["n_iter"] == topt.state[key_t]["n_iter"]
    if "tolerance_grad" not in opts:
        assert mine[-1] < mine[0]


def test_sine_model_trains_like_torch():
    """A two-layer model fitting a sine with LBFGS(strong_wolfe), weights copied from torch."""
    rng = np.random.default_rng(0)
    t = np.linspace(0, 6, 40)[:, None]
    y = np.sin(t)
    torch.manual_seed(0)
    tmodel = torch.nn.Sequential(torch.nn.Linear(1, 8), torch.nn.Tanh(), torch.nn.Linear(8, 1)).double()
    mmodel = flow.nn.Sequential(flow.nn.Linear(1, 8), flow.nn.Tanh(), flow.nn.Linear(8, 1)).double()
    mmodel.load_state_dict({k: flow.tensor(v.detach().numpy()) for k, v in tmodel.state_dict().items()})
    del rng
    results = []
    for lib, model in ((flow, mmodel), (torch, tmodel)):
        x, target = lib.tensor(t), lib.tensor(y)
        opt = lib.optim.LBFGS(model.parameters(), lr=0.8, history_size=10, max_iter=15,
                              line_search_fn="strong_wolfe")
        crit = lib.nn.MSELoss()
        losses = []
        for _ in range(4):
            def closure():
                opt.zero_grad()
                loss = crit(model(x), target)
                loss.backward()
                return loss
            opt.step(closure)
            with lib.no_grad():
                losses.append(float(crit(model(x), target)))
        results.append(losses)
    np.testing.assert_allclose(results[0], results[1], rtol=1e-6)
    assert results[0][-1] < 0.05


def test_errors():
    p = flow.zeros(3, requires_grad=True)
    with pytest.raises(ValueError, match="per-parameter options"):
        flow.optim.LBFGS([{"params": [p]}, {"params": [flow.zeros(2, requires_grad=True)]}])
    with pytest.raises(ValueError, match="line_search_fn"):
        flow.optim.LBFGS([p], line_search_fn="armijo")
    with pytest.raises(ValueError, match="Invalid learning rate"):
        flow.optim.LBFGS([p], lr=-1)
    with pytest.raises(RuntimeError, match="requires a closure"):
        flow.optim.LBFGS([p]).step(None)


def test_already_optimal_returns_at_once():
    x = flow.ones(2, dtype=flow.float64, requires_grad=True)
    opt = flow.optim.LBFGS([x])
    calls = []

    def closure():
        calls.append(1)
        opt.zero_grad()
        loss = ((x - 1) ** 2).sum()
        loss.backward()
        return loss

    assert float(opt.step(closure)) == 0.0
    assert len(calls) == 1
