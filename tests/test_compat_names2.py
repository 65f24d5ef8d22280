"""torch's top-level names in monoflow/ops_torch_names2.py, checked against torch."""
import array
import doctest
import math
import pickle
import warnings

import numpy as np
import pytest

import monoflow as flow
from monoflow import ops_torch_names2 as names  # not exported from monoflow yet (see its docstring)

torch = pytest.importorskip("torch")


def _np(t):
    return t.detach().numpy() if hasattr(t, "detach") else np.asarray(t)


def test_constants_match_torch():
    for name in ("pi", "e", "inf"):
        assert getattr(names, name) == getattr(torch, name)
    assert math.isnan(names.nan) and names.newaxis is None is torch.newaxis
    for name in ("pi", "e", "inf", "nan", "newaxis", "contiguous_format", "preserve_format", "channels_last",
                 "channels_last_3d", "strided"):  # the non-callables are exported already
        assert getattr(flow, name) is getattr(names, name)
    assert flow.ones(2, 3)[:, names.newaxis].shape == (2, 1, 3)


def test_memory_format_and_layout_objects():
    tags = [names.contiguous_format, names.preserve_format, names.channels_last, names.channels_last_3d]
    assert all(isinstance(t, names.memory_format) for t in tags) and len(set(map(id, tags))) == 4
    assert repr(names.channels_last) == "monoflow.channels_last"
    assert isinstance(names.strided, names.layout)
    assert pickle.loads(pickle.dumps(names.channels_last)) is names.channels_last
    assert pickle.loads(pickle.dumps(names.strided)) is names.strided


@pytest.mark.parametrize("dtype", ["uint8", "int8", "int32", "int64", "float32", "float64", "bool"])
def test_is_signed(dtype):
    assert names.is_signed(flow.zeros(1, dtype=getattr(flow, dtype))) == \
        torch.is_signed(torch.zeros(1, dtype=getattr(torch, dtype)))


def test_is_same_size_and_conj_neg_queries():
    assert names.is_same_size(flow.ones(2, 3), flow.zeros(2, 3))
    assert not names.is_same_size(flow.ones(2, 3), flow.ones(3, 2))
    x = flow.tensor([1.0, -2.0])
    assert names.is_conj(x) is False and names.is_neg(x) is False
    assert names.resolve_conj(x) is x and names.resolve_neg(x) is x
    with pytest.raises(TypeError, match="is_same_size"):
        names.is_same_size(flow.ones(1), [1])


def test_neg_inplace_matches_torch():
    x, t = flow.tensor([1.0, -2.0, 0.5]), torch.tensor([1.0, -2.0, 0.5])
    assert names.neg_(x) is x
    torch.neg_(t)
    np.testing.assert_array_equal(x.numpy(), t.numpy())
    with pytest.raises(RuntimeError):
        torch.neg_(torch.tensor([True]))
    with pytest.raises(RuntimeError, match="neg_"):
        names.neg_(flow.tensor([True]))


def test_typename_matches_torch():
    assert names.typename(flow.ones(1)) == "monoflow.FloatTensor"
    assert names.typename(flow.ones(1, dtype=flow.int64)) == "monoflow.LongTensor"
    assert names.typename(3) == torch.typename(3) == "int"
    assert names.typename(flow.nn.Linear) == "monoflow.nn.modules.linear.Linear" or \
        names.typename(flow.nn.Linear).endswith(".Linear")
    assert names.typename(flow.nn.Linear(1, 1)) == names.typename(flow.nn.Linear)


def test_global_switches_set_and_read_back():
    assert names.is_anomaly_enabled() is False
    names.set_anomaly_enabled(True)
    try:
        assert names.is_anomaly_enabled() and flow.autograd.is_anomaly_enabled()
    finally:
        names.set_anomaly_enabled(False)
    assert not flow.autograd.is_anomaly_enabled()
    names.use_deterministic_algorithms(True, warn_only=True)
    try:
        assert names.are_deterministic_algorithms_enabled()
        assert names.is_deterministic_algorithms_warn_only_enabled()
    finally:
        names.use_deterministic_algorithms(False)
    assert not names.are_deterministic_algorithms_enabled()
    assert not names.is_deterministic_algorithms_warn_only_enabled()
    with pytest.raises(TypeError, match="use_deterministic_algorithms"):
        names.use_deterministic_algorithms(1)
    names.set_warn_always(True)
    assert names.is_warn_always_enabled()
    names.set_warn_always(False)
    assert not names.is_warn_always_enabled()
    assert names.set_flush_denormal(True) is False and names.set_flush_denormal(False) is False


def test_asarray_shares_memory_like_torch():
    a = np.zeros(3, dtype=np.float32)
    t, ref = names.asarray(a), torch.asarray(a)
    a[0] = 7
    assert t[0].item() == ref[0].item() == 7
    b = np.zeros(3, dtype=np.float32)
    c = names.asarray(b, copy=True)
    b[0] = 1
    assert c[0].item() == 0
    x = flow.ones(2)
    assert names.asarray(x) is x
    assert names.asarray(x, dtype=flow.float64).dtype == flow.float64
    assert names.asarray(x, copy=True) is not x
    with pytest.raises(ValueError, match="asarray"):
        names.asarray(x, dtype=flow.float64, copy=False)
    assert names.asarray([1, 2]).dtype == flow.int64 and torch.asarray([1, 2]).dtype == torch.int64
    assert names.asarray([1.0, 2]).dtype == flow.float32
    assert names.asarray(np.float64([1.0]), dtype=flow.float32).dtype == flow.float32
    assert names.asarray([1.0], requires_grad=True).requires_grad


def test_frombuffer_matches_torch():
    buf = array.array("i", [1, 2, 3, 4])
    t = names.frombuffer(buf, dtype=flow.int32, count=2, offset=4)
    ref = torch.frombuffer(buf, dtype=torch.int32, count=2, offset=4)
    np.testing.assert_array_equal(t.numpy(), ref.numpy())
    buf[1] = 9
    assert t[0].item() == ref[0].item() == 9  # both share the buffer
    raw = bytearray(b"\x00\x00\x80\x3f")
    assert names.frombuffer(raw, dtype=flow.float32).item() == torch.frombuffer(raw, dtype=torch.float32).item()
    for kwargs in ({"count": 0}, {"offset": 100}, {"count": 5}):
        with pytest.raises(ValueError):
            torch.frombuffer(bytearray(16), dtype=torch.int32, **kwargs)
        with pytest.raises(ValueError, match="frombuffer"):
            names.frombuffer(bytearray(16), dtype=flow.int32, **kwargs)
    with pytest.raises(TypeError, match="frombuffer"):
        names.frombuffer([1, 2], dtype=flow.int32)


@pytest.mark.parametrize("args", [(1, 4), (0, 1, 0.25), (5, 1, -2), (0, 1, 0.3), (2, 2)])
def test_range_matches_torch(args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = torch.range(*args)
        with pytest.warns(UserWarning, match="deprecated"):
            out = names.range(*args)
            assert names.range(0, 3, dtype=flow.int64).dtype == flow.int64
    assert out.dtype == flow.float32
    np.testing.assert_allclose(out.numpy(), ref.numpy(), rtol=1e-6)


@pytest.mark.filterwarnings("ignore:monoflow.range is deprecated")
def test_range_errors():
    with pytest.raises(TypeError):
        torch.range(4)
    with pytest.raises(TypeError):
        names.range(4)
    with pytest.raises(RuntimeError, match="range"):
        names.range(0, 3, 0)
    with pytest.raises(RuntimeError, match="range"):
        names.range(3, 0, 1)
    with pytest.raises(TypeError, match="range"):
        names.range("a", 3)


def test_raw_nn_ops_match_torch():
    rng = np.random.default_rng(0)
    w = rng.standard_normal((5, 3)).astype(np.float32)
    idx = np.array([[0, 4], [2, 2]])
    np.testing.assert_allclose(names.embedding(flow.tensor(w), flow.tensor(idx)).numpy(),
                               torch.embedding(torch.tensor(w), torch.tensor(idx)).numpy())
    x = rng.standard_normal((4, 3, 5)).astype(np.float32)
    g, b = rng.standard_normal(3).astype(np.float32), rng.standard_normal(3).astype(np.float32)
    rm, rv = np.zeros(3, np.float32), np.ones(3, np.float32)
    fm, fv, tm, tv = flow.tensor(rm), flow.tensor(rv), torch.tensor(rm), torch.tensor(rv)
    out = names.batch_norm(flow.tensor(x), flow.tensor(g), flow.tensor(b), fm, fv, True, 0.1, 1e-5, False)
    ref = torch.batch_norm(torch.tensor(x), torch.tensor(g), torch.tensor(b), tm, tv, True, 0.1, 1e-5, False)
    np.testing.assert_allclose(out.numpy(), ref.numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(fm.numpy(), tm.numpy(), rtol=1e-4, atol=1e-6)
    out = names.instance_norm(flow.tensor(x), flow.tensor(g), flow.tensor(b), None, None, True, 0.1, 1e-5, False)
    ref = torch.instance_norm(torch.tensor(x), torch.tensor(g), torch.tensor(b), None, None, True, 0.1, 1e-5, False)
    np.testing.assert_allclose(out.numpy(), ref.numpy(), rtol=1e-4, atol=1e-5)
    logp = np.log(rng.dirichlet(np.ones(4), 3)).astype(np.float32)
    q = rng.dirichlet(np.ones(4), 3).astype(np.float32)
    for red in (0, 1, 2):
        np.testing.assert_allclose(names.kl_div(flow.tensor(logp), flow.tensor(q), red).numpy(),
                                   torch.kl_div(torch.tensor(logp), torch.tensor(q), red).numpy(), rtol=1e-5)
        y = (q > 0.25).astype(np.float32)
        pw = np.array([1.0, 2.0, 0.5, 3.0], np.float32)
        np.testing.assert_allclose(
            names.binary_cross_entropy_with_logits(flow.tensor(logp), flow.tensor(y), None, flow.tensor(pw), red).numpy(),
            torch.binary_cross_entropy_with_logits(torch.tensor(logp), torch.tensor(y), None, torch.tensor(pw),
                                                   red).numpy(), rtol=1e-5)
    np.testing.assert_allclose(names.kl_div(flow.tensor(logp), flow.tensor(logp), 1, log_target=True).numpy(),
                               torch.kl_div(torch.tensor(logp), torch.tensor(logp), 1, log_target=True).numpy())
    with pytest.raises(ValueError, match="kl_div"):
        names.kl_div(flow.tensor(logp), flow.tensor(q), 3)
    for pad in ((1, 2), (0, 1, 2, 0), (-1, 1)):
        np.testing.assert_array_equal(names.constant_pad_nd(flow.tensor(x), pad, 2.5).numpy(),
                                      torch.constant_pad_nd(torch.tensor(x), pad, 2.5).numpy())
    np.testing.assert_allclose(names.rms_norm(flow.tensor(x), [5], flow.tensor(np.arange(5.0, dtype=np.float32))).numpy(),
                               torch.rms_norm(torch.tensor(x), [5], torch.arange(5.0)).numpy(), rtol=1e-5, atol=1e-6)


def test_dropout_variants():
    x = flow.ones(4, 6, 3)
    assert names.dropout_(x, 0.5, False) is x and x.sum().item() == 72
    flow.manual_seed(0)
    y = names.dropout_(x, 0.5, True)
    vals = set(np.unique(y.numpy()).tolist())
    assert vals <= {0.0, 2.0} and vals == {0.0, 2.0}
    f = names.feature_dropout(flow.ones(4, 6, 3), 0.5, True).numpy()
    per_channel = f.reshape(24, 3)
    assert all(len(set(row.tolist())) == 1 for row in per_channel)  # whole channels dropped or kept
    assert set(np.unique(f).tolist()) == {0.0, 2.0}
    z = flow.ones(2, 2)
    assert names.feature_dropout(z, 0.5, False) is z
    with pytest.raises(RuntimeError, match="feature_dropout"):
        names.feature_dropout(flow.ones(3), 0.5, True)


def test_docstring_examples_run_as_exported(monkeypatch):
    # the examples are written for `flow.<name>`: run them with the names exported
    for name in names.__all__:
        monkeypatch.setattr(flow, name, getattr(names, name), raising=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = doctest.testmod(names, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 40 and result.failed == 0


# ---- monoflow.testing vs torch.testing ----

def _both_raise_or_pass(a, b, **kwargs):
    """assert_close's verdict on numpy inputs, for monoflow and torch; the two must agree."""
    verdicts = []
    for mod, lib in ((flow, flow.testing), (torch, torch.testing)):
        try:
            lib.assert_close(mod.tensor(a), mod.tensor(b), **kwargs)
            verdicts.append(None)
        except AssertionError as err:
            verdicts.append(str(err).split("\n")[0])
    assert verdicts[0] == verdicts[1], verdicts
    return verdicts[0]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16, np.int64])
@pytest.mark.parametrize("delta", [0.0, 1e-8, 1e-6, 3e-5, 1e-3, 0.5])
def test_assert_close_default_tolerances_match_torch(dtype, delta):
    a = np.array([1.0, -2.0, 3.0], dtype=np.float64)
    _both_raise_or_pass(a.astype(dtype), (a + delta).astype(dtype))


def test_assert_close_rules_match_torch():
    nan = np.array([1.0, np.nan], np.float32)
    assert _both_raise_or_pass(nan, nan) is not None
    assert _both_raise_or_pass(nan, nan, equal_nan=True) is None
    assert _both_raise_or_pass(np.array([np.inf], np.float32), np.array([np.inf], np.float32)) is None
    assert _both_raise_or_pass(np.ones(2, np.float32), np.ones(2, np.float32) + 0.1, rtol=0.2, atol=0.0) is None
    with pytest.raises(AssertionError, match="dtype"):
        flow.testing.assert_close(flow.ones(2), flow.ones(2, dtype=flow.float64))
    flow.testing.assert_close(flow.ones(2), flow.ones(2, dtype=flow.float64), check_dtype=False)
    with pytest.raises(AssertionError, match="shape"):
        flow.testing.assert_close(flow.ones(2), flow.ones(3))
    with pytest.raises(ValueError):
        torch.testing.assert_close(torch.ones(1), torch.ones(1), rtol=0.1)
    with pytest.raises(ValueError, match="atol"):
        flow.testing.assert_close(flow.ones(1), flow.ones(1), rtol=0.1)
    with pytest.raises(AssertionError, match="^custom$"):
        flow.testing.assert_close(flow.ones(1), flow.zeros(1), msg="custom")
    with pytest.raises(AssertionError, match="Mismatched elements: 1 / 3"):
        flow.testing.assert_close(flow.tensor([1.0, 2.0, 3.0]), flow.tensor([1.0, 2.5, 3.0]))
    flow.testing.assert_close([flow.ones(1), {"a": flow.zeros(2)}], [flow.ones(1), {"a": flow.zeros(2)}])
    with pytest.raises(AssertionError, match="length"):
        flow.testing.assert_close([flow.ones(1)], [flow.ones(1), flow.ones(1)])
    flow.testing.assert_close(flow.ones(2), np.ones(2, np.float32))


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int64", "int8", "uint8", "bool"])
def test_make_tensor_ranges_and_dtypes(dtype):
    flow.manual_seed(0)
    t = flow.testing.make_tensor(4, 50, dtype=getattr(flow, dtype))
    assert t.shape == (4, 50) and t.dtype == getattr(flow, dtype)
    v = t.numpy().astype(np.float64)
    if dtype == "bool":
        assert set(np.unique(v)) == {0.0, 1.0}
    elif dtype == "uint8":
        assert v.min() >= 0 and v.max() <= 9
    elif dtype in ("int64", "int8"):
        assert v.min() >= -9 and v.max() <= 9 and v.min() < 0
    else:
        assert v.min() >= -9 and v.max() <= 9 and v.min() < 0 < v.max()
    s = flow.testing.make_tensor((3, 4), dtype=flow.float32, low=2, high=3, noncontiguous=True,
                                 requires_grad=True)
    assert not s.is_contiguous() and s.requires_grad and ((s >= 2) & (s < 3)).all().item()
    assert (flow.testing.make_tensor(100, dtype=flow.int32, low=0, high=2, exclude_zero=True) != 0).all().item()
    with pytest.raises(ValueError, match="make_tensor"):
        flow.testing.make_tensor(2, dtype=flow.float32, low=3, high=1)


def test_testing_docstring_examples_run():
    result = doctest.testmod(flow.testing, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted >= 4 and result.failed == 0


# ---- monoflow.random ----

def test_random_module_delegates_to_the_default_generator():
    assert flow.random.manual_seed is flow.manual_seed and flow.random.get_rng_state is flow.get_rng_state
    flow.random.manual_seed(123)
    assert flow.random.initial_seed() == 123
    state = flow.random.get_rng_state()
    a = flow.rand(4)
    flow.random.set_rng_state(state)
    np.testing.assert_array_equal(flow.rand(4).numpy(), a.numpy())


@pytest.mark.parametrize("enabled", [True, False])
def test_fork_rng_restores_state_like_torch(enabled):
    results = []
    for mod in (flow, torch):
        mod.manual_seed(0)
        with mod.random.fork_rng(enabled=enabled):
            mod.rand(3)
        after = mod.rand(3)
        mod.manual_seed(0)
        fresh = mod.rand(3)
        results.append(bool((after == fresh).all()))
    assert results[0] == results[1] == enabled
    flow.manual_seed(0)
    with pytest.raises(KeyError):
        with flow.random.fork_rng():
            flow.rand(2)
            raise KeyError("restored on error too")
    after = flow.rand(2)
    flow.manual_seed(0)
    np.testing.assert_array_equal(after.numpy(), flow.rand(2).numpy())


def test_random_docstring_examples_run():
    result = doctest.testmod(flow.random, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted >= 4 and result.failed == 0
