"""Fixes found by the pt6 probe of PyTorch programs, checked against torch as the oracle:
in-place index/scatter reductions' gradients, scatter_reduce's prod/amax/amin gradients,
norm layers' output dtypes, inference mode, SDPA with a mask and is_causal, tensor printing."""
import numpy as np
import pytest
import torch

import monoflow as flow


def _grads(lib, op, x0, s0, idx0, dim, reduce, include_self, inplace, weights):
    x = lib.tensor(x0, requires_grad=True)
    s = lib.tensor(s0, requires_grad=True)
    idx = lib.tensor(idx0)
    base = x * 1
    kw = {} if reduce is None else {"include_self": include_self}
    args = (dim, idx, s) if reduce is None else (dim, idx, s, reduce)
    fn = getattr(base, op + ("_" if inplace else ""))
    out = fn(*args, **kw)
    (out * lib.tensor(weights)).sum().backward()
    return out.detach().numpy(), x.grad.numpy(), s.grad.numpy()


def _case(seed, op):
    rng = np.random.default_rng(seed)
    rows, cols, n = rng.integers(1, 4), rng.integers(1, 4), rng.integers(1, 6)
    dim = int(rng.integers(0, 2))
    x = rng.integers(-2, 3, (rows, cols)).astype(np.float32)  # small integers: ties and zeros happen
    if op in ("index_reduce", "index_add", "index_copy"):
        m = x.shape[dim]
        idx = rng.permutation(m)[:min(n, m)] if op == "index_copy" else rng.integers(0, m, n)
        sshape = list(x.shape)
        sshape[dim] = len(idx)
        s = rng.integers(-2, 3, sshape).astype(np.float32)
    else:  # scatter family: index no larger than src, src no larger than self off dim
        s = rng.integers(-2, 3, (rows + 1, cols)).astype(np.float32)
        ishape = (int(rng.integers(1, rows + 2)), int(rng.integers(1, cols + 1)))
        if op == "scatter":  # unique targets per column / row so the result is defined
            idx = np.stack([rng.permutation(x.shape[dim])[:1] for _ in range(ishape[1 - dim])], axis=1 - dim)
            idx = idx.reshape((1, -1) if dim == 0 else (-1, 1))
        else:
            idx = rng.integers(0, x.shape[dim], ishape)
        s = s[:idx.shape[0], :idx.shape[1]]  # torch's backward needs src shaped as index
    w = rng.standard_normal(x.shape).astype(np.float32)
    return x, s, idx.astype(np.int64), dim, w


@pytest.mark.parametrize("seed", range(25))
@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("inplace", [True, False])
def test_index_reduce_grads_match_torch(seed, reduce, include_self, inplace):
    _check_reduce_grads("index_reduce", seed, reduce, include_self, inplace)


def _check_reduce_grads(op, seed, reduce, include_self, inplace):
    x, s, idx, dim, w = _case(seed, op)
    want = _grads(torch, op, x, s, idx, dim, reduce, include_self, inplace, w)
    got = _grads(flow, op, x, s, idx, dim, reduce, include_self, inplace, w)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("seed", range(25))
@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("inplace", [True, False])
def test_scatter_reduce_grads_match_torch(seed, reduce, include_self, inplace):
    _check_reduce_grads("scatter_reduce", seed, reduce, include_self, inplace)


@pytest.mark.parametrize("seed", range(15))
@pytest.mark.parametrize("op", ["index_add", "index_copy", "scatter", "scatter_add"])
@pytest.mark.parametrize("inplace", [True, False])
def test_index_scatter_inplace_grads_match_torch(seed, op, inplace):
    x, s, idx, dim, w = _case(seed, op)
    want = _grads(torch, op, x, s, idx, dim, None, None, inplace, w)
    got = _grads(flow, op, x, s, idx, dim, None, None, inplace, w)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_scatter_reduce_amax_grad_repro():
    src = flow.tensor([1.0, 2.0, 3.0], requires_grad=True)
    flow.zeros(2).scatter_reduce(0, flow.tensor([0, 0, 1]), src, "amax").sum().backward()
    assert src.grad.tolist() == [0.0, 1.0, 1.0]
    src = flow.tensor([1.0, 2.0, 3.0, 5.0], requires_grad=True)
    flow.full((3,), 0.5).index_reduce_(0, flow.tensor([0, 0, 1, 1]), src, "amax").sum().backward()
    assert src.grad.tolist() == [0.0, 1.0, 0.0, 1.0]


def _norm_calls(lib):
    F = lib.nn.functional
    return {
        "layer_norm": lambda x, w, b: F.layer_norm(x, (3,), w[:3], b[:3]),
        "group_norm": lambda x, w, b: F.group_norm(x, 2, w, b),
        "batch_norm": lambda x, w, b: F.batch_norm(x, w.detach() * 0, w.detach() + 1, w, b, training=True),
        "batch_norm_eval": lambda x, w, b: F.batch_norm(x, w.detach() * 0.1, w.detach() + 1, w, b),
        "instance_norm": lambda x, w, b: F.instance_norm(x, weight=w, bias=b),
        "rms_norm": lambda x, w, b: F.rms_norm(x, (3,), w[:3]),
    }


@pytest.mark.parametrize("name", list(_norm_calls(torch)))
@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_norms_keep_reduced_input_dtype_with_float32_weights(name, dtype):
    rng = np.random.default_rng(0)
    x0, w0, b0 = rng.standard_normal((2, 4, 3, 3)), rng.standard_normal(4), rng.standard_normal(4)
    res = []
    for lib in (torch, flow):
        x = lib.tensor(x0).to(getattr(lib, dtype)).requires_grad_(True)
        w = lib.tensor(w0, dtype=lib.float32, requires_grad=True)
        b = lib.tensor(b0, dtype=lib.float32, requires_grad=True)
        out = _norm_calls(lib)[name](x, w, b)
        out.float().pow(2).sum().backward()
        res.append((str(out.dtype).split(".")[-1], str(x.grad.dtype).split(".")[-1], str(w.grad.dtype).split(".")[-1],
                    out.float().detach().numpy(), x.grad.float().numpy(), w.grad.numpy()))
    (got, want) = res[1], res[0]
    assert got[:3] == want[:3] == (dtype, dtype, "float32")
    for a, b in zip(got[3:], want[3:]):
        np.testing.assert_allclose(a, b, rtol=0.05, atol=0.1)


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_norm_modules_keep_input_dtype_also_under_autocast(dtype):
    got, want = [], []
    for lib, acc in ((torch, want), (flow, got)):
        lib.manual_seed(0)
        x = lib.randn(2, 4, 3, 3).to(getattr(lib, dtype))
        mods = [lib.nn.LayerNorm(3), lib.nn.GroupNorm(2, 4), lib.nn.BatchNorm2d(4), lib.nn.RMSNorm(3),
                lib.nn.InstanceNorm2d(4, affine=True)]
        acc += [str(m(x).dtype) for m in mods]
        with lib.autocast("cpu", dtype=lib.bfloat16):
            acc += [str(m(x).dtype) + "/" + str(m(x.float()).dtype) for m in mods[:4]]
    assert [s.replace("monoflow.", "torch.") for s in got] == want


@pytest.mark.parametrize("dtype", ["bfloat16", "float16", "float32", "float64"])
def test_rms_norm_default_eps_is_float32s_for_reduced_inputs(dtype):
    # tiny values: float16's or bfloat16's own epsilon would dominate the mean square
    vals = [[1e-3, 2e-3, -3e-3]]
    want = torch.nn.functional.rms_norm(torch.tensor(vals, dtype=getattr(torch, dtype)), (3,))
    got = flow.nn.functional.rms_norm(flow.tensor(vals, dtype=getattr(flow, dtype)), (3,))
    assert str(got.dtype).split(".")[-1] == dtype
    np.testing.assert_allclose(got.double().numpy(), want.double().numpy(), rtol=1e-2)


def _inference_probe(lib):
    w = lib.ones(2, requires_grad=True)
    n = lib.ones(2)
    with lib.inference_mode():
        t = lib.ones(2)
        flags = [t.is_inference(), n[:1].is_inference(), (n * 2).is_inference(), t[:1].is_inference(),
                 lib.tensor([1.0]).is_inference(), lib.is_inference_mode_enabled(), (w * 2).requires_grad]
        n.add_(1)  # a normal tensor written inside stays normal
        t.add_(1)  # an inference tensor may be written inside
        with lib.inference_mode(False):
            flags += [lib.ones(1).is_inference(), lib.is_inference_mode_enabled()]
        with lib.no_grad():
            flags.append(lib.ones(1).is_inference())
    flags += [n.is_inference(), lib.is_inference(t), lib.is_inference_mode_enabled(), t.detach().is_inference(),
              t.view(2).is_inference(), t.clone().is_inference(), (t + 1).is_inference()]

    def outcome(fn):
        try:
            r = fn()
        except RuntimeError as e:
            msg = str(e)
            return "RuntimeError: " + next(k for k in ("cannot be saved", "Inplace update", "Setting requires_grad",
                                                       "") if k in msg)
        return ("ok", r.requires_grad) if isinstance(r, lib.Tensor) else "ok"

    results = [outcome(f) for f in (
        lambda: t.requires_grad_(True), lambda: t.requires_grad_(False), lambda: w * t, lambda: w + t,
        lambda: t.add_(1), lambda: lib.nn.functional.linear(t, w.reshape(1, 2)), lambda: t.exp(),
        lambda: t.clone().requires_grad_(), lambda: (w * t.clone()).sum().backward())]
    with lib.no_grad():
        results += [outcome(lambda: w * t), outcome(lambda: t.add_(1))]
    return flags, results, t.tolist()


def test_inference_mode_makes_inference_tensors_as_torch():
    assert _inference_probe(flow) == _inference_probe(torch)


def test_inference_mode_decorator_and_later_training():
    @flow.inference_mode()
    def run(m, x):
        return m(x)

    m = flow.nn.Linear(2, 2)
    out = run(m, flow.ones(1, 2))
    assert out.is_inference() and not out.requires_grad and not m.weight.is_inference()
    m(flow.ones(1, 2)).sum().backward()  # the module trains normally afterwards
    assert m.weight.grad is not None
    with pytest.raises(RuntimeError, match="Inference tensors cannot be saved for backward"):
        m(out)


def _sdpa(lib, shapes, mask, causal=True, grad=False, **kw):
    rng = np.random.default_rng(len(shapes[0]) * 10 + shapes[0][-2])
    q, k, v = (lib.tensor(rng.standard_normal(s), dtype=lib.float32, requires_grad=grad) for s in shapes)
    m = None if mask is None else lib.tensor(mask if mask.dtype == bool else mask.astype(np.float32))
    try:
        out = lib.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=m, is_causal=causal, **kw)
    except RuntimeError:
        return "RuntimeError"
    if not grad:
        return [out.detach().numpy()]
    out.pow(2).sum().backward()
    return [out.detach().numpy(), q.grad.numpy(), k.grad.numpy(), v.grad.numpy()]


_NEG = float("-inf")
_SDPA_CASES = {
    "bool": ([(2, 2, 3, 4), (2, 2, 5, 4), (2, 2, 5, 4)], np.random.default_rng(1).random((3, 5)) > 0.4, {}),
    "bool_dead_rows": ([(1, 1, 2, 4), (1, 1, 3, 4), (1, 1, 3, 4)], np.array([[False, True, True], [True, False, True]]),
                       {}),
    "float": ([(1, 2, 4, 4), (1, 2, 3, 4), (1, 2, 3, 4)], np.random.default_rng(2).standard_normal((4, 3)), {}),
    "float_inf": ([(1, 1, 2, 4), (1, 1, 3, 4), (1, 1, 3, 4)], np.array([[_NEG, 0.0, 0.0], [0.0, 1.0, _NEG]]), {}),
    "gqa_scale": ([(1, 2, 3, 4), (1, 1, 3, 4), (1, 1, 3, 4)], np.random.default_rng(3).random((3, 3)) > 0.5,
                  {"enable_gqa": True, "scale": 0.3}),
    "3d_refused": ([(1, 2, 4), (1, 3, 4), (1, 3, 4)], np.ones((2, 3), bool), {}),
    "dropout_refused": ([(1, 1, 2, 4), (1, 1, 3, 4), (1, 1, 3, 4)], np.ones((2, 3), bool), {"dropout_p": 0.5}),
    "value_dim_refused": ([(1, 1, 2, 4), (1, 1, 3, 4), (1, 1, 3, 5)], np.ones((2, 3), bool), {}),
}


@pytest.mark.parametrize("case", list(_SDPA_CASES))
@pytest.mark.parametrize("grad", [False, True])
def test_sdpa_attn_mask_with_is_causal_as_torch(case, grad):
    shapes, mask, kw = _SDPA_CASES[case]
    want = _sdpa(torch, shapes, mask, grad=grad, **kw)
    got = _sdpa(flow, shapes, mask, grad=grad, **kw)
    if want == "RuntimeError":
        assert got == want
        return
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("mask", [np.array([[False] * 3, [True] * 3]), np.array([[_NEG] * 3, [0.0] * 3])])
@pytest.mark.parametrize("shapes", [[(1, 2, 4), (1, 3, 4), (1, 3, 4)], [(1, 1, 2, 4), (1, 1, 3, 4), (1, 1, 3, 4)]])
def test_sdpa_fully_masked_rows_are_zeros_as_torch(mask, shapes):
    want = _sdpa(torch, shapes, mask, causal=False, grad=True)
    got = _sdpa(flow, shapes, mask, causal=False, grad=True)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


def test_sdpa_mask_requiring_grad_with_is_causal_is_refused():
    for lib in (torch, flow):
        q = lib.ones(1, 1, 2, 4)
        with pytest.raises(RuntimeError, match="is_causal"):
            lib.nn.functional.scaled_dot_product_attention(q, q, q, attn_mask=lib.zeros(2, 2, requires_grad=True),
                                                           is_causal=True)


_REPR_CASES = [
    "lib.tensor([1e-5, 1.0])", "lib.tensor([1 + 2j, -0.5j])", "lib.tensor([1.5, -2.25, 3.0])", "lib.tensor([1e10, 1.0])",
    "lib.tensor([123456789.0, 1.0])", "lib.tensor([1, 2, -300])", "lib.tensor([True, False])", "lib.tensor(3.5)",
    "lib.tensor(3)", "lib.tensor([])", "lib.zeros(0, 3)", "lib.tensor([nan, inf, -inf, 1.0])", "lib.tensor([inf, 1e-8])",
    "lib.arange(2000.0)", "lib.arange(1200).reshape(30, 40)", "lib.tensor([1e-5, 1.0], dtype=lib.float64)",
    "lib.tensor([[1.5, 2], [3, 4e5]])", "lib.tensor([1e5, 1.0])", "lib.tensor([nan + 1j, 1.0])", "lib.tensor(1 + 1j)",
    "lib.tensor([0.0, -0.0])", "lib.tensor([-1e-5, 1.0])", "lib.tensor([1e20, -1e-20])", "lib.tensor([1.5 + 2.25j, -3 - 4j])",
    "lib.arange(30.0) * (1 + 1j)", "lib.tensor([[1 + 1j, 2.5 - 3j], [nan + 0j, inf * 1j]])", "lib.tensor([1e-5 + 1e5j, 1 + 1j])",
    "lib.arange(40.0) / 7", "lib.arange(1, 13.0).reshape(3, 4) ** -3", "lib.tensor([1.1, 65504.0], dtype=lib.float16)",
    "lib.tensor([[[1.5, -2], [0, 3]], [[1e3, 1], [2, -4]]])", "lib.tensor([1e-5, 1.0], requires_grad=True)",
]
_PRINT_SETTINGS = [{}, {"precision": 2, "sci_mode": False}, {"precision": 2}, {"sci_mode": True}, {"sci_mode": False},
                   {"precision": 6}, {"edgeitems": 1, "threshold": 5}, {"linewidth": 30}, {"profile": "short"}]


@pytest.fixture
def default_printoptions():
    yield
    torch.set_printoptions(profile="default")
    flow.set_printoptions(profile="default")


@pytest.mark.parametrize("options", _PRINT_SETTINGS, ids=str)
def test_repr_matches_torch(options, default_printoptions):
    nan, inf = float("nan"), float("inf")  # noqa: F841 (read by the cases)
    out = {}
    for lib in (torch, flow):
        lib.set_printoptions(profile="default")
        lib.set_printoptions(**options)
        out[lib] = [repr(eval(c, {"lib": lib, "nan": nan, "inf": inf})) for c in _REPR_CASES]
    assert [s.replace("monoflow.", "torch.") for s in out[flow]] == out[torch]


def test_repr_width_comes_from_the_rounded_strings(default_printoptions):
    flow.set_printoptions(precision=2, sci_mode=False)
    assert repr(flow.tensor([1e-5, 1.0])) == "tensor([0.00, 1.00])"
    assert repr(flow.tensor([1 + 2j, -0.5j])) == "tensor([1.+2.00j, -0.-0.50j])"
    flow.set_printoptions(profile="default")
    assert repr(flow.tensor([1e-5, 1.0])) == "tensor([1.0000e-05, 1.0000e+00])"


def _inference_function_probe(lib):
    class Mul(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            ctx.save_for_backward(y)
            return x * y

        @staticmethod
        def backward(ctx, g):
            (y,) = ctx.saved_tensors
            return g * y, None

    with lib.inference_mode():
        t = lib.ones(2)
        made_inside = lib.nn.Linear(2, 2)
    res = []
    for fn in (lambda: Mul.apply(lib.ones(2), t), lambda: Mul.apply(lib.ones(2, requires_grad=True), t),
               lambda: made_inside(lib.ones(1, 2)).sum().backward()):  # its weights are not saved: no input grad
        try:
            fn()
            res.append("ok")
        except RuntimeError as e:
            res.append(str(e).split(".")[0])
    return res + [made_inside.weight.is_inference(), made_inside.weight.requires_grad]


def test_inference_tensors_in_custom_functions_and_modules_made_inside():
    assert _inference_function_probe(flow) == _inference_function_probe(torch)


_INPLACE_COMPOSITES = {
    "multiply_": lambda b, s: b.multiply_(s), "divide_": lambda b, s: b.divide_(s),
    "subtract_": lambda b, s: b.subtract_(s, alpha=2), "logit_": lambda b, s: (b / 10).logit_(),
    "xlogy_": lambda b, s: b.xlogy_(s.abs()), "hypot_": lambda b, s: b.hypot_(s),
    "copysign_": lambda b, s: b.copysign_(s.detach()), "float_power_": lambda b, s: b.double().float_power_(2),
    "ldexp_": lambda b, s: b.ldexp_(b.new_tensor([1, 2, 3]).long()), "sinc_": lambda b, s: b.sinc_(),
    "renorm_": lambda b, s: b.renorm_(2, 0, 5), "index_fill_": lambda b, s: b.index_fill_(1, b.new_tensor([0, 2]).long(), -1.0),
    "addr_": lambda b, s: b.addr_(s[0, :2], s[1], alpha=2), "index_add_": lambda b, s: b.index_add_(1, b.new_tensor([2, 0, 2]).long(), s),
}


@pytest.mark.parametrize("name", list(_INPLACE_COMPOSITES))
@pytest.mark.parametrize("self_grad", [True, False])
def test_inplace_composites_grads_match_torch(name, self_grad):
    res = []
    for lib in (torch, flow):
        x = lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
        s = lib.tensor([[0.5, -1.0, 2.0], [3.0, 1.5, -2.0]], requires_grad=True)
        base = x * 1 if self_grad else x.detach().clone()
        out = _INPLACE_COMPOSITES[name](base, s)
        if not out.requires_grad:
            res.append((out.detach().double().numpy(), None, None))
            continue
        (out * lib.arange(1.0, 7.0).reshape(2, 3).to(out.dtype)).sum().backward()
        res.append((out.detach().double().numpy(), None if x.grad is None else x.grad.numpy(),
                    None if s.grad is None or not s.grad.any() else s.grad.numpy()))
    for a, b in zip(res[1], res[0]):
        if b is None:
            assert a is None
        else:
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
