"""Run the same call on monoflow and on PyTorch (the oracle) and compare the
values, dtypes and (for floating inputs) the gradients of a random weighted
sum of the outputs. Used by the tests/test_api_*.py files."""
import numbers

import numpy as np
import pytest

import monoflow as flow

torch = pytest.importorskip("torch", reason="PyTorch is the oracle of the API tests")


def to_flow(a, requires_grad=False):
    t = flow.tensor(a) if isinstance(a, np.ndarray) else a
    return t.requires_grad_() if requires_grad else t


def to_torch(a, requires_grad=False):
    t = torch.tensor(a) if isinstance(a, np.ndarray) else a
    return t.requires_grad_() if requires_grad else t


def _leaves(out):
    if isinstance(out, (tuple, list)):
        return [x for o in out for x in _leaves(o)]
    return [out]


def assert_same(f_out, t_out, rtol=1e-5, atol=1e-6, check_dtype=True):
    fl, tl = _leaves(f_out), _leaves(t_out)
    assert len(fl) == len(tl), (f_out, t_out)
    for f, t in zip(fl, tl):
        if isinstance(t, torch.Tensor):
            assert isinstance(f, flow.Tensor), f"expected a Tensor, got {type(f).__name__}"
            assert tuple(f.shape) == tuple(t.shape), (tuple(f.shape), tuple(t.shape))
            if check_dtype:
                assert str(f.dtype).split(".")[-1] == str(t.dtype).split(".")[-1], (f.dtype, t.dtype)
            fa = f.detach().float().numpy() if f.dtype == flow.bfloat16 else f.detach().numpy()
            ta = t.detach().float().numpy() if t.dtype == torch.bfloat16 else t.detach().numpy()
            if fa.dtype.kind in "biu":
                np.testing.assert_array_equal(fa, ta)
            else:
                np.testing.assert_allclose(fa.astype(np.float64), ta.astype(np.float64), rtol=rtol, atol=atol)
        elif isinstance(t, (bool, numbers.Number)):
            if isinstance(t, float):
                assert f == pytest.approx(t, rel=rtol, abs=atol, nan_ok=True)
            else:
                assert f == t, (f, t)
        else:
            assert f == t


def compare(f_fn, t_fn, *arrays, grad=True, rtol=1e-5, atol=1e-6, grad_rtol=None, grad_atol=None,
            check_dtype=True, seed=0):
    """f_fn(*flow tensors) against t_fn(*torch tensors) for numpy `arrays`
    (non-arrays are passed as they are). Floating arrays require grad when
    `grad`; the gradients of sum(w * out) for a random w are compared."""
    diff = [grad and isinstance(a, np.ndarray) and a.dtype.kind == "f" for a in arrays]
    fs = [to_flow(a, d) for a, d in zip(arrays, diff)]
    ts = [to_torch(a, d) for a, d in zip(arrays, diff)]
    t_out = t_fn(*ts)
    f_out = f_fn(*fs)
    assert_same(f_out, t_out, rtol, atol, check_dtype)
    if not any(diff):
        return f_out, t_out
    rng = np.random.default_rng(seed)
    t_loss, f_loss = 0, 0
    for f, t in zip(_leaves(f_out), _leaves(t_out)):
        if isinstance(t, torch.Tensor) and t.requires_grad and t.dtype.is_floating_point:
            w = rng.standard_normal(tuple(t.shape)).astype(t.detach().numpy().dtype)
            t_loss = t_loss + (t * torch.tensor(w)).sum()
            f_loss = f_loss + (f * flow.tensor(w)).sum()
    if isinstance(t_loss, int):
        return f_out, t_out
    t_loss.backward()
    f_loss.backward()
    for f, t in zip(fs, ts):
        if isinstance(t, torch.Tensor) and t.requires_grad:
            if t.grad is None:
                assert f.grad is None or not np.any(f.grad.numpy()), "monoflow has a gradient where torch has none"
                continue
            if f.grad is None:  # (no gradient and a zero gradient are the same)
                assert not np.any(t.grad.numpy()), "torch has a gradient where monoflow has none"
                continue
            np.testing.assert_allclose(f.grad.numpy().astype(np.float64), t.grad.numpy(force=True).astype(np.float64),
                                       rtol=grad_rtol or rtol * 10, atol=grad_atol or atol * 10)
    return f_out, t_out


def same_error(f_call, t_call):
    """Both calls raise, with the same exception type."""
    with pytest.raises(Exception) as t_exc:
        t_call()
    with pytest.raises(Exception) as f_exc:
        f_call()
    t_type = t_exc.type
    # torch raises its own subclasses of the built-in types (torch.linalg.LinAlgError is a RuntimeError)
    builtin = next(c for c in t_type.__mro__ if c.__module__ == "builtins")
    assert isinstance(f_exc.value, builtin), (f_exc.type, t_type)
