"""nn.utils against torch: weight_norm, spectral_norm (power iteration from
the same u, v), remove_*; get_total_norm / clip_grads_with_norm_; BatchNorm
folding (fuse_conv_bn_eval, fuse_linear_bn_eval); skip_init."""
import numpy as np
import pytest

import monoflow as flow

torch = pytest.importorskip("torch")
TU, MU = torch.nn.utils, flow.nn.utils
TOL = dict(rtol=1e-10, atol=1e-12)


def to_flow(t_state):
    return {k: flow.tensor(v.detach().numpy()) for k, v in t_state.items()}


def compare_call(t, m, shape, seed=0):
    x = np.random.default_rng(seed).standard_normal(shape)
    tout, mout = t(torch.tensor(x)), m(flow.tensor(x))
    np.testing.assert_allclose(mout.detach().numpy(), tout.detach().numpy(), **TOL)
    tout.sum().backward()
    mout.sum().backward()
    tparams = dict(t.named_parameters())
    assert sorted(tparams) == sorted(dict(m.named_parameters()))
    for name, p in m.named_parameters():
        np.testing.assert_allclose(p.grad.numpy(), tparams[name].grad.numpy(), err_msg=name, **TOL)


@pytest.mark.parametrize("dim", [0, 1, None, -1])
def test_weight_norm(dim):
    torch.manual_seed(0)
    t = TU.weight_norm(torch.nn.Linear(4, 3).double(), dim=dim)
    m = MU.weight_norm(flow.nn.Linear(4, 3).double(), dim=dim)
    m.load_state_dict(to_flow(t.state_dict()))
    compare_call(t, m, (5, 4))
    TU.remove_weight_norm(t)
    MU.remove_weight_norm(m)
    np.testing.assert_allclose(m.weight.detach().numpy(), t.weight.detach().numpy(), **TOL)
    assert sorted(dict(m.named_parameters())) == ["bias", "weight"]
    with pytest.raises(ValueError):
        MU.remove_weight_norm(m)


@pytest.mark.parametrize("make,shape", [(lambda nn: nn.Linear(5, 4), (3, 5)),
                                        (lambda nn: nn.Conv2d(2, 3, 3), (1, 2, 5, 5)),
                                        (lambda nn: nn.ConvTranspose2d(3, 2, 2), (1, 3, 3, 3))])
def test_spectral_norm(make, shape):
    torch.manual_seed(0)
    t = TU.spectral_norm(make(torch.nn).double(), n_power_iterations=2)
    m = MU.spectral_norm(make(flow.nn).double(), n_power_iterations=2)
    m.load_state_dict(to_flow(t.state_dict()))  # weight_orig, bias, weight_u, weight_v
    for step in range(3):  # training mode: the power iteration advances u, v
        compare_call(t, m, shape, seed=step)
        np.testing.assert_allclose(m.weight_u.numpy(), t.weight_u.numpy(), **TOL)
        np.testing.assert_allclose(m.weight_v.numpy(), t.weight_v.numpy(), **TOL)
    t.eval()
    m.eval()
    compare_call(t, m, shape, seed=7)
    TU.remove_spectral_norm(t)
    MU.remove_spectral_norm(m)
    np.testing.assert_allclose(m.weight.detach().numpy(), t.weight.detach().numpy(), **TOL)


def test_total_norm_and_clip_with_norm():
    rng = np.random.default_rng(0)
    grads = [rng.standard_normal(s) for s in ((3, 4), (5,))]
    for norm_type in (2.0, 1.0, float("inf")):
        tparams = [torch.zeros(g.shape, dtype=torch.float64, requires_grad=True) for g in grads]
        mparams = [flow.zeros(g.shape, dtype=flow.float64, requires_grad=True) for g in grads]
        for tp, mp, g in zip(tparams, mparams, grads):
            tp.grad, mp.grad = torch.tensor(g), flow.tensor(g)
        tn = TU.get_total_norm([p.grad for p in tparams], norm_type)
        mn = MU.get_total_norm([p.grad for p in mparams], norm_type)
        np.testing.assert_allclose(mn.numpy(), tn.numpy(), **TOL)
        TU.clip_grads_with_norm_(tparams, 0.5, tn)
        MU.clip_grads_with_norm_(mparams, 0.5, mn)
        for tp, mp in zip(tparams, mparams):
            np.testing.assert_allclose(mp.grad.numpy(), tp.grad.numpy(), **TOL)


def test_fuse_conv_and_linear_with_bn():
    torch.manual_seed(0)
    tconv, tbn = torch.nn.Conv2d(2, 3, 3).double().eval(), torch.nn.BatchNorm2d(3).double().eval()
    with torch.no_grad():
        tbn.running_mean.uniform_(-1, 1)
        tbn.running_var.uniform_(0.5, 2)
        tbn.weight.uniform_()
    mconv, mbn = flow.nn.Conv2d(2, 3, 3).double().eval(), flow.nn.BatchNorm2d(3).double().eval()
    mconv.load_state_dict(to_flow(tconv.state_dict()))
    mbn.load_state_dict(to_flow(tbn.state_dict()))
    x = np.random.default_rng(1).standard_normal((2, 2, 5, 5))
    fused = MU.fuse_conv_bn_eval(mconv, mbn)
    np.testing.assert_allclose(fused(flow.tensor(x)).detach().numpy(),
                               TU.fuse_conv_bn_eval(tconv, tbn)(torch.tensor(x)).detach().numpy(), **TOL)
    np.testing.assert_allclose(fused(flow.tensor(x)).detach().numpy(), mbn(mconv(flow.tensor(x))).detach().numpy(),
                               rtol=1e-9, atol=1e-10)
    tlin, tbn1 = torch.nn.Linear(4, 3).double().eval(), torch.nn.BatchNorm1d(3).double().eval()
    with torch.no_grad():
        tbn1.running_var.uniform_(0.5, 2)
    mlin, mbn1 = flow.nn.Linear(4, 3).double().eval(), flow.nn.BatchNorm1d(3).double().eval()
    mlin.load_state_dict(to_flow(tlin.state_dict()))
    mbn1.load_state_dict(to_flow(tbn1.state_dict()))
    x = np.random.default_rng(2).standard_normal((5, 4))
    np.testing.assert_allclose(MU.fuse_linear_bn_eval(mlin, mbn1)(flow.tensor(x)).detach().numpy(),
                               TU.fuse_linear_bn_eval(tlin, tbn1)(torch.tensor(x)).detach().numpy(), **TOL)
    with pytest.raises(AssertionError, match="eval"):
        MU.fuse_conv_bn_eval(mconv.train(), mbn)


def test_skip_init():
    m = MU.skip_init(flow.nn.Linear, 4, 3, bias=False)
    assert isinstance(m, flow.nn.Linear) and tuple(m.weight.shape) == (3, 4) and m.bias is None


def test_functional_call():
    """The module run with replacement weights (a MAML-style inner step), gradients to the replacements;
    the module's own parameters untouched afterwards."""
    torch.manual_seed(0)
    t = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 1)).double()
    m = flow.nn.Sequential(flow.nn.Linear(3, 4), flow.nn.Tanh(), flow.nn.Linear(4, 1)).double()
    m.load_state_dict(to_flow(t.state_dict()))
    x = np.random.default_rng(0).standard_normal((5, 3))
    results = []
    for lib, model, fc in ((torch, t, torch.func.functional_call), (flow, m, MU.stateless.functional_call)):
        params = dict(model.named_parameters())
        loss = model(lib.tensor(x)).pow(2).sum()
        grads = lib.autograd.grad(loss, list(params.values()), create_graph=True)
        adapted = {n: p - 0.1 * g for (n, p), g in zip(params.items(), grads)}
        out = fc(model, adapted, (lib.tensor(x),))
        outer = out.pow(2).sum()
        outer.backward()
        results.append((out.detach().numpy(), [p.grad.numpy() for p in model.parameters()]))
    np.testing.assert_allclose(results[1][0], results[0][0], **TOL)
    for a, b in zip(results[1][1], results[0][1]):
        np.testing.assert_allclose(a, b, **TOL)
    assert isinstance(m[0].weight, flow.nn.Parameter)
    with pytest.raises(AttributeError, match="neither a parameter nor a buffer"):
        MU.stateless.functional_call(m, {"0.nope": flow.zeros(1)}, (flow.tensor(x),))
    with pytest.raises(RuntimeError, match="missing keys"):
        MU.stateless.functional_call(m, {"0.weight": m[0].weight}, (flow.tensor(x),), strict=True)
