"""optim.Muon against torch.optim.Muon (same gradients, same steps), its argument checks, and the
half-precision addmm whose single rounding its Newton-Schulz iteration relies on."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import monoflow as flow

torch = pytest.importorskip("torch")


def _train(lib, w0, xs, **kw):
    w = lib.nn.Parameter(lib.tensor(w0.copy()))
    opt = lib.optim.Muon([w], **kw)
    for x in xs:
        opt.zero_grad()
        ((lib.tensor(x) @ w.t()) ** 2).sum().backward()
        opt.step()
    return w.detach().numpy(), opt


@settings(max_examples=12, deadline=None)
@given(rows=st.integers(1, 12), cols=st.integers(1, 12), nesterov=st.booleans(),
       rule=st.sampled_from([None, "original", "match_rms_adamw"]), seed=st.integers(0, 2**31 - 1))
def test_matches_torch(rows, cols, nesterov, rule, seed):
    rng = np.random.default_rng(seed)
    w0 = rng.standard_normal((rows, cols)).astype(np.float32)
    xs = [rng.standard_normal((4, cols)).astype(np.float32) for _ in range(3)]
    kw = dict(lr=0.05, nesterov=nesterov, adjust_lr_fn=rule, weight_decay=0.1, momentum=0.9)
    # one step: the same bfloat16 Newton-Schulz result (the iteration is bit-identical to torch's)
    want, _ = _train(torch, w0, xs[:1], **kw)
    got, _ = _train(flow, w0, xs[:1], **kw)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    # more steps: float32 rounding differences in the gradients pass through bfloat16, so close, not equal
    want, t_opt = _train(torch, w0, xs, **kw)
    got, f_opt = _train(flow, w0, xs, **kw)
    moved = np.abs(want - w0).max()
    assert np.abs(got - want).max() <= 0.03 * moved + 1e-6
    assert set(f_opt.state_dict()["param_groups"][0]) == set(t_opt.state_dict()["param_groups"][0])


@pytest.mark.parametrize("kw, match", [
    (dict(lr=-1.0), "Learning rate"), (dict(momentum=-0.5), "momentum"), (dict(weight_decay=-1.0), "weight decay"),
    (dict(adjust_lr_fn="other"), "not supported"),
])
def test_bad_arguments_raise_as_torch(kw, match):
    for lib in (torch, flow):
        with pytest.raises(ValueError, match=match):
            lib.optim.Muon([lib.nn.Parameter(lib.ones(2, 2))], **kw)
    with pytest.raises(ValueError, match="only supports 2D"):
        flow.optim.Muon([flow.nn.Parameter(flow.ones(3))])
    with pytest.raises(ValueError, match="less than 100"):  # (torch checks it at the first step)
        flow.optim.Muon([flow.nn.Parameter(flow.ones(2, 2))], ns_steps=100)


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_half_precision_addmm_rounds_once(dtype):
    rng = np.random.default_rng(3)
    a, b, c = (rng.standard_normal(s).astype(np.float32) for s in ((5, 4), (5, 3), (3, 4)))
    outs = [lib.addmm(*(lib.tensor(v).to(getattr(lib, dtype)) for v in (a, b, c)), beta=-4.775, alpha=2.0315)
            for lib in (torch, flow)]
    assert str(outs[1].dtype).split(".")[-1] == dtype
    exact = -4.775 * _as(a, dtype) + 2.0315 * (_as(b, dtype) @ _as(c, dtype))  # float64 of the rounded inputs
    mantissa = {"bfloat16": 7, "float16": 10}[dtype]
    half_ulp = 0.5 * 2.0 ** (np.floor(np.log2(np.abs(exact))) - mantissa)
    # one rounding: within half a unit in the last place (plus float32's own error), not a step's worth more
    assert (np.abs(outs[1].float().numpy() - exact) <= half_ulp * 1.01 + 1e-5 * np.abs(exact)).all()
    if dtype == "bfloat16":  # torch's bfloat16 addmm rounds once too
        np.testing.assert_array_equal(outs[1].float().numpy(), outs[0].float().numpy())


def _as(v, dtype):
    """v rounded to `dtype`, as float64."""
    return torch.tensor(v).to(getattr(torch, dtype)).double().numpy()
