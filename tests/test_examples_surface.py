"""The API surface that pytorch/examples and the official tutorials use beyond
tests/test_public_script_surface.py, checked against torch: each test is a
small program in the style of the script that stopped on monoflow before."""
import numpy as np
import pytest

import monoflow as flow
import monoflow.nn.functional as F

torch = pytest.importorskip("torch")
D, TD = flow.distributions, torch.distributions


def _close(a, b, **kw):
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=kw.get("rtol", 1e-5), atol=kw.get("atol", 1e-6))


# ------------------------------------------ reinforcement_learning: torch.distributions.Categorical

def test_actor_critic_policy_loss_and_gradients_match_torch():
    # actor_critic.py's finish_episode on recorded actions: Categorical(probs).log_prob, smooth_l1 on the critic
    rng = np.random.RandomState(0)
    states = rng.randn(6, 4).astype(np.float32)
    actions = np.array([0, 1, 1, 0, 1, 0])
    rewards = [1.0] * 6
    grads = []
    for lib in (flow, torch):
        lib.manual_seed(0)
        head = lib.nn.Linear(4, 2), lib.nn.Linear(4, 1)
        with lib.no_grad():
            for layer, w in zip(head, (np.linspace(-1, 1, 8).reshape(2, 4), np.linspace(0, 1, 4).reshape(1, 4))):
                layer.weight.copy_(lib.tensor(w, dtype=lib.float32))
                layer.bias.zero_()
        opt = lib.optim.Adam([p for layer in head for p in layer.parameters()], lr=3e-2)
        R, returns = 0, []
        for r in rewards[::-1]:
            R = r + 0.99 * R
            returns.insert(0, R)
        returns = lib.tensor(returns)
        returns = (returns - returns.mean()) / (returns.std() + np.finfo(np.float32).eps.item())
        policy_losses, value_losses = [], []
        for s, a, R in zip(states, actions, returns):
            x = lib.from_numpy(s).float()
            m = lib.distributions.Categorical(lib.nn.functional.softmax(head[0](x), dim=-1))
            value = head[1](x)
            policy_losses.append(-m.log_prob(lib.tensor(a)) * (R - value.item()))
            value_losses.append(lib.nn.functional.smooth_l1_loss(value, lib.tensor([R])))
        loss = lib.stack(policy_losses).sum() + lib.stack(value_losses).sum()
        opt.zero_grad()
        loss.backward()
        grads.append((loss.item(), head[0].weight.grad.numpy().copy(), head[1].weight.grad.numpy().copy()))
        opt.step()
    assert grads[0][0] == pytest.approx(grads[1][0], rel=1e-5)
    for g, t in zip(grads[0][1:], grads[1][1:]):
        np.testing.assert_allclose(g, t, rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("given", ["probs", "logits"])
def test_categorical_log_prob_entropy_and_grad_match_torch(given):
    p = np.array([[0.1, 0.2, 0.7], [0.5, 0.25, 0.25]], np.float32)
    raw = p if given == "probs" else np.log(p) + 0.3
    a, b = flow.tensor(raw, requires_grad=True), torch.tensor(raw, requires_grad=True)
    ma, mb = D.Categorical(**{given: a}), TD.Categorical(**{given: b})
    v = np.array([2, 0])
    la, lb = ma.log_prob(flow.tensor(v)), mb.log_prob(torch.tensor(v))
    _close(la, lb)
    _close(ma.entropy(), mb.entropy())
    _close(ma.probs, mb.probs)
    _close(ma.logits, mb.logits)
    (la.sum() + ma.entropy().sum()).backward()
    (lb.sum() + mb.entropy().sum()).backward()
    _close(a.grad, b.grad, rtol=1e-4)
    assert ma.sample().dtype == flow.int64 and tuple(ma.sample((5, 3)).shape) == tuple(mb.sample((5, 3)).shape)
    assert tuple(ma.enumerate_support().shape) == tuple(mb.enumerate_support().shape)
    assert tuple(ma.batch_shape) == (2,) and tuple(ma.event_shape) == ()


def test_categorical_samples_follow_the_probabilities():
    flow.manual_seed(1)
    s = D.Categorical(flow.tensor([0.1, 0.3, 0.6])).sample((20000,)).numpy()
    np.testing.assert_allclose(np.bincount(s, minlength=3) / s.size, [0.1, 0.3, 0.6], atol=0.02)


def test_categorical_zero_probability_entropy_is_finite_as_torch():
    p = [0.0, 0.5, 0.5]
    _close(D.Categorical(flow.tensor(p)).entropy(), TD.Categorical(torch.tensor(p)).entropy())


def test_distribution_argument_and_sample_checks_raise_value_error_as_torch():
    with pytest.raises(ValueError):
        TD.Categorical(torch.tensor([-0.1, 1.1]))
    with pytest.raises(ValueError, match="Simplex"):
        D.Categorical(flow.tensor([-0.1, 1.1]))
    with pytest.raises(ValueError, match="support"):
        D.Categorical(flow.tensor([0.5, 0.5])).log_prob(flow.tensor(2))
    with pytest.raises(ValueError, match="positive|GreaterThan"):
        D.Normal(flow.tensor([0.0]), flow.tensor([-1.0]))
    with pytest.raises(ValueError, match="not both"):
        D.Categorical(flow.ones(2), logits=flow.ones(2))
    D.Normal(flow.tensor([0.0]), flow.tensor([-1.0]), validate_args=False)  # checks can be switched off


def test_normal_vae_style_rsample_log_prob_kl_match_torch():
    loc, scale = np.array([0.0, 1.0, -0.5], np.float32), np.array([1.0, 2.0, 0.3], np.float32)
    x = np.array([0.3, -1.0, 0.0], np.float32)
    la, sa = flow.tensor(loc, requires_grad=True), flow.tensor(scale, requires_grad=True)
    lb, sb = torch.tensor(loc, requires_grad=True), torch.tensor(scale, requires_grad=True)
    na, nb = D.Normal(la, sa), TD.Normal(lb, sb)
    for f in ("log_prob", "cdf"):
        _close(getattr(na, f)(flow.tensor(x)), getattr(nb, f)(torch.tensor(x)))
    _close(na.icdf(flow.tensor([0.1, 0.5, 0.9])), nb.icdf(torch.tensor([0.1, 0.5, 0.9])), rtol=1e-4)
    _close(na.entropy(), nb.entropy())
    ka = D.kl_divergence(na, D.Normal(flow.zeros(3), flow.ones(3))).sum()
    kb = TD.kl_divergence(nb, TD.Normal(torch.zeros(3), torch.ones(3))).sum()
    _close(ka, kb)
    ka.backward()
    kb.backward()
    _close(la.grad, lb.grad)
    _close(sa.grad, sb.grad)
    # the reparameterized sample carries the gradient: d(loc + eps*scale)/dscale = eps
    z = D.Normal(la, sa).rsample((4,))
    assert tuple(z.shape) == (4, 3) and z.requires_grad
    assert not D.Normal(la, sa).sample().requires_grad
    assert tuple(D.Normal(0.0, 1.0).sample((2,)).shape) == (2,)


def test_bernoulli_uniform_one_hot_and_independent_match_torch():
    p = np.array([0.3, 0.9], np.float32)
    v = np.array([1.0, 0.0], np.float32)
    for make in (lambda L, t: L.Bernoulli(t), lambda L, t: L.Bernoulli(logits=t)):
        a, b = make(D, flow.tensor(p)), make(TD, torch.tensor(p))
        _close(a.log_prob(flow.tensor(v)), b.log_prob(torch.tensor(v)))
        _close(a.entropy(), b.entropy())
    _close(D.kl_divergence(D.Bernoulli(flow.tensor(p)), D.Bernoulli(flow.tensor([0.5, 0.5]))),
           TD.kl_divergence(TD.Bernoulli(torch.tensor(p)), TD.Bernoulli(torch.tensor([0.5, 0.5]))))
    ua, ub = D.Uniform(flow.tensor([0.0, -1.0]), flow.tensor([2.0, 3.0])), TD.Uniform(torch.tensor([0.0, -1.0]), torch.tensor([2.0, 3.0]))
    _close(ua.log_prob(flow.tensor([0.5, 2.5])), ub.log_prob(torch.tensor([0.5, 2.5])))
    _close(ua.entropy(), ub.entropy())
    s = ua.sample((1000,)).numpy()
    assert (s[:, 0] >= 0).all() and (s[:, 0] < 2).all() and (s[:, 1] >= -1).all() and (s[:, 1] < 3).all()
    oa, ob = D.OneHotCategorical(flow.tensor([0.2, 0.8])), TD.OneHotCategorical(torch.tensor([0.2, 0.8]))
    _close(oa.log_prob(flow.tensor([0.0, 1.0])), ob.log_prob(torch.tensor([0.0, 1.0])))
    assert oa.sample((3,)).numpy().sum(-1).tolist() == [1.0, 1.0, 1.0]
    ia = D.Independent(D.Normal(flow.zeros(2, 3), flow.ones(2, 3)), 1)
    ib = TD.Independent(TD.Normal(torch.zeros(2, 3), torch.ones(2, 3)), 1)
    assert (tuple(ia.batch_shape), tuple(ia.event_shape)) == (tuple(ib.batch_shape), tuple(ib.event_shape)) == ((2,), (3,))
    x = np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)
    _close(ia.log_prob(flow.tensor(x)), ib.log_prob(torch.tensor(x)))


def test_multivariate_normal_matches_torch():
    cov = np.array([[2.0, 0.5], [0.5, 1.0]], np.float32)
    for kw in ("covariance_matrix", "scale_tril", "precision_matrix"):
        m = {"covariance_matrix": cov, "scale_tril": np.linalg.cholesky(cov), "precision_matrix": np.linalg.inv(cov)}[kw]
        a = D.MultivariateNormal(flow.tensor([0.1, -0.2]), **{kw: flow.tensor(m)})
        b = TD.MultivariateNormal(torch.tensor([0.1, -0.2]), **{kw: torch.tensor(m)})
        _close(a.log_prob(flow.tensor([[0.3, 0.2], [1.0, -1.0]])), b.log_prob(torch.tensor([[0.3, 0.2], [1.0, -1.0]])), rtol=1e-4)
        _close(a.entropy(), b.entropy(), rtol=1e-5)
        _close(a.covariance_matrix, b.covariance_matrix, rtol=1e-4)
        _close(D.kl_divergence(a, D.MultivariateNormal(flow.ones(2), flow.eye(2))),
               TD.kl_divergence(b, TD.MultivariateNormal(torch.ones(2), torch.eye(2))), rtol=1e-4)
    assert tuple(a.rsample((5,)).shape) == (5, 2)


def test_kl_of_an_unregistered_pair_is_not_implemented_and_register_kl_adds_one():
    class Mine(D.Normal):
        pass
    with pytest.raises(NotImplementedError, match="KL"):
        D.kl_divergence(D.Normal(0.0, 1.0), D.Categorical(flow.ones(2)))
    assert float(D.kl_divergence(Mine(0.0, 1.0), D.Normal(0.0, 1.0))) == 0.0  # a subclass uses its base's formula

    @D.register_kl(Mine, Mine)
    def _kl_mine(p, q):
        return flow.tensor(7.0)
    assert float(D.kl_divergence(Mine(0.0, 1.0), Mine(0.0, 1.0))) == 7.0


# ------------------------------------------ mnist_forward_forward: x_[range(n), y] = x.max(), torch.xpu probe

def test_forward_forward_overlay_with_a_range_index_trains_as_torch():
    rng = np.random.RandomState(0)
    x_np = rng.rand(8, 20).astype(np.float32)
    y_np = rng.randint(0, 10, 8)
    losses = []
    for lib in (flow, torch):
        x, y = lib.tensor(x_np), lib.tensor(y_np)
        x_ = x.clone()
        x_[:, :10] *= 0.0
        x_[range(x.shape[0]), y] = x.max()  # the overlay: one-hot label written with the image's max
        layer = lib.nn.Linear(20, 6)
        with lib.no_grad():
            layer.weight.copy_(lib.tensor(np.linspace(-0.5, 0.5, 120).reshape(6, 20), dtype=lib.float32))
            layer.bias.fill_(0.1)
        opt = lib.optim.Adam(layer.parameters(), lr=0.03)
        for _ in range(3):
            d = x_ / (x_.norm(2, 1, keepdim=True) + 1e-4)
            g = lib.relu(lib.mm(d, layer.weight.T) + layer.bias.unsqueeze(0)).pow(2).mean(1)
            loss = lib.log1p(lib.exp(lib.cat([-g + 2.0, g - 2.0]))).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        losses.append((x_.numpy(), loss.item()))
    np.testing.assert_array_equal(losses[0][0], losses[1][0])
    assert losses[0][1] == pytest.approx(losses[1][1], rel=1e-5)


def test_range_indexes_like_a_list():
    a, b = flow.arange(10), torch.arange(10)
    np.testing.assert_array_equal(a[range(2, 8, 3)].numpy(), b[range(2, 8, 3)].numpy())
    assert a[range(0)].dtype == flow.int64 and a[range(0)].numel() == 0
    m = flow.arange(12).reshape(3, 4)
    np.testing.assert_array_equal(m[range(3), [0, 1, 3]].numpy(), torch.arange(12).reshape(3, 4)[range(3), [0, 1, 3]].numpy())


def test_xpu_module_answers_unavailable_without_a_plugin():
    assert flow.xpu.is_available() is False and flow.xpu.device_count() == 0
    flow.xpu.manual_seed_all(1)  # a no-op, as torch without XPU
    flow.xpu.manual_seed(1)


# ------------------------------------------ nn.init.sparse_, nn.attention.sdpa_kernel

def test_init_sparse_zeros_a_fraction_of_each_column_as_torch():
    w = flow.nn.init.sparse_(flow.empty(10, 4), sparsity=0.3, std=0.5)
    t = torch.nn.init.sparse_(torch.empty(10, 4), sparsity=0.3, std=0.5)
    assert ((w == 0).sum(0).numpy() == (t == 0).sum(0).numpy()).all()
    assert (w == 0).sum(0).tolist() == [3, 3, 3, 3]
    with pytest.raises(ValueError, match="2 dimensions"):
        flow.nn.init.sparse_(flow.empty(3), 0.5)
    with pytest.warns(FutureWarning):
        flow.nn.init.sparse(flow.empty(4, 2), 0.5)


def test_sdpa_kernel_context_runs_attention_unchanged():
    from monoflow.nn.attention import SDPBackend, sdpa_kernel
    from torch.nn.attention import SDPBackend as TB
    assert {m.name: m.value for m in SDPBackend} == {k: int(v) for k, v in TB.__members__.items()}
    q = flow.randn(2, 3, 5, 4)
    ref = F.scaled_dot_product_attention(q, q, q, is_causal=True)
    with sdpa_kernel([SDPBackend.FLASH_ATTENTION, SDPBackend.MATH]):
        out = F.scaled_dot_product_attention(q, q, q, is_causal=True)
    with sdpa_kernel(SDPBackend.MATH):
        pass
    np.testing.assert_array_equal(out.numpy(), ref.numpy())
    with pytest.raises(TypeError, match="sdpa_kernel"):
        with sdpa_kernel("math"):
            pass


# ------------------------------------------ nn.utils.parametrize / parametrizations (weight_norm, spectral_norm)

def _copy_state(dst, src):
    dst.load_state_dict({k: flow.tensor(v.detach().numpy()) for k, v in src.state_dict().items()})


@pytest.mark.parametrize("wrap", ["weight_norm", "weight_norm_all", "spectral_norm"])
def test_parametrized_discriminator_trains_as_torch(wrap):
    # an SN-GAN / weight-normed discriminator: conv -> leaky_relu -> linear, trained a few SGD steps
    def build(L):
        P = L.nn.utils.parametrizations
        fn = {"weight_norm": P.weight_norm, "weight_norm_all": lambda m: P.weight_norm(m, dim=None),
              "spectral_norm": P.spectral_norm}[wrap]
        return L.nn.Sequential(fn(L.nn.Conv2d(2, 4, 3)), L.nn.LeakyReLU(0.2), L.nn.Flatten(), fn(L.nn.Linear(4 * 4 * 4, 1)))
    torch.manual_seed(0)
    tm = build(torch)
    fm = build(flow)
    assert list(fm.state_dict()) == list(tm.state_dict())
    _copy_state(fm, tm)
    x = np.random.RandomState(1).randn(3, 2, 6, 6).astype(np.float32)
    y = np.array([[1.0], [0.0], [1.0]], np.float32)
    opts = [L.optim.SGD(m.parameters(), lr=0.1) for L, m in ((flow, fm), (torch, tm))]
    for _ in range(3):
        losses = []
        for L, m, opt in ((flow, fm, opts[0]), (torch, tm, opts[1])):
            loss = L.nn.functional.binary_cross_entropy_with_logits(m(L.tensor(x)), L.tensor(y))
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
        assert losses[0] == pytest.approx(losses[1], rel=1e-4)
    for (k, a), b in zip(fm.state_dict().items(), tm.state_dict().values()):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-4, atol=1e-5, err_msg=k)
    fm.eval()
    tm.eval()
    _close(fm(flow.tensor(x)), tm(torch.tensor(x)), rtol=1e-4, atol=1e-5)


def test_register_parametrization_makes_a_symmetric_weight_and_removes_it():
    from monoflow.nn.utils import parametrize

    class Symmetric(flow.nn.Module):
        def forward(self, X):
            return X.triu() + X.triu(1).transpose(-1, -2)

        def right_inverse(self, A):
            return A.triu()

    lin = flow.nn.Linear(3, 3)
    parametrize.register_parametrization(lin, "weight", Symmetric())
    assert type(lin).__name__ == "ParametrizedLinear" and parametrize.is_parametrized(lin, "weight")
    assert parametrize.type_before_parametrizations(lin) is flow.nn.Linear
    assert list(lin.state_dict()) == ["bias", "parametrizations.weight.original"]
    w = lin.weight
    np.testing.assert_array_equal(w.detach().numpy(), w.detach().numpy().T)
    lin(flow.ones(2, 3)).sum().backward()
    g = lin.parametrizations.weight.original.grad.numpy()
    a = torch.tensor(lin.parametrizations.weight.original.detach().numpy(), requires_grad=True)
    (torch.ones(2, 3) @ (a.triu() + a.triu(1).T).T).sum().backward()
    np.testing.assert_allclose(g, a.grad.numpy(), rtol=1e-6)
    lin.weight = flow.eye(3) * 2  # the setter goes through right_inverse
    np.testing.assert_array_equal(lin.weight.detach().numpy(), np.eye(3) * 2)
    with parametrize.cached():
        assert lin.weight is lin.weight
    parametrize.remove_parametrizations(lin, "weight")
    assert type(lin) is flow.nn.Linear and isinstance(lin.weight, flow.nn.Parameter)
    np.testing.assert_array_equal(lin.weight.detach().numpy(), np.eye(3) * 2)
    with pytest.raises(ValueError, match="does not have a parametrization"):
        parametrize.remove_parametrizations(lin, "weight")
    with pytest.raises(ValueError, match="shape"):
        parametrize.register_parametrization(flow.nn.Linear(3, 2), "weight", flow.nn.Flatten(0))
    with pytest.raises(ValueError, match="no_such"):
        parametrize.register_parametrization(flow.nn.Linear(3, 2), "no_such", Symmetric())


# ------------------------------------------ torch.jit / torch.compiler decorators run eagerly; small paths

def test_jit_scripted_and_traced_models_train_as_eager_torch():
    import warnings
    torch.manual_seed(0)
    tm = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 1))
    fm = flow.nn.Sequential(flow.nn.Linear(3, 4), flow.nn.ReLU(), flow.nn.Linear(4, 1))
    _copy_state(fm, tm)
    x = np.random.RandomState(2).randn(5, 3).astype(np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fs = flow.jit.script(fm)
        ft = flow.jit.trace(fm, flow.tensor(x))
    assert fs is fm and ft is fm
    _close(fs(flow.tensor(x)), torch.jit.script(tm)(torch.tensor(x)))

    @flow.jit.ignore
    def helper(v):
        return v + 1

    @flow.jit.ignore(drop=True)
    def dropped(v):
        return v - 1
    assert helper(1) == 2 and dropped(1) == 0 and flow.jit.unused(helper) is helper
    assert flow.jit.is_scripting() is torch.jit.is_scripting() is False
    assert flow.jit.annotate(list, [1]) == [1]
    assert flow.jit.wait(flow.jit.fork(helper, 3)) == 4
    with pytest.raises(NotImplementedError, match="state_dict"):
        flow.jit.save(fs, "m.pt")
    with pytest.raises(TypeError, match="jit.script"):
        flow.jit.script(3)
    assert flow.compiler.is_compiling() is torch.compiler.is_compiling() is False
    assert flow.compiler.disable(helper) is helper and flow.compiler.disable()(helper) is helper


def test_dynamo_settings_scripts_write_as_torch():
    # nanoGPT-style scripts around torch.compile: settings are kept, decorators return the function
    import monoflow._dynamo as dynamo
    import torch._dynamo
    for lib in (torch._dynamo, dynamo):
        before = (lib.config.suppress_errors, lib.config.cache_size_limit)
        lib.config.suppress_errors = True
        lib.config.cache_size_limit = 64
        assert lib.config.suppress_errors is True and lib.config.cache_size_limit == 64
        lib.config.suppress_errors, lib.config.cache_size_limit = before
        x = flow.ones(2, 3) if lib is dynamo else torch.ones(2, 3)
        assert lib.mark_dynamic(x, 0) is None
        assert lib.disable(len)([1, 2]) == 2 and lib.is_compiling() is False
        lib.reset()
    assert flow._dynamo is dynamo and dynamo.optimize("inductor")(len) is len


def test_stack_dataset_and_module_path_as_torch():
    from monoflow.nn.modules.module import Module
    assert Module is flow.nn.Module
    fd = flow.utils.data.StackDataset(img=flow.arange(4), label=[5, 6, 7, 8])
    td = torch.utils.data.StackDataset(img=torch.arange(4), label=[5, 6, 7, 8])
    fb = list(flow.utils.data.DataLoader(fd, batch_size=3))
    tb = list(torch.utils.data.DataLoader(td, batch_size=3))
    assert [{k: v.tolist() for k, v in b.items()} for b in fb] == [{k: v.tolist() for k, v in b.items()} for b in tb]
    assert flow.utils.data.StackDataset([1, 2], [3, 4])[0] == (1, 3)
    for bad in (lambda m: m.StackDataset([1], [2, 3]), lambda m: m.StackDataset([1], b=[2]), lambda m: m.StackDataset()):
        with pytest.raises(ValueError):
            bad(torch.utils.data)
        with pytest.raises(ValueError):
            bad(flow.utils.data)


# ------------------------------------------ more distributions: SAC's squashed Gaussian, Gamma/Beta policies

def test_sac_tanh_squashed_gaussian_log_prob_and_grad_match_torch():
    mu, log_std = np.array([[0.2, -1.0]], np.float32), np.array([[-0.7, 0.7]], np.float32)
    y = np.array([[0.5, -0.9]], np.float32)
    grads = []
    for L, Dm in ((flow, D), (torch, TD)):
        m, s = L.tensor(mu, requires_grad=True), L.tensor(log_std, requires_grad=True)
        d = Dm.TransformedDistribution(Dm.Normal(m, s.exp()), [Dm.transforms.TanhTransform()])
        lp = d.log_prob(L.tensor(y)).sum(-1)
        lp.backward()
        grads.append((lp.detach().numpy(), m.grad.numpy(), s.grad.numpy()))
    for a, b in zip(*grads):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-6)
    # the reparameterized action lies in (-1, 1) and carries the gradient
    a = D.TransformedDistribution(D.Normal(flow.tensor(mu, requires_grad=True), flow.ones(1, 2)),
                                  D.transforms.TanhTransform()).rsample((64,))
    assert a.requires_grad and float(a.abs().max()) <= 1.0
    aff = [D.transforms.AffineTransform(1.0, 2.0), D.transforms.SigmoidTransform()]
    taff = [TD.transforms.AffineTransform(1.0, 2.0), TD.transforms.SigmoidTransform()]
    _close(D.TransformedDistribution(D.Normal(flow.tensor(mu), flow.ones(1, 2)), aff).log_prob(flow.tensor([[0.5, 0.2]])),
           TD.TransformedDistribution(TD.Normal(torch.tensor(mu), torch.ones(1, 2)), taff).log_prob(torch.tensor([[0.5, 0.2]])))


@pytest.mark.parametrize("name, args, value", [
    ("Exponential", ([0.5, 2.0],), [0.3, 1.7]), ("Laplace", ([0.0, 1.0], [1.0, 0.5]), [0.3, 1.7]),
    ("Gamma", ([0.5, 3.0], [1.0, 2.0]), [0.3, 1.7]), ("Beta", ([0.5, 3.0], [2.0, 2.0]), [0.3, 0.7]),
    ("LogNormal", ([0.0, 1.0], [1.0, 0.5]), [0.3, 1.7])])
def test_continuous_families_match_torch_and_sample_their_mean(name, args, value):
    leaves_f = [flow.tensor(a, requires_grad=True) for a in args]
    leaves_t = [torch.tensor(a, requires_grad=True) for a in args]
    fa, tb = getattr(D, name)(*leaves_f), getattr(TD, name)(*leaves_t)
    lf, lt = fa.log_prob(flow.tensor(value)), tb.log_prob(torch.tensor(value))
    _close(lf, lt, rtol=1e-4)
    _close(fa.entropy(), tb.entropy(), rtol=1e-4)
    _close(fa.mean, tb.mean)
    _close(fa.variance, tb.variance, rtol=1e-4)
    lf.sum().backward()
    lt.sum().backward()
    for pf, pt in zip(leaves_f, leaves_t):
        _close(pf.grad, pt.grad, rtol=1e-4)
    flow.manual_seed(3)
    s = fa.sample((40000,))
    assert tuple(s.shape) == (40000, 2) and not s.requires_grad
    std = tb.stddev.detach().numpy()
    np.testing.assert_allclose(s.numpy().mean(0), tb.mean.detach().numpy(), atol=float(5 * std.max() / 200))


# ------------------------------------------ torch.profiler: the tutorial's scheduled training-loop profile

def test_profiler_schedule_and_trace_handler_follow_torch(tmp_path):
    import warnings
    for kw in (dict(wait=1, warmup=1, active=2, repeat=2), dict(wait=0, warmup=0, active=3, skip_first=2)):
        assert [flow.profiler.schedule(**kw)(i).name for i in range(12)] == [torch.profiler.schedule(**kw)(i).name for i in range(12)]
    seen = {}
    for L in (flow, torch):
        saved = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with L.profiler.profile(activities=[L.profiler.ProfilerActivity.CPU],
                                    schedule=L.profiler.schedule(wait=1, warmup=1, active=2, repeat=2),
                                    on_trace_ready=lambda p: saved.append(p.step_num)) as prof:
                for i in range(10):
                    with L.profiler.record_function(f"train_step_{i}"):
                        L.ones(2) * 2
                    prof.step()
        seen[L.__name__] = (saved, sorted(e.key for e in prof.key_averages() if e.key.startswith("train_step")))
    assert seen["monoflow"] == seen["torch"] == ([4, 8], ["train_step_6", "train_step_7"])
    with flow.profiler.profile(on_trace_ready=flow.profiler.tensorboard_trace_handler(str(tmp_path), "w0")):
        with flow.profiler.record_function("forward"):
            pass
    (trace,) = tmp_path.iterdir()
    assert trace.name.startswith("w0.") and trace.name.endswith(".pt.trace.json") and "forward" in trace.read_text()
    with pytest.raises(RuntimeError, match="nothing has been recorded"):
        flow.profiler.profile(schedule=flow.profiler.schedule(wait=5, warmup=0, active=1)).key_averages()


# ------------------------------------------ torch.func: the per-sample-gradient and ensembling tutorials

def _mlp_pair():
    torch.manual_seed(0)
    tm = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU(), torch.nn.Linear(3, 2))
    fm = flow.nn.Sequential(flow.nn.Linear(4, 3), flow.nn.ReLU(), flow.nn.Linear(3, 2))
    _copy_state(fm, tm)
    return fm, tm


def test_per_sample_gradients_with_vmap_of_grad_match_torch():
    fm, tm = _mlp_pair()
    x = np.random.RandomState(0).randn(5, 4).astype(np.float32)
    y = np.array([0, 1, 1, 0, 1])
    got = []
    for L, m in ((flow, fm), (torch, tm)):
        params = {k: v.detach() for k, v in m.named_parameters()}

        def loss(p, xi, yi):
            return L.nn.functional.cross_entropy(L.func.functional_call(m, p, (xi.unsqueeze(0),)), yi.unsqueeze(0))
        got.append(L.func.vmap(L.func.grad(loss), in_dims=(None, 0, 0))(params, L.tensor(x), L.tensor(y)))
    assert list(got[0]) == list(got[1])
    for k in got[0]:
        _close(got[0][k], got[1][k])
    # one sample's gradient is the ordinary backward of that sample's loss
    fm.zero_grad()
    flow.nn.functional.cross_entropy(fm(flow.tensor(x[2:3])), flow.tensor(y[2:3])).backward()
    _close(got[0]["0.weight"][2], fm[0].weight.grad)


def test_model_ensembling_with_stack_module_state_matches_torch():
    import copy
    fm, tm = _mlp_pair()
    x = np.random.RandomState(1).randn(6, 4).astype(np.float32)
    outs = []
    for L, m in ((flow, fm), (torch, tm)):
        models = [copy.deepcopy(m) for _ in range(3)]
        for i, mm in enumerate(models):
            with L.no_grad():
                mm[0].bias.add_(float(i))
        params, buffers = L.func.stack_module_state(models)
        assert tuple(params["0.weight"].shape) == (3, 3, 4)

        def call(p, b, xx):
            return L.func.functional_call(models[0], (p, b), (xx,))
        outs.append(L.func.vmap(call, in_dims=(0, 0, None))(params, buffers, L.tensor(x)))
    _close(outs[0], outs[1])


def test_func_grad_vjp_jacrev_and_vmap_details_match_torch():
    for L in (flow, torch):
        assert float(L.func.grad(L.func.grad(lambda z: z ** 3))(L.tensor(2.0))) == 12.0
    _close(flow.func.jacrev(lambda z: z.sin() * z.sum())(flow.tensor([0.1, 0.2, 0.3])),
           torch.func.jacrev(lambda z: z.sin() * z.sum())(torch.tensor([0.1, 0.2, 0.3])))
    (ga, gb), v = flow.func.grad_and_value(lambda a, b: (a * b).sum(), argnums=(0, 1))(flow.tensor([1.0, 2.0]), flow.tensor([3.0, 4.0]))
    assert ga.tolist() == [3.0, 4.0] and gb.tolist() == [1.0, 2.0] and float(v) == 11.0
    g, aux = flow.func.grad(lambda a: ((a ** 2).sum(), "aux"), has_aux=True)(flow.tensor([1.0, -1.0]))
    assert g.tolist() == [2.0, -2.0] and aux == "aux"
    out, fn = flow.func.vjp(lambda z: z * 3, flow.tensor([1.0, 2.0]))
    assert fn(flow.ones(2))[0].tolist() == [3.0, 3.0] and out.tolist() == [3.0, 6.0]
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    _close(flow.vmap(lambda r, s: r * s, in_dims=(1, None), out_dims=1)(flow.tensor(a), flow.tensor(2.0)),
           torch.vmap(lambda r, s: r * s, in_dims=(1, None), out_dims=1)(torch.tensor(a), torch.tensor(2.0)))
    with pytest.raises(ValueError, match="same size"):
        flow.vmap(lambda p, q: p + q)(flow.ones(2), flow.ones(3))
    with pytest.raises(RuntimeError, match="single element"):
        flow.func.grad(lambda z: z * 2)(flow.ones(2))


# ------------------------------------------ torch.hub: vision_transformer's `from torch.hub import tqdm`, the checkpoint cache

def test_hub_caches_a_torch_checkpoint_from_a_url_and_loads_local_hubconf(tmp_path, monkeypatch):
    import hashlib
    from monoflow.hub import tqdm
    assert list(tqdm([1, 2], disable=True)) == [1, 2]
    src = tmp_path / "src"
    src.mkdir()
    torch.manual_seed(0)
    tm = torch.nn.Linear(3, 2)
    raw = src / "tmp.pth"
    torch.save(tm.state_dict(), raw)
    digest = hashlib.sha256(raw.read_bytes()).hexdigest()[:8]
    named = src / f"linear-{digest}.pth"
    raw.rename(named)
    monkeypatch.setattr(flow.hub, "_hub_dir", None)  # set_dir below is undone after the test
    flow.hub.set_dir(str(tmp_path / "hub"))
    sd = flow.hub.load_state_dict_from_url(named.as_uri(), check_hash=True, progress=False, weights_only=True)
    assert (tmp_path / "hub" / "checkpoints" / named.name).exists()
    fm = flow.nn.Linear(3, 2)
    fm.load_state_dict(sd)
    _close(fm(flow.ones(1, 3)), tm(torch.ones(1, 3)))
    bad = src / "linear-00000000.pth"
    named.rename(bad)
    with pytest.raises(RuntimeError, match="invalid hash"):
        flow.hub.load_state_dict_from_url(bad.as_uri(), check_hash=True, progress=False)
    assert not (tmp_path / "hub" / "checkpoints" / bad.name).exists()  # no partial file left behind
    (src / "hubconf.py").write_text("import monoflow\n\ndef tiny(n=2):\n    '''A tiny model.'''\n"
                                    "    return monoflow.nn.Linear(n, 1)\n")
    assert "tiny" in flow.hub.list(str(src), source="local")
    assert flow.hub.help(str(src), "tiny", source="local") == "A tiny model."
    assert flow.hub.load(str(src), "tiny", 4, source="local").in_features == 4
    with pytest.raises(NotImplementedError, match="source='local'"):
        flow.hub.load("pytorch/vision", "resnet18")


# ------------------------------------------ out= (the Tensors tutorial: torch.matmul(t, t.T, out=y3))

def test_tensors_tutorial_out_arguments_match_torch():
    import warnings
    res = []
    for L in (flow, torch):
        t = L.ones(4, 4)
        t[:, 1] = 0
        y3 = L.rand_like(t)
        assert L.matmul(t, t.T, out=y3) is y3
        z3 = L.rand_like(t)
        L.mul(t, t, out=z3)
        grown = L.empty(0)
        L.add(L.ones(3), 2, out=grown)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            resized = L.ones(2)
            L.add(L.ones(3, 2), 1, out=resized)
        v, i = L.empty(0), L.empty(0, dtype=L.long)
        r = L.max(L.tensor([[1.0, 3.0], [4.0, 2.0]]), 1, out=(v, i))
        assert r.values is v and r.indices is i
        s = L.sum(L.ones(2, 3), 1, out=L.empty(2))
        res.append([y3.numpy(), z3.numpy(), grown.numpy(), resized.numpy(), len(w), v.numpy(), i.numpy(), s.numpy(),
                    str(L.arange(5, out=L.empty(0, dtype=L.long)).dtype).split(".")[1],
                    str(L.zeros(2, out=L.empty(0, dtype=L.float64)).dtype).split(".")[1]])
    for a, b in zip(*res):
        np.testing.assert_array_equal(a, b)


def test_out_argument_errors_as_torch():
    for L in (flow, torch):
        with pytest.raises(RuntimeError, match="can't be cast to the desired output type Long"):
            L.add(L.ones(2), 0.5, out=L.zeros(2, dtype=L.long))
        with pytest.raises(RuntimeError, match="don't support automatic differentiation"):
            L.exp(L.ones(2, requires_grad=True), out=L.empty(2))
        with L.no_grad():
            L.exp(L.ones(2, requires_grad=True), out=L.empty(2))  # fine without grad mode
    assert flow.eq(flow.ones(2), 1, out=flow.empty(2, dtype=flow.bool)).tolist() == [True, True]
    with pytest.raises(TypeError, match="out"):
        flow.add(flow.ones(2), 1, out=[1, 2])
    assert flow.add(flow.ones(2), 1, out=None).tolist() == [2.0, 2.0]


def test_out_argument_aliases_stay_one_function():
    # true_divide is divide: wrapping divide for out= must not split the two
    # (the docs would describe the alias under the op's signature)
    assert flow.true_divide is flow.divide
    for L in (flow, torch):
        got = L.true_divide(L.tensor([3.0, 1.0]), 2, out=L.empty(2))
        np.testing.assert_array_equal(got.numpy(), [1.5, 0.5])


def test_tensor_nbytes_and_itemsize_as_torch():
    for dtype in ("float32", "float64", "int64", "bool", "float16", "int8"):
        a, b = flow.ones(3, 2, dtype=getattr(flow, dtype)), torch.ones(3, 2, dtype=getattr(torch, dtype))
        assert (a.nbytes, a.itemsize) == (b.nbytes, b.itemsize)
        assert a[:, 0].nbytes == b[:, 0].nbytes
