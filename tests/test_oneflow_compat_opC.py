"""OneFlow module-test compatibility (helper opC): behaviours found by running
OneFlow's python/oneflow/test/modules tests against monoflow, checked against
torch or numpy."""
import numpy as np
import pytest
import torch

import monoflow as flow


# --- nn.QatConv1d/2d/3d (OneFlow test_qat_conv_modules) ------------------------

def _fake_quant_np(x, bit, scheme, per_channel=False):
    xs = x.reshape(x.shape[0], -1) if per_channel else x.reshape(1, -1)
    view = (-1,) + (1,) * (x.ndim - 1) if per_channel else ()
    if scheme == "symmetric":
        top = 2.0 ** (bit - 1) - 1
        s = (np.abs(xs).max(1) / top).reshape(view)
        return np.clip(np.round(x / s), -top, top) * s
    lo, hi = xs.min(1), xs.max(1)
    s = ((hi - lo) / (2.0 ** bit - 1)).reshape(view)
    z = (-np.round(lo / s.reshape(-1))).reshape(view)
    return (np.clip(np.round(x / s + z), 0, 2.0 ** bit - 1) - z) * s


@pytest.mark.parametrize("n", [1, 2, 3])
@pytest.mark.parametrize("scheme", ["symmetric", "affine"])
@pytest.mark.parametrize("per_layer", [True, False])
def test_qat_conv_matches_torch_conv_of_fake_quantized_operands(n, scheme, per_layer):
    flow.manual_seed(0)
    m = getattr(flow.nn, f"QatConv{n}d")(2, 3, 3, stride=2, padding=1, quantization_bit=4,
                                         quantization_scheme=scheme, weight_quant_per_layer=per_layer)
    x_np = np.random.RandomState(n).randn(2, 2, *([7] * n)).astype(np.float64)
    x = flow.tensor(x_np, dtype=flow.float32, requires_grad=True)
    y = m(x)
    y.sum().backward()
    w_np = m.weight.detach().numpy().astype(np.float64)
    xq = torch.tensor(_fake_quant_np(x_np, 4, scheme), requires_grad=True)
    wq = torch.tensor(_fake_quant_np(w_np, 4, scheme, per_channel=not per_layer))
    conv = getattr(torch.nn.functional, f"conv{n}d")
    ref = conv(xq, wq, torch.tensor(m.bias.detach().numpy(), dtype=torch.float64), stride=2, padding=1)
    ref.sum().backward()
    np.testing.assert_allclose(y.detach().numpy(), ref.detach().numpy(), rtol=1e-4, atol=1e-4)
    # the input's gradient passes straight through the fake quantization
    np.testing.assert_allclose(x.grad.numpy(), xq.grad.numpy(), rtol=1e-4, atol=1e-4)
    assert m.weight.grad is not None and m.weight.grad.shape == m.weight.shape
    assert m.current_train_step.dtype == flow.int64
    assert float(m.input_min_max_observer.moving_max[0]) > 0


def test_qat_conv_checks_its_options():
    with pytest.raises(ValueError, match="quantization_bit"):
        flow.nn.QatConv2d(1, 1, 1, quantization_bit=9)
    assert isinstance(flow.nn.QatConv2d(1, 1, 1), flow.nn.Conv2d)


# --- optim.LBFGS(contiguous_params=) (OneFlow test_optim_lbfgs) ----------------

def test_lbfgs_accepts_contiguous_params_same_steps_as_torch():
    init = np.random.RandomState(0).rand(6)
    g = np.random.RandomState(1).rand(6)
    results = []
    for lib, kw in ((torch, {}), (flow, {"contiguous_params": True})):
        p = lib.nn.Parameter(lib.tensor(init.copy()))
        opt = lib.optim.LBFGS([p], lr=0.1, line_search_fn="strong_wolfe", **kw)
        gt = lib.tensor(g)

        def closure():
            opt.zero_grad()
            loss = (p * p * gt).sum()
            loss.backward()
            return loss

        for _ in range(3):
            opt.step(closure)
        results.append(p.detach().numpy())
    np.testing.assert_allclose(results[1], results[0], rtol=1e-6, atol=1e-8)
    opt2 = flow.optim.LBFGS([flow.nn.Parameter(flow.zeros(2))], contiguous_params=True)
    assert opt2.param_groups[0]["contiguous_params"] is True


# --- rand_like/randn_like/randint_like(placement=, sbp=) (OneFlow test_randn_like, test_randint_like)

@pytest.mark.parametrize("fn,args", [("rand_like", ()), ("randn_like", ()), ("randint_like", (0, 16))])
def test_like_creation_takes_placement_and_sbp(fn, args):
    placement = flow.placement("cpu", ranks=[0])
    sbp = (flow.sbp.broadcast,)
    dtype = flow.int32 if fn == "randint_like" else flow.float64
    x = getattr(flow, fn)(flow.randn(10, 1), *args, placement=placement, sbp=sbp, dtype=dtype)
    assert x.dtype == dtype and x.sbp == sbp and x.placement == placement
    assert tuple(x.shape) == (10, 1)
    with pytest.raises(ValueError, match="sbp"):
        getattr(flow, fn)(flow.randn(2), *args, sbp=sbp)


# --- flow._C.rms_norm, OneFlow's argument order (OneFlow test_rmsnorm) ----------

@pytest.mark.parametrize("affine", [True, False])
def test_functional_rms_norm_oneflow_order_matches_torch(affine):
    rs = np.random.RandomState(0)
    x_np, w_np, g_np = rs.randn(5, 3, 12), rs.randn(3, 12), rs.randn(5, 3, 12)
    tx = torch.tensor(x_np, requires_grad=True)
    tw = torch.tensor(w_np, requires_grad=True) if affine else None
    ty = torch.nn.functional.rms_norm(tx, [3, 12], tw, 1e-6)
    (ty * torch.tensor(g_np)).sum().backward()
    fx = flow.tensor(x_np, requires_grad=True)
    fw = flow.tensor(w_np, requires_grad=True) if affine else None
    fy = flow._C.rms_norm(fx, fw, [3, 12], 1e-6)
    (fy * flow.tensor(g_np)).sum().backward()
    np.testing.assert_allclose(fy.detach().numpy(), ty.detach().numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(fx.grad.numpy(), tx.grad.numpy(), rtol=1e-10, atol=1e-12)
    if affine:
        np.testing.assert_allclose(fw.grad.numpy(), tw.grad.numpy(), rtol=1e-10, atol=1e-12)
        # normalized_shape defaults to the weight's shape; torch's order still works
        np.testing.assert_allclose(flow._C.rms_norm(fx, fw).detach().numpy(), ty.detach().numpy(), rtol=1e-10)
        np.testing.assert_allclose(flow._C.rms_norm(fx, [3, 12], fw, 1e-6).detach().numpy(),
                                   ty.detach().numpy(), rtol=1e-10)
    else:
        with pytest.raises(TypeError, match="rms_norm"):
            flow._C.rms_norm(fx)


# --- flow.roi_align (OneFlow test_roi_align) ------------------------------------

def _roi_align_ref(x, rois, ph, pw, scale, ratio, aligned):
    # torchvision's RoIAlign, written out in float64 numpy
    K, C = rois.shape[0], x.shape[1]
    H, W = x.shape[2:]
    out = np.zeros((K, C, ph, pw))
    off = 0.5 if aligned else 0.0
    for k, (b, x1, y1, x2, y2) in enumerate(rois):
        x1, y1, x2, y2 = (v * scale - off for v in (x1, y1, x2, y2))
        rw, rh = x2 - x1, y2 - y1
        if not aligned:
            rw, rh = max(rw, 1.0), max(rh, 1.0)
        bh, bw = rh / ph, rw / pw
        gh = ratio if ratio > 0 else int(np.ceil(bh))
        gw = ratio if ratio > 0 else int(np.ceil(bw))
        for i in range(ph):
            for j in range(pw):
                acc = np.zeros(C)
                for iy in range(gh):
                    y = y1 + i * bh + (iy + 0.5) * bh / gh
                    for ix in range(gw):
                        xx = x1 + j * bw + (ix + 0.5) * bw / gw
                        if y < -1 or y > H or xx < -1 or xx > W:
                            continue
                        yy, xc = max(y, 0.0), max(xx, 0.0)
                        yl, xl = int(yy), int(xc)
                        if yl >= H - 1:
                            yl = yh = H - 1
                            yy = float(yl)
                        else:
                            yh = yl + 1
                        if xl >= W - 1:
                            xl = xh = W - 1
                            xc = float(xl)
                        else:
                            xh = xl + 1
                        ly, lx = yy - yl, xc - xl
                        img = x[int(b)]
                        acc += ((1 - ly) * (1 - lx) * img[:, yl, xl] + (1 - ly) * lx * img[:, yl, xh]
                                + ly * (1 - lx) * img[:, yh, xl] + ly * lx * img[:, yh, xh])
                out[k, :, i, j] = acc / max(gh * gw, 1)
    return out


@pytest.mark.parametrize("ratio,aligned", [(2, True), (2, False), (0, True), (-1, False)])
def test_roi_align_matches_reference_and_linear_gradient(ratio, aligned):
    rs = np.random.RandomState(ratio + 2 + 5 * aligned)
    x_np = rs.randn(2, 3, 9, 7)
    rois = np.concatenate([rs.randint(0, 2, (6, 1)), rs.uniform(-2, 8, (6, 2)), rs.uniform(-2, 8, (6, 2))], 1)
    rois[:, [1, 3]] = np.sort(rois[:, [1, 3]], 1)
    rois[:, [2, 4]] = np.sort(rois[:, [2, 4]], 1)
    x = flow.tensor(x_np, requires_grad=True)
    out = flow.roi_align(x, flow.tensor(rois), 0.75, 3, 4, ratio, aligned)
    ref = _roi_align_ref(x_np, rois, 3, 4, 0.75, ratio, aligned)
    np.testing.assert_allclose(out.detach().numpy(), ref, rtol=1e-9, atol=1e-12)
    g = rs.randn(*ref.shape)
    (out * flow.tensor(g)).sum().backward()
    # roi_align is linear in x: its gradient is the adjoint, <grad, e> = <g, roi_align(e)>
    for _ in range(3):
        e = rs.randn(*x_np.shape)
        lhs = (x.grad.numpy() * e).sum()
        rhs = (g * _roi_align_ref(e, rois, 3, 4, 0.75, ratio, aligned)).sum()
        np.testing.assert_allclose(lhs, rhs, rtol=1e-9)


def test_roi_align_errors_name_the_op():
    with pytest.raises(RuntimeError, match="roi_align"):
        flow.roi_align(flow.randn(3, 4, 4), flow.zeros(1, 5), 1.0, 2, 2, 2, True)
    with pytest.raises(RuntimeError, match="roi_align"):
        flow.roi_align(flow.randn(1, 1, 4, 4), flow.zeros(1, 4), 1.0, 2, 2, 2, True)


# --- flow.roc_auc_score (OneFlow test_roc_auc_score) ----------------------------

def test_roc_auc_score_matches_mann_whitney_with_ties():
    rs = np.random.RandomState(0)
    label = rs.randint(0, 2, 500)
    pred = np.round(rs.rand(500), 1)  # many ties
    pos, neg = pred[label == 1], pred[label == 0]
    expect = ((pos[:, None] > neg[None, :]).sum() + 0.5 * (pos[:, None] == neg[None, :]).sum()) / (
        pos.size * neg.size)
    for dtype in (flow.int64, flow.uint8, flow.float64):
        got = flow.roc_auc_score(flow.tensor(label, dtype=dtype), flow.tensor(pred, dtype=flow.float32))
        assert got.shape == (1,) and got.dtype == flow.float32
        np.testing.assert_allclose(got.numpy()[0], expect, rtol=1e-6)
    with pytest.raises(ValueError, match="roc_auc_score"):
        flow.roc_auc_score(flow.tensor([1, 1]), flow.tensor([0.1, 0.2]))


# --- flow.save(..., save_as_external_data=True) (OneFlow test_save_load) --------

def test_save_as_external_data_writes_a_directory_load_reads_it(tmp_path):
    import warnings

    sd = {"w": flow.randn(2, 3), "b": flow.arange(4), "step": 7}
    d = tmp_path / "ckpt"  # created by save
    flow.save(sd, str(d), save_as_external_data=True)
    assert d.is_dir()
    (d / "random_file").write_text("nothing")  # an unrelated file in the directory is ignored
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        back = flow.load(str(d))
    assert back["step"] == 7
    np.testing.assert_array_equal(back["w"].numpy(), sd["w"].numpy())
    np.testing.assert_array_equal(back["b"].numpy(), sd["b"].numpy())
    import io

    with pytest.raises(TypeError, match="save_as_external_data"):
        flow.save(sd, io.BytesIO(), save_as_external_data=True)


# --- flow._C.layer_norm_affine / skip_layer_norm / skip_rms_norm (OneFlow test_skip_layer_norm, test_skip_rms_norm)

def _skip_inputs(rs, with_bias, with_skip):
    x = rs.randn(3, 4, 10)
    bias = rs.randn(10) if with_bias else None
    skip = rs.randn(3, 4, 10) if with_skip else None
    pre = x + (bias if with_bias else 0) + (0.3 * skip if with_skip else 0)
    return x, bias, skip, pre


def _t(a, lib):
    return None if a is None else lib.tensor(a, requires_grad=True)


@pytest.mark.parametrize("with_bias", [True, False])
@pytest.mark.parametrize("with_skip", [True, False])
@pytest.mark.parametrize("affine", [True, False])
def test_skip_layer_norm_matches_torch_layer_norm(with_bias, with_skip, affine):
    rs = np.random.RandomState(7)
    x, bias, skip, pre = _skip_inputs(rs, with_bias, with_skip)
    g, b = (rs.randn(10), rs.randn(10)) if affine else (None, None)
    ref = torch.nn.functional.layer_norm(torch.tensor(pre), (10,), _t(g, torch), _t(b, torch), 1e-6)
    fx = flow.tensor(x, requires_grad=True)
    got = flow._C.skip_layer_norm(fx, _t(g, flow), _t(b, flow), _t(bias, flow), _t(skip, flow), 0.3, 1e-6)
    np.testing.assert_allclose(got.detach().numpy(), ref.detach().numpy(), rtol=1e-9, atol=1e-10)
    got.sum().backward()
    assert fx.grad is not None


@pytest.mark.parametrize("with_bias", [True, False])
@pytest.mark.parametrize("with_skip", [True, False])
def test_skip_rms_norm_matches_torch_rms_norm(with_bias, with_skip):
    rs = np.random.RandomState(8)
    x, bias, skip, pre = _skip_inputs(rs, with_bias, with_skip)
    w = rs.randn(10)
    ref = torch.nn.functional.rms_norm(torch.tensor(pre), (10,), torch.tensor(w), 1e-6)
    got = flow._C.skip_rms_norm(x=flow.tensor(x), weight=flow.tensor(w), bias=_t(bias, flow), skip=_t(skip, flow),
                                epsilon=1e-6, alpha=0.3)
    np.testing.assert_allclose(got.numpy(), ref.numpy(), rtol=1e-9, atol=1e-10)


def test_layer_norm_affine_begin_axes():
    rs = np.random.RandomState(9)
    x, g, b = rs.randn(2, 3, 4), rs.randn(3, 4), rs.randn(3, 4)
    ref = torch.nn.functional.layer_norm(torch.tensor(x), (3, 4), torch.tensor(g), torch.tensor(b), 1e-5)
    got = flow._C.layer_norm_affine(flow.tensor(x), flow.tensor(g), flow.tensor(b), begin_norm_axis=1,
                                    begin_params_axis=-2, epsilon=1e-5)
    np.testing.assert_allclose(got.numpy(), ref.numpy(), rtol=1e-9, atol=1e-10)
    # normalising over the last dim only, with (3, 4) parameters
    ref2 = torch.nn.functional.layer_norm(torch.tensor(x), (4,), None, None, 1e-5) * torch.tensor(g) + torch.tensor(b)
    got2 = flow._C.layer_norm_affine(flow.tensor(x), flow.tensor(g), flow.tensor(b), -1, 1, 1e-5)
    np.testing.assert_allclose(got2.numpy(), ref2.numpy(), rtol=1e-9, atol=1e-10)


# --- nn.RMSLayerNorm (OneFlow test_t5_layernorm) --------------------------------

def test_rms_layer_norm_is_t5_layer_norm():
    x = np.random.RandomState(3).randn(2, 4, 3)
    m = flow.nn.RMSLayerNorm(3, eps=1e-6)
    assert m.variance_epsilon == 1e-6 and isinstance(m, flow.nn.RMSNorm)
    np.testing.assert_array_equal(m.weight.detach().numpy(), np.ones(3, np.float32))
    fx = flow.tensor(x, requires_grad=True)
    tx = torch.tensor(x, requires_grad=True)
    y = m(fx)
    ref = tx * torch.rsqrt(tx.pow(2).mean(-1, keepdim=True) + 1e-6)
    np.testing.assert_allclose(y.detach().numpy(), ref.detach().numpy(), rtol=1e-5, atol=1e-6)
    y.sum().backward()
    ref.sum().backward()
    np.testing.assert_allclose(fx.grad.numpy(), tx.grad.numpy(), rtol=1e-4, atol=1e-5)


# --- stft (OneFlow test_stft) ---------------------------------------------------

@pytest.mark.parametrize("shape", [(50,), (3, 61)])
@pytest.mark.parametrize("n_fft,hop,win_length", [(8, None, None), (16, 3, 10), (4, 1, 4)])
@pytest.mark.parametrize("center,pad_mode", [(True, "reflect"), (True, "constant"), (False, "reflect")])
@pytest.mark.parametrize("onesided", [True, False, None])
def test_stft_matches_torch(shape, n_fft, hop, win_length, center, pad_mode, onesided):
    import warnings

    rs = np.random.RandomState(len(shape) + n_fft)
    x, w = rs.randn(*shape), rs.randn(win_length or n_fft)
    for normalized in (False, True):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ref = torch.stft(torch.tensor(x), n_fft, hop, win_length, torch.tensor(w), center, pad_mode, normalized,
                             onesided, return_complex=False)
        got = flow.stft(flow.tensor(x), n_fft, hop, win_length, flow.tensor(w), center, pad_mode, normalized,
                        onesided, return_complex=False)
        np.testing.assert_allclose(got.numpy(), ref.numpy(), rtol=1e-9, atol=1e-10)
    ref_c = torch.stft(torch.tensor(x), n_fft, hop, win_length, None, center, pad_mode, onesided=onesided,
                       return_complex=True)
    got_c = flow.tensor(x).stft(n_fft, hop, win_length, None, center, pad_mode, onesided=onesided,
                                return_complex=True)
    np.testing.assert_allclose(got_c.numpy(), ref_c.numpy(), rtol=1e-9, atol=1e-10)


def test_stft_gradient_and_errors():
    x_np, w_np = np.random.RandomState(0).randn(40), np.hanning(8)
    fx, tx = flow.tensor(x_np, requires_grad=True), torch.tensor(x_np, requires_grad=True)
    g = np.random.RandomState(1).randn(5, 11, 2)
    flow.stft(fx, 8, 4, window=flow.tensor(w_np), return_complex=False).mul(flow.tensor(g)).sum().backward()
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.stft(tx, 8, 4, window=torch.tensor(w_np), return_complex=False).mul(torch.tensor(g)).sum().backward()
    np.testing.assert_allclose(fx.grad.numpy(), tx.grad.numpy(), rtol=1e-9, atol=1e-10)
    with pytest.raises(RuntimeError, match="return_complex"):
        flow.stft(flow.randn(16), 4)
    with pytest.raises(RuntimeError, match="stft"):
        flow.stft(flow.randn(16), 4, window=flow.ones(3), return_complex=True)


# --- flow._C.trunc_divide (OneFlow test_trunc_divide) ---------------------------

def test_trunc_divide_matches_torch_div_trunc():
    rs = np.random.RandomState(4)
    a, b = rs.randn(3, 5) * 5, rs.randn(3, 5)
    fa, fb = flow.tensor(a, requires_grad=True), flow.tensor(b, requires_grad=True)
    ta, tb = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
    got, ref = flow._C.trunc_divide(fa, fb), torch.div(ta, tb, rounding_mode="trunc")
    np.testing.assert_array_equal(got.detach().numpy(), ref.detach().numpy())
    got.sum().backward()
    ref.sum().backward()
    np.testing.assert_array_equal(fa.grad.numpy(), ta.grad.numpy())
    np.testing.assert_array_equal(fb.grad.numpy(), tb.grad.numpy())
    np.testing.assert_array_equal(flow._C.trunc_divide(flow.tensor(a), -1.5).numpy(),
                                  torch.div(torch.tensor(a), -1.5, rounding_mode="trunc").numpy())


# --- flow._C.transpose's two forms (flowvision's ToTensor) and flow._C.exponential_ ---

def test_functional_transpose_takes_a_permutation_or_two_dims():
    x = np.arange(60.0).reshape(4, 5, 3)
    for got in (flow._C.transpose(flow.tensor(x), perm=[2, 0, 1]), flow._C.transpose(flow.tensor(x), [2, 0, 1]),
                flow._C.transpose(flow.tensor(x), (2, 0, 1))):
        np.testing.assert_array_equal(got.numpy(), x.transpose(2, 0, 1))
    np.testing.assert_array_equal(flow._C.transpose(flow.tensor(x), 0, 2).numpy(), x.swapaxes(0, 2))
    with pytest.raises(TypeError, match="transpose"):
        flow._C.transpose(flow.tensor(x), 0, perm=[2, 0, 1])
    with pytest.raises(RuntimeError):
        flow._C.transpose(flow.tensor(x), perm=[0, 0, 1])


def test_functional_exponential_fills_in_place_from_the_generator():
    g1, g2 = flow.Generator().manual_seed(3), flow.Generator().manual_seed(3)
    x = flow.empty(20000)
    assert flow._C.exponential_(x, 2.0, generator=g1) is x
    np.testing.assert_array_equal(x.numpy(), flow.empty(20000).exponential_(2.0, generator=g2).numpy())
    assert (x.numpy() >= 0).all() and abs(x.numpy().mean() - 0.5) < 0.02


# --- nn.utils.weight_norm with a negative dim other than -1 (OneFlow test_weight_norm)

@pytest.mark.parametrize("dim", [-3, -2, -1, 0, 1, 2, None])
def test_weight_norm_negative_dims_match_torch(dim):
    import warnings

    w = np.random.RandomState(5).randn(3, 4, 5).astype(np.float32)
    m, t = flow.nn.Conv1d(4, 3, 5), torch.nn.Conv1d(4, 3, 5)
    with flow.no_grad():
        m.weight.copy_(flow.tensor(w))
        m.bias.zero_()
    with torch.no_grad():
        t.weight.copy_(torch.tensor(w))
        t.bias.zero_()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        b = torch.nn.utils.weight_norm(t, dim=dim)
    a = flow.nn.utils.weight_norm(m, dim=dim)
    assert tuple(a.weight_g.shape) == tuple(b.weight_g.shape)
    np.testing.assert_allclose(a.weight_g.detach().numpy(), b.weight_g.detach().numpy(), rtol=1e-5)
    x = np.random.RandomState(6).randn(2, 4, 9).astype(np.float32)
    np.testing.assert_allclose(a(flow.tensor(x)).detach().numpy(), b(torch.tensor(x)).detach().numpy(),
                               rtol=1e-4, atol=1e-5)
    if dim is not None:
        pm = torch.nn.utils.parametrizations.weight_norm(torch.nn.Conv1d(4, 3, 5), dim=dim)
        fm = flow.nn.utils.parametrizations.weight_norm(flow.nn.Conv1d(4, 3, 5), dim=dim)
        assert tuple(fm.parametrizations.weight.original0.shape) == tuple(pm.parametrizations.weight.original0.shape)


# --- monoflow._utils._flatten_dense_tensors / _unflatten_dense_tensors (OneFlow test_utils)

def test_flatten_unflatten_dense_tensors_match_torch():
    from torch._utils import _flatten_dense_tensors as tflat, _unflatten_dense_tensors as tunflat
    from monoflow._utils import _flatten_dense_tensors, _unflatten_dense_tensors

    rs = np.random.RandomState(2)
    arrays = [rs.randn(2, 3), rs.randn(4), rs.randn(1, 2, 2)]
    flat = _flatten_dense_tensors([flow.tensor(a) for a in arrays])
    ref = tflat([torch.tensor(a) for a in arrays])
    np.testing.assert_array_equal(flat.numpy(), ref.numpy())
    outs = _unflatten_dense_tensors(flat * 2, [flow.tensor(a) for a in arrays])
    touts = tunflat(ref * 2, [torch.tensor(a) for a in arrays])
    assert len(outs) == len(touts)
    for o, t in zip(outs, touts):
        assert tuple(o.shape) == tuple(t.shape)
        np.testing.assert_array_equal(o.numpy(), t.numpy())
