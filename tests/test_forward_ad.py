"""torch.autograd.forward_ad's interface (the "Forward-mode Automatic Differentiation" tutorial):
dual_level / make_dual / unpack_dual tangents against torch's, for functions, modules whose parameters are
replaced by duals, and functional_call."""
import numpy as np
import pytest

import monoflow as flow

torch = pytest.importorskip("torch")


def run(lib, primal, tangent, plain):
    fwAD = lib.autograd.forward_ad

    def fn(x, y):
        return x ** 2 + y ** 2 + (x * y).sin()

    with fwAD.dual_level():
        dual_input = fwAD.make_dual(lib.tensor(primal), lib.tensor(tangent))
        assert fwAD.unpack_dual(dual_input).tangent is not None
        dual_output = fn(dual_input, lib.tensor(plain))
        p, t = fwAD.unpack_dual(dual_output)
        none = fwAD.unpack_dual(lib.tensor(plain)).tangent
    assert none is None
    assert fwAD.unpack_dual(dual_output).tangent is None  # outside the level
    return p.numpy(), t.numpy()


def test_function_tangent_matches_torch():
    rng = np.random.default_rng(0)
    a, b, c = (rng.standard_normal((4, 5)) for _ in range(3))
    tp, tt = run(torch, a, b, c)
    mp, mt = run(flow, a, b, c)
    np.testing.assert_allclose(mp, tp, rtol=1e-12)
    np.testing.assert_allclose(mt, tt, rtol=1e-12, atol=1e-14)


def module_jvp(lib, w, b, x, tw, tb):
    fwAD = lib.autograd.forward_ad
    model = lib.nn.Linear(5, 3).double()
    with lib.no_grad():
        model.weight.copy_(lib.tensor(w))
        model.bias.copy_(lib.tensor(b))
    params = {name: p for name, p in model.named_parameters()}
    tangents = {"weight": lib.tensor(tw), "bias": lib.tensor(tb)}
    with fwAD.dual_level():
        for name, p in params.items():
            delattr(model, name)
            setattr(model, name, fwAD.make_dual(p, tangents[name]))
        out = model(lib.tensor(x)).tanh()
        jvp1 = fwAD.unpack_dual(out).tangent
    model2 = lib.nn.Linear(5, 3).double()
    with fwAD.dual_level():
        dual_params = {name: fwAD.make_dual(p, tangents[name]) for name, p in params.items()}
        out = lib.func.functional_call(model2, dual_params, (lib.tensor(x),))
        jvp2 = fwAD.unpack_dual(out).tangent
    return jvp1.detach().numpy(), jvp2.detach().numpy()


def test_module_parameters_as_duals_match_torch():
    rng = np.random.default_rng(1)
    w, b, x, tw, tb = (rng.standard_normal(s) for s in ((3, 5), 3, (2, 5), (3, 5), 3))
    for t, m in zip(module_jvp(torch, w, b, x, tw, tb), module_jvp(flow, w, b, x, tw, tb)):
        np.testing.assert_allclose(m, t, rtol=1e-12, atol=1e-14)


def test_levels_and_errors():
    fwAD = flow.autograd.forward_ad
    with pytest.raises(RuntimeError, match="dual_level"):
        fwAD.make_dual(flow.ones(2), flow.ones(2))
    with fwAD.dual_level():
        with pytest.raises(RuntimeError, match="different size"):
            fwAD.make_dual(flow.ones(2), flow.ones(3))
        x = fwAD.make_dual(flow.tensor([1.0, 2.0]), flow.tensor([0.5, 0.5]))
        const = (x * 0).sum() + 1.0  # depends on x with a zero Jacobian
        assert float(fwAD.unpack_dual(const).tangent) == 0.0
        lin = 3 * x  # a constant Jacobian
        np.testing.assert_allclose(fwAD.unpack_dual(lin).tangent.numpy(), [1.5, 1.5])
    level = fwAD.enter_dual_level()
    fwAD.exit_dual_level(level=level)
    with pytest.raises(RuntimeError):
        fwAD.exit_dual_level()
