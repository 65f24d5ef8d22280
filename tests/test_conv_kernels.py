"""conv2d's three CPU kernels (forward, input gradient, weight gradient) on
channel counts and image sizes that reach every block and tail of their GEMM
loops (Note [An AVX-512 kernel for the conv GEMMs] in devices/cpu/conv_gemm.h:
8-row and 32-column result blocks, 4x6 weight-gradient blocks over 16
pixels at a time; Note [im2col + GEMM in chunks of images] in
kernels_conv.cpp: several images per chunk, one, and one image split over the
threads): values and all three gradients against torch, float32 and float64.
The small random programs of test_conv_pool.py stay below 8 channels."""
import numpy as np
import pytest

import monoflow as flow
from monoflow.nn.functional import conv as FC

torch = pytest.importorskip("torch")
TF = torch.nn.functional

# (N, C, O, H, W, kernel, stride, padding, dilation, groups)
CASES = [
    (64, 32, 64, 8, 8, (3, 3), 1, 1, 1, 1),      # examples/train_digits.py's second conv: many images per chunk
    (64, 1, 32, 8, 8, (3, 3), 1, 1, 1, 1),
    (7, 13, 19, 11, 9, (3, 3), 1, 1, 1, 1),      # every row/column tail at once
    (5, 6, 17, 14, 14, (5, 5), 1, 2, 1, 1),
    (3, 10, 18, 12, 13, (3, 2), 2, 1, 1, 2),     # groups, stride, rectangular kernel
    (4, 9, 27, 10, 10, (3, 3), 1, 2, 2, 3),      # dilation
    (2, 8, 40, 33, 35, (3, 3), 1, 1, 1, 1),      # one image per chunk (>= 1024 output pixels)
    (1, 5, 9, 70, 70, (3, 3), 1, 1, 1, 1),       # a single chunk: columns split over the threads
    (6, 33, 16, 9, 9, (1, 1), 1, 0, 1, 1),       # 1x1: the image is the column matrix
    (6, 24, 40, 9, 9, (1, 1), 2, 0, 1, 1),       # 1x1, stride 2
    (3, 12, 12, 10, 10, (3, 3), 1, 1, 1, 12),    # depthwise
    # stride 1, output rows as wide as the image's: the forward reads x in place (Note [Direct
    # reads for shifted planes] in conv_gemm.h), its masks over 16-column chunks
    (3, 4, 10, 7, 5, (3, 3), 1, (0, 1), 1, 1),   # fewer output rows than the image's, 25 pixels
    (2, 3, 9, 6, 17, (5, 3), 1, (2, 1), 1, 1),   # rectangular kernel, rows crossing the chunks
    (2, 4, 8, 5, 4, (1, 3), 1, (0, 1), 1, 2),    # groups, a 1x3 kernel
    (1, 2, 3, 3, 3, (5, 5), 1, 2, 1, 1),         # taps wholly in the padding
    (3, 5, 7, 9, 40, (3, 3), 1, 1, 1, 1),        # several 64-column blocks and a tail
    (2, 3, 5, 8, 11, (3, 3), 1, (3, 2), (3, 1), 1),  # dilation in height only
    # ... and with 8 or more channels per group the input gradient reads gy in place too
    (3, 16, 12, 7, 5, (3, 3), 1, (0, 1), 1, 2),
    (2, 9, 10, 6, 17, (5, 3), 1, (2, 1), 1, 1),
    (2, 10, 6, 8, 11, (3, 3), 1, (3, 2), (3, 1), 1),
    # stride 2: im2col's even-offset rows in 16-pixel steps (19 per row: a full step and a tail),
    # and chunks of 4 images sized to keep col in the L2 cache (9 images: a short last chunk)
    (2, 5, 8, 41, 37, (3, 3), 2, 1, 1, 1),
    (9, 16, 16, 20, 20, (3, 3), 2, 1, 1, 1),
]
TOL = {np.float32: dict(rtol=1e-4, atol=1e-3), np.float64: dict(rtol=1e-10, atol=1e-10)}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", CASES, ids=lambda c: "x".join(map(str, c[:5])) + f"k{c[5][0]}{c[5][1]}s{c[6]}p{c[7]}d{c[8]}g{c[9]}")
def test_conv2d_values_and_gradients_match_torch(case, dtype):
    n, c, o, h, w, k, s, p, d, g = case
    rng = np.random.default_rng(sum(case[:5]))
    x = rng.standard_normal((n, c, h, w)).astype(dtype)
    wt = rng.standard_normal((o, c // g, *k)).astype(dtype)
    b = rng.standard_normal(o).astype(dtype)
    kw = dict(stride=s, padding=p, dilation=d, groups=g)
    mx, mw, mb = (flow.tensor(a).requires_grad_(True) for a in (x, wt, b))
    tx, tw, tb = (torch.tensor(a).requires_grad_(True) for a in (x, wt, b))
    y, ty = FC.conv2d(mx, mw, mb, **kw), TF.conv2d(tx, tw, tb, **kw)
    assert y.dtype == (flow.float32 if dtype == np.float32 else flow.float64)
    np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), **TOL[dtype])
    gy = rng.standard_normal(tuple(ty.shape)).astype(dtype)
    got = flow.autograd.grad([y], [mx, mw, mb], [flow.tensor(gy)])
    want = torch.autograd.grad([ty], [tx, tw, tb], [torch.tensor(gy)])
    for name, gm, gt in zip(("input", "weight", "bias"), got, want):
        scale = max(1.0, float(np.abs(gt.numpy()).max()))  # weight gradients sum N*OH*OW terms
        np.testing.assert_allclose(gm.numpy() / scale, gt.numpy() / scale, err_msg=name, **TOL[dtype])


@pytest.mark.parametrize("case", CASES[:4] + CASES[-5:-2], ids=str)
def test_conv_transpose2d_matches_torch_on_wide_channels(case):
    # conv_transpose2d is the input-gradient kernel run as a forward (with a bias).
    n, c, o, h, w, k, s, p, d, g = case
    rng = np.random.default_rng(1)
    y = rng.standard_normal((n, o, h, w)).astype(np.float32)
    wt = rng.standard_normal((o, c // g, *k)).astype(np.float32)
    b = rng.standard_normal(c).astype(np.float32)
    kw = dict(stride=s, padding=p, dilation=d, groups=g)
    got = FC.conv_transpose2d(flow.tensor(y), flow.tensor(wt), flow.tensor(b), **kw).numpy()
    want = TF.conv_transpose2d(torch.tensor(y), torch.tensor(wt), torch.tensor(b), **kw).numpy()
    np.testing.assert_allclose(got, want, **TOL[np.float32])


@pytest.mark.parametrize("case", [c for c in CASES if c[6] == 1], ids=str)
def test_conv2d_forward_without_bias_matches_float64(case):
    """float32 forward (no bias) against the float64 one: the in-place reads of shifted planes
    must give the im2col product's values, tail columns and padded taps included."""
    n, c, o, h, w, k, s, p, d, g = case
    rng = np.random.default_rng(7)
    x = rng.standard_normal((n, c, h, w))
    wt = rng.standard_normal((o, c // g, *k))
    kw = dict(stride=s, padding=p, dilation=d, groups=g)
    got = FC.conv2d(flow.tensor(x, dtype=flow.float32), flow.tensor(wt, dtype=flow.float32), None, **kw).numpy()
    want = FC.conv2d(flow.tensor(x), flow.tensor(wt), None, **kw).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5 * np.sqrt(c // g * k[0] * k[1]))
