"""Names training scripts import beside the main API, against torch: nn.modules.utils (_pair ...,
consume_prefix_in_state_dict_if_present), Module.compile(), torch.utils.data._utils.collate, and the
torch.sparse namespace (mm, addmm, sum, softmax/log_softmax over specified entries, legacy FloatTensor)."""
import importlib
import warnings
from collections import OrderedDict

import numpy as np
import pytest

import monoflow

torch = pytest.importorskip("torch")
BOTH = [torch, monoflow]


@pytest.mark.parametrize("name", ["_single", "_pair", "_triple", "_quadruple"])
def test_ntuple_helpers_as_torch(name):
    t = getattr(importlib.import_module("torch.nn.modules.utils"), name)
    m = getattr(importlib.import_module("monoflow.nn.modules.utils"), name)
    for arg in (3, (1, 2), [4, 5, 6], 2.5):
        assert m(arg) == t(arg)


def test_reverse_repeat_list_with_default_and_prefix_as_torch():
    t = importlib.import_module("torch.nn.modules.utils")
    m = importlib.import_module("monoflow.nn.modules.utils")
    assert m._reverse_repeat_tuple((1, 2, 3), 2) == t._reverse_repeat_tuple((1, 2, 3), 2)
    assert m._list_with_default([None, 3], [1, 2, 5, 6]) == t._list_with_default([None, 3], [1, 2, 5, 6])
    assert m._list_with_default(7, [1]) == t._list_with_default(7, [1]) == 7
    for mod, T in ((t, torch), (m, monoflow)):
        with pytest.raises(ValueError):
            mod._list_with_default([None, 3], [5, 6])
    keys = {}
    for mod, T in ((t, torch), (m, monoflow)):
        sd = T.nn.Sequential(T.nn.Linear(2, 2), T.nn.BatchNorm1d(2)).state_dict()
        wrapped = OrderedDict(("module." + k, v) for k, v in sd.items())
        wrapped["other.x"] = T.ones(1)
        assert mod.consume_prefix_in_state_dict_if_present(wrapped, "module.") is None
        keys[T.__name__] = list(wrapped)
    assert keys["monoflow"] == keys["torch"]
    net = monoflow.nn.Sequential(monoflow.nn.Linear(2, 2))
    sd = OrderedDict(("module." + k, v) for k, v in net.state_dict().items())
    m.consume_prefix_in_state_dict_if_present(sd, "module.")
    net.load_state_dict(sd)


def test_module_compile_returns_none_and_keeps_results():
    for T in BOTH:
        T.manual_seed(0)
        lin = T.nn.Linear(3, 2)
        x = T.ones(1, 3)
        before = lin(x).detach().numpy()
        if T is monoflow:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                assert lin.compile() is None
        else:
            assert T.nn.Module.compile.__name__ == "compile"
            continue
        np.testing.assert_array_equal(lin(x).detach().numpy(), before)


def test_private_collate_path_as_torch():
    for T in BOTH:
        collate = importlib.import_module(T.__name__ + ".utils.data._utils.collate")
        out = collate.default_collate([{"a": T.ones(2), "b": 1}, {"a": T.zeros(2), "b": 2}])
        assert out["a"].tolist() == [[1.0, 1.0], [0.0, 0.0]] and out["b"].tolist() == [1, 2]
        assert collate.default_convert(np.ones(2)).tolist() == [1.0, 1.0]


def _sparse(T):
    i = T.tensor([[0, 1, 1, 2], [1, 0, 2, 2]])
    v = T.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    return T.sparse_coo_tensor(i, v, (3, 3)), v


def test_sparse_mm_sum_addmm_and_gradients_as_torch():
    res = {}
    for T in BOTH:
        s, v = _sparse(T)
        d = T.arange(6.0).reshape(3, 2).requires_grad_()
        out = T.sparse.mm(s, d)
        (out * T.arange(6.0).reshape(3, 2)).sum().backward()
        res[T.__name__] = (out.tolist(), v.grad.tolist(), d.grad.tolist(), T.sparse.sum(s).item(),
                           T.sparse.sum(s, dim=1).to_dense().tolist(),
                           T.sparse.addmm(T.ones(3, 2), s.detach(), d.detach(), beta=0.5, alpha=2.0).tolist())
    assert res["monoflow"] == res["torch"]
    for T in BOTH:
        with pytest.raises((RuntimeError, IndexError)):  # (torch: IndexError from its dim check)
            T.sparse.mm(_sparse(T)[0], T.ones(3))


@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
@pytest.mark.parametrize("dim", [0, 1])
def test_sparse_softmax_over_specified_entries_as_torch(op, dim):
    res = {}
    w = np.arange(9.0).reshape(3, 3)
    for T in BOTH:
        s, v = _sparse(T)
        out = getattr(T.sparse, op)(s, dim)
        dense = out.to_dense()
        (dense * T.from_numpy(w).float()).sum().backward()
        res[T.__name__] = (dense.tolist(), v.grad.tolist(), out.is_sparse)
    np.testing.assert_allclose(res["monoflow"][0], res["torch"][0], rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(res["monoflow"][1], res["torch"][1], rtol=1e-5, atol=1e-6)
    assert res["monoflow"][2] and res["torch"][2]


def test_sparse_legacy_constructors_as_torch():
    for T in BOTH:
        i = T.tensor([[0, 1], [1, 0]])
        with pytest.warns(UserWarning):
            f = T.sparse.FloatTensor(i, T.tensor([1.0, 2.0]), T.Size([2, 2]))
        assert str(f.dtype).endswith("float32") and f.is_sparse and f.to_dense().tolist() == [[0, 1], [2, 0]]
        with pytest.warns(UserWarning):
            e = T.sparse.DoubleTensor(2, 3)
        assert tuple(e.shape) == (2, 3) and str(e.dtype).endswith("float64") and e.to_dense().sum().item() == 0


def test_module_paths_scripts_import_from_as_torch():
    for T in BOTH:
        n = T.__name__
        assert importlib.import_module(n + ".optim.adamw").AdamW is T.optim.AdamW
        assert callable(importlib.import_module(n + ".utils.model_zoo").load_url)
        types = importlib.import_module(n + ".types")
        assert isinstance(3, types._Number) and isinstance(2.5, types._Number)
        assert types._int is int and types._dtype is type(T.float32)
        act = importlib.import_module(n + ".nn.modules.transformer")._get_activation_fn
        x = T.tensor([-1.0, 0.5, 2.0])
        assert act("relu")(x).tolist() == T.relu(x).tolist()
        np.testing.assert_allclose(act("gelu")(x).numpy(), T.nn.functional.gelu(x).numpy(), rtol=1e-6)
        with pytest.raises(RuntimeError):
            act("tanh")


def test_assert_as_torch():
    for T in BOTH:
        T._assert(True, "fine")
        T._assert(T.tensor(True), "fine")
        with pytest.raises(AssertionError, match="bad size"):
            T._assert(False, "bad size")
        with pytest.raises(AssertionError):
            T._assert(T.tensor(1) == 2, "bad value")


def test_deprecated_sdp_kernel_switches_and_restores_as_torch():
    for T in BOTH:
        cuda = T.backends.cuda
        before = (cuda.flash_sdp_enabled(), cuda.math_sdp_enabled(), cuda.mem_efficient_sdp_enabled())
        with pytest.warns(FutureWarning):
            with cuda.sdp_kernel(enable_flash=False, enable_math=True, enable_mem_efficient=False):
                assert (cuda.flash_sdp_enabled(), cuda.math_sdp_enabled(), cuda.mem_efficient_sdp_enabled()) == (
                    False, True, False)
                q = T.ones(1, 2, 3, 4)
                assert tuple(T.nn.functional.scaled_dot_product_attention(q, q, q).shape) == (1, 2, 3, 4)
        assert (cuda.flash_sdp_enabled(), cuda.math_sdp_enabled(), cuda.mem_efficient_sdp_enabled()) == before
