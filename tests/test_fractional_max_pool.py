"""fractional_max_pool2d/3d and FractionalMaxPool2d/3d against torch with the same window placements
(_random_samples): values, indices and gradients exactly; drawn placements: shapes and coverage."""
import numpy as np
import pytest
import torch

import monoflow as flow

CASES = [(2, (2, 3, 9, 7), (2, 3), {"output_size": (4, 3)}), (2, (3, 8, 8), 2, {"output_size": 5}),
         (2, (2, 2, 10, 10), 3, {"output_ratio": (0.5, 0.5)}), (2, (1, 1, 5, 5), 2, {"output_size": 1}),
         (3, (1, 2, 6, 7, 5), (2, 2, 3), {"output_size": (3, 4, 2)}), (3, (2, 5, 5, 5), 2, {"output_size": 3})]


@pytest.mark.parametrize("n,shape,k,kw", CASES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_matches_torch_with_the_same_samples(n, shape, k, kw, dtype):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape).astype(dtype)
    nb = 1 if len(shape) == n + 1 else shape[0]
    s = rng.random((nb, shape[-n - 1], n)).astype(dtype)
    res = []
    for lib in (flow, torch):
        xt = lib.tensor(x, requires_grad=True)
        fn = getattr(lib.nn.functional, f"fractional_max_pool{n}d")
        v, i = fn(xt, k, return_indices=True, _random_samples=lib.tensor(s), **kw)
        (v * v).sum().backward()
        res.append((v.detach().numpy(), i.numpy(), xt.grad.numpy()))
    (fv, fi, fg), (tv, ti, tg) = res
    np.testing.assert_array_equal(fv, tv)
    np.testing.assert_array_equal(fi, ti)
    np.testing.assert_allclose(fg, tg, rtol=1e-6, atol=1e-6)  # overlapping windows: sums in another order


@pytest.mark.parametrize("n", [2, 3])
def test_module_draws_placements_per_forward(n):
    m = getattr(flow.nn, f"FractionalMaxPool{n}d")(2, output_ratio=0.5, return_indices=True)
    x = flow.randn(*([2, 3] + [8] * n))
    v, i = m(x)
    assert tuple(v.shape) == (2, 3) + (4,) * n
    flat = x.reshape(2, 3, -1)
    np.testing.assert_array_equal(flat.gather(2, i.reshape(2, 3, -1)).numpy(), v.reshape(2, 3, -1).numpy())
    assert v.numpy().max() == x.numpy().max()  # the windows cover the input: the global max is kept


def test_errors_as_torch():
    for lib in (flow, torch):
        with pytest.raises(ValueError):
            lib.nn.FractionalMaxPool2d(2)
        with pytest.raises(ValueError):
            lib.nn.FractionalMaxPool2d(2, output_ratio=1.5)
        with pytest.raises(RuntimeError):
            lib.nn.functional.fractional_max_pool2d(lib.randn(1, 1, 4, 4), 3, output_size=3)
