"""monoflow.onnx.export of tensor ops beyond the first set: elementwise math (exp,
sqrt, log, ...), comparisons and where, masks, clamp, shape ops (expand, repeat,
stack, narrow, select, unbind, index_select, flip), advanced slicing and the
reductions. Each exports, passes onnx.checker's full check, and onnxruntime's
outputs match monoflow's own forward."""

import io

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

import monoflow as flow  # noqa: E402
import monoflow.nn.functional as F  # noqa: E402
from test_onnx import _Fn, _check, _export  # noqa: E402

flow.manual_seed(2)
X2 = flow.randn(3, 8)
X3 = flow.randn(2, 3, 4)
POS = flow.rand(3, 8) + 0.5

FUNCS = {
    "exp_sqrt": (lambda x: flow.exp(x) + x.abs().sqrt() + flow.sqrt(x * x + 1), X2),
    "exp_inplace": (lambda x: (x * 1).exp_() + x.sigmoid() + flow.tanh(x), X2),
    "log_family": (lambda x: x.log() + flow.log1p(x) + x.log2() + flow.log10(x) + x.rsqrt() + x.reciprocal(), POS),
    "trig": (lambda x: x.sin() + flow.cos(x) + x.tan() + flow.atan(x) + x.sinh() + x.cosh()
             + flow.asin(x / 4) + x.acos() * 0 + flow.erf(x), X2 / 2),
    "rounding": (lambda x: (x * 3).floor() + (x * 3).ceil() + (x * 3).round() + x.sign(), X2),
    "expm1_exp2_square": (lambda x: x.expm1() + flow.exp2(x) + x.square(), X2),
    "remainder": (lambda x: flow.remainder(x * 5, 3) + (x * 5) % 2, X2),
    "rpow": (lambda x: 2 ** x + flow.pow(x, 2), X2),
    "max_min_elementwise": (lambda x: flow.maximum(x, x.t().t() * 2) + flow.minimum(x, 0.5 * x)
                            + flow.max(x, -x) - flow.min(x, -x), X2),
    "compare_where": (lambda x: flow.where(x > 0, x, x * 0.1) + flow.where(x <= 0.5, 1.0, x)
                      + (x == x).float() + (x != 0).float() + (x < 1).float() + (x >= -1).float(), X2),
    "compare_fns": (lambda x: flow.gt(x, 0).float() + x.lt(x * 2).float() + flow.eq(x, 0).float()
                    + x.ne(1).float() + x.ge(0).float() + x.le(0).float(), X2),
    "logic": (lambda x: ((x > 0) & (x < 1) | ~(x > -1) ^ (x > 2)).float()
              + flow.logical_and(x > 0, x < 0.5).float() + flow.logical_not(x > 0).float(), X2),
    "masked_fill": (lambda x: x.masked_fill(x < 0, 0.0) + x.masked_fill(x > 1, float("-inf")).softmax(-1), X2),
    "clamp": (lambda x: x.clamp(-0.5, 0.5) + flow.clamp(x, min=0) + x.clamp(max=0.1) + x.clamp_min(0.2)
              + flow.clip(x, -1, 1), X2),
    "isnan_isinf": (lambda x: flow.isnan(x / x.abs()).float() + flow.isinf(1 / (x * 0)).float(), X2),
    "expand_repeat": (lambda x: x.unsqueeze(1).expand(3, 2, 8).reshape(3, 16) + x.repeat(1, 2)
                      + flow.tile(x, (2,)), X2),
    "expand_as": (lambda x: x[:, :1].expand_as(x) + x, X2),
    "stack_unbind": (lambda x: flow.stack([x, x * 2], dim=1).sum(1) + sum(x.unbind(1)).unsqueeze(1), X2),
    "narrow_select": (lambda x: x.narrow(1, 2, 3).sum(1) + x.select(1, 0) + flow.select(x, 1, -1), X2),
    "index_select_flip": (lambda x: x.index_select(1, flow.tensor([3, 0, 5])).flip(1) + x[:, :3].flip(0, 1), X2),
    "getitem_advanced": (lambda x: x[:, flow.tensor([2, 0])] + x[None, 0, :2].squeeze(0)[:, None].sum(1)
                         + x[..., None][:, 1:3, 0], X2),
    "like": (lambda x: flow.zeros_like(x) + flow.ones_like(x) * x + flow.full_like(x, 2.5), X2),
    "reduce_max_min": (lambda x: x.max() + x.max(1)[0].sum() + x.min(0, keepdim=True)[0] + x.amax(1, True)
                       + flow.amin(x, (0, 1)), X2),
    "argmax": (lambda x: (x.argmax(1) + flow.argmin(x, 0, keepdim=True).squeeze(0)[:3] + x.argmax()).float(), X2),
    "max_indices": (lambda x: x.max(1)[1].float() + x.min(dim=0)[1][:3].float(), X2),
    "prod_logsumexp": (lambda x: x.prod(1) + flow.logsumexp(x, 1) + x.norm(dim=1) + flow.norm(x, 1, dim=1), X2),
    "var_std": (lambda x: x.var(1) + x.std(0).sum() + flow.var(x, 1, unbiased=False) + x.std(1, keepdim=True)[:, 0]
                + flow.var_mean(x, 1)[0] + flow.std_mean(x, 1)[1], X2),
    "sum_int_bool": (lambda x: (x > 0).sum(1).float() + x.long().sum(1).float(), X2 * 3),
    "bmm_softmax": (lambda x: flow.bmm(x, x.transpose(1, 2)).softmax(-1) + F.softmax(x @ x.mT, dim=1), X3),
    "softmax_dtype": (lambda x: flow.softmax(x, -1, dtype=flow.float64) + F.log_softmax(x, 0, dtype=flow.float64),
                      X2),
    "int_arith": (lambda x: ((x > 0).long() + 1) * 2.5 + (x * 3).long() / 2, X2),
}


@pytest.mark.parametrize("name", sorted(FUNCS))
def test_function(name):
    fn, x = FUNCS[name]
    _check(_Fn(fn), x)


def test_comparison_against_second_input_with_dynamic_batch():
    m = _Fn(lambda x, y: flow.where(x > y, x - y, flow.zeros_like(x)).sum(-1))
    proto, sess = _export(m, (X2, X2.flip(0)), input_names=["x", "y"], output_names=["z"],
                          dynamic_axes={"x": {0: "n"}, "y": {0: "n"}, "z": {0: "n"}})
    for n in (1, 5):
        x, y = flow.randn(n, 8), flow.randn(n, 8)
        got = sess.run(None, {"x": x.numpy(), "y": y.numpy()})[0]
        np.testing.assert_allclose(got, m(x, y).numpy(), rtol=1e-5, atol=1e-5)


def test_unsupported_ops_are_named():
    for fn, name in ((lambda x: flow.cumsum(x, 1), "cumsum"), (lambda x: x // 2, "__floordiv__"),
                     (lambda x: flow.nonzero(x > 0).float(), "nonzero"), (lambda x: flow.where(x > 0)[0], "where"),
                     (lambda x: x.topk(2)[0], "topk")):
        with pytest.raises(flow.onnx.OnnxExporterError, match=name):
            _export(_Fn(fn), (X2,))


def test_no_converter_defined_twice():
    from monoflow.onnx import _ops_attention, _ops_nn, _ops_tensor
    tables = (_ops_nn.FUNCTIONS, _ops_tensor.FUNCTIONS, _ops_attention.FUNCTIONS)
    names = [n for t in tables for n in t]
    assert len(names) == len(set(names))


def test_opset_18():
    m = _Fn(lambda x: x.var(1) + x.amax(1) + F.adaptive_avg_pool1d(x.unsqueeze(0), 3).sum())
    buf = io.BytesIO()
    flow.onnx.export(m, (X2,), buf, opset_version=18)
    onnx.checker.check_model(onnx.load_from_string(buf.getvalue()), full_check=True)
    sess = ort.InferenceSession(buf.getvalue(), providers=["CPUExecutionProvider"])
    np.testing.assert_allclose(sess.run(None, {"input": X2.numpy()})[0], m(X2).numpy(), rtol=1e-5, atol=1e-5)
