"""Convolution and pooling: values and gradients against torch (the same
random program on both), finite-difference gradchecks, second derivatives,
and errors. Runs on every registered device (testdev falls back to the CPU)."""
import numpy as np
import pytest
from hypothesis import given, strategies as st

import monoflow as flow
from monoflow.nn.functional import conv as FC
from monoflow.nn.functional import pooling as FP

torch = pytest.importorskip("torch")
TF = torch.nn.functional

TOL = {np.float64: dict(rtol=1e-9, atol=1e-10), np.float32: dict(rtol=2e-4, atol=2e-4)}
FDT = {np.float64: flow.float64, np.float32: flow.float32}


def _mf(a, device, dtype, noncontig=False, requires_grad=False):
    """A monoflow leaf with a's values; `noncontig`: a transposed view of a copy."""
    if noncontig and a.ndim >= 2:
        t = flow.tensor(np.ascontiguousarray(np.swapaxes(a, -1, -2)), dtype=FDT[dtype], device=device)
        t = t.transpose(-1, -2)
        assert not t.is_contiguous() or min(a.shape[-2:]) <= 1 or t.numel() == 0
        if requires_grad:
            t = t.detach().requires_grad_(True)
        return t
    return flow.tensor(a, dtype=FDT[dtype], device=device).requires_grad_(requires_grad)


def _run_both(mf_fn, torch_fn, arrays, device, dtype, noncontig=False, seed=0):
    """Forward values and gradients of every array (upstream: a random tensor) on both frameworks."""
    arrays = [np.asarray(a, dtype=dtype) for a in arrays]
    xs = [_mf(a, device, dtype, noncontig and i == 0, True) for i, a in enumerate(arrays)]
    ts = [torch.tensor(a, requires_grad=True) for a in arrays]
    out, tout = mf_fn(*xs), torch_fn(*ts)
    tol = TOL[dtype]
    assert tuple(out.shape) == tuple(tout.shape)
    np.testing.assert_allclose(out.detach().numpy(), tout.detach().numpy(), **tol)
    up = np.random.default_rng(seed).standard_normal(tuple(out.shape)).astype(dtype)
    got = flow.autograd.grad([out], xs, [flow.tensor(up, device=device)], allow_unused=True)
    want = torch.autograd.grad([tout], ts, [torch.tensor(up)], allow_unused=True)
    for g, w, a in zip(got, want, arrays):
        if w is None:
            assert g is None or not np.any(g.numpy())
            continue
        assert g is not None and tuple(g.shape) == a.shape
        np.testing.assert_allclose(g.numpy(), w.numpy(), **tol)


# ---------------------------------------------------------------- convolution

@st.composite
def conv_cfg(draw, transposed=False):
    groups = draw(st.integers(1, 3))
    cg, og = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    kh, kw = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    stride = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    dil = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    pad = (draw(st.integers(0, 2)), draw(st.integers(0, 2)))
    n = draw(st.sampled_from([0, 1, 2, 3]))
    if transposed:
        h, w = draw(st.integers(1, 5)), draw(st.integers(1, 5))
        opad = tuple(draw(st.integers(0, max(s, d) - 1)) for s, d in zip(stride, dil))
        # keep the output size positive
        if any((i - 1) * s - 2 * p + d * (k - 1) + o + 1 <= 0
               for i, s, p, d, k, o in zip((h, w), stride, pad, dil, (kh, kw), opad)):
            pad = (0, 0)
        return dict(n=n, cin=cg * groups, cout=og * groups, groups=groups, k=(kh, kw), stride=stride, pad=pad,
                    dil=dil, opad=opad, hw=(h, w))
    h = max(1, dil[0] * (kh - 1) + 1 - 2 * pad[0] + draw(st.integers(0, 5)))
    w = max(1, dil[1] * (kw - 1) + 1 - 2 * pad[1] + draw(st.integers(0, 5)))
    return dict(n=n, c=cg * groups, o=og * groups, groups=groups, k=(kh, kw), stride=stride, pad=pad, dil=dil,
                hw=(h, w))


def _conv_arrays(c, rng):
    x = rng.standard_normal((c["n"], c["c"], *c["hw"]))
    w = rng.standard_normal((c["o"], c["c"] // c["groups"], *c["k"]))
    b = rng.standard_normal(c["o"])
    return x, w, b


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@given(c=conv_cfg(), bias=st.booleans(), noncontig=st.booleans(), seed=st.integers(0, 2**16))
def test_conv2d_matches_torch(device, dtype, c, bias, noncontig, seed):
    x, w, b = _conv_arrays(c, np.random.default_rng(seed))
    kw = dict(stride=c["stride"], padding=c["pad"], dilation=c["dil"], groups=c["groups"])
    if bias:
        _run_both(lambda x, w, b: FC.conv2d(x, w, b, **kw), lambda x, w, b: TF.conv2d(x, w, b, **kw), [x, w, b],
                  device, dtype, noncontig, seed)
    else:
        _run_both(lambda x, w: FC.conv2d(x, w, **kw), lambda x, w: TF.conv2d(x, w, **kw), [x, w], device, dtype,
                  noncontig, seed)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@given(c=conv_cfg(transposed=True), bias=st.booleans(), seed=st.integers(0, 2**16))
def test_conv_transpose2d_matches_torch(device, dtype, c, bias, seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((c["n"], c["cin"], *c["hw"]))
    w = rng.standard_normal((c["cin"], c["cout"] // c["groups"], *c["k"]))
    b = rng.standard_normal(c["cout"])
    kw = dict(stride=c["stride"], padding=c["pad"], output_padding=c["opad"], groups=c["groups"],
              dilation=c["dil"])
    arrays = [x, w, b] if bias else [x, w]
    _run_both(lambda *a: FC.conv_transpose2d(*a, **kw), lambda *a: TF.conv_transpose2d(*a, **kw), arrays,
              device, dtype, False, seed)


@pytest.mark.parametrize("padding,k,dil", [(1, 3, 1), ("same", 4, 1), ("same", 3, 2), ("valid", 2, 1), (0, 1, 1)])
def test_conv1d_and_string_padding(device, padding, k, dil):
    rng = np.random.default_rng(3)
    x, w, b = rng.standard_normal((2, 4, 9)), rng.standard_normal((6, 2, k)), rng.standard_normal(6)
    kw = dict(padding=padding, dilation=dil, groups=2)
    _run_both(lambda x, w, b: FC.conv1d(x, w, b, **kw), lambda x, w, b: TF.conv1d(x, w, b, **kw), [x, w, b],
              device, np.float64)
    x2, w2 = rng.standard_normal((1, 3, 7, 6)), rng.standard_normal((2, 3, k, k))
    kw2 = dict(padding=padding, dilation=dil)
    _run_both(lambda x, w: FC.conv2d(x, w, **kw2), lambda x, w: TF.conv2d(x, w, **kw2), [x2, w2], device,
              np.float64)


def test_conv_unbatched_and_big_chunks(device):
    rng = np.random.default_rng(4)
    # unbatched input
    x, w, b = rng.standard_normal((3, 6, 5)), rng.standard_normal((4, 3, 2, 2)), rng.standard_normal(4)
    _run_both(lambda x, w, b: FC.conv2d(x, w, b, padding=1), lambda x, w, b: TF.conv2d(x, w, b, padding=1),
              [x, w, b], device, np.float64)
    # several images per GEMM chunk (small outputs), one per chunk (large ones), one big image
    # (its GEMM columns split over threads), the 1x1 fast path
    cases = [((9, 3, 6, 6), 3, 1), ((2, 2, 40, 40), 3, 1), ((1, 3, 40, 40), 3, 1), ((3, 5, 8, 8), 1, 1),
             ((3, 5, 8, 8), 1, 2)]
    for shape, k, s in cases:
        x, w = rng.standard_normal(shape), rng.standard_normal((4, shape[1], k, k))
        _run_both(lambda x, w: FC.conv2d(x, w, stride=s), lambda x, w: TF.conv2d(x, w, stride=s), [x, w], device,
                  np.float64)
        _run_both(lambda x, w: FC.conv_transpose2d(x, w, stride=s),
                  lambda x, w: TF.conv_transpose2d(x, w, stride=s), [x, w.transpose(1, 0, 2, 3)], device,
                  np.float64)


def test_conv_gradcheck(device):
    rng = np.random.default_rng(5)
    x, w, b = rng.standard_normal((2, 2, 4, 5)), rng.standard_normal((4, 1, 2, 3)), rng.standard_normal(4)
    xs = [flow.tensor(a, dtype=flow.float64, device=device).requires_grad_() for a in (x, w, b)]
    assert flow.autograd.gradcheck(lambda x, w, b: FC.conv2d(x, w, b, stride=(2, 1), padding=1, groups=2), tuple(xs))
    wt = flow.tensor(rng.standard_normal((2, 3, 3, 2)), dtype=flow.float64, device=device).requires_grad_()
    assert flow.autograd.gradcheck(
        lambda x, w, b: FC.conv_transpose2d(x, w, b[:3], stride=2, padding=1, output_padding=1), (xs[0], wt, xs[2]))


def test_conv_second_derivatives_match_torch(device):
    """Gradients of gradients (the backward ops are differentiable too)."""
    rng = np.random.default_rng(6)
    x, w = rng.standard_normal((2, 4, 6, 5)), rng.standard_normal((6, 2, 3, 2))
    u = rng.standard_normal((2, 6, 3, 5))
    v = rng.standard_normal(x.shape)
    kw = dict(stride=(2, 1), padding=1, dilation=(1, 2), groups=2)

    def run(lib, F, mk):
        xt, wt = mk(x), mk(w)
        y = F.conv2d(xt, wt, **kw)
        gx, gw = lib.autograd.grad([(y * mk(u, False)).sum()], [xt, wt], create_graph=True)
        z = (gx * mk(v, False)).sum() + (gw * gw).sum()
        return [g.detach().numpy() for g in lib.autograd.grad([z], [xt, wt])]

    got = run(flow, FC, lambda a, r=True: flow.tensor(a, device=device).requires_grad_(r))
    want = run(torch, TF, lambda a, r=True: torch.tensor(a).requires_grad_(r))
    for g, w_ in zip(got, want):
        np.testing.assert_allclose(g, w_, rtol=1e-9, atol=1e-10)


def test_conv_half_precision_computes_in_float32(device):
    rng = np.random.default_rng(7)
    x, w = rng.standard_normal((2, 3, 6, 6)).astype(np.float32), rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
    for dt in (flow.float16, flow.bfloat16):
        y = FC.conv2d(flow.tensor(x, device=device).to(dt), flow.tensor(w, device=device).to(dt), padding=1)
        assert y.dtype == dt
        ref = TF.conv2d(torch.tensor(x), torch.tensor(w), padding=1).numpy()
        np.testing.assert_allclose(y.float().numpy(), ref, rtol=0.05, atol=0.1)


# ---------------------------------------------------------------- pooling

@st.composite
def pool_cfg(draw, dilation=True):
    k = (draw(st.integers(1, 4)), draw(st.integers(1, 4)))
    s = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    p = tuple(draw(st.integers(0, ki // 2)) for ki in k)
    d = (draw(st.integers(1, 2)), draw(st.integers(1, 2))) if dilation else (1, 1)
    # at least `dilation` wide, so that every window sees an element (else the index is arbitrary)
    hw = tuple(max(di * (ki - 1) + 1 - 2 * pi, di) + draw(st.integers(0, 5)) for ki, pi, di in zip(k, p, d))
    n = draw(st.integers(0, 2))
    c = draw(st.integers(1, 3))
    return dict(shape=(n, c, *hw) if draw(st.booleans()) or n == 0 else (c, *hw), k=k, s=s, p=p, d=d,
                ceil=draw(st.booleans()))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@given(c=pool_cfg(), noncontig=st.booleans(), seed=st.integers(0, 2**16))
def test_max_pool2d_matches_torch(device, dtype, c, noncontig, seed):
    x = np.random.default_rng(seed).standard_normal(c["shape"])
    kw = dict(kernel_size=c["k"], stride=c["s"], padding=c["p"], dilation=c["d"], ceil_mode=c["ceil"])
    _run_both(lambda x: FP.max_pool2d(x, **kw), lambda x: TF.max_pool2d(x, **kw), [x], device, dtype, noncontig,
              seed)
    _, idx = FP.max_pool2d(flow.tensor(x, device=device), return_indices=True, **kw)
    _, tidx = TF.max_pool2d(torch.tensor(x), return_indices=True, **kw)
    assert idx.dtype == flow.int64
    np.testing.assert_array_equal(idx.numpy(), tidx.numpy())


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@given(c=pool_cfg(dilation=False), include_pad=st.booleans(), divisor=st.sampled_from([None, 1, 3]),
       noncontig=st.booleans(), seed=st.integers(0, 2**16))
def test_avg_pool2d_matches_torch(device, dtype, c, include_pad, divisor, noncontig, seed):
    x = np.random.default_rng(seed).standard_normal(c["shape"])
    kw = dict(kernel_size=c["k"], stride=c["s"], padding=c["p"], ceil_mode=c["ceil"],
              count_include_pad=include_pad, divisor_override=divisor)
    _run_both(lambda x: FP.avg_pool2d(x, **kw), lambda x: TF.avg_pool2d(x, **kw), [x], device, dtype, noncontig,
              seed)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@given(h=st.integers(1, 9), w=st.integers(1, 9), oh=st.integers(1, 5), ow=st.integers(1, 5),
       seed=st.integers(0, 2**16))
def test_adaptive_pools_match_torch(device, dtype, h, w, oh, ow, seed):
    x = np.random.default_rng(seed).standard_normal((2, 3, h, w))
    _run_both(lambda x: FP.adaptive_avg_pool2d(x, (oh, ow)), lambda x: TF.adaptive_avg_pool2d(x, (oh, ow)), [x],
              device, dtype, False, seed)
    _run_both(lambda x: FP.adaptive_max_pool2d(x, (oh, ow)), lambda x: TF.adaptive_max_pool2d(x, (oh, ow)), [x],
              device, dtype, False, seed)
    _, idx = FP.adaptive_max_pool2d(flow.tensor(x, device=device), (oh, None), return_indices=True)
    _, tidx = TF.adaptive_max_pool2d(torch.tensor(x), (oh, None), return_indices=True)
    np.testing.assert_array_equal(idx.numpy(), tidx.numpy())


def test_pool1d_matches_torch(device):
    x = np.random.default_rng(8).standard_normal((2, 3, 11))
    cases = [
        (lambda x: FP.max_pool1d(x, 3, 2, 1, 2, True), lambda x: TF.max_pool1d(x, 3, 2, 1, 2, True)),
        (lambda x: FP.max_pool1d(x, 2), lambda x: TF.max_pool1d(x, 2)),
        (lambda x: FP.avg_pool1d(x, 3, 2, 1, True, False), lambda x: TF.avg_pool1d(x, 3, 2, 1, True, False)),
        (lambda x: FP.adaptive_avg_pool1d(x, 4), lambda x: TF.adaptive_avg_pool1d(x, 4)),
        (lambda x: FP.adaptive_max_pool1d(x, 4), lambda x: TF.adaptive_max_pool1d(x, 4)),
    ]
    for f, tf in cases:
        _run_both(f, tf, [x], device, np.float64)
    _, idx = FP.max_pool1d(flow.tensor(x, device=device), 3, return_indices=True)
    np.testing.assert_array_equal(idx.numpy(), TF.max_pool1d(torch.tensor(x), 3, return_indices=True)[1].numpy())


def test_max_pool_nan_wins(device):
    x = np.arange(16.0).reshape(1, 1, 4, 4)
    x[0, 0, 0, 1] = np.nan
    y, idx = FP.max_pool2d(flow.tensor(x, device=device), 2, return_indices=True)
    ty, tidx = TF.max_pool2d(torch.tensor(x), 2, return_indices=True)
    np.testing.assert_array_equal(y.numpy(), ty.numpy())
    np.testing.assert_array_equal(idx.numpy(), tidx.numpy())


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("k, s, p, d", [(2, 2, 0, 1), (3, 2, 1, 1), (3, 1, 1, 2), (2, 1, 1, 3), (3, 3, 1, 1)])
def test_max_pool2d_ties_infinities_and_nans(device, dtype, k, s, p, d):
    """The branch-free window loop (Note [Branch-free max pooling]): ties keep
    the first index, all -inf windows their first in-bounds tap, a NaN wins
    wherever it sits (first tap or later), clipped and dilated windows."""
    rng = np.random.default_rng(k * 100 + s * 10 + p + d)
    x = rng.integers(-2, 3, (2, 3, 7, 9)).astype(dtype)  # many ties
    x[0, 0] = -np.inf
    x[0, 1, ::3, ::2] = np.inf
    x[1, 0].flat[rng.choice(63, 5, replace=False)] = np.nan  # one NaN per window at most where windows are 2x2
    kw = dict(kernel_size=k, stride=s, padding=p, dilation=d)
    y, idx = FP.max_pool2d(flow.tensor(x, device=device), return_indices=True, **kw)
    ty, tidx = TF.max_pool2d(torch.tensor(x), return_indices=True, **kw)
    np.testing.assert_array_equal(y.numpy(), ty.numpy())
    clean = ~np.isnan(ty.numpy())  # windows holding several NaNs: checked below
    np.testing.assert_array_equal(idx.numpy()[clean], tidx.numpy()[clean])
    # the window's first NaN (in row-major tap order) gives the index
    xp = np.pad(x[1, 0], p, constant_values=-np.inf)
    for oy in range(y.shape[2]):
        for ox in range(y.shape[3]):
            taps = [((oy * s + i * d) - p, (ox * s + j * d) - p) for i in range(k) for j in range(k)]
            nan = [(r, c) for r, c in taps if np.isnan(xp[r + p, c + p])]
            if nan:
                assert np.isnan(y.numpy()[1, 0, oy, ox])
                assert idx.numpy()[1, 0, oy, ox] == nan[0][0] * x.shape[3] + nan[0][1]
    # the gradient lands on the chosen index, as torch's (NaN-free input)
    xg = np.nan_to_num(x, posinf=5.0, neginf=-5.0)
    _run_both(lambda t: FP.max_pool2d(t, **kw), lambda t: TF.max_pool2d(t, **kw), [xg], device, dtype)


def test_pool_gradcheck_and_second_derivatives(device):
    rng = np.random.default_rng(9)
    x = flow.tensor(rng.standard_normal((1, 2, 5, 6)), device=device).requires_grad_()
    assert flow.autograd.gradcheck(lambda x: FP.max_pool2d(x, 3, 2, 1, ceil_mode=True), (x,))
    assert flow.autograd.gradcheck(lambda x: FP.avg_pool2d(x, 3, 2, 1, count_include_pad=False), (x,))
    assert flow.autograd.gradcheck(lambda x: FP.adaptive_avg_pool2d(x, (2, 4)), (x,))
    assert flow.autograd.gradcheck(lambda x: FP.adaptive_max_pool2d(x, 3), (x,))
    # second derivative through max pooling's backward (its derivative gathers by the indices)
    u, v = rng.standard_normal((1, 2, 3, 4)), rng.standard_normal((1, 2, 5, 6))
    res = []
    for lib, F, mk in [(flow, FP, lambda a: flow.tensor(a, device=device)), (torch, TF, torch.tensor)]:
        xt, ut = mk(x.detach().numpy()).requires_grad_(), mk(u).requires_grad_()
        y = F.max_pool2d(xt, 3, 2, 1, ceil_mode=True) * ut
        (g,) = lib.autograd.grad([y.sum()], [xt], create_graph=True)
        (gg,) = lib.autograd.grad([(g * mk(v)).sum()], [ut])
        res.append(gg.detach().numpy())
    np.testing.assert_allclose(res[0], res[1], rtol=1e-9, atol=1e-12)


# ---------------------------------------------------------------- errors

def test_conv_errors_name_the_op(device):
    x = flow.randn(2, 3, 8, 8, device=device)
    w = flow.randn(4, 3, 3, 3, device=device)
    with pytest.raises(RuntimeError, match="conv2d.*input of size"):
        FC.conv2d(flow.randn(3, 8, device=device), w)
    with pytest.raises(RuntimeError, match="conv2d.*4-D weight"):
        FC.conv2d(x, flow.randn(4, 3, 3, device=device))
    with pytest.raises(RuntimeError, match="conv2d.*to have 6 channels, but got 3"):
        FC.conv2d(x, flow.randn(4, 6, 3, 3, device=device))
    with pytest.raises(RuntimeError, match="conv2d.*divisible by 3"):
        FC.conv2d(x, flow.randn(4, 1, 3, 3, device=device), groups=3)
    with pytest.raises(RuntimeError, match="conv2d.*Kernel size can't be greater"):
        FC.conv2d(flow.randn(1, 3, 2, 2, device=device), w)
    with pytest.raises(RuntimeError, match="conv2d: non-positive stride"):
        FC.conv2d(x, w, stride=0)
    with pytest.raises(RuntimeError, match="conv2d: negative padding"):
        FC.conv2d(x, w, padding=-1)
    with pytest.raises(RuntimeError, match="conv2d: non-positive groups"):
        FC.conv2d(x, w, groups=0)
    with pytest.raises(RuntimeError, match="conv2d.*bias"):
        FC.conv2d(x, w, flow.randn(3, device=device))
    with pytest.raises(RuntimeError, match="conv2d.*should be the same"):
        FC.conv2d(x, w.double())
    with pytest.raises(RuntimeError, match="conv2d.*floating"):
        FC.conv2d(x.long(), w.long())
    with pytest.raises(ValueError, match="conv2d.*strided"):
        FC.conv2d(x, w, stride=2, padding="same")
    with pytest.raises(ValueError, match="conv2d.*padding string"):
        FC.conv2d(x, w, padding="full")
    with pytest.raises(RuntimeError, match="conv_transpose2d.*output padding"):
        FC.conv_transpose2d(flow.randn(1, 4, 5, 5, device=device), w, output_padding=1)
    with pytest.raises(RuntimeError, match="conv_transpose2d.*to have 4 channels, but got 3"):
        FC.conv_transpose2d(x, w)
    with pytest.raises(RuntimeError, match="conv1d"):
        FC.conv1d(x, w)


def test_pool_errors_name_the_op(device):
    x = flow.randn(1, 2, 5, 5, device=device)
    with pytest.raises(RuntimeError, match="max_pool2d: pad should be at most half"):
        FP.max_pool2d(x, 2, padding=2)
    with pytest.raises(RuntimeError, match="max_pool2d: stride should be greater than zero"):
        FP.max_pool2d(x, 2, stride=0)
    with pytest.raises(RuntimeError, match="max_pool2d: kernel size should be greater than zero"):
        FP.max_pool2d(x, 0)
    with pytest.raises(RuntimeError, match="max_pool2d.*Output size is too small"):
        FP.max_pool2d(x, 3, dilation=3)
    with pytest.raises(RuntimeError, match="max_pool2d.*3D or 4D"):
        FP.max_pool2d(flow.randn(5, 5, device=device), 2)
    with pytest.raises(RuntimeError, match="avg_pool2d: divisor must be not zero"):
        FP.avg_pool2d(x, 2, divisor_override=0)
    with pytest.raises(RuntimeError, match="avg_pool2d.*floating"):
        FP.avg_pool2d(x.long(), 2)
    with pytest.raises(RuntimeError, match="adaptive_avg_pool2d.*3D or 4D"):
        FP.adaptive_avg_pool2d(flow.randn(2, 0, 3, device=device), 2)
    with pytest.raises(ValueError, match="max_pool2d: kernel_size must"):
        FP.max_pool2d(x, (2, 2, 2))


# ---------------------------------------------------------------- modules

def test_modules():
    nn_module = pytest.importorskip("monoflow.nn.module")
    assert hasattr(nn_module, "Module")
    from monoflow.nn.modules import conv as MC, pooling as MP
    conv = MC.Conv2d(4, 6, (3, 2), stride=2, padding=1, groups=2)
    assert tuple(conv.weight.shape) == (6, 2, 3, 2) and tuple(conv.bias.shape) == (6,)
    bound = 1 / np.sqrt(2 * 3 * 2)
    assert np.all(np.abs(conv.weight.detach().numpy()) <= bound) and conv.weight.requires_grad
    names = {n for n, _ in conv.named_parameters()}
    assert names == {"weight", "bias"}
    x = flow.randn(2, 4, 7, 7)
    y = conv(x)
    ref = TF.conv2d(torch.tensor(x.numpy()), torch.tensor(conv.weight.detach().numpy()),
                    torch.tensor(conv.bias.detach().numpy()), stride=2, padding=1, groups=2)
    np.testing.assert_allclose(y.detach().numpy(), ref.numpy(), rtol=1e-4, atol=1e-5)
    y.sum().backward()
    assert conv.weight.grad is not None and tuple(conv.weight.grad.shape) == (6, 2, 3, 2)
    ct = MC.ConvTranspose2d(4, 6, 3, stride=2, bias=False)
    assert tuple(ct.weight.shape) == (4, 6, 3, 3) and ct.bias is None
    assert tuple(ct(x, output_size=(16, 16)).shape) == (2, 6, 16, 16)
    c1 = MC.Conv1d(3, 5, 3, padding="same")
    assert tuple(c1(flow.randn(2, 3, 10)).shape) == (2, 5, 10)
    assert tuple(MC.Conv2d(3, 3, 3, padding=1, padding_mode="reflect")(flow.randn(1, 3, 5, 5)).shape) == (1, 3, 5, 5)
    with pytest.raises(ValueError, match="padding_mode"):  # (reflect/replicate/circular: test_conv_padding_modes.py)
        MC.Conv2d(3, 3, 3, padding_mode="mirror")
    with pytest.raises(ValueError, match="divisible by groups"):
        MC.Conv2d(3, 4, 3, groups=2)
    y, idx = MP.MaxPool2d(2, return_indices=True)(x)
    assert tuple(y.shape) == (2, 4, 3, 3) and idx.dtype == flow.int64
    assert tuple(MP.AvgPool2d(3, stride=1, padding=1)(x).shape) == (2, 4, 7, 7)
    assert tuple(MP.AdaptiveAvgPool2d((1, None))(x).shape) == (2, 4, 1, 7)
    assert tuple(MP.AdaptiveMaxPool2d(2)(x).shape) == (2, 4, 2, 2)
    assert tuple(MP.MaxPool1d(2)(flow.randn(2, 3, 8)).shape) == (2, 3, 4)


@pytest.mark.parametrize("name, x_shape, w_shape", [
    ("conv1d", (1, 1, 4), (1, 1, 0)), ("conv2d", (1, 1, 4, 4), (1, 1, 0, 2)), ("conv2d", (1, 1, 4, 4), (1, 1, 2, 0)),
    ("conv3d", (1, 1, 4, 4, 4), (1, 1, 2, 0, 2)), ("conv3d", (1, 1, 4, 4, 4), (1, 1, 0, 2, 2)),
    ("conv_transpose1d", (1, 1, 4), (1, 1, 0)), ("conv_transpose2d", (1, 1, 4, 4), (1, 1, 0, 2)),
    ("conv_transpose3d", (1, 1, 4, 4, 4), (1, 1, 2, 2, 0))])
def test_zero_size_kernel_is_refused_as_torch(name, x_shape, w_shape):
    # A 0-size kernel dim used to give an output longer than the input (conv1d: [1, 1, 5]).
    with pytest.raises(RuntimeError, match=rf"{name}.*kernel size should be greater than zero, but got"):
        getattr(flow.nn.functional, name)(flow.ones(*x_shape), flow.zeros(*w_shape))
    with pytest.raises(RuntimeError):  # torch: the same message (conv_transpose3d: "non-empty 5D ... weight")
        getattr(torch.nn.functional, name)(torch.ones(*x_shape), torch.zeros(*w_shape))
