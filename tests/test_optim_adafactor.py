"""optim.Adafactor against torch.optim.Adafactor: matrices (factored), batches of matrices, vectors and
scalars, every option, state_dict round trip and argument checks."""
import numpy as np
import pytest
import torch

import monoflow as flow

SHAPES = [(4, 3), (5,), (2, 3, 4), ()]


def _run(lib, init, steps=6, state=None, **kw):
    ps = [lib.nn.Parameter(lib.tensor(a)) for a in init]
    opt = lib.optim.Adafactor(ps, **kw)
    if state is not None:
        opt.load_state_dict(state)
    for _ in range(steps):
        opt.zero_grad()
        loss = sum(((p * p * (i + 1)).sum() + p.sum()) for i, p in enumerate(ps))
        loss.backward()
        opt.step()
    return [p.detach().numpy() for p in ps], opt


@pytest.mark.parametrize("kw", [{}, {"lr": 0.1, "weight_decay": 0.1}, {"maximize": True, "d": 2.0},
                                {"eps": (1e-6, 1e-2), "beta2_decay": -0.5}, {"lr": 1e-3}])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_adafactor_matches_torch(kw, dtype):
    rng = np.random.default_rng(0)
    init = [rng.standard_normal(s).astype(dtype) for s in SHAPES]
    got, _ = _run(flow, init, **kw)
    want, _ = _run(torch, init, **kw)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_adafactor_state_dict_resumes_the_same_trajectory():
    rng = np.random.default_rng(1)
    init = [rng.standard_normal(s).astype(np.float32) for s in SHAPES]
    straight, _ = _run(flow, init, steps=6)
    first, opt = _run(flow, init, steps=3)
    state = opt.state_dict()
    assert {"row_var", "col_var", "step"} <= set(state["state"][0])
    assert "variance" in state["state"][1]
    resumed, _ = _run(flow, first, steps=3, state=state)
    for a, b in zip(resumed, straight):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)


def test_adafactor_rejects_bad_options_as_torch():
    p = [flow.nn.Parameter(flow.ones(2))]
    for kw in ({"lr": -1.0}, {"beta2_decay": 0.5}, {"eps": (-1.0, 1e-3)}, {"eps": (None, -1.0)}, {"d": 0.5},
               {"weight_decay": -0.1}):
        with pytest.raises(ValueError):
            flow.optim.Adafactor(p, **kw)
        with pytest.raises(ValueError):
            torch.optim.Adafactor([torch.nn.Parameter(torch.ones(2))], **kw)
