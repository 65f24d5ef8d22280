"""monoflow.onnx.export: each covered layer exports, passes onnx.checker, and
onnxruntime's outputs match monoflow's (the reference is monoflow's own forward)."""

import io

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

import monoflow as flow  # noqa: E402
import monoflow.nn as nn  # noqa: E402
import monoflow.nn.functional as F  # noqa: E402
import monoflow.onnx  # noqa: E402,F401


def _export(model, args, **kw):
    buf = io.BytesIO()
    flow.onnx.export(model, args, buf, **kw)
    proto = onnx.load_from_string(buf.getvalue())
    onnx.checker.check_model(proto, full_check=True)
    return proto, ort.InferenceSession(buf.getvalue(), providers=["CPUExecutionProvider"])


def _check(model, *args, rtol=1e-5, atol=1e-5):
    model.eval()
    proto, sess = _export(model, args)
    feeds = {i.name: a.numpy() for i, a in zip(sess.get_inputs(), args)}
    got = sess.run(None, feeds)
    want = model(*args)
    want = want if isinstance(want, (tuple, list)) else (want,)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w.detach().numpy(), rtol=rtol, atol=atol)
    return proto


def _ops(proto):
    return [n.op_type for n in proto.graph.node]


class _Fn(nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *x):
        return self.fn(*x)


flow.manual_seed(0)
X2 = flow.randn(3, 8)
X4 = flow.randn(2, 3, 8, 8)
W_EVEN, W_ODD, B4 = flow.randn(4, 3, 4, 3), flow.randn(4, 3, 3, 3), flow.randn(4)

LAYERS = {
    "linear": (lambda: nn.Linear(8, 5), X2),
    "linear_nobias_3d": (lambda: nn.Linear(8, 5, bias=False), flow.randn(2, 3, 8)),
    "conv1d": (lambda: nn.Conv1d(3, 4, 3, stride=2, padding=1), flow.randn(2, 3, 10)),
    "conv2d": (lambda: nn.Conv2d(3, 4, 3, padding=1, dilation=1, groups=1), X4),
    "conv2d_groups": (lambda: nn.Conv2d(3, 6, 3, stride=2, groups=3, bias=False), X4),
    "relu": (nn.ReLU, X2), "gelu": (nn.GELU, X2), "gelu_tanh": (lambda: nn.GELU("tanh"), X2),
    "sigmoid": (nn.Sigmoid, X2), "tanh": (nn.Tanh, X2),
    "softmax": (lambda: nn.Softmax(dim=1), X2), "log_softmax": (lambda: nn.LogSoftmax(dim=-1), X2),
    "maxpool2d": (lambda: nn.MaxPool2d(2), X4), "maxpool2d_pad": (lambda: nn.MaxPool2d(3, 2, 1), X4),
    "avgpool2d": (lambda: nn.AvgPool2d(2), X4),
    "adaptive_avg_pool2d_1": (lambda: nn.AdaptiveAvgPool2d(1), X4),
    "adaptive_avg_pool2d_2": (lambda: nn.AdaptiveAvgPool2d((2, 4)), X4),
    "batchnorm1d": (lambda: nn.BatchNorm1d(8), X2), "batchnorm2d": (lambda: nn.BatchNorm2d(3), X4),
    "dropout": (nn.Dropout, X2), "flatten": (nn.Flatten, X4), "identity": (nn.Identity, X2),
    "layernorm": (lambda: nn.LayerNorm(8), X2),
    "embedding": (lambda: nn.Embedding(10, 4), flow.tensor([[1, 2, 3], [9, 0, 4]])),
}


@pytest.mark.parametrize("name", sorted(LAYERS))
def test_layer(name):
    make, x = LAYERS[name]
    m = make()
    if isinstance(m, (nn.BatchNorm1d, nn.BatchNorm2d)):  # non-trivial running statistics
        m.train()
        for _ in range(3):
            m(x * 2 + 1)
    _check(m, x)


def _inplace(x):
    y = x * 2
    y += 1
    y.mul_(x)
    return y.relu_()


FUNCS = {
    "view": (lambda x: x.view(x.size(0), -1), X4),
    "reshape": (lambda x: x.reshape(2, 3, 64).permute(0, 2, 1), X4),
    "flow_flatten": (lambda x: flow.flatten(x, 1), X4),
    "flatten_mid": (lambda x: x.flatten(1, 2), X4),
    "transpose": (lambda x: x.transpose(1, 3).contiguous(), X4),
    "cat": (lambda x: flow.cat([x, x * 2], dim=1), X2),
    "arith": (lambda x: (x + 1.5) * x - x / 3 + 2 - x.sub(x, alpha=2), X2),
    "rarith": (lambda x: 1 - x + 2 * x + 1 / (x.abs() + 1), X2),
    "matmul": (lambda x: x @ x.t() + flow.matmul(x, x.transpose(0, 1)), X2),
    "functional": (lambda x: F.relu(x) + F.gelu(x) + F.softmax(x, dim=1) + flow.sigmoid(x).tanh(), X2),
    "slice": (lambda x: x[:, 1:5] + x[:, ::2][:, :4] + x[0, 1:5] + x[-1, -4:], X2),
    "slice_ellipsis": (lambda x: x[..., 2:6, -1], X4),
    "gather": (lambda x: flow.gather(x, 1, flow.tensor([[0, 2], [1, 1], [7, 3]])), X2),
    "squeeze": (lambda x: x.unsqueeze(1).squeeze(1), X2),
    "silu_leaky_pow": (lambda x: F.silu(x) + F.leaky_relu(x, 0.2) + x ** 2 + flow.pow(x, 3), X2),
    "inplace": (lambda x: _inplace(x), X2),
    "chunk_split": (lambda x: x.chunk(2, 1)[0] * x.chunk(2, 1)[1] + flow.split(x, [4, 4], -1)[0]
                    + x.split(3, 0)[0][:, :4] + x.chunk(3, 1)[2].sum(), X2),
    "T_mT": (lambda x: x.T @ x + x.mT @ x, X2),
    "mean_sum": (lambda x: x.mean(dim=(2, 3)) + flow.sum(x, (1, 2)).mean(-1, keepdim=True) + x.mean(), X4),
    "cast": (lambda x: (x * 3).long().float() + x.to(flow.float32), X2),
    "conv_same": (lambda x: F.conv2d(x, W_EVEN, padding="same") + F.conv2d(x, W_ODD, B4, padding=2, dilation=2),
                  X4),
}


@pytest.mark.parametrize("name", sorted(FUNCS))
def test_function(name):
    fn, x = FUNCS[name]
    _check(_Fn(fn), x)


def test_opset_18_mean():
    m = _Fn(lambda x: x.mean(1) * 2)
    buf = io.BytesIO()
    flow.onnx.export(m, (X2,), buf, opset_version=18)
    sess = ort.InferenceSession(buf.getvalue(), providers=["CPUExecutionProvider"])
    np.testing.assert_allclose(sess.run(None, {"input": X2.numpy()})[0], m(X2).numpy(), rtol=1e-5, atol=1e-5)


def test_two_inputs_and_outputs():
    def fn(x, y):
        return x + y, flow.matmul(x, y.t())
    _check(_Fn(fn), X2, flow.randn(3, 8))


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(16, 32), nn.Linear(32, 4)
        self.ln = nn.LayerNorm(32)

    def forward(self, x):
        x = x.view(x.size(0), -1)            # custom forward: view, F.*, x + y
        h = F.relu(self.fc1(x))
        h = self.ln(h) + h * 0.5
        return F.log_softmax(self.fc2(h), dim=1)


def test_custom_mlp_dynamic_batch():
    m = MLP().eval()
    proto, sess = _export(m, (flow.randn(3, 4, 4),), input_names=["x"], output_names=["y"],
                          dynamic_axes={"x": {0: "batch"}, "y": {0: "batch"}})
    assert proto.graph.input[0].type.tensor_type.shape.dim[0].dim_param == "batch"
    for n in (1, 7):
        x = flow.randn(n, 4, 4)
        got = sess.run(["y"], {"x": x.numpy()})[0]
        np.testing.assert_allclose(got, m(x).detach().numpy(), rtol=1e-5, atol=1e-5)


def _digits_cnn():
    # the main job's model, from examples/train_digits.py itself
    import importlib.util
    import os
    path = os.path.join(os.path.dirname(__file__), os.pardir, "examples", "train_digits.py")
    if os.path.exists(path):
        spec = importlib.util.spec_from_file_location("_train_digits_for_onnx", path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        return mod.DigitsCNN()
    return nn.Sequential(  # its layers, where the examples are not shipped
        nn.Sequential(nn.Conv2d(1, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
                      nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(2)),
        nn.Sequential(nn.Flatten(), nn.Dropout(0.2), nn.Linear(64 * 4 * 4, 128), nn.ReLU(), nn.Linear(128, 10)))


def test_digits_cnn(tmp_path):
    m = _digits_cnn()
    m.train()
    for _ in range(2):
        m(flow.randn(8, 1, 8, 8))  # running statistics away from 0/1
    m.train()  # export traces in eval mode and restores the mode after
    path = tmp_path / "cnn.onnx"
    x = flow.randn(4, 1, 8, 8)
    flow.onnx.export(m, (x,), str(path), input_names=["image"], dynamic_axes={"image": {0: "n"}, "output": {0: "n"}})
    assert m.training
    onnx.checker.check_model(onnx.load(str(path)), full_check=True)
    sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    m.eval()
    for n in (4, 9):
        x = flow.randn(n, 1, 8, 8)
        got = sess.run(None, {"image": x.numpy()})[0]
        np.testing.assert_allclose(got, m(x).detach().numpy(), rtol=1e-5, atol=1e-5)
    assert _ops(onnx.load(str(path))).count("Conv") == 2


def test_unsupported_op_is_named():
    m = _Fn(lambda x: flow.cumsum(x, 1))
    with pytest.raises(flow.onnx.OnnxExporterError, match="cumsum"):
        _export(m, (X2,))
    assert issubclass(flow.onnx.OnnxExporterError, RuntimeError)


def test_unsupported_tuple_result_is_refused():
    # sort returns a tuple: refused by name, not folded into constants
    with pytest.raises(flow.onnx.OnnxExporterError, match="sort"):
        _export(_Fn(lambda x: x.sort(1)[0] + 1), (X2,))


def test_unsupported_module_names_module():
    class Outer(nn.Module):
        def forward(self, x):
            return x.cumprod(0)
    with pytest.raises(flow.onnx.OnnxExporterError, match=r"cumprod.*Outer"):
        _export(Outer(), (X2,))


def test_module_without_converter_names_op_and_module():
    with pytest.raises(flow.onnx.OnnxExporterError, match=r"conv3d.*Conv3d"):
        _export(nn.Conv3d(1, 1, 1), (flow.randn(1, 1, 2, 2, 2),))


def test_is_in_onnx_export():
    seen = []

    def fn(x):
        seen.append(flow.onnx.is_in_onnx_export())
        return x + 1
    assert not flow.onnx.is_in_onnx_export()
    _export(_Fn(fn), (X2,))
    assert seen == [True]
    assert not flow.onnx.is_in_onnx_export()


def _namespaces():
    import sys
    return {(n, k): v for n, m in list(sys.modules.items()) if n.startswith("monoflow")
            for k, v in list(vars(m).items())}


def test_patches_removed_after_export():
    # the ordinary op path is untouched once an export ends, also after a failing one
    view, call, T = flow.Tensor.view, nn.Module.__call__, vars(flow.Tensor).get("T")
    own_view = vars(flow.Tensor).get("view")  # Tensor's own (keyword-taking) view, or none
    before = _namespaces()
    with pytest.raises(flow.onnx.OnnxExporterError):
        _export(_Fn(lambda x: flow.cumsum(x, 0)), (X2,))
    _export(MLP(), (flow.randn(2, 16),))
    assert flow.Tensor.view is view and nn.Module.__call__ is call and vars(flow.Tensor).get("T") is T
    assert vars(flow.Tensor).get("view") is own_view
    after = _namespaces()
    assert [k for k, v in before.items() if after.get(k) is not v] == []


def test_torch_kwargs_accepted():
    buf = io.BytesIO()
    flow.onnx.export(nn.ReLU(), (X2,), buf, opset_version=17, do_constant_folding=True, dynamo=False,
                     keep_initializers_as_inputs=False)
    assert onnx.load_from_string(buf.getvalue()).opset_import[0].version == 17


def test_onnx_is_reachable_after_import_monoflow_alone():
    # scripts call torch.onnx.export(...) after a plain `import torch`
    import subprocess
    import sys
    code = "import monoflow as flow; print(flow.onnx.is_in_onnx_export(), flow.onnx.OnnxExporterError.__mro__[1].__name__)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False", "RuntimeError"]


def test_nn_graph_exports_its_build():
    """An nn.Graph exports what its build() computes, its modules in eval mode (their
    training mode restored after), and matches the compiled graph's own output."""
    model = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.Dropout(0.5), nn.ReLU(), nn.Linear(8, 3))
    model.train()

    class Infer(nn.Graph):
        def __init__(self):
            super().__init__()
            self.m = model

        def build(self, x):
            return self.m(x).softmax(-1)

    x = flow.randn(5, 4)
    model(x)  # some batch statistics, so running stats differ from the batch's
    g = Infer()
    proto, sess = _export(g, (x,), input_names=["x"], dynamic_axes={"x": {0: "batch"}})
    assert model.training and "Dropout" not in _ops(proto)
    model.eval()
    for n in (5, 2):
        xi = flow.randn(n, 4)
        np.testing.assert_allclose(sess.run(None, {"x": xi.numpy()})[0], Infer()(xi).numpy(), rtol=1e-5, atol=1e-6)
