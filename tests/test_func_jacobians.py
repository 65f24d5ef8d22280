"""torch.func's jvp / jacrev (tuple argnums, structured inputs and outputs, has_aux) / jacfwd / hessian
against torch, as the "Jacobians, Hessians, hvp, vhp, and more" tutorial composes them."""
import numpy as np
import pytest

import monoflow as flow
from monoflow import func as mfunc

torch = pytest.importorskip("torch")
tfunc = torch.func


def both(*arrays):
    return [torch.tensor(a) for a in arrays], [flow.tensor(a) for a in arrays]


def close(m, t, **kw):
    if isinstance(t, (tuple, list)):
        assert isinstance(m, (tuple, list)) and len(m) == len(t)
        for a, b in zip(m, t):
            close(a, b, **kw)
    elif isinstance(t, dict):
        assert m.keys() == t.keys()
        for k in t:
            close(m[k], t[k], **kw)
    else:
        assert tuple(m.shape) == tuple(t.shape)
        np.testing.assert_allclose(m.detach().numpy(), t.detach().numpy(), **kw)


def predict_fn(lib):
    return lambda weight, bias, x: lib.nn.functional.linear(x, weight, bias).tanh()


@pytest.fixture
def wbx():
    rng = np.random.default_rng(0)
    return both(rng.standard_normal((5, 5)), rng.standard_normal(5), rng.standard_normal(5))


def test_jacrev_jacfwd_argnums(wbx):
    (tw, tb, tx), (mw, mb, mx) = wbx
    for name in ("jacrev", "jacfwd"):
        for argnums in (2, (0, 1), (0, 2)):
            t = getattr(tfunc, name)(predict_fn(torch), argnums=argnums)(tw, tb, tx)
            m = getattr(mfunc, name)(predict_fn(flow), argnums=argnums)(mw, mb, mx)
            close(m, t, rtol=1e-10, atol=1e-12)


def test_hessian_and_jacfwd_of_jacrev(wbx):
    (tw, tb, tx), (mw, mb, mx) = wbx
    t = tfunc.hessian(predict_fn(torch), argnums=2)(tw, tb, tx)
    close(mfunc.hessian(predict_fn(flow), argnums=2)(mw, mb, mx), t, rtol=1e-10, atol=1e-12)
    m = mfunc.jacfwd(mfunc.jacrev(predict_fn(flow), argnums=2), argnums=2)(mw, mb, mx)
    close(m, t, rtol=1e-10, atol=1e-12)
    assert tuple(m.shape) == (5, 5, 5)


def test_batched_jacobian_and_hessian_by_vmap(wbx):
    (tw, tb, _), (mw, mb, _) = wbx
    xs = np.random.default_rng(1).standard_normal((3, 5))
    t = tfunc.vmap(tfunc.jacrev(predict_fn(torch), argnums=2), in_dims=(None, None, 0))(tw, tb, torch.tensor(xs))
    m = mfunc.vmap(mfunc.jacrev(predict_fn(flow), argnums=2), in_dims=(None, None, 0))(mw, mb, flow.tensor(xs))
    close(m, t, rtol=1e-10, atol=1e-12)
    t = tfunc.vmap(tfunc.hessian(predict_fn(torch), argnums=2), in_dims=(None, None, 0))(tw, tb, torch.tensor(xs))
    m = mfunc.vmap(mfunc.hessian(predict_fn(flow), argnums=2), in_dims=(None, None, 0))(mw, mb, flow.tensor(xs))
    close(m, t, rtol=1e-10, atol=1e-12)


def test_jvp_and_hvp():
    rng = np.random.default_rng(2)
    (tx, tv), (mx, mv) = both(rng.standard_normal(7), rng.standard_normal(7))
    close(mfunc.jvp(lambda x: x.sin() * x, (mx,), (mv,)), tfunc.jvp(lambda x: x.sin() * x, (tx,), (tv,)),
          rtol=1e-12, atol=1e-14)

    def hvp(func, lib, primals, tangents):
        return func.jvp(func.grad(lambda x: (x.sin() * x.cos()).sum()), primals, tangents)[1]

    close(hvp(mfunc, flow, (mx,), (mv,)), hvp(tfunc, torch, (tx,), (tv,)), rtol=1e-12, atol=1e-14)
    # vhp via vjp of grad
    tg = tfunc.vjp(tfunc.grad(lambda x: (x ** 3).sum()), tx)[1](tv)
    mg = mfunc.vjp(mfunc.grad(lambda x: (x ** 3).sum()), mx)[1](mv)
    close(mg, tg, rtol=1e-12)


def test_jvp_structures_aux_and_constant_outputs():
    rng = np.random.default_rng(3)
    (ta, tb, tu, tw), (ma, mb, mu, mw) = both(*(rng.standard_normal(4) for _ in range(4)))

    def f(lib):
        return lambda p, c: ({"s": p["a"] * p["b"] + c, "k": lib.ones(2)}, p["a"].sum())

    t = tfunc.jvp(f(torch), ({"a": ta, "b": tb}, tw), ({"a": tu, "b": tw}, tu), has_aux=True)
    m = mfunc.jvp(f(flow), ({"a": ma, "b": mb}, mw), ({"a": mu, "b": mw}, mu), has_aux=True)
    close(list(m), list(t), rtol=1e-12)
    with pytest.raises(RuntimeError, match="primals to be a tuple"):
        mfunc.jvp(lambda x: x, ma, (mu,))


def test_jacrev_has_aux_and_dict_input():
    rng = np.random.default_rng(4)
    (tw, tx), (mw, mx) = both(rng.standard_normal((3, 4)), rng.standard_normal(4))
    t = tfunc.jacrev(lambda p, x: (p["w"] @ x, x.sum()), has_aux=True)({"w": tw}, tx)
    m = mfunc.jacrev(lambda p, x: (p["w"] @ x, x.sum()), has_aux=True)({"w": mw}, mx)
    close(m[0], t[0], rtol=1e-12)
    close(m[1], t[1])
    with pytest.raises(RuntimeError, match="argnums"):
        mfunc.jacrev(lambda x: x, argnums=3)(mx)
