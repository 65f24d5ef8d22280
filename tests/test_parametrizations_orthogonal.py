"""nn.utils.parametrizations.orthogonal against torch: values, gradients, state_dict keys, errors."""
import numpy as np
import pytest

import monoflow

torch = pytest.importorskip("torch")


def _build(T, shape, orthogonal_map, W0, dtype):
    m = T.nn.Linear(shape[1], shape[0]).to(dtype)
    with T.no_grad():
        m.weight.copy_(T.from_numpy(W0))
        m.bias.zero_()
    return T.nn.utils.parametrizations.orthogonal(m, orthogonal_map=orthogonal_map)


@pytest.mark.parametrize("orthogonal_map", [None, "matrix_exp", "cayley", "householder"])
@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5)])
def test_orthogonal_values_gradients_and_keys_match_torch(orthogonal_map, shape):
    rng = np.random.default_rng(1)
    W0, x = rng.standard_normal(shape), rng.standard_normal((2, shape[1]))
    step = np.tril(0.3 * rng.standard_normal(shape), -1)  # off the diagonal: householder reads its sign
    res = {}
    for T in (torch, monoflow):
        m = _build(T, shape, orthogonal_map, W0, T.float64)
        start = m.weight.detach().numpy().copy()
        if shape[0] == shape[1]:  # (a non-square base is completed by random columns: each framework its own)
            with T.no_grad():  # a step away from the start, so that the map's derivative is not at identity
                m.parametrizations.weight.original.add_(T.from_numpy(step))
        W = m.weight
        (m(T.from_numpy(x)) ** 3).sum().backward()
        res[T.__name__] = (start, W.detach().numpy(), m.parametrizations.weight.original.grad.numpy(),
                           sorted(m.state_dict()))
    (ts, tw, tg, tk), (ms, mw, mg, mk) = res["torch"], res["monoflow"]
    np.testing.assert_allclose(ms, ts, rtol=1e-9, atol=1e-10)
    G = ms.T @ ms if shape[0] >= shape[1] else ms @ ms.T
    np.testing.assert_allclose(G, np.eye(min(shape)), atol=1e-12)
    assert mk == tk == ["bias", "parametrizations.weight.0.base", "parametrizations.weight.original"]
    if shape[0] == shape[1]:
        np.testing.assert_allclose(mw, tw, rtol=1e-9, atol=1e-10)
        np.testing.assert_allclose(mg, tg, rtol=1e-7, atol=1e-9)
        np.testing.assert_allclose(mw.T @ mw, np.eye(shape[0]), atol=1e-12)


def test_orthogonal_keeps_an_orthogonal_start_and_trains_as_torch():
    Q = np.linalg.qr(np.random.default_rng(0).standard_normal((4, 4)))[0].astype(np.float32)
    losses = {}
    for T in (torch, monoflow):
        m = _build(T, (4, 4), None, Q, T.float32)
        np.testing.assert_allclose(m.weight.detach().numpy(), Q, atol=1e-6)
        opt = T.optim.SGD(m.parameters(), lr=0.1)
        x = T.from_numpy(np.random.default_rng(2).standard_normal((8, 4)).astype(np.float32))
        out = []
        for _ in range(5):
            opt.zero_grad()
            loss = (m(x)[:, 0] - 1).pow(2).mean()
            loss.backward()
            opt.step()
            out.append(loss.item())
        losses[T.__name__] = out
    np.testing.assert_allclose(losses["monoflow"], losses["torch"], rtol=1e-5)


def test_orthogonal_errors_as_torch():
    for T in (torch, monoflow):
        with pytest.raises(ValueError):
            T.nn.utils.parametrizations.orthogonal(T.nn.Linear(3, 3), orthogonal_map="qr")
        with pytest.raises(ValueError):
            T.nn.utils.parametrizations.orthogonal(T.nn.Linear(3, 3), name="bias")
        m = T.nn.utils.parametrizations.orthogonal(T.nn.Linear(3, 3))
        with pytest.raises(ValueError):
            m.weight = T.ones(2, 2)
