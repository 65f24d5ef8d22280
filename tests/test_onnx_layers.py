"""monoflow.onnx.export of the layers beyond the first set: transposed convolution,
1-D and adaptive pooling, group/instance/RMS normalisation, the activations, and
dropout in eval. Each exports, passes onnx.checker's full check, and onnxruntime's
outputs match monoflow's own forward."""

import pytest

pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")

import monoflow as flow  # noqa: E402
import monoflow.nn as nn  # noqa: E402
import monoflow.nn.functional as F  # noqa: E402
from test_onnx import _Fn, _check, _export, _ops  # noqa: E402

flow.manual_seed(1)
X2 = flow.randn(3, 8)
X3 = flow.randn(2, 4, 11)
X4 = flow.randn(2, 4, 7, 9)

LAYERS = {
    "conv_transpose2d": (lambda: nn.ConvTranspose2d(4, 3, 3, stride=2, padding=1, output_padding=1), X4),
    "conv_transpose2d_groups": (lambda: nn.ConvTranspose2d(4, 6, (2, 3), stride=(1, 2), groups=2, bias=False), X4),
    "conv_transpose1d": (lambda: nn.ConvTranspose1d(4, 2, 3, stride=2), X3),
    "conv1d_unbatched": (lambda: nn.Conv1d(4, 3, 3, padding=1), flow.randn(4, 11)),
    "maxpool1d": (lambda: nn.MaxPool1d(3, 2, 1), X3), "avgpool1d": (lambda: nn.AvgPool1d(2), X3),
    "avgpool2d_ceil": (lambda: nn.AvgPool2d(3, 2, 1, ceil_mode=True, count_include_pad=False), X4),
    "adaptive_avg_pool1d": (lambda: nn.AdaptiveAvgPool1d(4), X3),
    "adaptive_max_pool1d": (lambda: nn.AdaptiveMaxPool1d(1), X3),
    "adaptive_max_pool2d": (lambda: nn.AdaptiveMaxPool2d((3, 2)), X4),
    "adaptive_avg_pool2d_uneven": (lambda: nn.AdaptiveAvgPool2d((3, 4)), X4),
    "groupnorm": (lambda: nn.GroupNorm(2, 4), X4), "groupnorm_3d": (lambda: nn.GroupNorm(4, 4, affine=False), X3),
    "layernorm_2dims": (lambda: nn.LayerNorm([7, 9]), X4),
    "dropout2d": (nn.Dropout2d, X4),
    "elu": (nn.ELU, X2), "celu": (lambda: nn.CELU(0.5), X2), "selu": (nn.SELU, X2),
    "hardswish": (nn.Hardswish, X2), "hardsigmoid": (nn.Hardsigmoid, X2), "relu6": (nn.ReLU6, X2 * 4),
    "hardtanh": (lambda: nn.Hardtanh(-0.5, 0.5), X2), "softplus": (lambda: nn.Softplus(2.0, 1.0), X2 * 5),
    "logsigmoid": (nn.LogSigmoid, X2 * 30), "mish": (nn.Mish, X2), "prelu": (lambda: nn.PReLU(4), X4),
    "softsign": (nn.Softsign, X2), "hardshrink": (nn.Hardshrink, X2), "softshrink": (nn.Softshrink, X2),
    "tanhshrink": (nn.Tanhshrink, X2), "threshold": (lambda: nn.Threshold(0.1, -2.0), X2),
    "glu": (nn.GLU, X2), "softmin": (lambda: nn.Softmin(1), X2), "silu": (nn.SiLU, X2),
    "leaky_relu": (lambda: nn.LeakyReLU(0.3), X2), "rrelu_eval": (nn.RReLU, X2),
}


@pytest.mark.parametrize("name", sorted(LAYERS))
def test_layer(name):
    make, x = LAYERS[name]
    _check(make(), x)


def test_instance_norm_and_rms_norm():
    m = nn.Sequential(nn.InstanceNorm2d(4, affine=True), nn.RMSNorm([9]))
    _check(m, X4)


def test_batchnorm_eval_running_stats_conv_stack():
    m = nn.Sequential(nn.Conv2d(4, 8, 3), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2))
    m.train()
    for _ in range(3):
        m(X4 * 3 + 1)
    proto = _check(m, X4)
    assert "BatchNormalization" in _ops(proto)


FUNCS = {
    "normalize": lambda x: F.normalize(x, dim=1) + F.normalize(x, p=1, dim=0),
    "group_norm_fn": lambda x: F.group_norm(x, 2),
    "elu_fn": lambda x: F.elu(x, 0.7) + F.selu(x) + F.hardtanh(x, -0.2, 0.4),
}


@pytest.mark.parametrize("name", sorted(FUNCS))
def test_function(name):
    _check(_Fn(FUNCS[name]), X4 if name == "group_norm_fn" else X2)


def test_training_dropout_is_refused():
    with pytest.raises(flow.onnx.OnnxExporterError, match="dropout"):
        _export(nn.Sequential(nn.Linear(8, 8), nn.Dropout(0.5)), (X2,), training="TRAINING")
    with pytest.raises(flow.onnx.OnnxExporterError, match="dropout"):
        _export(_Fn(lambda x: F.dropout(x, 0.3)), (X2,))
    _check(_Fn(lambda x: F.dropout(x, 0.3, training=False) + F.dropout(x, 0.0)), X2)
