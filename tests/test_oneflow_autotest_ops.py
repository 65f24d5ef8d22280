"""Behaviours that OneFlow's module tests (python/oneflow/test/modules, run
through its autotest harness) expect from monoflow, found by running those
tests against monoflow. Oracles: torch and numpy."""
import numpy as np
import pytest

import monoflow as flow
from helpers import TORCH

torch = TORCH
needs_torch = pytest.mark.skipif(torch is None, reason="torch is not installed")


# --- ONEFLOW_ENABLE_NHWC: channels-last 2-D pooling modules ------------------

@needs_torch
@pytest.mark.parametrize("cls", ["MaxPool2d", "AvgPool2d"])
def test_pool2d_built_under_oneflow_enable_nhwc_is_channels_last(monkeypatch, cls):
    arr = np.random.RandomState(0).randn(2, 9, 11, 3)
    monkeypatch.setenv("ONEFLOW_ENABLE_NHWC", "1")
    m = getattr(flow.nn, cls)(kernel_size=3, stride=2, padding=1, ceil_mode=True)
    monkeypatch.setenv("ONEFLOW_ENABLE_NHWC", "0")
    x = flow.tensor(arr, requires_grad=True)
    y = m(x)
    tx = torch.tensor(arr.transpose(0, 3, 1, 2), requires_grad=True)
    ty = getattr(torch.nn, cls)(kernel_size=3, stride=2, padding=1, ceil_mode=True)(tx).permute(0, 2, 3, 1)
    assert tuple(y.shape) == tuple(ty.shape)
    np.testing.assert_allclose(y.numpy(), ty.detach().numpy(), rtol=1e-6, atol=1e-9)
    g = np.random.RandomState(1).rand(*ty.shape)
    y.backward(flow.tensor(g))
    ty.backward(torch.tensor(g))
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.permute(0, 2, 3, 1).numpy(), rtol=1e-6, atol=1e-9)
    # a module built without the variable stays channels-first
    assert tuple(getattr(flow.nn, cls)(3)(flow.randn(1, 2, 6, 6)).shape) == (1, 2, 2, 2)


def test_nhwc_maxpool2d_returns_indices_channels_last_and_refuses_other_ranks(monkeypatch):
    monkeypatch.setenv("ONEFLOW_ENABLE_NHWC", "1")
    m = flow.nn.MaxPool2d(2, return_indices=True)
    out, idx = m(flow.randn(1, 4, 4, 3))
    assert tuple(out.shape) == (1, 2, 2, 3) and tuple(idx.shape) == (1, 2, 2, 3)
    with pytest.raises(ValueError, match="MaxPool2d"):
        m(flow.randn(4, 4, 3))


# --- where: a condition of any dtype (OneFlow) --------------------------------

@needs_torch
@pytest.mark.parametrize("dtype", [flow.int32, flow.int64, flow.float32, flow.uint8])
def test_where_takes_a_non_bool_condition_as_nonzero(dtype):
    rs = np.random.RandomState(0)
    c = rs.randint(-1, 2, size=(3, 1, 4))
    a, b = rs.randn(2, 4), rs.randn(3, 2, 1)
    ta, tb = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
    fa, fb = flow.tensor(a, requires_grad=True), flow.tensor(b, requires_grad=True)
    tout = torch.where(torch.tensor(c != 0), ta, tb)
    fout = flow.where(flow.tensor(c, dtype=dtype), fa, fb)
    np.testing.assert_array_equal(fout.numpy(), tout.detach().numpy())
    tout.sum().backward()
    fout.sum().backward()
    np.testing.assert_array_equal(fa.grad.numpy(), ta.grad.numpy())
    np.testing.assert_array_equal(fb.grad.numpy(), tb.grad.numpy())
    # the Tensor method and number operands take it too
    np.testing.assert_array_equal(fa.where(flow.tensor(c, dtype=dtype), 0.0).detach().numpy(),
                                  torch.where(torch.tensor(c != 0), ta, 0.0).detach().numpy())
    assert flow.where(flow.tensor([1], dtype=dtype), 0.5, 2.0).dtype == flow.float32


# --- full with a one-element tensor fill value ---------------------------------

@needs_torch
@pytest.mark.parametrize("value", [2.5, 3, True, -1.25])
def test_full_with_a_tensor_fill_value_matches_torch(value):
    tv = torch.tensor(value)
    fv = flow.tensor(value)
    t = torch.full((2, 3), tv)
    f = flow.full((2, 3), fv)
    assert str(f.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
    np.testing.assert_array_equal(f.numpy(), t.numpy())
    f = flow.full((4,), fv, dtype=flow.float64, requires_grad=True)
    assert f.requires_grad and f.is_leaf and f.dtype == flow.float64
    assert f.numpy().tolist() == [float(value)] * 4


def test_full_with_a_tensor_fill_value_traces_in_a_graph():
    class G(flow.nn.Graph):
        def build(self, v):
            return flow.full((2, 2), v)

    out = G()(flow.tensor(1.5))
    np.testing.assert_array_equal(out.numpy(), np.full((2, 2), 1.5, np.float32))
    with pytest.raises(RuntimeError, match="full"):
        flow.full((2,), flow.tensor([1.0, 2.0]))


# --- OneFlow's optimizer options: do_bias_correction, contiguous_params --------

def _numpy_adam(x, grads, lr, betas, eps, wd, bias_correction, amsgrad):
    m, v, vmax = np.zeros_like(x), np.zeros_like(x), np.zeros_like(x)
    for t, g in enumerate(grads, 1):
        g = g + wd * x
        m = betas[0] * m + (1 - betas[0]) * g
        v = betas[1] * v + (1 - betas[1]) * g * g
        vmax = np.maximum(vmax, v)
        bc1, bc2 = (1 - betas[0] ** t, 1 - betas[1] ** t) if bias_correction else (1.0, 1.0)
        x = x - (lr / bc1) * m / (np.sqrt(vmax if amsgrad else v) / np.sqrt(bc2) + eps)
    return x


@pytest.mark.parametrize("cls", ["Adam", "AdamW"])
@pytest.mark.parametrize("bias_correction", [True, False])
@pytest.mark.parametrize("amsgrad", [False, True])
def test_adam_do_bias_correction_survives_a_state_dict_reload(cls, bias_correction, amsgrad):
    rs = np.random.RandomState(3)
    x0 = rs.uniform(size=(6,))
    grads = [rs.uniform(size=(6,)) for _ in range(6)]
    p = flow.nn.Parameter(flow.tensor(x0))
    opt = getattr(flow.optim, cls)([{"params": [p], "lr": 0.1, "betas": (0.9, 0.8), "weight_decay": 0.0}],
                                   amsgrad=amsgrad, do_bias_correction=bias_correction, contiguous_params=True)
    for i, g in enumerate(grads):
        (p * flow.tensor(g)).sum().backward()
        opt.step()
        opt.zero_grad()
        if i == 2:  # a fresh optimizer takes the saved options, as OneFlow's tests reload it
            state = opt.state_dict()
            opt = getattr(flow.optim, cls)([p], contiguous_params=True)
            opt.load_state_dict(state)
    assert opt.param_groups[0]["do_bias_correction"] is bias_correction
    expected = _numpy_adam(x0, grads, 0.1, (0.9, 0.8), 1e-8, 0.0, bias_correction, amsgrad)
    np.testing.assert_allclose(p.detach().numpy(), expected, rtol=1e-10, atol=1e-12)


@needs_torch
def test_sgd_accepts_contiguous_params_and_updates_as_torch():
    x0 = np.random.RandomState(4).randn(5)
    p, tp = flow.nn.Parameter(flow.tensor(x0)), torch.nn.Parameter(torch.tensor(x0))
    opt = flow.optim.SGD([p], lr=0.1, momentum=0.9, contiguous_params=True)
    topt = torch.optim.SGD([tp], lr=0.1, momentum=0.9)
    for _ in range(3):
        (p * p).sum().backward(); opt.step(); opt.zero_grad()
        (tp * tp).sum().backward(); topt.step(); topt.zero_grad()
    np.testing.assert_allclose(p.detach().numpy(), tp.detach().numpy(), rtol=1e-12)
    assert opt.param_groups[0]["contiguous_params"] is True


@needs_torch
@pytest.mark.parametrize("cls, kw", [("RMSprop", dict(lr=0.01, momentum=0.5, centered=True)),
                                     ("Adagrad", dict(lr=0.1, lr_decay=0.01))])
def test_rmsprop_adagrad_accept_contiguous_params_and_update_as_torch(cls, kw):
    x0 = np.random.RandomState(5).randn(4)
    p, tp = flow.nn.Parameter(flow.tensor(x0)), torch.nn.Parameter(torch.tensor(x0))
    opt = getattr(flow.optim, cls)([p], contiguous_params=True, **kw)
    topt = getattr(torch.optim, cls)([tp], **kw)
    for i in range(4):
        (p * p * (i + 1)).sum().backward(); opt.step(); opt.zero_grad()
        (tp * tp * (i + 1)).sum().backward(); topt.step(); topt.zero_grad()
    np.testing.assert_allclose(p.detach().numpy(), tp.detach().numpy(), rtol=1e-10)
    state = opt.state_dict()
    again = getattr(flow.optim, cls)([p], contiguous_params=False)
    again.load_state_dict(state)
    assert again.param_groups[0]["contiguous_params"] is True


# --- slice_update (both of OneFlow's forms) and nn.Graph.trace -----------------

def test_slice_update_in_place_form_matches_numpy_setitem():
    rs = np.random.RandomState(6)
    for shape in [(7,), (5, 6), (4, 5, 6)]:
        ref = rs.rand(*shape)
        spec = [(int(rs.randint(0, n)), None, int(rs.randint(1, 3))) for n in shape]
        index = tuple(slice(*t) for t in spec)
        upd = rs.rand(*ref[index].shape)
        x = flow.tensor(ref)
        out = flow.slice_update(x, flow.tensor(upd.astype(np.float32)), slice_tup_list=spec)
        ref[index] = upd.astype(np.float32)
        assert out is x
        np.testing.assert_array_equal(x.numpy(), ref)


@needs_torch
def test_slice_update_functional_form_is_out_of_place_and_differentiable():
    a0, b0 = np.random.RandomState(7).rand(6), np.random.RandomState(8).rand(2)
    a, b = flow.tensor(a0, requires_grad=True), flow.tensor(b0, requires_grad=True)
    ta, tb = torch.tensor(a0, requires_grad=True), torch.tensor(b0, requires_grad=True)
    out = flow._C.slice_update(a * 1, b * 1, [1], [5], [3])
    tout = (ta * 1).clone()
    tout[1:5:3] = tb
    np.testing.assert_array_equal(out.detach().numpy(), tout.detach().numpy())
    assert np.array_equal(a.detach().numpy(), a0)  # the input is not written
    w = np.arange(6.0)
    (out * flow.tensor(w)).sum().backward()
    (tout * torch.tensor(w)).sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), ta.grad.numpy())
    np.testing.assert_array_equal(b.grad.numpy(), tb.grad.numpy())
    with pytest.raises(IndexError, match="slice_update"):
        flow.slice_update(flow.zeros(3), flow.ones(1), [[0, 1, 1], [0, 1, 1]])


def test_graph_trace_decorates_a_function_into_an_eval_graph():
    buf = flow.zeros(2, 3)

    @flow.nn.Graph.trace
    def write_and_scale(x):
        buf[-1] = 1
        return x * 2 + buf.sum()

    out = write_and_scale(flow.tensor([1.0, 2.0]))
    np.testing.assert_array_equal(out.numpy(), [5.0, 7.0])
    np.testing.assert_array_equal(buf.numpy(), [[0, 0, 0], [1, 1, 1]])
    np.testing.assert_array_equal(write_and_scale(flow.tensor([0.0, 1.0])).numpy(), [3.0, 5.0])
    assert isinstance(write_and_scale.graph, flow.nn.Graph) and write_and_scale.__name__ == "write_and_scale"


# --- randn/rand: size=, layout=, and NotImplementedError for integer dtypes ------

@needs_torch
def test_rand_randn_take_size_and_layout_keywords_and_refuse_integer_dtypes_as_torch():
    assert tuple(flow.randn(size=(2, 3)).shape) == tuple(torch.randn(size=(2, 3)).shape)
    assert tuple(flow.rand(size=[4], layout=flow.strided).shape) == (4,)
    assert tuple(flow.randn(2, 3, layout=flow.strided, pin_memory=False).shape) == (2, 3)
    for fn in ("rand", "randn"):
        with pytest.raises(NotImplementedError):
            getattr(torch, fn)(2, dtype=torch.int32)
        with pytest.raises(NotImplementedError, match=fn):
            getattr(flow, fn)(2, dtype=flow.int32)
        with pytest.raises(NotImplementedError, match="strided"):
            getattr(flow, fn)(2, layout=flow.sparse_coo)
        with pytest.raises(TypeError, match="twice"):
            getattr(flow, fn)(2, size=(2,))


# --- PixelShuffle with separate height and width factors (OneFlow) --------------

@needs_torch
@pytest.mark.parametrize("rh, rw", [(2, 3), (3, 2), (1, 4), (2, 2)])
def test_pixel_shuffle_with_h_and_w_factors_matches_a_torch_composition(rh, rw):
    x = np.random.RandomState(9).randn(2, 3, 12, 4, 5)  # extra batch dim too
    t = torch.tensor(x, requires_grad=True)
    c = 12 // (rh * rw)
    tout = t.reshape(2, 3, c, rh, rw, 4, 5).permute(0, 1, 2, 5, 3, 6, 4).reshape(2, 3, c, 4 * rh, 5 * rw)
    f = flow.tensor(x, requires_grad=True)
    out = flow.nn.PixelShuffle(h_upscale_factor=rh, w_upscale_factor=rw)(f)
    np.testing.assert_array_equal(out.detach().numpy(), tout.detach().numpy())
    g = np.random.RandomState(10).rand(*tout.shape)
    out.backward(flow.tensor(g))
    tout.backward(torch.tensor(g))
    np.testing.assert_array_equal(f.grad.numpy(), t.grad.numpy())


def test_pixel_shuffle_factor_arguments_are_checked():
    with pytest.raises(ValueError, match="PixelShuffle"):
        flow.nn.PixelShuffle(2, h_upscale_factor=2, w_upscale_factor=2)
    with pytest.raises(ValueError, match="PixelShuffle"):
        flow.nn.PixelShuffle(h_upscale_factor=2)
    with pytest.raises(ValueError, match="w_upscale_factor"):
        flow.nn.PixelShuffle(h_upscale_factor=2, w_upscale_factor=0)
    with pytest.raises(RuntimeError, match="divisible"):
        flow.nn.PixelShuffle(h_upscale_factor=2, w_upscale_factor=3)(flow.randn(1, 8, 2, 2))


# --- linspace: placement=/sbp=, and tensor endpoints inside an nn.Graph ----------

@needs_torch
@pytest.mark.parametrize("start, end, steps", [(0.3, 1.7, 7), (-1.0, 2.0, 10), (1.3, -2.1, 13), (0.5, 0.5, 4),
                                               (0.2, 0.9, 1), (0.0, 1.0, 0)])
def test_linspace_with_tensor_endpoints_traces_in_a_graph_and_matches_torch(start, end, steps):
    class G(flow.nn.Graph):
        def build(self, s, e):
            return flow.linspace(s, e, steps)

    out = G()(flow.tensor(start), flow.tensor(end))
    expected = torch.linspace(start, end, steps)
    assert out.dtype == flow.float32 and tuple(out.shape) == tuple(expected.shape)
    # torch's two-sided formula; the order of float32 roundings may differ by an ulp
    np.testing.assert_allclose(out.numpy(), expected.numpy(), rtol=2e-7, atol=1e-7)
    np.testing.assert_allclose(flow.linspace(flow.tensor(start), flow.tensor(end), steps).numpy(),
                               expected.numpy(), rtol=2e-7, atol=1e-7)


def test_linspace_takes_placement_and_sbp():
    placement = flow.placement("cpu", ranks=[0])
    x = flow.linspace(start=0, end=10, steps=3, placement=placement, sbp=flow.sbp.broadcast)
    assert x.placement == placement and x.sbp == (flow.sbp.broadcast,)
    np.testing.assert_array_equal(x.to_local().numpy(), [0.0, 5.0, 10.0])


# --- broadcast_like and batch_gather (OneFlow's ops) -----------------------------

@needs_torch
@pytest.mark.parametrize("shape, like, axes", [((3, 1, 1), (3, 3, 3), (1, 2)), ((1, 5, 6), (1, 5, 6, 1, 6), (3, 4)),
                                               ((1, 3, 2, 1), (3, 3, 2, 3), (0, 3)), ((3, 1), (2, 3, 4), None),
                                               ((1,), (2, 3, 4), None), ((4,), (2, 4, 3), (0, 2))])
def test_broadcast_like_matches_torch_expand(shape, like, axes):
    x = np.random.RandomState(11).randn(*shape)
    f = flow.tensor(x, requires_grad=True)
    out = flow.broadcast_like(f, flow.zeros(*like), broadcast_axes=axes)
    t = torch.tensor(x, requires_grad=True)
    if axes is not None and len(shape) < len(like):  # input's dims fill the positions outside axes
        view = [1] * len(like)
        for d, n in zip([d for d in range(len(like)) if d not in axes], shape):
            view[d] = n
        tout = t.reshape(view).expand(like)
    else:
        tout = t.expand(like)
    np.testing.assert_array_equal(out.detach().numpy(), tout.detach().numpy())
    g = np.random.RandomState(12).rand(*like)
    out.backward(flow.tensor(g))
    tout.backward(torch.tensor(g))
    np.testing.assert_allclose(f.grad.numpy(), t.grad.numpy(), rtol=1e-12)
    with pytest.raises(RuntimeError, match="broadcast_like"):
        flow.broadcast_like(flow.ones(2, 3), flow.ones(4, 5))


@needs_torch
@pytest.mark.parametrize("shape, ishape", [((5, 3), (4,)), ((2, 4, 3), (2, 5)), ((2, 3, 4, 2), (2, 3, 6))])
def test_batch_gather_is_gather_along_the_dim_after_the_batch_dims(shape, ishape):
    rs = np.random.RandomState(13)
    x = rs.randn(*shape)
    axis = len(ishape) - 1
    idx = rs.randint(0, shape[axis], size=ishape)
    f = flow.tensor(x, requires_grad=True)
    out = flow.batch_gather(f, flow.tensor(idx, dtype=flow.int32))
    t = torch.tensor(x, requires_grad=True)
    rest = shape[axis + 1:]
    tidx = torch.tensor(idx).reshape(ishape + (1,) * len(rest)).expand(ishape + rest)
    tout = t.gather(axis, tidx)
    np.testing.assert_array_equal(out.detach().numpy(), tout.detach().numpy())
    out.sum().backward()
    tout.sum().backward()
    np.testing.assert_array_equal(f.grad.numpy(), t.grad.numpy())
    with pytest.raises(TypeError, match="batch_gather"):
        flow.batch_gather(f, flow.tensor(idx, dtype=flow.float32))
    with pytest.raises(RuntimeError, match="batch_gather"):
        flow.batch_gather(flow.ones(3, 4), flow.zeros(2, 2, dtype=flow.int64))


# --- nn.functional.sparse_softmax_cross_entropy and nms (OneFlow's) ---------------

@needs_torch
@pytest.mark.parametrize("dtype, label_dtype", [(flow.float32, flow.int32), (flow.float64, flow.int64)])
def test_sparse_softmax_cross_entropy_matches_torch_cross_entropy(dtype, label_dtype):
    rs = np.random.RandomState(14)
    labels, logits = rs.randint(0, 50, size=(3, 8)), rs.randn(3, 8, 50)
    t = torch.tensor(logits, requires_grad=True)
    tout = torch.nn.functional.cross_entropy(t.permute(0, 2, 1), torch.tensor(labels), reduction="none")
    f = flow.tensor(logits, dtype=dtype, requires_grad=True)
    out = flow.nn.functional.sparse_softmax_cross_entropy(labels=flow.tensor(labels, dtype=label_dtype), logits=f)
    assert out.dtype == dtype and tuple(out.shape) == (3, 8)
    tol = 1e-5 if dtype == flow.float32 else 1e-12
    np.testing.assert_allclose(out.detach().numpy(), tout.detach().numpy(), rtol=tol, atol=tol)
    g = rs.rand(3, 8)
    out.backward(flow.tensor(g, dtype=dtype))
    tout.backward(torch.tensor(g))
    np.testing.assert_allclose(f.grad.numpy(), t.grad.numpy(), rtol=tol, atol=tol)
    with pytest.raises(RuntimeError, match="sparse_softmax_cross_entropy"):
        flow.nn.functional.sparse_softmax_cross_entropy(flow.zeros(4, dtype=flow.int64), flow.randn(3, 5))


def _greedy_nms(boxes, scores, threshold):
    keep, order = [], list(np.argsort(-scores, kind="stable"))
    while order:
        i = order.pop(0)
        keep.append(i)
        def iou(j):
            w = max(0.0, min(boxes[i, 2], boxes[j, 2]) - max(boxes[i, 0], boxes[j, 0]))
            h = max(0.0, min(boxes[i, 3], boxes[j, 3]) - max(boxes[i, 1], boxes[j, 1]))
            a = lambda k: (boxes[k, 2] - boxes[k, 0]) * (boxes[k, 3] - boxes[k, 1])
            return w * h / (a(i) + a(j) - w * h)
        order = [j for j in order if iou(j) <= threshold]
    return keep


@pytest.mark.parametrize("threshold", [0.1, 0.5, 0.9])
def test_nms_keeps_what_greedy_suppression_keeps(threshold):
    rs = np.random.RandomState(15)
    boxes = rs.rand(60, 4) * 20
    boxes[:, 2:] += boxes[:, :2]
    scores = rs.permutation(60).astype(np.float64)
    keep = flow.nms(flow.tensor(boxes, dtype=flow.float32), flow.tensor(scores, dtype=flow.float32), threshold)
    assert keep.dtype == flow.int64
    assert keep.tolist() == _greedy_nms(boxes.astype(np.float32).astype(np.float64), scores, threshold)
    with pytest.raises(RuntimeError, match="nms"):
        flow.nms(flow.zeros(3, 5), flow.zeros(3), 0.5)


# --- nn.MinMaxObserver and nn.FakeQuantization (OneFlow's QAT modules) -----------

def _np_scale_zero_point(w, bit, scheme):
    if scheme == "symmetric":
        return np.abs(w).max() / (2.0 ** (bit - 1) - 1), 0.0
    scale = (w.max() - w.min()) / (2.0 ** bit - 1)
    return scale, -np.round(w.min() / scale)


@pytest.mark.parametrize("bit", [8, 4, 2])
@pytest.mark.parametrize("scheme", ["symmetric", "affine"])
@pytest.mark.parametrize("per_layer", [True, False])
def test_min_max_observer_and_fake_quantization_follow_the_google_formulas(bit, scheme, per_layer):
    rs = np.random.RandomState(16)
    w = (rs.rand(5, 4, 3) - 0.5).astype(np.float64)
    slices = [w] if per_layer else list(w)
    ref = [_np_scale_zero_point(s, bit, scheme) for s in slices]
    scale, zero_point = flow.nn.MinMaxObserver(quantization_bit=bit, quantization_scheme=scheme,
                                               per_layer_quantization=per_layer)(flow.tensor(w))
    assert tuple(scale.shape) == (len(slices),) and scale.dtype == flow.float64
    np.testing.assert_allclose(scale.numpy(), [r[0] for r in ref], rtol=1e-12)
    np.testing.assert_array_equal(zero_point.numpy(), [r[1] for r in ref])

    x = flow.tensor(w, requires_grad=True)
    out = flow.nn.FakeQuantization(quantization_bit=bit, quantization_scheme=scheme)(x, scale, zero_point)
    expected = []
    for s, (sc, zp) in zip(slices, ref):
        if scheme == "symmetric":
            top = 2.0 ** (bit - 1) - 1
            expected.append(np.clip(np.rint(s / sc), -top, top) * sc)
        else:
            expected.append((np.clip(np.rint(s / sc + zp), 0, 2.0 ** bit - 1) - zp) * sc)
    np.testing.assert_allclose(out.detach().numpy(), np.reshape(expected, w.shape), rtol=1e-12, atol=1e-15)
    out.mean().backward()  # the gradient passes straight through
    np.testing.assert_allclose(x.grad.numpy(), np.full(w.shape, 1.0 / w.size), rtol=1e-12)


def test_cambricon_formula_gives_a_power_of_two_shift():
    w = np.array([0.3, -0.9, 0.05])
    scale, zero_point = flow.nn.MinMaxObserver(quantization_formula="cambricon", quantization_bit=8,
                                               per_layer_quantization=False)(flow.tensor(w))
    assert scale.tolist() == [np.floor(np.log2(0.9)) - 6] and zero_point.tolist() == [0.0]
    out = flow.nn.FakeQuantization(quantization_formula="cambricon", quantization_bit=8)(flow.tensor(w), scale,
                                                                                         zero_point)
    step = 2.0 ** scale.item()
    np.testing.assert_allclose(out.numpy(), np.clip(np.rint(w / step), -127, 127) * step)
    with pytest.raises(ValueError, match="quantization_scheme"):
        flow.nn.MinMaxObserver(quantization_scheme="asym")
    with pytest.raises(ValueError, match="quantization_bit"):
        flow.nn.FakeQuantization(quantization_bit=9)


@pytest.mark.parametrize("scheme", ["symmetric", "affine"])
def test_moving_average_min_max_observer_blends_its_statistics_until_the_stop_step(scheme):
    rs = np.random.RandomState(17)
    xs = [rs.randn(4, 5) for _ in range(4)]
    obs = flow.nn.MovingAverageMinMaxObserver(stop_update_after_iters=3, quantization_scheme=scheme,
                                              quantization_bit=8, momentum=0.9)
    hi = lo = None
    for step, x in enumerate(xs):
        scale, zero_point = obs(flow.tensor(x, dtype=flow.float64), flow.tensor([step], dtype=flow.int64))
        if step < 3:
            new_hi = np.abs(x).max() if scheme == "symmetric" else x.max()
            new_lo = new_hi if scheme == "symmetric" else x.min()
            hi = new_hi if hi is None else 0.9 * hi + 0.1 * new_hi
            lo = new_lo if lo is None else 0.9 * lo + 0.1 * new_lo
        np.testing.assert_allclose(obs.moving_max.numpy(), [hi], rtol=1e-6)
        if scheme == "symmetric":
            np.testing.assert_allclose(scale.numpy(), [hi / 127], rtol=1e-6)
            assert zero_point.tolist() == [0.0]
        else:
            np.testing.assert_allclose(scale.numpy(), [(hi - lo) / 255], rtol=1e-6)
            assert zero_point.tolist() == [-np.round(lo / ((hi - lo) / 255))]
    obs.eval()  # eval mode leaves the statistics alone
    obs(flow.tensor(xs[0] * 100), flow.tensor([0]))
    np.testing.assert_allclose(obs.moving_max.numpy(), [hi], rtol=1e-6)


@pytest.mark.parametrize("scheme", ["symmetric", "affine"])
@pytest.mark.parametrize("per_layer", [True, False])
def test_quantization_gives_the_integer_levels(scheme, per_layer):
    w = np.random.RandomState(18).rand(6, 7) - 0.5
    scale, zero_point = flow.nn.MinMaxObserver(quantization_bit=4, quantization_scheme=scheme,
                                               per_layer_quantization=per_layer)(flow.tensor(w))
    q = flow.nn.Quantization(quantization_bit=4, quantization_scheme=scheme)(flow.tensor(w), scale, zero_point)
    s = scale.numpy() if per_layer else scale.numpy()[:, None]
    z = zero_point.numpy() if per_layer else zero_point.numpy()[:, None]
    if scheme == "symmetric":
        expected = np.clip(np.rint(w / s), -7, 7)
    else:
        expected = np.clip(np.rint(w / s + z), 0, 15)
    np.testing.assert_array_equal(q.numpy(), expected)
    assert q.dtype == flow.float64


# --- nn.functional.l2_normalize and nn.CombinedMarginLoss (OneFlow's) -------------

@needs_torch
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_l2_normalize_matches_its_torch_formula(dim):
    x = np.random.RandomState(19).randn(3, 4, 5)
    x[0, 0, :] = 0.0  # a zero slice: the epsilon branch
    t = torch.tensor(x, requires_grad=True)
    tout = t / t.square().sum(dim, keepdim=True).clamp(min=1e-12).sqrt()
    f = flow.tensor(x, requires_grad=True)
    out = flow.nn.functional.l2_normalize(f, dim)
    np.testing.assert_allclose(out.detach().numpy(), tout.detach().numpy(), rtol=1e-12)
    g = np.random.RandomState(20).rand(3, 4, 5)
    out.backward(flow.tensor(g))
    tout.backward(torch.tensor(g))
    np.testing.assert_allclose(f.grad.numpy(), t.grad.numpy(), rtol=1e-10, atol=1e-12)


@needs_torch
@pytest.mark.parametrize("m1, m2, m3", [(1.0, 0.5, 0.0), (0.3, 0.0, 0.4), (1.0, 0.0, 0.35), (1.0, 0.0, 0.0)])
def test_combined_margin_loss_matches_its_torch_formula(m1, m2, m3):
    rs = np.random.RandomState(21)
    x = rs.uniform(-0.99, 0.99, size=(6, 9))
    label = rs.randint(0, 9, size=(6,))
    t = torch.tensor(x, requires_grad=True)
    onehot = torch.nn.functional.one_hot(torch.tensor(label), 9).double()
    if m1 == 1.0 and m2 == 0.0:
        tout = t - onehot * m3
    else:
        zy = t.gather(1, torch.tensor(label).unsqueeze(1))
        tout = t + onehot * (torch.cos(torch.acos(zy) * m1 + m2) - m3 - zy)
    f = flow.tensor(x, requires_grad=True)
    out = flow.nn.CombinedMarginLoss(m1, m2, m3)(f, flow.tensor(label, dtype=flow.int32))
    np.testing.assert_allclose(out.detach().numpy(), tout.detach().numpy(), rtol=1e-12)
    out.sum().backward()
    tout.sum().backward()
    np.testing.assert_allclose(f.grad.numpy(), t.grad.numpy(), rtol=1e-10)


# --- flow._C.reduce_sum_like (OneFlow's functional-only op) ----------------------

@needs_torch
@pytest.mark.parametrize("shape, like, axis", [((3, 3, 3), (3, 1, 1), (1, 2)), ((2, 3, 4), (3, 1), (0, 2)),
                                               ((1, 5, 6, 1, 6), (1, 5, 6), (3, 4)), ((3, 3, 2, 3), (1, 3, 2, 1), (0, 3))])
def test_reduce_sum_like_sums_then_takes_likes_shape(shape, like, axis):
    x = np.random.RandomState(22).randn(*shape)
    f = flow.tensor(x, requires_grad=True)
    out = flow._C.reduce_sum_like(f, flow.zeros(*like), axis=axis)
    t = torch.tensor(x, requires_grad=True)
    tout = t.sum(dim=axis).reshape(like)
    np.testing.assert_allclose(out.detach().numpy(), tout.detach().numpy(), rtol=1e-12)
    g = np.random.RandomState(23).rand(*like)
    out.backward(flow.tensor(g))
    tout.backward(torch.tensor(g))
    np.testing.assert_allclose(f.grad.numpy(), t.grad.numpy(), rtol=1e-12)
    with pytest.raises(RuntimeError, match="reduce_sum_like"):
        flow._C.reduce_sum_like(f, flow.zeros(7), axis=axis)
