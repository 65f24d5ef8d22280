"""OneFlow's own tests (test/misc, test/tensor) run against monoflow: the defects they found, checked against
torch or numpy (helper tg, session 5)."""
import os
import sys
import textwrap

import numpy as np
import pytest
import torch

import monoflow as flow
import monoflow.nn.functional as F


# ------------------------------------------------------------ mock_torch (misc/test_mock_scope.py)

def _run(code, ns):
    exec(compile(textwrap.dedent(code), "<mocked>", "exec"), ns)
    return ns


def test_mock_switches_swap_the_callers_torch_binding_and_keep_flow():
    import monoflow.mock_torch as mock

    ns = {"mock": mock, "flow": flow}
    _run("""
        with mock.enable():
            import torch
        with mock.disable():
            import torch
    """, ns)
    assert ns["torch"] is torch and ns["flow"] is flow
    _run("mock.enable()", ns)  # the `torch` imported under the earlier mock is bound again
    assert ns["torch"] is flow and ns["flow"] is flow and mock.is_enabled()
    _run("mock.disable()", ns)
    assert ns["torch"] is torch and ns["flow"] is flow and not mock.is_enabled()


def test_mock_disable_as_context_manager_restores_the_mock():
    import monoflow.mock_torch as mock

    ns = {"mock": mock}
    _run("""
        seen = []
        with mock.enable():
            import torch
            seen.append(torch.__package__)
            with mock.disable():
                import torch
                seen.append(torch.__package__)
            seen.append(torch.__package__)
        seen.append(mock.is_enabled())
    """, ns)
    assert ns["seen"] == ["monoflow", "torch", "monoflow", False]
    assert mock.disable().__enter__() is None  # a no-op handle when the mock is off


def test_mock_env_var_disables_it(monkeypatch):
    import monoflow.mock_torch as mock

    monkeypatch.setenv("ONEFLOW_DISABLE_MOCK_TORCH", "1")
    ns = {"mock": mock}
    _run("""
        with mock.enable():
            import torch
    """, ns)
    assert ns["torch"] is torch and not mock.is_enabled()


def test_mock_lazy_placeholders_iterate_index_subclass_and_block(capsys):
    import monoflow.mock_torch as mock

    with mock.enable(lazy=True, verbose=True):
        import torch as mocked
        import torch.nn.functional as mF

        assert list(mocked.not_exist) == [] and not mocked.not_exist
        with pytest.raises(IndexError):
            mocked.not_exist[0]

        class Sub(mocked.not_exist.Base):  # a base class monoflow lacks: derives from nothing
            pass

        assert Sub.__mro__ == (Sub, object)
        import torch.no_such_module  # noqa: F401
        out = capsys.readouterr().out
        assert "monoflow.no_such_module is not found in monoflow" in out
        # a missing blocked name is an AttributeError (libraries probe it with hasattr), not a placeholder
        for name in mock._BLOCKED:
            if not hasattr(flow.nn.functional, name):
                assert not hasattr(mF, name)
        assert mF.relu is flow.nn.functional.relu


def test_mock_third_party_module_imported_under_mock_is_set_aside(tmp_path):
    import monoflow.mock_torch as mock

    (tmp_path / "tg_third_party.py").write_text("import torch\n\ndef f():\n    return torch.__package__\n")
    sys.path.insert(0, str(tmp_path))
    try:
        ns = {"mock": mock}
        _run("""
            with mock.enable():
                from tg_third_party import f
                inside = f()
            import tg_third_party
            outside = tg_third_party.f()
        """, ns)
        assert ns["inside"] == "monoflow" and ns["outside"] == "torch"
        with mock.enable():  # the mocked copy comes back with the mock
            import tg_third_party as again
            assert again.f() == "monoflow"
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("tg_third_party", None)


# ------------------------------------------------------------ misc/test_error_msg.py, test_stack_getter.py

def test_oneflow_internal_exception_names_are_the_builtin_classes():
    exc = flow._oneflow_internal.exception
    assert exc.TypeException is TypeError and exc.RuntimeException is RuntimeError
    assert exc.IndexException is IndexError and exc.ValueException is ValueError


@pytest.mark.parametrize("bad, name", [(torch.randn(2, 2), "torch.Tensor"), (np.zeros((2, 2)), "numpy.ndarray"),
                                       (F.pad, "function")])
def test_pad_names_a_foreign_input_type(bad, name):
    with pytest.raises(TypeError, match=rf"pad\(\): argument 'input' \(position 1\) must be Tensor, not {name}"):
        F.pad(bad)
    with pytest.raises(TypeError, match="pad"):
        torch.nn.functional.pad(bad if not isinstance(bad, torch.Tensor) else bad.numpy(), (1, 1))
    with pytest.raises(TypeError, match=r"pad\(\): missing required argument 'pad'"):
        F.pad(flow.zeros(2))


def test_get_current_stack_quotes_the_callers():
    def inner():
        return flow._oneflow_internal.GetCurrentStack()

    stack = inner()
    assert "flow._oneflow_internal.GetCurrentStack" in stack and "stack = inner()" in stack
    assert stack.rstrip().endswith("return flow._oneflow_internal.GetCurrentStack()")


# ------------------------------------------------------------ misc/test_distributed_env_vars.py

def test_distributed_rank_and_size_without_init_come_from_the_environment(monkeypatch):
    import monoflow.distributed as dist

    assert not dist.is_initialized()
    assert (dist.get_world_size(), dist.get_rank(), dist.get_local_rank()) == (1, 0, 0)
    monkeypatch.setenv("LOCAL_RANK", "3")
    assert dist.get_local_rank() == 3 == flow.env.get_local_rank()


# ------------------------------------------------------------ tensor/test_tensor_and_ndarray_compatibility.py

@pytest.mark.parametrize("op", ["+", "-", "*", "/", "**", "//", "%", "==", "!=", ">", "<="])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
def test_tensor_op_ndarray_gives_torchs_tensor(op, dtype):
    rng = np.random.default_rng(0)
    a = (rng.integers(1, 9, (2, 3)) if dtype == np.int64 else rng.standard_normal((2, 3)) + 3).astype(dtype)
    b = rng.integers(1, 5, (2, 3)).astype(np.float64) if op in ("**", "//", "%") else rng.standard_normal((2, 3))
    x, t = flow.tensor(a), torch.tensor(a)
    got = eval(f"x {op} b")
    # torch compares a tensor with an array by Python's default (a bool): comparisons are checked against numpy
    want = eval(f"a {op} b") if op in ("==", "!=", ">", "<=") else eval(f"t {op} b").numpy()
    assert isinstance(got, flow.Tensor) and str(got.dtype).split(".")[-1] == str(want.dtype).replace("bool", "bool")
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-6)
    rev = eval(f"b {op} x")  # torch refuses `ndarray op tensor` for some ops; monoflow gives NumPy's ufunc answer
    np.testing.assert_allclose(rev.numpy(), eval(f"b {op} a"), rtol=1e-6)
    assert isinstance(rev, flow.Tensor)


def test_ndarray_operand_keeps_autograd_and_ufuncs_return_tensors():
    y = flow.ones(3, requires_grad=True)
    (y * np.array([1.0, 2.0, 3.0], dtype=np.float32)).sum().backward()
    assert y.grad.tolist() == [1.0, 2.0, 3.0]
    x = flow.tensor([0.5, 1.0])
    assert isinstance(np.exp(x), flow.Tensor) and isinstance(np.exp(torch.tensor([0.5])), torch.Tensor)
    np.testing.assert_allclose(np.exp(x).numpy(), np.exp([0.5, 1.0]), rtol=1e-6)
    assert isinstance(np.cbrt(x), flow.Tensor)  # no monoflow twin: NumPy computes, the result is wrapped
    assert isinstance(np.add.reduce(x), np.floating)  # ufunc methods stay NumPy's
    out = np.empty(2, dtype=np.float32)
    assert np.add(x, x, out=out) is out and out.tolist() == [1.0, 2.0]
    assert isinstance(np.float32(2) * x, flow.Tensor) and (np.float32(2) * x).dtype == flow.float32


# ------------------------------------------------------------ tensor/test_bfloat16_activation.py

@pytest.mark.parametrize("name", ["mish", "hardswish", "softsign"])
@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_half_activations_round_once_like_the_float32_result(name, dtype):
    a = np.random.default_rng(1).standard_normal(256) * 4
    x = flow.tensor(a, dtype=getattr(flow, dtype))
    got = getattr(F, name)(x)
    want = getattr(F, name)(x.float()).to(x.dtype)
    assert got.dtype == x.dtype and np.array_equal(got.float().numpy(), want.float().numpy())
    if name != "softsign":  # torch's softsign rounds per step in half precision; its mish/hardswish once
        t = getattr(torch.nn.functional, name)(torch.tensor(a, dtype=getattr(torch, dtype)))
        assert np.array_equal(got.float().numpy(), t.float().numpy())
    xg = flow.tensor(a, dtype=getattr(flow, dtype), requires_grad=True)
    tg = torch.tensor(a, dtype=getattr(torch, dtype), requires_grad=True)
    getattr(F, name)(xg).sum().backward()
    getattr(torch.nn.functional, name)(tg).sum().backward()
    assert xg.grad.dtype == xg.dtype
    np.testing.assert_allclose(xg.grad.float().numpy(), tg.grad.float().numpy(), atol=2e-2, rtol=2e-2)
    y = flow.tensor(a[:4], dtype=getattr(flow, dtype))
    if name != "softsign":
        assert getattr(F, name)(y, inplace=True) is y and y.dtype == getattr(flow, dtype)


def test_top_level_softshrink_matches_torch_functional():
    a = np.linspace(-2, 2, 9)
    for lambd in (0.5, 1.0):
        np.testing.assert_allclose(flow.softshrink(flow.tensor(a), lambd).numpy(),
                                   torch.nn.functional.softshrink(torch.tensor(a), lambd).numpy())


# ------------------------------------------------------------ graph/test_graph_lr_scheduler.py, test_graph_linear_train.py

def test_graph_debug_mode_logs_each_train_steps_lr(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ONEFLOW_DEBUG_MODE", "True")

    def run(n):
        p = flow.nn.Parameter(flow.ones(3))
        opt = flow.optim.SGD([p], lr=0.1)
        sch = flow.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)

        class G(flow.nn.Graph):
            def __init__(self):
                super().__init__()
                self.add_optimizer(opt, lr_sch=sch)

            def build(self, x):
                loss = (p * x).sum()
                loss.backward()
                return loss

        g = G()
        for _ in range(n):
            g(flow.ones(3))
        path = tmp_path / "log" / "monoflow_debug" / f"{os.getpid()}-train_step2lr.csv"
        lines = path.read_text().splitlines()
        assert lines[0] == "train_step,lr" and [int(l.split(",")[0]) for l in lines[1:]] == list(range(n))
        return [float(l.split(",")[1]) for l in lines[1:]]

    tp = torch.nn.Parameter(torch.ones(3))
    topt = torch.optim.SGD([tp], lr=0.1)
    tsch = torch.optim.lr_scheduler.StepLR(topt, step_size=2, gamma=0.5)
    want = []
    for _ in range(5):
        want.append(topt.param_groups[0]["lr"])
        topt.step()
        tsch.step()
    assert run(5) == pytest.approx(want)
    assert run(3) == pytest.approx(want[:3])  # a new graph starts the file afresh


def test_tensor_to_tensor_class_is_the_tensor_itself():
    w = flow.nn.Linear(2, 3).weight
    assert w.to(flow.Tensor) is w
    with pytest.raises(TypeError):
        torch.ones(1).to(torch.Tensor)  # torch has no such form; OneFlow's graph code uses it


# ------------------------------------------------------------ graph/test_graph_clip_grad_norm.py (OneFlow's _C signatures)

@pytest.mark.parametrize("ta, tb, alpha", [(False, False, 1.0), (False, True, 1.0), (True, False, 0.5),
                                           (True, True, 2.0)])
def test_functional_matmul_transposes_and_scales(ta, tb, alpha):
    rng = np.random.default_rng(2)
    a, b = rng.standard_normal((2, 3, 4)), rng.standard_normal((2, 4, 5))
    a_in, b_in = (a.transpose(0, 2, 1) if ta else a), (b.transpose(0, 2, 1) if tb else b)
    x = flow.tensor(a_in, requires_grad=True)
    got = flow._C.matmul(x, flow.tensor(b_in), transpose_a=ta, transpose_b=tb, alpha=alpha)
    t = torch.tensor(a_in, requires_grad=True)
    want = alpha * torch.matmul(t.transpose(-2, -1) if ta else t, torch.tensor(b_in).transpose(-2, -1) if tb
                                else torch.tensor(b_in))
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-10)
    got.sum().backward()
    want.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-10)
    with pytest.raises(RuntimeError, match="transpose_a"):
        flow._C.matmul(flow.ones(3), flow.ones(3), transpose_a=True)


def test_functional_sparse_softmax_cross_entropy_takes_logits_first():
    logits = np.random.default_rng(3).standard_normal((4, 6))
    label = np.array([0, 5, 2, 2])
    got = flow._C.sparse_softmax_cross_entropy(flow.tensor(logits), flow.tensor(label))
    want = torch.nn.functional.cross_entropy(torch.tensor(logits), torch.tensor(label), reduction="none")
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)
    by_labels = F.sparse_softmax_cross_entropy(flow.tensor(label), flow.tensor(logits))  # OneFlow's F order
    np.testing.assert_allclose(by_labels.numpy(), want.numpy(), rtol=1e-12)


def test_graph_names_count_per_class_name():  # graph/test_graph.py::test_graph_name
    class ACustomGraph(flow.nn.Graph):
        def build(self, x):
            return x

    class BCustomGraph(ACustomGraph):
        pass

    for _ in range(2):
        flow.nn.Graph._child_init_cnt.clear()
        for i in range(3):
            assert ACustomGraph().name == f"ACustomGraph_{i}" and BCustomGraph().name == f"BCustomGraph_{i}"
