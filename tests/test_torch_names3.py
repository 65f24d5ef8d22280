"""torch names of ops_torch_names3 against torch: values, gradients, dtypes and the errors torch raises."""
import warnings

import numpy as np
import pytest
import torch

import monoflow as flow

RNG = np.random.default_rng(0)


def both(fn, *arrays, **kw):
    return fn(flow, *[flow.tensor(a) for a in arrays], **kw), fn(torch, *[torch.tensor(a) for a in arrays], **kw)


def close(a, b, **kw):
    np.testing.assert_allclose(np.asarray(a.detach().numpy() if hasattr(a, "detach") else a),
                               np.asarray(b.detach().numpy() if hasattr(b, "detach") else b),
                               **({"rtol": 1e-5, "atol": 1e-6} | kw))


@pytest.mark.parametrize("p,dim,maxnorm", [(2, 0, 1.0), (1, 1, 0.5), (3, -1, 2.0)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_renorm_values_and_grads(p, dim, maxnorm, dtype):
    x = RNG.standard_normal((3, 4, 2)).astype(dtype)
    out = []
    for lib in (flow, torch):
        t = lib.tensor(x, requires_grad=True)
        y = lib.renorm(t, p, dim, maxnorm)
        (y * y).sum().backward()
        out.append((y, t.grad, t.detach().clone().renorm_(p, dim, maxnorm)))
    for a, b in zip(*out):
        close(a, b, rtol=1e-4, atol=1e-5)
    with pytest.raises(RuntimeError):
        flow.renorm(flow.ones(2), -1, 0, 1.0)
    for lib in (flow, torch):
        with pytest.raises(IndexError):
            lib.renorm(lib.ones(2, 3), 2, 5, 1.0)


def test_put_and_put_accumulate():
    x = RNG.standard_normal((3, 4)).astype(np.float32)
    idx, src = np.array([0, 5, -1, 5]), np.arange(4, dtype=np.float32)
    for acc in (False, True):
        a, b = both(lambda L, x, i, s: L.put(x, i, s, accumulate=acc), x, idx, src)
        if acc:
            close(a, b)
        else:  # repeated index: torch leaves which write wins unspecified; compare the other positions
            keep = np.ones(12, bool)
            keep[5] = False
            close(a.numpy().reshape(-1)[keep], b.numpy().reshape(-1)[keep])
    t = flow.tensor(x).t()  # non-contiguous self
    t.put_(flow.tensor([1]), flow.tensor([9.0]))
    assert t.reshape(-1)[1].item() == 9.0
    with pytest.raises(IndexError):
        flow.zeros(3).put_(flow.tensor([3]), flow.tensor([1.0]))
    with pytest.raises(RuntimeError):
        flow.zeros(3).put_(flow.tensor([0, 1]), flow.tensor([1.0]))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_frexp_matches_torch(dtype):
    x = np.concatenate([RNG.standard_normal(50) * 10.0 ** RNG.integers(-20, 20, 50),
                        [0.0, -0.0, 1.0, 0.5, 2.0 ** 10, -3.0, np.inf, -np.inf, np.nan]]).astype(dtype)
    a, b = both(lambda L, x: L.frexp(x), x)
    close(a.mantissa, b.mantissa, rtol=0, atol=0)
    assert a.exponent.dtype == flow.int32
    np.testing.assert_array_equal(a.exponent.numpy(), b.exponent.numpy())
    assert type(a).__module__ == "monoflow.return_types"
    with pytest.raises(RuntimeError, match="frexp"):
        flow.frexp(flow.tensor([1, 2]))


@pytest.mark.parametrize("kw", [{"bins": 5}, {"bins": 4, "range": (-1.0, 1.0)}, {"bins": 7, "density": True},
                                {"bins": 3, "weight": True}])
def test_histogram_matches_torch(kw):
    x = RNG.standard_normal(40).astype(np.float32)
    w = RNG.random(40).astype(np.float32)
    res = []
    for lib in (flow, torch):
        k = dict(kw)
        if k.pop("weight", False):
            k["weight"] = lib.tensor(w)
        res.append(lib.histogram(lib.tensor(x), **k))
    close(res[0].hist, res[1].hist, rtol=1e-5)
    close(res[0].bin_edges, res[1].bin_edges)
    edges = np.array([-2.0, -0.5, 0.0, 3.0], np.float32)
    a, b = flow.histogram(flow.tensor(x), flow.tensor(edges)), torch.histogram(torch.tensor(x), torch.tensor(edges))
    close(a.hist, b.hist)


@pytest.mark.parametrize("shape,kw", [((7,), {}), ((5, 6), {"spacing": 2.0}), ((4, 5, 3), {"dim": 1}),
                                      ((6, 4), {"edge_order": 2}), ((5, 4), {"spacing": [0.5, 3.0]}),
                                      ((3, 6), {"dim": [1], "edge_order": 2})])
def test_gradient_matches_torch(shape, kw):
    x = RNG.standard_normal(shape).astype(np.float64)
    a, b = flow.gradient(flow.tensor(x), **kw), torch.gradient(torch.tensor(x), **kw)
    assert len(a) == len(b)
    for u, v in zip(a, b):
        close(u, v, rtol=1e-10, atol=1e-12)


def test_gradient_with_coordinates_matches_torch():
    x = RNG.standard_normal(6)
    c = np.sort(RNG.random(6)) * 5
    a = flow.gradient(flow.tensor(x), spacing=[flow.tensor(c)])
    b = torch.gradient(torch.tensor(x), spacing=[torch.tensor(c)])
    close(a[0], b[0], rtol=1e-10)


def test_copy_forms_equal_the_views_and_share_no_memory():
    x = RNG.standard_normal((2, 3)).astype(np.float32)
    cases = {"permute_copy": ((1, 0),), "transpose_copy": (0, 1), "t_copy": (), "view_copy": ((6,),),
             "unsqueeze_copy": (1,), "expand_copy": ((4, 2, 3),), "select_copy": (1, 2), "diagonal_copy": (),
             "as_strided_copy": ((3, 2), (1, 3)), "detach_copy": (), "alias_copy": (), "squeeze_copy": (),
             "unfold_copy": (1, 2, 1)}
    for name, args in cases.items():
        ft, tt = flow.tensor(x), torch.tensor(x)
        a, b = getattr(flow, name)(ft, *args), getattr(torch, name)(tt, *args)
        close(a, b, err_msg=name)
        assert a.data_ptr() != ft.data_ptr(), name
    for name, args in {"split_copy": (1,), "unbind_copy": (1,), "split_with_sizes_copy": ([1, 1],)}.items():
        for a, b in zip(getattr(flow, name)(flow.tensor(x), *args), getattr(torch, name)(torch.tensor(x), *args)):
            close(a, b, err_msg=name)


def test_unsafe_splits_and_small_queries():
    x = np.arange(10, dtype=np.float32)
    for name, args in (("unsafe_chunk", (3,)), ("unsafe_split", (4,)), ("unsafe_split_with_sizes", ([3, 7],))):
        a, b = getattr(flow, name)(flow.tensor(x), *args), getattr(torch, name)(torch.tensor(x), *args)
        assert [t.tolist() for t in a] == [t.tolist() for t in b]
        assert [t.tolist() for t in getattr(flow.tensor(x), name)(*args)] == [t.tolist() for t in b]
    t = flow.ones(2)
    assert flow.get_device(t) == torch.get_device(torch.ones(2)) == -1
    assert t.is_cpu and not t.is_meta and not t.is_quantized and not t.is_nested and not t.is_inference()
    assert flow.frobenius_norm(flow.tensor([[3.0, 4.0]])).item() == 5.0
    m = RNG.standard_normal((3, 4)).astype(np.float32)
    warnings.filterwarnings("ignore", message="at::.*_norm is deprecated")  # torch's, for its own names
    close(flow.nuclear_norm(flow.tensor(m)), torch.nuclear_norm(torch.tensor(m)), rtol=1e-4)
    close(flow.frobenius_norm(flow.tensor(m), dim=(0, 1)), torch.frobenius_norm(torch.tensor(m), dim=(0, 1)))


def test_tensor_methods_against_torch():
    a = RNG.standard_normal((3, 3)).astype(np.float32)
    m1, m2 = RNG.standard_normal((3, 2)).astype(np.float32), RNG.standard_normal((2, 3)).astype(np.float32)
    f, t = flow.tensor(a), torch.tensor(a)
    close(f.clone().addmm_(flow.tensor(m1), flow.tensor(m2), beta=0.5, alpha=2),
          t.clone().addmm_(torch.tensor(m1), torch.tensor(m2), beta=0.5, alpha=2))
    close(f.clone().neg_(), t.clone().neg_())
    close(f.hardshrink(0.3), t.hardshrink(0.3))
    close(f.prelu(flow.tensor([0.25])), t.prelu(torch.tensor([0.25])))
    v = a[0]
    close(flow.tensor(v).vdot(flow.tensor(a[1])), torch.tensor(v).vdot(torch.tensor(a[1])))
    close(flow.tensor(v).ger(flow.tensor(a[1])), torch.tensor(v).ger(torch.tensor(a[1])))
    assert f.cfloat().dtype == flow.complex64 and f.cdouble().dtype == flow.complex128
    assert f.permute(1, 0).dim_order() == t.permute(1, 0).dim_order()
    assert f.new_empty_strided((2, 3), (1, 2)).stride() == t.new_empty_strided((2, 3), (1, 2)).stride()
    assert f.const_data_ptr() == f.data_ptr()
    assert not f.is_neg() and f.resolve_neg() is f


def test_resize_keeps_the_leading_elements_as_torch():
    for sizes in [(2, 2), (3, 4), (0,), (6,)]:
        a, b = flow.arange(6.0), torch.arange(6.0)
        a.resize_(*sizes), b.resize_(*sizes)
        n = min(6, int(np.prod(sizes)))
        assert tuple(a.shape) == tuple(b.shape)
        assert a.reshape(-1)[:n].tolist() == b.reshape(-1)[:n].tolist()
    assert tuple(flow.zeros(4).resize_as_(flow.ones(2, 2)).shape) == (2, 2)
    with pytest.raises(RuntimeError, match="require grad"):
        flow.ones(2, requires_grad=True).resize_(4)


def test_as_subclass_keeps_data_and_graph():
    class Mine(flow.Tensor):
        pass

    x = flow.ones(2, requires_grad=True)
    y = (x * 3).as_subclass(Mine)
    assert type(y) is Mine and y.tolist() == [3.0, 3.0]
    y.sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]


@pytest.mark.parametrize("cell", ["lstm_cell", "gru_cell", "rnn_tanh_cell", "rnn_relu_cell"])
def test_torch_level_rnn_cells_match_torch(cell):
    gates = {"lstm_cell": 4, "gru_cell": 3}.get(cell, 1)
    x, h = RNG.standard_normal((2, 3)).astype(np.float32), RNG.standard_normal((2, 4)).astype(np.float32)
    w_ih, w_hh = (RNG.standard_normal((gates * 4, 3)).astype(np.float32),
                  RNG.standard_normal((gates * 4, 4)).astype(np.float32))
    b_ih, b_hh = RNG.standard_normal(gates * 4).astype(np.float32), RNG.standard_normal(gates * 4).astype(np.float32)
    outs = []
    for lib in (flow, torch):
        T = lib.tensor
        hx = (T(h), T(h * 0.5)) if cell == "lstm_cell" else T(h)
        out = getattr(lib, cell)(T(x), hx, T(w_ih), T(w_hh), T(b_ih), T(b_hh))
        outs.append(out if isinstance(out, tuple) else (out,))
    for a, b in zip(*outs):
        close(a, b, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("transposed", [False, True])
@pytest.mark.parametrize("n", [1, 2, 3])
def test_convolution_matches_torch(n, transposed):
    x = RNG.standard_normal((1, 4) + (5,) * n).astype(np.float32)
    w = RNG.standard_normal(((4, 3) if transposed else (6, 2)) + (3,) * n).astype(np.float32)
    b = RNG.standard_normal(6).astype(np.float32)
    args = ([2] * n, [1] * n, [1] * n, transposed, [1 if transposed else 0] * n, 2)
    a = flow.convolution(flow.tensor(x), flow.tensor(w), flow.tensor(b), *args)
    c = torch.convolution(torch.tensor(x), torch.tensor(w), torch.tensor(b), *args)
    close(a, c, rtol=1e-4, atol=1e-4)


def test_max_pool1d_with_indices_and_empty_permuted():
    x = RNG.standard_normal((2, 3, 9)).astype(np.float32)
    a, b = flow.max_pool1d_with_indices(flow.tensor(x), 3, 2), torch.max_pool1d_with_indices(torch.tensor(x), 3, 2)
    close(a[0], b[0])
    assert a[1].tolist() == b[1].tolist()
    for layout in [(0, 1, 2), (0, 2, 1), (2, 0, 1)]:
        assert flow.empty_permuted((2, 3, 4), layout).stride() == torch.empty_permuted((2, 3, 4), layout).stride()
    with pytest.raises(RuntimeError):
        flow.empty_permuted((2, 3), (0, 0))


def test_sym_helpers_cond_and_while_loop():
    assert (flow.sym_int(3.7), flow.sym_float(2), flow.sym_max(1, 4), flow.sym_min(1, 4), flow.sym_not(False),
            flow.sym_sqrt(16), flow.sym_ite(True, "a", "b"), flow.sym_sum([1, 2, 3])) == (
        3, 2.0, 4, 1, True, 4.0, "a", 6)
    x = flow.tensor([1.0, 2.0])
    assert flow.cond(x.sum() > 2, lambda t: t * 2, lambda t: t, (x,)).tolist() == [2.0, 4.0]
    assert flow.while_loop(lambda i, s: i < 4, lambda i, s: (i + 1, s + i), (flow.tensor(0), flow.tensor(0)))[1] \
        .item() == 6
    with pytest.raises(RuntimeError):
        flow.cond(flow.ones(2), lambda: 1, lambda: 2)


def test_device_module_and_misc_queries():
    assert flow.get_device_module("cpu") is flow.cpu
    assert flow.compiled_with_cxx11_abi() is True and flow.is_vulkan_available() is False
    assert flow.init_num_threads() is None
    x = flow.ones(4, 3, 2)
    assert flow.feature_alpha_dropout(x, 0.5, False) is x
    y = flow.feature_dropout_(flow.ones(64, 8, 3), 0.5, True)
    per_channel = y.numpy().reshape(64, 8, 3)
    assert ((per_channel == 0).all(2) | (per_channel == 2).all(2)).all()


def test_storages_tell_sharing_and_size_as_torch():
    for lib in (flow, torch):
        x = lib.arange(6.0)
        v = x.view(2, 3)[1:]
        assert v.untyped_storage().data_ptr() == x.untyped_storage().data_ptr() == x.data_ptr()
        assert v.untyped_storage().nbytes() == 24 and len(v.untyped_storage()) == 24
        assert lib.ones(3).untyped_storage().data_ptr() != x.untyped_storage().data_ptr()
        assert v.untyped_storage().device == x.device
    s = flow.arange(6.0).storage()
    assert (s.size(), s.dtype, s[4], s.element_size()) == (6, flow.float32, 4.0, 4)
    x = flow.zeros(4)
    x.storage()[2] = 5.0  # writes through
    assert x.tolist() == [0.0, 0.0, 5.0, 0.0]
    assert flow.ones(2).untyped_storage().tolist() == torch.ones(2).untyped_storage().tolist()
    assert flow.UntypedStorage(8).tolist() == [0] * 8
    assert isinstance(flow.ones(1).untyped_storage(), flow.UntypedStorage)
    with pytest.raises(TypeError):
        flow.UntypedStorage("x")


def test_safetensors_torch_module_runs_on_monoflow(tmp_path):
    # safetensors.torch asks storages for sharing and compares devices with torch.device("meta")
    pytest.importorskip("safetensors")
    code = f"""
import monoflow.mock_torch as m; m.enable()
import torch
from safetensors.torch import save_file, load_file
w = torch.arange(6.0).reshape(2, 3)
save_file({{"w": w, "b": torch.ones(3, dtype=torch.int64)}}, r"{tmp_path / 'm.safetensors'}")
out = load_file(r"{tmp_path / 'm.safetensors'}")
assert type(out["w"]).__module__ == "monoflow", type(out["w"])
assert out["w"].tolist() == w.tolist() and out["b"].dtype == torch.int64
print("ok")
"""
    import subprocess
    import sys

    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stdout + r.stderr


def test_data_ptr_reads_the_values_of_the_queued_ops():
    import ctypes

    for n in (6, 1 << 16):
        t = flow.arange(float(n)) * 2  # queued on the device's stream
        view = np.ctypeslib.as_array(ctypes.cast(t.data_ptr(), ctypes.POINTER(ctypes.c_float)), (n,))
        np.testing.assert_array_equal(view, np.arange(n, dtype=np.float32) * 2)


def test_typed_storage_constructors_and_resize_as_names():
    assert flow.TypedStorage(4).tolist() == [0.0] * 4 and flow.TypedStorage(2, dtype=flow.int64).dtype == flow.int64
    view = flow.TypedStorage(wrap_storage=flow.arange(4.0).untyped_storage(), dtype=flow.int32)
    assert (view.size(), view.dtype) == (4, flow.int32)
    assert flow.TypedStorage(flow.ones(3)).size() == 3
    with pytest.raises(TypeError):
        flow.TypedStorage("x")
    assert tuple(flow.zeros(4).resize_as(tensor=flow.ones(2, 2)).shape) == (2, 2)
    dl = flow.utils.data.DataLoader(list(range(6)), batch_size=2, in_order=False)
    assert [b.tolist() for b in dl] == [[0, 1], [2, 3], [4, 5]]


def test_linalg_and_igamma_tensor_methods_match_torch():
    rng = np.random.default_rng(3)
    a = rng.standard_normal((3, 3)) + 3 * np.eye(3)
    b = rng.standard_normal((3, 2))
    f, t = flow.tensor(a), torch.tensor(a)
    for x, y in zip(f.lu(), t.lu()):
        close(x, y, rtol=1e-10, atol=1e-12)
    close(flow.tensor(b).lu_solve(*f.lu()), torch.tensor(b).lu_solve(*t.lu()), rtol=1e-9, atol=1e-10)
    up = np.triu(a)
    close(flow.tensor(b).triangular_solve(flow.tensor(up)).solution,
          torch.tensor(b).triangular_solve(torch.tensor(up)).solution, rtol=1e-10, atol=1e-12)
    qa, qt = f.geqrf(), t.geqrf()
    close(qa[0].orgqr(qa[1]), qt[0].orgqr(qt[1]), rtol=1e-9, atol=1e-10)
    close(qa[0].ormqr(qa[1], flow.tensor(b)), qt[0].ormqr(qt[1], torch.tensor(b)), rtol=1e-9, atol=1e-10)
    s, x = rng.random(5) * 3 + 0.1, rng.random(5) * 4
    close(flow.tensor(s).igamma(flow.tensor(x)), torch.tensor(s).igamma(torch.tensor(x)), rtol=1e-7)
    close(flow.tensor(s).igammac_(flow.tensor(x)), torch.tensor(s).igammac_(torch.tensor(x)), rtol=1e-7)


@pytest.mark.parametrize("n", [1, 2, 3])
def test_nn_grad_conv_gradients_match_torch(n):
    rng = np.random.default_rng(n)
    x = rng.standard_normal((2, 4) + (7,) * n).astype(np.float32)
    w = rng.standard_normal((6, 2) + (3,) * n).astype(np.float32)
    out = getattr(torch.nn.functional, f"conv{n}d")(torch.tensor(x), torch.tensor(w), None, 2, 1, 1, 2)
    go = rng.standard_normal(tuple(out.shape)).astype(np.float32)
    for which, first, second in (("input", x.shape, w), ("weight", x, w.shape)):
        args = [lambda L, v: v if isinstance(v, tuple) else L.tensor(v)]
        a = getattr(flow.nn.grad, f"conv{n}d_{which}")(args[0](flow, first), args[0](flow, second),
                                                       flow.tensor(go), 2, 1, 1, 2)
        b = getattr(torch.nn.grad, f"conv{n}d_{which}")(args[0](torch, first), args[0](torch, second),
                                                        torch.tensor(go), 2, 1, 1, 2)
        close(a, b, rtol=1e-4, atol=1e-4)


def test_set_nonzero_static_adjoint_and_torch_function_checks():
    for lib in (flow, torch):
        x, y = lib.zeros(3), lib.ones(2)
        x.set_(y)
        assert x.is_set_to(y) and x.tolist() == [1.0, 1.0]
        y.add_(1)
        assert x.tolist() == [2.0, 2.0]  # an alias, not a copy
        assert not lib.ones(2).is_set_to(lib.ones(2))
        assert lib.tensor([0, 3, 5, 0, 7]).nonzero_static(size=2).tolist() == [[1], [2]]
        assert lib.tensor([0, 3]).nonzero_static(size=3, fill_value=9).tolist() == [[1], [9], [9]]
        assert lib.tensor([[1.0, 2.0], [3.0, 4.0]]).adjoint().tolist() == [[1.0, 3.0], [2.0, 4.0]]
        assert lib.ones(1).name is None and lib.ones(1).output_nr == 0
    assert flow.nn.functional.has_torch_function_variadic(flow.ones(1)) is False
    assert flow.nn.functional.handle_torch_function(flow.mul, (), flow.ones(2), 3).tolist() == [3.0, 3.0]


def test_resize_of_numpy_memory_stays_on_it_or_raises_as_torch():
    # A tensor on a numpy array's memory used to take new memory on resize_ and silently stop sharing
    # (crash sweep 09). As torch: a shape that fits stays on the array, a larger one raises.
    for lib in (flow, torch):
        a = np.arange(10.0)
        t = lib.from_numpy(a)
        t.resize_(2, 3)
        assert tuple(t.shape) == (2, 3) and t.stride() == (3, 1) and t.data_ptr() == a.ctypes.data
        t.fill_(7.0)
        np.testing.assert_array_equal(a, [7.0] * 6 + [6.0, 7.0, 8.0, 9.0])
        for too_big in (100, 11):
            with pytest.raises(RuntimeError, match="Trying to resize storage that is not resizable"):
                t.resize_(too_big)
        assert tuple(t.resize_(10).shape) == (10,) and t.tolist() == a.tolist()
        v = lib.from_numpy(a)[2:]  # from a storage offset: 8 elements fit, 9 do not
        assert tuple(v.resize_(2, 4).shape) == (2, 4) and v.storage_offset() == 2
        with pytest.raises(RuntimeError, match="Trying to resize storage that is not resizable"):
            v.resize_(9)
        e = lib.from_numpy(np.arange(6.0)).resize_(2, 0, 3)
        assert tuple(e.shape) == (2, 0, 3) and e.stride() == (3, 3, 1)
    owned = flow.arange(4.0)  # memory monoflow owns still grows
    assert owned.resize_(8).shape == (8,) and owned[:4].tolist() == [0.0, 1.0, 2.0, 3.0]
