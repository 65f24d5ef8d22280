"""memory_format= on contiguous, clone, to, is_contiguous and the *_like
creation functions (monoflow/_memory_format.py), against torch: strides,
values, gradients and errors."""
import numpy as np
import pytest

import monoflow as flow
from helpers import TORCH

torch = pytest.importorskip("torch") if TORCH is None else TORCH

SHAPES = [(2, 3, 4, 5), (1, 3, 1, 1), (2, 1, 3, 3), (3, 2, 0, 4)]
FORMATS = ["contiguous_format", "channels_last", "preserve_format"]


def _strides(x):
    # the strides that matter: a size-1 dim's stride is never used
    return tuple(st for n, st in zip(x.shape, x.stride()) if n != 1)


def _pair(shape, seed=0):
    a = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    return flow.tensor(a), torch.tensor(a)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("fmt", FORMATS)
def test_contiguous_clone_and_to_lay_out_as_torch(shape, fmt):
    f, t = _pair(shape)
    for channels_last_first in (False, True):
        fx = f.contiguous(memory_format=flow.channels_last) if channels_last_first else f
        tx = t.contiguous(memory_format=torch.channels_last) if channels_last_first else t
        for op in (lambda x, m: x.contiguous(memory_format=m), lambda x, m: x.clone(memory_format=m),
                   lambda x, m: x.to(memory_format=m)):
            try:
                want = op(tx, getattr(torch, fmt))
            except RuntimeError as e:  # contiguous(preserve_format) of a channels-last tensor
                with pytest.raises(RuntimeError, match="preserve memory format is unsupported"):
                    op(fx, getattr(flow, fmt))
                assert "preserve memory format is unsupported" in str(e)
                continue
            got = op(fx, getattr(flow, fmt))
            np.testing.assert_array_equal(got.numpy(), want.numpy())
            if not want.numel():  # an empty tensor's strides and flags are torch's implementation detail
                continue
            assert _strides(got) == _strides(want), (shape, fmt)
            for q in FORMATS[:2]:
                assert got.is_contiguous(memory_format=getattr(flow, q)) == \
                    want.is_contiguous(memory_format=getattr(torch, q))
        if tx.numel():
            assert _strides(fx.clone()) == _strides(tx.clone())  # clone's default preserves the format


@pytest.mark.parametrize("shape", [(2, 3, 4, 5, 2), (1, 2, 1, 3, 1)])
def test_channels_last_3d(shape):
    f, t = _pair(shape)
    got, want = f.contiguous(memory_format=flow.channels_last_3d), t.contiguous(memory_format=torch.channels_last_3d)
    assert got.stride() == want.stride()
    assert got.is_contiguous(memory_format=flow.channels_last_3d)
    np.testing.assert_array_equal(got.numpy(), want.numpy())


@pytest.mark.parametrize("name", ["empty_like", "zeros_like", "ones_like", "rand_like", "randn_like"])
@pytest.mark.parametrize("fmt", [None] + FORMATS)
def test_like_functions_follow_the_input_or_the_format(name, fmt):
    f, t = _pair((2, 3, 4, 5))
    f, t = f.contiguous(memory_format=flow.channels_last), t.contiguous(memory_format=torch.channels_last)
    kw_f = {} if fmt is None else {"memory_format": getattr(flow, fmt)}
    kw_t = {} if fmt is None else {"memory_format": getattr(torch, fmt)}
    got, want = getattr(flow, name)(f, **kw_f), getattr(torch, name)(t, **kw_t)
    assert got.stride() == want.stride() and tuple(got.shape) == tuple(want.shape)
    if name in ("zeros_like", "ones_like"):
        np.testing.assert_array_equal(got.numpy(), want.numpy())
    full = flow.full_like(f, 7.0, **kw_f)
    assert full.stride() == torch.full_like(t, 7.0, **kw_t).stride() and (full.numpy() == 7.0).all()


def test_like_functions_take_requires_grad():
    x = flow.randn(2, 3)
    for fn in (flow.rand_like, flow.randn_like, flow.empty_like, flow.zeros_like):
        y = fn(x, requires_grad=True)
        assert y.requires_grad and y.is_leaf


def test_channels_last_is_differentiable_and_feeds_ops():
    f, t = _pair((2, 3, 6, 6), seed=1)
    f.requires_grad_(True)
    t.requires_grad_(True)
    wf, wt = _pair((4, 3, 3, 3), seed=2)
    outs = []
    for x, w, mod in ((f, wf, flow), (t, wt, torch)):
        y = mod.nn.functional.conv2d(x.contiguous(memory_format=mod.channels_last), w, padding=1)
        (y * y).sum().backward()
        outs.append((y.detach().numpy(), x.grad.numpy()))
    np.testing.assert_allclose(outs[0][0], outs[1][0], rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(outs[0][1], outs[1][1], rtol=1e-4, atol=1e-3)


def test_bad_memory_format_arguments_raise_like_torch():
    for mod in (flow, torch):
        with pytest.raises(RuntimeError, match="required rank 4 tensor to use channels_last format"):
            mod.ones(3, 4).contiguous(memory_format=mod.channels_last)
        with pytest.raises(TypeError, match=r"contiguous\(\): argument 'memory_format' must be torch.memory_format"):
            mod.ones(3, 4).contiguous(memory_format=3)
        assert mod.ones(3, 4).is_contiguous(memory_format=mod.channels_last) is False
