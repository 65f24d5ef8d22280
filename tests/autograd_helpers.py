"""Gradient oracles shared by the autograd tests.

``check_gradients(fn, arrays, device)`` runs ``fn`` on monoflow tensors made
from numpy arrays and checks the gradients of every floating input two ways:
by central finite differences in float64 (``flow.autograd.gradcheck``), and,
when torch is installed and ``torch_fn`` is given, against torch's gradients
for the same random upstream gradient (the autotest idea: the same program
on both frameworks)."""
import numpy as np

import monoflow as flow

try:
    import torch as TORCH
except ImportError:  # pragma: no cover
    TORCH = None


def leaf(a, device, dtype=flow.float64, requires_grad=True):
    return flow.tensor(np.asarray(a), dtype=dtype, device=device).requires_grad_(requires_grad)


def _outputs(r):
    return list(r) if isinstance(r, (tuple, list)) else [r]


def check_gradients(fn, arrays, device, *, torch_fn=None, diff=None, atol=1e-5, rtol=1e-3, seed=0):
    """fn(*tensors) -> tensor or tuple of tensors. `diff`: indices of the
    arrays that get gradients (default: every floating array)."""
    arrays = [np.asarray(a) for a in arrays]
    if diff is None:
        diff = [i for i, a in enumerate(arrays) if a.dtype.kind == "f"]
    xs = [leaf(a, device) if i in diff else flow.tensor(a, device=device) for i, a in enumerate(arrays)]
    assert flow.autograd.gradcheck(fn, tuple(xs), atol=atol, rtol=rtol)
    if torch_fn is None or TORCH is None:
        return
    rng = np.random.default_rng(seed)
    outs = _outputs(fn(*xs))
    ups = [rng.standard_normal(tuple(o.shape)) for o in outs]
    got = flow.autograd.grad(outs, [xs[i] for i in diff], [flow.tensor(u, dtype=o.dtype, device=device)
                                                          for u, o in zip(ups, outs)], allow_unused=True)
    ts = [TORCH.tensor(a, dtype=TORCH.float64, requires_grad=i in diff) if i in diff else TORCH.tensor(a)
          for i, a in enumerate(arrays)]
    touts = _outputs(torch_fn(*ts))
    want = TORCH.autograd.grad(touts, [ts[i] for i in diff], [TORCH.tensor(u) for u in ups], allow_unused=True)
    for g, w in zip(got, want):
        if w is None:
            assert g is None or np.allclose(g.numpy(), 0)
            continue
        assert g is not None
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-6, atol=1e-8)
