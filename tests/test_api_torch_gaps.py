"""APIs that PyTorch programs called and monoflow lacked (probe pt6), each checked against torch:
torch._foreach_*, einsum's sublist form, fft.hfft/ihfft, istft, linalg.eig/eigvals."""
import math

import numpy as np
import pytest

import monoflow as flow

torch = pytest.importorskip("torch")


def _np(t):
    if isinstance(t, torch.Tensor):
        return t.detach().resolve_conj().numpy()
    return t.detach().numpy()


def _close(m, t, rtol=1e-5, atol=1e-6):
    assert str(m.dtype).split(".")[-1] == str(t.dtype).split(".")[-1], (m.dtype, t.dtype)
    assert tuple(m.shape) == tuple(t.shape)
    np.testing.assert_allclose(_np(m), _np(t), rtol=rtol, atol=atol)


def _pair(*shapes, dtype="float32", seed=0, positive=False):
    rng = np.random.default_rng(seed)
    arrs = [rng.standard_normal(s).astype(dtype) for s in shapes]
    if positive:
        arrs = [np.abs(a) + 0.5 for a in arrs]
    return [flow.tensor(a) for a in arrs], [torch.tensor(a) for a in arrs]


# ---------------------------------------------------------------- _foreach_*

SHAPES = [(3,), (2, 4), ()]


def _run_both(name, make_args, inplace):
    """Calls flow.<name> and torch.<name> on the same data; returns (flow result list, torch result list)."""
    results = []
    for lib in (flow, torch):
        args = make_args(lib)
        out = getattr(lib, name)(*args[0], **args[1])
        if inplace:
            assert out is args[0][0]  # torch 2.13 returns the list it was given
            out = args[0][0]
        else:
            assert isinstance(out, tuple)
        results.append(list(out))
    return results


@pytest.mark.parametrize("op", ["sqrt", "neg", "abs", "exp", "sign", "reciprocal", "sigmoid", "log1p", "floor"])
@pytest.mark.parametrize("inplace", [False, True])
def test_foreach_unary(op, inplace):
    arrs = [np.abs(np.random.default_rng(1).standard_normal(s)).astype("float32") + 0.1 for s in SHAPES]
    name = f"_foreach_{op}" + ("_" if inplace else "")
    m, t = _run_both(name, lambda lib: (([lib.tensor(a) for a in arrs],), {}), inplace)
    for a, b in zip(m, t):
        _close(a, b)


@pytest.mark.parametrize("op", ["sign", "abs", "sqrt", "reciprocal", "exp"])
def test_foreach_unary_integer_dtypes(op):
    arrs = [np.array([-2, 0, 3]), np.array([4, 9])]
    m, t = _run_both(f"_foreach_{op}", lambda lib: (([lib.tensor(a) for a in arrs],), {}), False)
    for a, b in zip(m, t):
        _close(a, b)


def _second(kind, lib, arrs2):
    if kind == "scalar":
        return 1.5
    if kind == "int":
        return 2
    if kind == "scalars":
        return [0.5, -2.0, 3.0]
    if kind == "tensor0d":
        return lib.tensor(1.25)
    return [lib.tensor(a) for a in arrs2]


@pytest.mark.parametrize("op", ["add", "sub", "mul", "div", "maximum", "minimum", "clamp_min", "clamp_max", "pow"])
@pytest.mark.parametrize("kind", ["scalar", "int", "scalars", "tensor0d", "tensors"])
@pytest.mark.parametrize("inplace", [False, True])
def test_foreach_binary(op, kind, inplace):
    rng = np.random.default_rng(2)
    arrs = [np.abs(rng.standard_normal(s)).astype("float32") + 0.2 for s in SHAPES]
    arrs2 = [np.abs(rng.standard_normal(s)).astype("float32") + 0.2 for s in SHAPES]
    name = f"_foreach_{op}" + ("_" if inplace else "")
    try:
        torch_out = getattr(torch, name)([torch.tensor(a) for a in arrs], _second(kind, torch, arrs2))
    except (TypeError, RuntimeError) as err:
        with pytest.raises(type(err)):
            getattr(flow, name)([flow.tensor(a) for a in arrs], _second(kind, flow, arrs2))
        return
    m, t = _run_both(name, lambda lib: (([lib.tensor(a) for a in arrs], _second(kind, lib, arrs2)), {}), inplace)
    for a, b in zip(m, t):
        _close(a, b)
    del torch_out


@pytest.mark.parametrize("op", ["add", "sub"])
@pytest.mark.parametrize("kind", ["tensors", "tensor0d", "scalar"])
def test_foreach_alpha(op, kind):
    rng = np.random.default_rng(3)
    arrs = [rng.standard_normal(s).astype("float32") for s in SHAPES]
    arrs2 = [rng.standard_normal(s).astype("float32") for s in SHAPES]
    name = f"_foreach_{op}"
    try:
        getattr(torch, name)([torch.tensor(a) for a in arrs], _second(kind, torch, arrs2), alpha=3)
    except (TypeError, RuntimeError) as err:
        with pytest.raises(type(err)):
            getattr(flow, name)([flow.tensor(a) for a in arrs], _second(kind, flow, arrs2), alpha=3)
        return
    m, t = _run_both(name, lambda lib: (([lib.tensor(a) for a in arrs], _second(kind, lib, arrs2)),
                                        {"alpha": 3}), False)
    for a, b in zip(m, t):
        _close(a, b)


def test_foreach_dtype_promotion_matches_torch():
    for name, other in [("_foreach_add", 1.5), ("_foreach_div", 2), ("_foreach_maximum", 1.5),
                        ("_foreach_mul", [1.5]), ("_foreach_add", flow.tensor(1.5))]:
        t_other = torch.tensor(1.5) if isinstance(other, flow.Tensor) else other
        (a,) = getattr(flow, name)([flow.tensor([1, 2])], other)
        (b,) = getattr(torch, name)([torch.tensor([1, 2])], t_other)
        _close(a, b)
    with pytest.raises(RuntimeError):
        flow._foreach_add_([flow.tensor([1, 2])], 1.5)
    with pytest.raises(RuntimeError):
        flow._foreach_maximum_([flow.tensor([1, 2])], 1.5)


@pytest.mark.parametrize("inplace", [False, True])
@pytest.mark.parametrize("kind", ["scalar", "scalars", "tensors", "tensor0d"])
def test_foreach_lerp(kind, inplace):
    rng = np.random.default_rng(4)
    arrs = [rng.standard_normal(s).astype("float32") for s in SHAPES]
    ends = [rng.standard_normal(s).astype("float32") for s in SHAPES]
    ws = [rng.random(s).astype("float32") for s in SHAPES]

    def weight(lib):
        return {"scalar": 0.3, "scalars": [0.1, 0.5, 0.9], "tensor0d": lib.tensor(0.25),
                "tensors": [lib.tensor(w) for w in ws]}[kind]

    name = "_foreach_lerp" + ("_" if inplace else "")
    m, t = _run_both(name, lambda lib: (([lib.tensor(a) for a in arrs], [lib.tensor(e) for e in ends],
                                         weight(lib)), {}), inplace)
    for a, b in zip(m, t):
        _close(a, b)


@pytest.mark.parametrize("op", ["addcmul", "addcdiv"])
@pytest.mark.parametrize("inplace", [False, True])
@pytest.mark.parametrize("value", ["default", 2.5, [1.0, -1.0, 0.5], "tensor"])
def test_foreach_addc(op, inplace, value):
    rng = np.random.default_rng(5)
    arrs, a1, a2 = ([rng.standard_normal(s).astype("float32") + 3 for s in SHAPES] for _ in range(3))

    def args(lib):
        base = ([lib.tensor(a) for a in arrs], [lib.tensor(a) for a in a1], [lib.tensor(a) for a in a2])
        if value == "default":
            return base, {}
        if value == "tensor":
            return base + (lib.tensor([2.0, 0.5, -1.0]),), {}
        return base, {"value": value} if not isinstance(value, list) else {}

    def args_list(lib):
        base, kw = args(lib)
        return (base + (value,), kw) if isinstance(value, list) else (base, kw)

    name = f"_foreach_{op}" + ("_" if inplace else "")
    m, t = _run_both(name, args_list, inplace)
    for a, b in zip(m, t):
        _close(a, b, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("ord", [2, 1, 0, 3.5, math.inf, -math.inf])
def test_foreach_norm(ord):
    rng = np.random.default_rng(6)
    arrs = [rng.standard_normal(s).astype("float32") for s in SHAPES]
    m, t = _run_both("_foreach_norm", lambda lib: (([lib.tensor(a) for a in arrs],), {"ord": ord}), False)
    for a, b in zip(m, t):
        _close(a, b, rtol=1e-5)
    (a,) = flow._foreach_norm([flow.tensor([3.0, 4.0])], dtype=flow.float64)
    assert a.dtype == flow.float64 and a.item() == 5.0
    with pytest.raises(RuntimeError):
        torch._foreach_norm([torch.tensor([1, 2])])
    with pytest.raises(RuntimeError):
        flow._foreach_norm([flow.tensor([1, 2])])


def test_foreach_zero_copy_and_pow_scalar_base():
    xs = [flow.ones(2), flow.ones(3)]
    assert flow._foreach_zero_(xs) is xs and all(float(x.abs().sum()) == 0 for x in xs)
    src = [flow.tensor([1.0, 2.0]), flow.tensor([3.0, 4.0, 5.0])]
    assert flow._foreach_copy_(xs, src) is xs
    assert xs[1].tolist() == [3.0, 4.0, 5.0]
    (a,) = flow._foreach_pow(2.0, [flow.tensor([1.0, 3.0])])
    (b,) = torch._foreach_pow(2.0, [torch.tensor([1.0, 3.0])])
    _close(a, b)


def test_foreach_gradients_match_torch():
    rng = np.random.default_rng(7)
    arrs = [rng.standard_normal(s).astype("float32") for s in [(3,), (2, 2)]]
    arrs2 = [rng.standard_normal(s).astype("float32") for s in [(3,), (2, 2)]]
    grads = []
    for lib in (flow, torch):
        xs = [lib.tensor(a, requires_grad=True) for a in arrs]
        ys = [lib.tensor(a, requires_grad=True) for a in arrs2]
        out = lib._foreach_add(xs, ys, alpha=2)
        out = lib._foreach_mul(out, ys)
        work = [o * 1 for o in out]
        lib._foreach_lerp_(work, xs, 0.3)
        work = list(lib._foreach_maximum(work, 0.1))
        lib._foreach_addcdiv_(work, xs, [y.abs() + 1 for y in ys], 0.5)
        norms = lib._foreach_norm(work)
        total = sum(n for n in norms) + sum(w.sum() for w in lib._foreach_sqrt([w.abs() + 1 for w in work]))
        total.backward()
        grads.append([x.grad for x in xs] + [y.grad for y in ys])
    for a, b in zip(*grads):
        _close(a, b, rtol=1e-4, atol=1e-5)


def test_foreach_errors_match_torch():
    a = [flow.ones(2), flow.ones(3)]
    with pytest.raises(RuntimeError, match="_foreach_add.*same number of tensors, got 2 and 1"):
        flow._foreach_add(a, [flow.ones(2)])
    with pytest.raises(RuntimeError, match="_foreach_mul_.*same number of elements as scalar list"):
        flow._foreach_mul_(a, [1.0, 2.0, 3.0])
    with pytest.raises(RuntimeError, match="_foreach_add.*at least one tensor"):
        flow._foreach_add([], 1)
    with pytest.raises(RuntimeError, match="_foreach_add.*0 dim"):
        flow._foreach_add(a, flow.ones(2))
    with pytest.raises(TypeError, match="_foreach_add"):
        flow._foreach_add(a, "x")
    with pytest.raises(TypeError, match="_foreach_add"):
        flow._foreach_add(flow.ones(2), 1)
    with pytest.raises(TypeError, match="_foreach_add"):
        flow._foreach_add(a, 2, alpha=2)
    with pytest.raises(RuntimeError, match="_foreach_copy_.*same number"):
        flow._foreach_copy_(a, [flow.ones(2)])
    with pytest.raises(RuntimeError, match="_foreach_lerp.*same number"):
        flow._foreach_lerp(a, a[:1], 0.5)
    with pytest.raises(TypeError, match="_foreach_norm.*ord"):
        flow._foreach_norm(a, "fro")
    with pytest.raises(RuntimeError, match="bool tensor") as err:
        flow._foreach_sub([flow.tensor([True])], 1)
    assert "op()" not in str(err.value)  # (the generated functions once named their errors "op()")
    with pytest.raises(RuntimeError, match="leaf"):
        flow._foreach_add_([flow.ones(2, requires_grad=True)], 1)
    out = flow._foreach_add((flow.ones(2),), 1)  # a tuple of tensors, as torch accepts
    assert isinstance(out, tuple) and out[0].tolist() == [2.0, 2.0]


# ---------------------------------------------------------------- einsum's sublist form

@pytest.mark.parametrize("sublists", [
    ([0, 1, 2], [0, 2, 3], [0, 1, 3]),
    ([0, 1, 2], [0, 2, 3]),
    ([0, 1, 2], [0, 2, 3], [3, 1]),
    ([30, 1, 2], [30, 2, 51]),
    ([Ellipsis, 1, 2], [Ellipsis, 2, 3], [Ellipsis, 1, 3]),
    ((0, 1, 2), (0, 2, 3), (Ellipsis, 3)),
])
def test_einsum_sublist_two_operands(sublists):
    (fa, fb), (ta, tb) = _pair((2, 3, 4), (2, 4, 5), seed=8)
    fa.requires_grad_(True)
    ta.requires_grad_(True)
    args = [fa, sublists[0], fb, sublists[1]] + list(sublists[2:])
    targs = [ta, sublists[0], tb, sublists[1]] + list(sublists[2:])
    m, t = flow.einsum(*args), torch.einsum(*targs)
    _close(m, t, rtol=1e-5, atol=1e-5)
    m.sum().backward()
    t.sum().backward()
    _close(fa.grad, ta.grad, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("sublist", [[30, 1, 2], [Ellipsis, 1], [2, Ellipsis, 1], [0, 0, 1]])
def test_einsum_sublist_one_operand(sublist):
    (fa,), (ta,) = _pair((3, 3, 4), seed=9)
    _close(flow.einsum(fa, sublist), torch.einsum(ta, sublist), rtol=1e-5, atol=1e-6)


def test_einsum_upper_case_subscripts_with_ellipsis():
    # '...' once took upper-case letters and clashed with the equation's own
    (fa,), (ta,) = _pair((2, 3, 4), seed=10)
    _close(flow.einsum("A...->...A", fa), torch.einsum("A...->...A", ta))
    _close(flow.einsum("bA...->...bA", fa), torch.einsum("bA...->...bA", ta))


def test_einsum_sublist_errors():
    a = flow.ones(2, 3, 4)
    for bad in ([0, 1, 52], [0, 1, -1]):
        with pytest.raises(ValueError, match=r"einsum\(\): subscript in subscript list is not within"):
            flow.einsum(a, bad)
    with pytest.raises(TypeError):
        flow.einsum(a, [0, 1, 2.0])
    with pytest.raises(TypeError, match="einsum"):
        flow.einsum(a, 3)
    with pytest.raises(ValueError, match="einsum.*at least one operand"):
        flow.einsum(a)
    with pytest.raises(ValueError, match="einsum"):
        flow.einsum(a, [0, 1, 2], a)
    # the equation's own errors: RuntimeError, as torch (and OneFlow)
    for args in [("ij,jk->ik", a[0]), ("ijk->i", a[0]), ("ij->z", a[0]), ("i1->i", a[0]), ("ii->i", a[0]),
                 (a, [0, 1]), (a, [0, 1, 2], [5]), (a, [0, 1, 0])]:
        targs = tuple(torch.ones(tuple(x.shape)) if isinstance(x, flow.Tensor) else x for x in args)
        with pytest.raises(RuntimeError):
            torch.einsum(*targs)
        with pytest.raises(RuntimeError, match="einsum"):
            flow.einsum(*args)


# ---------------------------------------------------------------- fft.hfft / ihfft family

def _complex_input(shape, dtype="complex64", seed=11):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)


@pytest.mark.parametrize("norm", [None, "backward", "ortho", "forward"])
@pytest.mark.parametrize("name,kw", [
    ("hfft", {}), ("hfft", {"n": 7}), ("hfft", {"n": 4, "dim": 0}),
    ("hfftn", {}), ("hfftn", {"dim": 0}), ("hfft2", {"s": (4, 7)}), ("hfftn", {"s": (2, -1)}),
])
def test_hfft_values_and_gradients(name, kw, norm):
    x = _complex_input((3, 5))
    w = np.random.default_rng(12).standard_normal(64).astype("float32")
    grads = []
    outs = []
    for lib in (flow, torch):
        xt = lib.tensor(x, requires_grad=True)
        out = getattr(lib.fft, name)(xt, norm=norm, **kw)
        outs.append(out)
        (out * lib.tensor(w[:out.numel()]).reshape(out.shape)).sum().backward()
        grads.append(xt.grad)
    _close(*outs, rtol=1e-4, atol=1e-4)
    _close(*grads, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("norm", [None, "ortho", "forward"])
@pytest.mark.parametrize("name,kw", [
    ("ihfft", {}), ("ihfft", {"n": 5, "dim": 0}), ("ihfftn", {}), ("ihfft2", {"s": (2, 5)}),
])
def test_ihfft_values_and_gradients(name, kw, norm):
    x = np.random.default_rng(13).standard_normal((3, 6)).astype("float32")
    w = np.random.default_rng(14).standard_normal(64).astype("float32")
    grads, outs = [], []
    for lib in (flow, torch):
        xt = lib.tensor(x, requires_grad=True)
        out = getattr(lib.fft, name)(xt, norm=norm, **kw)
        outs.append(out)
        parts = lib.view_as_real(out.resolve_conj())
        (parts * lib.tensor(w[:parts.numel()]).reshape(parts.shape)).sum().backward()
        grads.append(xt.grad)
    _close(*outs, rtol=1e-5, atol=1e-5)
    _close(*grads, rtol=1e-5, atol=1e-5)


def test_hfft_dtypes_and_errors():
    _close(flow.fft.hfft(flow.tensor([1.0, 2.0, 3.0])), torch.fft.hfft(torch.tensor([1.0, 2.0, 3.0])))
    _close(flow.fft.hfft(flow.arange(4)), torch.fft.hfft(torch.arange(4)))
    _close(flow.fft.ihfft(flow.tensor([1.0, 2.0], dtype=flow.float64)),
           torch.fft.ihfft(torch.tensor([1.0, 2.0], dtype=torch.float64)))
    with pytest.raises(RuntimeError, match="ihfft"):
        flow.fft.ihfft(flow.tensor([1 + 1j, 2j]))
    with pytest.raises(ValueError, match="hfft"):
        flow.fft.hfft(flow.ones(4), norm="bad")
    with pytest.raises(IndexError):
        flow.fft.ihfft(flow.ones(4), dim=2)


# ---------------------------------------------------------------- istft

ISTFT_CASES = [
    ({"n_fft": 64, "window": "hann_window"}, {}),
    ({"n_fft": 64, "hop_length": 16, "window": "hann_window"}, {"length": 300}),
    ({"n_fft": 64, "hop_length": 16, "win_length": 48, "window": "hann_window"}, {"length": 300}),
    ({"n_fft": 64, "window": "hann_window", "normalized": True}, {}),
    ({"n_fft": 64, "window": "hann_window", "onesided": False}, {}),
    ({"n_fft": 64, "window": "hann_window", "onesided": False}, {"return_complex": True}),
    ({"n_fft": 64, "window": "hann_window"}, {"length": 400}),
    ({"n_fft": 64, "window": "hann_window"}, {"length": 100}),
    ({"n_fft": 32, "hop_length": 8}, {}),
    ({"n_fft": 32, "hop_length": 8, "win_length": 20}, {}),
    ({"n_fft": 32, "hop_length": 8, "center": False}, {}),
]


def _stft_args(lib, kw):
    kw = dict(kw)
    if "window" in kw:
        kw["window"] = getattr(lib, kw["window"])(kw.get("win_length", kw["n_fft"]))
    return kw


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("batch", [True, False])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("kw_stft,kw_istft", ISTFT_CASES)
def test_istft_values_gradients_and_round_trip(kw_stft, kw_istft, dtype, batch):
    x = np.random.default_rng(15).standard_normal((2, 300) if batch else (300,)).astype(dtype)
    outs, grads = [], []
    for lib in (flow, torch):
        kw = _stft_args(lib, kw_stft)
        spec = lib.stft(lib.tensor(x), return_complex=True, **kw).detach().requires_grad_(True)
        kw.pop("onesided", None)
        y = lib.istft(spec, **kw, **kw_istft)
        outs.append(y)
        w = lib.tensor(np.linspace(-1, 1, y.numel()).reshape(tuple(y.shape)).astype(dtype))
        (lib.view_as_real(y) if y.is_complex() else y).mul(w[..., None] if y.is_complex() else w).sum().backward()
        grads.append(spec.grad)
    _close(*outs, rtol=1e-4, atol=1e-5)
    _close(*grads, rtol=1e-4, atol=1e-5)
    if "length" in kw_istft and kw_istft["length"] >= 300 and not kw_stft.get("center") is False:
        n = min(300, kw_istft["length"])
        np.testing.assert_allclose(outs[0].numpy()[..., :n], x[..., :n], atol=1e-4)  # round trip


def test_istft_tensor_method_and_center_round_trip():
    x = flow.randn(3, 256)
    win = flow.hann_window(64)
    spec = x.stft(64, 16, window=win, return_complex=True)
    y = spec.istft(64, 16, window=win, length=256)
    np.testing.assert_allclose(y.numpy(), x.numpy(), atol=1e-5)


@pytest.mark.filterwarnings("ignore")
def test_istft_errors_match_torch():
    x = np.random.default_rng(16).standard_normal(800).astype("float32")
    cases = [
        lambda lib, s: lib.istft(s.real, 64),
        lambda lib, s: lib.istft(lib.view_as_real(s), 64),
        lambda lib, s: lib.istft(s, 64, window=lib.zeros(64)),
        lambda lib, s: lib.istft(s, 60),
        lambda lib, s: lib.istft(s, 64, return_complex=True),
        lambda lib, s: lib.istft(s, 64, onesided=False),
        lambda lib, s: lib.istft(s[None, None], 64),
        lambda lib, s: lib.istft(s, 64, win_length=80),
        lambda lib, s: lib.istft(s, 64, hop_length=0),
        lambda lib, s: lib.istft(s, 64, window=lib.ones(32)),
        lambda lib, s: lib.istft(s, 64, window=lib.hann_window(64), center=False),
    ]
    specs = {lib: lib.stft(lib.tensor(x), 64, return_complex=True) for lib in (flow, torch)}
    for case in cases:
        with pytest.raises(RuntimeError) as t_err:
            case(torch, specs[torch])
        with pytest.raises(type(t_err.value), match="istft"):
            case(flow, specs[flow])


# ---------------------------------------------------------------- linalg.eig / eigvals

def _eig_input(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape)
    if dtype.startswith("complex"):
        a = a + 1j * rng.standard_normal(shape)
    return a.astype(dtype)


def _sorted_eig(L, V):
    L, V = _np(L), _np(V)
    order = np.lexsort((np.round(L.imag, 4), np.round(L.real, 4)), axis=-1)
    return np.take_along_axis(L, order, -1), np.take_along_axis(V, order[..., None, :], -1)


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
@pytest.mark.parametrize("shape", [(4, 4), (2, 3, 3), (1, 1)])
def test_eig_values_vectors_and_dtypes(shape, dtype):
    a = _eig_input(shape, dtype, seed=17)
    L, V = flow.linalg.eig(flow.tensor(a))
    tL, tV = torch.linalg.eig(torch.tensor(a))
    assert str(L.dtype).split(".")[-1] == str(tL.dtype).split(".")[-1]
    assert str(V.dtype).split(".")[-1] == str(tV.dtype).split(".")[-1]
    tol = 1e-4 if dtype in ("float32", "complex64") else 1e-10
    mL, mV = _sorted_eig(L, V)
    sL, sV = _sorted_eig(tL, tV)
    np.testing.assert_allclose(mL, sL, rtol=tol, atol=tol)
    np.testing.assert_allclose(np.linalg.norm(mV, axis=-2), 1, rtol=tol)  # unit columns
    overlap = np.abs(np.sum(np.conj(mV) * sV, axis=-2))  # equal up to a per-column phase
    np.testing.assert_allclose(overlap, 1, rtol=10 * tol, atol=10 * tol)
    _close(flow.linalg.eigvals(flow.tensor(a)).abs().sort().values, tL.abs().sort().values, rtol=tol, atol=tol)
    assert isinstance(flow.linalg.eig(flow.tensor(a)), tuple)
    assert flow.linalg.eig(flow.tensor(a)).eigenvalues.shape == L.shape


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_eig_and_eigvals_gradients_match_torch(dtype):
    a = _eig_input((2, 4, 4), dtype, seed=18)
    grads = []
    for lib in (flow, torch):
        A = lib.tensor(a, requires_grad=True)
        L, V = lib.linalg.eig(A)
        # invariant to the eigenvalues' order and the eigenvectors' phases
        loss = (L * L).real.sum() + (L.abs() ** 3).sum() + (V.abs() ** 4 * L.real.unsqueeze(-2)).sum()
        loss = loss + (lib.linalg.eigvals(A).imag ** 2).sum()
        loss.backward()
        grads.append(A.grad)
    _close(*grads, rtol=1e-7, atol=1e-8)


def test_eig_backward_refuses_phase_dependent_loss():
    A = flow.tensor(_eig_input((3, 3), "float64", seed=19), requires_grad=True)
    _, V = flow.linalg.eig(A)
    with pytest.raises(RuntimeError, match="linalg.eig"):
        V.imag.sum().backward()


def test_eig_errors():
    with pytest.raises(RuntimeError, match="linalg.eig: A must be batches of square matrices"):
        flow.linalg.eig(flow.ones(2, 3))
    with pytest.raises(RuntimeError, match="at least 2 dimensions"):
        flow.linalg.eigvals(flow.ones(2))
    with pytest.raises(RuntimeError, match="linalg.eig"):
        flow.linalg.eig(flow.ones(2, 2, dtype=flow.int64))
    with pytest.raises(NotImplementedError, match="linalg.eigvals"):
        flow.linalg.eigvals(flow.ones(2, 2, dtype=flow.float16))
    with pytest.raises(RuntimeError, match="infs or NaNs"):
        flow.linalg.eig(flow.tensor([[float("nan"), 1.0], [0.0, 1.0]]))
    with pytest.raises(TypeError, match="linalg.eig"):
        flow.linalg.eig([[1.0, 0.0], [0.0, 1.0]])


def test_foreach_torch_keyword_names():
    # scripts pass the operand by torch's overload keywords (timm's EMA: _foreach_mul_(xs, scalar=decay))
    arrs = [np.array([1.0, 2.0], dtype="float32"), np.array([3.0], dtype="float32")]
    calls = [
        ("_foreach_mul_", lambda lib, xs: ((xs,), {"scalar": 0.5})),
        ("_foreach_add", lambda lib, xs: ((xs,), {"scalars": [1.0, 2.0]})),
        ("_foreach_add_", lambda lib, xs: ((xs,), {"other": [x * 2 for x in xs], "alpha": 0.5})),
        ("_foreach_pow", lambda lib, xs: ((xs,), {"exponent": 2})),
        ("_foreach_pow_", lambda lib, xs: ((xs,), {"exponent": [2, 3]})),
        ("_foreach_lerp_", lambda lib, xs: ((xs, [x + 1 for x in xs]), {"weight": 0.25})),
        ("_foreach_lerp", lambda lib, xs: ((xs, [x + 1 for x in xs]), {"weights": [x * 0 + 0.5 for x in xs]})),
        ("_foreach_addcmul", lambda lib, xs: ((xs, xs, xs), {"scalars": [2.0, 3.0]})),
        ("_foreach_addcdiv_", lambda lib, xs: ((xs, xs, xs), {"value": 2.0})),
        ("_foreach_norm", lambda lib, xs: ((xs,), {"ord": 1})),
    ]
    for name, make in calls:
        outs = []
        for lib in (flow, torch):
            xs = [lib.tensor(a) for a in arrs]
            args, kwargs = make(lib, xs)
            out = getattr(lib, name)(*args, **kwargs)
            outs.append(list(xs if name.endswith("_") else out))
        for a, b in zip(*outs):
            _close(a, b)
    with pytest.raises(TypeError, match="_foreach_mul"):
        flow._foreach_mul([flow.ones(2)], 2.0, scalar=3.0)
    with pytest.raises(TypeError, match="_foreach_lerp"):
        flow._foreach_lerp([flow.ones(2)], [flow.ones(2)])
