"""F.deform_conv2d (OneFlow's; torchvision's ops.deform_conv2d) against a direct
numpy reference of torchvision's kernel (bilinear taps, zero outside the image,
offset channels (row, col) per group and tap), on every device; gradients by
finite differences; an all-zero offset is conv2d."""
import numpy as np
import pytest
from hypothesis import given, strategies as st

import monoflow as flow
import monoflow.nn.functional as F
from autograd_helpers import check_gradients


def _bilinear(img, y, x):
    h, w = img.shape
    if y <= -1 or y >= h or x <= -1 or x >= w:
        return 0.0
    y0, x0 = int(np.floor(y)), int(np.floor(x))
    total = 0.0
    for yy, wy in ((y0, 1 - (y - y0)), (y0 + 1, y - y0)):
        for xx, wx in ((x0, 1 - (x - x0)), (x0 + 1, x - x0)):
            if 0 <= yy < h and 0 <= xx < w:
                total += wy * wx * img[yy, xx]
    return total


def _reference(inp, off, wt, bias, stride, pad, dil, mask):
    n_, c_, h, w = inp.shape
    c_out, c_per_group, kh, kw = wt.shape
    groups, taps = c_ // c_per_group, kh * kw
    (sh, sw), (ph, pw), (dh, dw) = stride, pad, dil
    ho, wo = (h + 2 * ph - dh * (kh - 1) - 1) // sh + 1, (w + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    per_offset_group = c_ // (off.shape[1] // (2 * taps))
    out = np.zeros((n_, c_out, ho, wo))
    for n in range(n_):
        for co in range(c_out):
            g = co // (c_out // groups)
            for oh in range(ho):
                for ow in range(wo):
                    s = 0.0 if bias is None else bias[co]
                    for ci in range(c_per_group):
                        c = g * c_per_group + ci
                        o = c // per_offset_group
                        for i in range(kh):
                            for j in range(kw):
                                k = i * kw + j
                                y = oh * sh - ph + i * dh + off[n, 2 * (o * taps + k), oh, ow]
                                x = ow * sw - pw + j * dw + off[n, 2 * (o * taps + k) + 1, oh, ow]
                                v = _bilinear(inp[n, c], y, x)
                                s += wt[co, ci, i, j] * v * (1.0 if mask is None else mask[n, o * taps + k, oh, ow])
                    out[n, co, oh, ow] = s
    return out


@st.composite
def _problems(draw):
    groups, off_groups = draw(st.sampled_from([(1, 1), (2, 1), (1, 2), (2, 2)]))
    c = groups * off_groups * draw(st.integers(1, 2))
    kh, kw = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    stride = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    pad = (draw(st.integers(0, 1)), draw(st.integers(0, 1)))
    dil = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    h = draw(st.integers(dil[0] * (kh - 1) + 1, 6))
    w = draw(st.integers(dil[1] * (kw - 1) + 1, 6))
    ho = (h + 2 * pad[0] - dil[0] * (kh - 1) - 1) // stride[0] + 1
    wo = (w + 2 * pad[1] - dil[1] * (kw - 1) - 1) // stride[1] + 1
    r = np.random.default_rng(draw(st.integers(0, 2**31)))
    n, c_out = draw(st.integers(1, 2)), groups * draw(st.integers(1, 2))
    arrays = dict(inp=r.standard_normal((n, c, h, w)), off=r.standard_normal((n, 2 * off_groups * kh * kw, ho, wo)) * 2,
                  wt=r.standard_normal((c_out, c // groups, kh, kw)), bias=r.standard_normal(c_out),
                  mask=r.random((n, off_groups * kh * kw, ho, wo)) if draw(st.booleans()) else None)
    return arrays, stride, pad, dil


@given(problem=_problems(), with_bias=st.booleans())
def test_deform_conv2d_matches_the_reference_kernel(device, problem, with_bias):
    a, stride, pad, dil = problem
    bias = a["bias"] if with_bias else None
    want = _reference(a["inp"], a["off"], a["wt"], bias, stride, pad, dil, a["mask"])
    t = lambda v: None if v is None else flow.tensor(v, dtype=flow.float32, device=device)  # noqa: E731
    got = F.deform_conv2d(t(a["inp"]), t(a["off"]), t(a["wt"]), t(bias), stride, pad, dil, t(a["mask"]))
    assert got.shape == want.shape and got.device == flow.device(device)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-4, atol=1e-4)


def test_zero_offsets_and_unit_mask_are_conv2d(device):
    r = np.random.default_rng(1)
    x = flow.tensor(r.standard_normal((2, 4, 7, 6)), dtype=flow.float32, device=device)
    wt = flow.tensor(r.standard_normal((6, 2, 3, 3)), dtype=flow.float32, device=device)
    b = flow.tensor(r.standard_normal(6), dtype=flow.float32, device=device)
    want = F.conv2d(x, wt, b, stride=2, padding=1, dilation=1, groups=2)
    off = flow.zeros(2, 18, *want.shape[2:], device=device)
    got = F.deform_conv2d(x, off, wt, b, stride=2, padding=1, mask=flow.ones(2, 9, *want.shape[2:], device=device))
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-5)


def test_gradients_of_every_input_by_finite_differences(device):
    r = np.random.default_rng(2)
    # offsets away from integers: the bilinear weights are not differentiable where a tap crosses a pixel
    off = np.round(r.standard_normal((1, 2 * 4, 3, 4)) * 2) + r.uniform(0.2, 0.8, (1, 8, 3, 4))
    arrays = [r.standard_normal((1, 2, 4, 3)), off, r.standard_normal((3, 2, 2, 2)), r.standard_normal(3),
              r.random((1, 4, 3, 4))]
    check_gradients(lambda x, o, w, b, m: F.deform_conv2d(x, o, w, b, padding=(0, 1), mask=m), arrays, device)


def test_bad_shapes_name_the_op():
    x, w = flow.zeros(1, 2, 5, 5), flow.zeros(3, 2, 3, 3)
    with pytest.raises(ValueError, match=r"deform_conv2d\(\): offset must be"):
        F.deform_conv2d(x, flow.zeros(1, 17, 3, 3), w)
    with pytest.raises(ValueError, match=r"deform_conv2d\(\): mask must be"):
        F.deform_conv2d(x, flow.zeros(1, 18, 3, 3), w, mask=flow.zeros(1, 8, 3, 3))
    with pytest.raises(ValueError, match=r"deform_conv2d\(\): weight of shape"):
        F.deform_conv2d(x, flow.zeros(1, 18, 3, 3), flow.zeros(3, 3, 3, 3))
    with pytest.raises(ValueError, match="4-D"):
        F.deform_conv2d(flow.zeros(2, 5, 5), flow.zeros(1, 18, 3, 3), w)
