"""What OneFlow's own test suite (python/oneflow/test/modules, run through its
autotest harness) needs from monoflow beyond the ops: ``flow.unittest``,
``flow._oneflow_internal.Tensor``, and behaviours its random programs hit
(in-place ops on reduction results, scalar-first shifts). Oracles: torch and
numpy."""
import unittest

import numpy as np
import pytest

import monoflow as flow
from helpers import TORCH

torch = TORCH
needs_torch = pytest.mark.skipif(torch is None, reason="torch is not installed")


# --- flow.unittest -----------------------------------------------------------

def test_unittest_testcase_is_a_unittest_testcase():
    assert issubclass(flow.unittest.TestCase, unittest.TestCase)


def _run(case_class):
    result = unittest.TestResult()
    unittest.defaultTestLoader.loadTestsFromTestCase(case_class).run(result)
    return result


def test_skip_unless_matches_the_job_shape(monkeypatch):
    for name in ("ONEFLOW_TEST_NODE_NUM", "ONEFLOW_TEST_DEVICE_NUM", "ONEFLOW_TEST_WORLD_SIZE", "WORLD_SIZE"):
        monkeypatch.delenv(name, raising=False)
    assert flow.unittest.env.node_size() == 1 and flow.unittest.env.device_num() == 1

    @flow.unittest.skip_unless_1n1d()
    class Runs(flow.unittest.TestCase):
        def test_it(self):
            self.assertEqual(1, 1)

    @flow.unittest.skip_unless_1n2d()
    class Skipped(flow.unittest.TestCase):
        def test_it(self):
            raise AssertionError("must not run")

    ran, skipped = _run(Runs), _run(Skipped)
    assert ran.testsRun == 1 and ran.wasSuccessful() and not ran.skipped
    assert len(skipped.skipped) == 1 and skipped.wasSuccessful()
    assert "node_size is 1 and device_num is 2" in skipped.skipped[0][1]


def test_skip_unless_reads_oneflow_test_variables(monkeypatch):
    monkeypatch.setenv("ONEFLOW_TEST_DEVICE_NUM", "4")
    assert flow.unittest.env.device_num() == 4
    assert flow.unittest.skip_unless_1n4d()(len) is len
    assert flow.unittest.skip_unless_1n1d()(len) is not len
    monkeypatch.setenv("ONEFLOW_TEST_NODE_NUM", "2")
    monkeypatch.setenv("ONEFLOW_TEST_DEVICE_NUM", "1")
    assert flow.unittest.skip_unless_2n1d()(len) is len
    monkeypatch.setenv("ONEFLOW_TEST_DEVICE_NUM", "two")
    with pytest.raises(ValueError, match="ONEFLOW_TEST_DEVICE_NUM"):
        flow.unittest.env.device_num()


def test_device_num_follows_the_world_size(monkeypatch):
    for name in ("ONEFLOW_TEST_NODE_NUM", "ONEFLOW_TEST_DEVICE_NUM", "ONEFLOW_TEST_WORLD_SIZE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("WORLD_SIZE", "2")
    assert flow.unittest.env.world_size() == 2 and flow.unittest.env.device_num() == 2
    assert flow.unittest.env.has_world_size()
    assert flow.unittest.skip_unless_1n2d()(len) is len


def test_num_nodes_required_and_eager():
    @flow.unittest.num_nodes_required(2)
    def f():
        pass

    assert f.__oneflow_test_case_num_nodes_required__ == 2
    with pytest.raises(TypeError, match="num_nodes_required"):
        flow.unittest.num_nodes_required("2")
    assert flow.unittest.env.eager_execution_enabled() is True


# --- flow._oneflow_internal ----------------------------------------------------

def test_oneflow_internal_tensor_and_broadcast():
    assert flow._oneflow_internal.Tensor is flow.Tensor
    assert isinstance(flow.ones(2), flow._oneflow_internal.Tensor)
    assert flow._oneflow_internal.cpu_broadcast(b"\x00ab", 0) == b"\x00ab"
    with pytest.raises(TypeError, match="src"):
        flow._oneflow_internal.cpu_broadcast(b"x", "0")
    with pytest.raises(ValueError, match="cpu_broadcast"):
        flow._oneflow_internal.cpu_broadcast(None, 0)


# --- behaviours the random programs hit --------------------------------------

@needs_torch
@pytest.mark.parametrize("reduce", ["sum", "mean", "nansum"])
@pytest.mark.parametrize("inplace", ["iadd", "mul_", "sub_", "div_"])
def test_inplace_on_a_full_reduction_keeps_the_gradient(reduce, inplace):
    data = np.random.default_rng(0).uniform(0.5, 1.5, size=(2, 3))
    other = np.random.default_rng(1).uniform(0.5, 1.5, size=(4,))
    grads = []
    for lib in (torch, flow):
        a = lib.tensor(data, requires_grad=True)
        b = lib.tensor(other, requires_grad=True)
        x = getattr(a, reduce)()
        if inplace == "iadd":
            x += b.mean()
        else:
            getattr(x, inplace)(b.mean())
        (x * 3).backward()
        grads.append((a.grad, b.grad, x.detach()))
    (ta, tb, tx), (fa, fb, fx) = grads
    assert fa is not None and fb is not None
    np.testing.assert_allclose(fx.numpy(), tx.numpy(), rtol=1e-6)
    np.testing.assert_allclose(fa.numpy(), ta.numpy(), rtol=1e-6)
    np.testing.assert_allclose(fb.numpy(), tb.numpy(), rtol=1e-6)


@needs_torch
@pytest.mark.parametrize("reduce", ["amax", "amin"])
def test_inplace_on_a_saved_reduction_result_is_refused_at_backward(reduce):
    # amax/amin keep their output for backward: writing it in place is an error, as in torch
    for lib in (torch, flow):
        a = lib.tensor(np.arange(1.0, 7.0).reshape(2, 3), requires_grad=True)
        x = getattr(a, reduce)()
        x += 1
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            x.backward()


@needs_torch
def test_inplace_through_a_real_view_still_reaches_the_base():
    # the path the fix above leaves alone: a view of a tensor with history
    for lib in (torch, flow):
        a = lib.tensor(np.arange(6.0), requires_grad=True)
        y = a * 1
        v = y[1:3]
        v.mul_(5)
        y.sum().backward()
        if lib is torch:
            expected = a.grad.numpy()
        else:
            np.testing.assert_array_equal(a.grad.numpy(), expected)


@needs_torch
@pytest.mark.parametrize("op", ["bitwise_left_shift", "bitwise_right_shift"])
@pytest.mark.parametrize("dtype", ["uint8", "int32", "int64"])
def test_shift_with_a_python_int_first(op, dtype):
    values = np.array([0, 1, 2, 5], dtype=dtype)
    for scalar in (3, 100, True):
        expected = getattr(torch, op)(scalar, torch.tensor(values))
        got = getattr(flow, op)(scalar, flow.tensor(values))
        assert str(got.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1]
        np.testing.assert_array_equal(got.numpy(), expected.numpy())
    with pytest.raises(TypeError):
        getattr(flow, op)(1.5, flow.tensor(values))


@needs_torch
@pytest.mark.parametrize("name,n", [("adaptive_avg_pool2d", 2), ("adaptive_avg_pool3d", 3)])
def test_adaptive_avg_pool_to_ones_takes_any_rank(name, n):
    data = np.random.default_rng(2).standard_normal((2, 3, 2, 4, 5, 3))
    t = torch.tensor(data, requires_grad=True)
    f = flow.tensor(data, requires_grad=True)
    tout = getattr(torch.nn.functional, name)(t, 1)
    fout = getattr(flow.nn.functional, name)(f, (1,) * n)
    assert tuple(fout.shape) == tuple(tout.shape)
    np.testing.assert_allclose(fout.detach().numpy(), tout.detach().numpy(), rtol=1e-12)
    weights = np.random.default_rng(3).standard_normal(tuple(tout.shape))
    (tout * torch.tensor(weights)).sum().backward()
    (fout * flow.tensor(weights)).sum().backward()
    np.testing.assert_allclose(f.grad.numpy(), t.grad.numpy(), rtol=1e-12)
    with pytest.raises(RuntimeError, match=name):  # other sizes still need the usual rank
        getattr(flow.nn.functional, name)(f, 2)


@needs_torch
@pytest.mark.parametrize("shape,start,end", [((1, 3, 1, 2), 3, 3), ((4, 5), 1, -1), ((2, 3, 4), 0, 0), ((2, 3, 4), 1, 2)])
def test_flatten_of_one_dim_is_the_tensor_itself(shape, start, end):
    # the autotests compare which outputs are their inputs (torch hands back the input)
    data = np.random.default_rng(4).standard_normal(shape)
    t = torch.tensor(data, requires_grad=True)
    f = flow.tensor(data, requires_grad=True)
    for tout, fout in ((t.flatten(start, end), f.flatten(start, end)),
                       (torch.flatten(t, start, end), flow.flatten(f, start, end)),
                       (torch.nn.Flatten(start, end)(t), flow.nn.Flatten(start, end)(f))):
        assert (fout is f) == (tout is t)
        assert tuple(fout.shape) == tuple(tout.shape)
    assert tuple(flow.tensor(1.0).flatten().shape) == (1,)
    with pytest.raises(IndexError, match="flatten"):
        f.flatten(0, len(shape))


@needs_torch
@pytest.mark.parametrize("reduce", ["add", "multiply"])
def test_scatter_reduce_argument_accumulates(reduce):
    # test_scatter_ops: torch.scatter(input, dim, index, src, reduce=...) (OneFlow has it too)
    rng = np.random.default_rng(5)
    data, src = rng.standard_normal((3, 4)), rng.standard_normal((2, 4))
    index = np.array([[0, 1, 2, 0], [0, 0, 1, 2]])
    for value in (None, 2.5):
        t_src = torch.tensor(src) if value is None else value
        f_src = flow.tensor(src) if value is None else value
        want = torch.scatter(torch.tensor(data), 0, torch.tensor(index), t_src, reduce=reduce)
        got = flow.scatter(flow.tensor(data), 0, flow.tensor(index), f_src, reduce=reduce)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)
        want_ = torch.tensor(data).scatter_(1, torch.tensor(index), t_src, reduce=reduce)
        got_ = flow.tensor(data).scatter_(1, flow.tensor(index), f_src, reduce=reduce)
        np.testing.assert_allclose(got_.numpy(), want_.numpy(), rtol=1e-12)
    with pytest.raises(RuntimeError, match="add or multiply"):
        flow.scatter(flow.tensor(data), 0, flow.tensor(index), flow.tensor(src), reduce="mean")


@needs_torch
def test_scatter_reduce_argument_gradients_and_graph():
    # 'add' is scatter_add; 'multiply' is differentiable (torch's scatter_reduce 'prod' is the oracle)
    # and uses kernels only, so it also runs inside an nn.Graph (the autotests' graph check)
    rng = np.random.default_rng(7)
    data, src = rng.standard_normal((3, 4)), rng.standard_normal((2, 4))
    index = np.array([[0, 1, 2, 0], [0, 0, 1, 2]])
    tx, ts = torch.tensor(data, requires_grad=True), torch.tensor(src, requires_grad=True)
    fx, fs = flow.tensor(data, requires_grad=True), flow.tensor(src, requires_grad=True)
    torch.scatter_reduce(tx, 0, torch.tensor(index), ts, "prod").pow(2).sum().backward()
    fx.scatter(0, flow.tensor(index), fs, reduce="multiply").pow(2).sum().backward()
    np.testing.assert_allclose(fx.grad.numpy(), tx.grad.numpy(), rtol=1e-10)
    np.testing.assert_allclose(fs.grad.numpy(), ts.grad.numpy(), rtol=1e-10)
    x = flow.randn(3, 4, requires_grad=True)
    x.scatter(0, flow.tensor(index), flow.ones(2, 4), reduce="add").sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.ones((3, 4)))

    class Multiply(flow.nn.Graph):
        def build(self, a, b):
            return flow.scatter(a, 0, flow.tensor(index), b, reduce="multiply")

    want = torch.scatter(torch.tensor(data), 0, torch.tensor(index), torch.tensor(src), reduce="multiply")
    got = Multiply()(flow.tensor(data), flow.tensor(src))
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)


@needs_torch
@pytest.mark.parametrize("shape", [(3,), (3, 4), (2, 3, 2, 2, 2)])
@pytest.mark.parametrize("p", [0.0, 1.0])
def test_dropout2d_of_any_rank_with_p_0_or_1(shape, p):
    # test_dropout draws random ranks; torch zeroes (p=1) or passes (p=0) before it needs a channel dim
    data = np.random.default_rng(6).standard_normal(shape)
    t = torch.tensor(data, requires_grad=True)
    f = flow.tensor(data, requires_grad=True)
    with pytest.warns(UserWarning):
        tout = torch.nn.Dropout2d(p)(t)
    with pytest.warns(UserWarning):
        fout = flow.nn.Dropout2d(p)(f)
    np.testing.assert_array_equal(fout.detach().numpy(), tout.detach().numpy())
    tout.sum().backward()
    fout.sum().backward()
    np.testing.assert_array_equal(f.grad.numpy(), t.grad.numpy())
    if len(shape) == 1:
        with pytest.warns(UserWarning), pytest.raises(RuntimeError, match="at least 2 dimensions"):
            flow.nn.functional.dropout2d(f, 0.5)


# --- flow.optim.lr_scheduler.CosineDecayLR (OneFlow's; test_lr_scheduler) ----

@needs_torch
@pytest.mark.parametrize("decay_steps,alpha,lr", [(5, 0.0, 1.0), (7, 0.25, 0.3), (1, 0.5, 2.0)])
def test_cosine_decay_lr_follows_cosine_annealing_then_stays(decay_steps, alpha, lr):
    # within the decay it is torch's CosineAnnealingLR with eta_min = alpha * lr;
    # after it the lr stays at alpha * lr (torch's would climb back up)
    opt = flow.optim.SGD([flow.nn.Parameter(flow.zeros(1))], lr=lr)
    sched = flow.optim.lr_scheduler.CosineDecayLR(opt, decay_steps=decay_steps, alpha=alpha)
    t_opt = torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=lr)
    t_sched = torch.optim.lr_scheduler.CosineAnnealingLR(t_opt, T_max=decay_steps, eta_min=alpha * lr)
    got, want = [], []
    for _ in range(decay_steps + 1):
        opt.step(); t_opt.step()
        got.append(opt.param_groups[0]["lr"]); want.append(t_opt.param_groups[0]["lr"])
        sched.step(); t_sched.step()
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    for _ in range(3):
        opt.step(); sched.step()
        assert opt.param_groups[0]["lr"] == pytest.approx(alpha * lr, abs=1e-12)


@pytest.mark.parametrize("bad", [0, -3, 2.5, True])
def test_cosine_decay_lr_refuses_a_bad_decay_steps(bad):
    opt = flow.optim.SGD([flow.nn.Parameter(flow.zeros(1))], lr=1.0)
    with pytest.raises(ValueError, match="CosineDecayLR"):
        flow.optim.lr_scheduler.CosineDecayLR(opt, decay_steps=bad)


# --- nn.Dropout(generator=) (OneFlow's argument; test_dropout) -----------------

def test_dropout_module_draws_its_masks_from_the_given_generator():
    x = flow.ones(8, 64)
    g = flow.Generator()
    g.manual_seed(3)
    m = flow.nn.Dropout(p=0.25, generator=g)
    first = m(x).numpy()
    g.manual_seed(3)
    again = m(x).numpy()
    g2 = flow.Generator()
    g2.manual_seed(3)
    functional = flow.nn.functional.dropout(x, 0.25, generator=g2).numpy()
    np.testing.assert_array_equal(first, again)         # reseeding the generator repeats the mask
    np.testing.assert_array_equal(first, functional)    # the same draws as F.dropout's
    assert set(np.unique(first)) <= {0.0, np.float32(1 / 0.75)}
    assert 0 < (first == 0).sum() < first.size
    np.testing.assert_array_equal(m.eval()(x).numpy(), x.numpy())


@pytest.mark.parametrize("p,expected", [(0.0, 1.0), (1.0, 0.0)])
def test_dropout_module_with_a_generator_at_p_0_and_1(p, expected):
    g = flow.Generator()
    g.manual_seed(0)
    np.testing.assert_array_equal(flow.nn.Dropout(p=p, generator=g)(flow.ones(2, 3)).numpy(),
                                  np.full((2, 3), expected, np.float32))


# --- flow._C.<op>: OneFlow's tests call its functional API through _C ---------

@needs_torch
def test_functional_ops_through_C_as_oneflow_tests_call_them():
    a = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
    x, t = flow.tensor(a), torch.tensor(a)
    np.testing.assert_allclose(flow._C.relu(x).numpy(), torch.relu(t).numpy())
    np.testing.assert_allclose(flow._C.softmax(x, dim=1).numpy(), torch.softmax(t, dim=1).numpy(), rtol=1e-6)
    np.testing.assert_allclose(flow._C.gelu(x, approximate="tanh").numpy(),
                               torch.nn.functional.gelu(t, approximate="tanh").numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(flow._C.matmul(x, x.T).numpy(), (t @ t.T).numpy(), rtol=1e-5)
    with pytest.raises(AttributeError, match="monoflow._C' has no attribute 'no_such_op'"):
        flow._C.no_such_op
    assert not hasattr(flow._C, "_private_name")


@needs_torch
def test_C_names_take_oneflow_functional_signatures():
    # flow._C.<name> is OneFlow's functional form (keywords, defaults), not a raw core binding
    a = np.random.default_rng(1).standard_normal((3, 4)).astype(np.float32)
    x, t = flow.tensor(a), torch.tensor(a)
    assert flow._C.arange(5).tolist() == list(range(5))
    r = flow._C.arange(0, 10, 2, dtype=flow.int32)
    assert r.dtype == flow.int32 and r.tolist() == [0, 2, 4, 6, 8]
    assert flow._C.empty(2, 3, dtype=flow.float64).shape == (2, 3)
    f = flow._C.full((2, 3), 1.5, dtype=flow.float64)
    assert f.dtype == flow.float64 and f.tolist() == [[1.5] * 3] * 2
    np.testing.assert_array_equal(flow._C.eye(3, dtype=flow.int64).numpy(), np.eye(3, dtype=np.int64))
    np.testing.assert_allclose(flow._C.linspace(0, 1, 5, dtype=flow.float64).numpy(), np.linspace(0, 1, 5))
    np.testing.assert_array_equal(flow._C.clamp(x, -0.5).numpy(), torch.clamp(t, -0.5).numpy())
    for got, want in zip(flow._C.where(x > 0), torch.where(t > 0)):
        np.testing.assert_array_equal(got.numpy(), want.numpy())
    assert set(np.unique(flow._C.bernoulli(flow.rand(50), p=0.5).numpy())) <= {0.0, 1.0}


# --- Tensor.new: OneFlow's (torch's legacy) constructor -----------------------

@needs_torch
def test_tensor_new_forms_match_torch():
    for dt, tdt in [(flow.int32, torch.int32), (flow.float64, torch.float64)]:
        x, tx = flow.ones(2, dtype=dt), torch.ones(2, dtype=tdt)
        data = np.random.default_rng(1).standard_normal((3, 3))
        for args in [(), (2, 3), ([1.5, 2.0],), ((2, 3),), (data,)]:
            got, want = x.new(*args), tx.new(*args)
            assert tuple(got.shape) == tuple(want.shape) and got.numpy().dtype == want.numpy().dtype
            if got.numel():
                if not args or all(isinstance(a, int) for a in args):
                    continue  # uninitialized
                np.testing.assert_array_equal(got.numpy(), want.numpy())
        assert tuple(x.new(flow.Size([4, 1])).shape) == (4, 1) == tuple(tx.new(torch.Size([4, 1])).shape)
        assert tuple(x.new(size=(2,)).shape) == (2,)
    y = flow.arange(3, dtype=flow.float32)
    z = flow.zeros(1).new(y)
    np.testing.assert_array_equal(z.numpy(), [0, 1, 2])
    assert z.dtype == flow.float32 and not z.requires_grad
    with pytest.raises(TypeError, match="new"):
        flow.zeros(1, dtype=flow.int64).new(y)


def test_copy_from_numpy_contiguous_or_not_as_oneflow():
    src = np.arange(6).reshape(2, 3).transpose(1, 0)           # not C-contiguous
    t = flow.zeros(3, 2).to(flow.int64)
    assert t.copy_(src) is t
    np.testing.assert_array_equal(t.numpy(), src)
    f = flow.zeros(2, 3)
    f.copy_(np.array([1.5, 2.5, 3.5]))                          # broadcast, cast to float32
    np.testing.assert_array_equal(f.numpy(), np.tile(np.float32([1.5, 2.5, 3.5]), (2, 1)))
    with pytest.raises(RuntimeError, match=r"^copy_\(\): a leaf Tensor that requires grad"):
        flow.ones(2, requires_grad=True).copy_(flow.zeros(2))


def test_local_tensor_refuses_global_only_attributes_as_oneflow():
    x = flow.ones(2, 3)
    for get in (lambda: x.sbp, lambda: x.placement, lambda: x.global_id()):
        with pytest.raises(RuntimeError, match="global"):
            get()
    assert not hasattr(x, "sbp") and getattr(x, "placement", None) is None   # hasattr stays False
    g = x.to_global(flow.placement("cpu", ranks=[0]), flow.sbp.broadcast)
    assert g.sbp == (flow.sbp.broadcast,) and g.placement == flow.placement("cpu", ranks=[0])


@needs_torch
def test_post_grad_accumulation_hook_sees_the_accumulated_grad():
    # oracle: torch's register_post_accumulate_grad_hook changing .grad in place
    a = np.random.default_rng(2).standard_normal((2, 3)).astype(np.float32)
    x = flow.tensor(a, requires_grad=True)
    t = torch.tensor(a, requires_grad=True)
    x._register_post_grad_accumulation_hook(lambda g: g * 2 + 1)
    t.register_post_accumulate_grad_hook(lambda p: [p.grad.mul_(2).add_(1), None][1])
    for _ in range(2):  # the second pass accumulates onto the first's hooked grad
        (x.sum() + (x * x).sum()).backward()
        (t.sum() + (t * t).sum()).backward()
        np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-6)
    y = flow.ones(2, 3, requires_grad=True)

    def in_place(g):
        g.add_(1)          # returns None: the changed grad is kept

    y._register_post_grad_accumulation_hook(in_place)
    (y.sum() + (y * 2).sum()).backward()
    np.testing.assert_array_equal(y.grad.numpy(), np.full((2, 3), 4.0, np.float32))
    with pytest.raises(RuntimeError, match="leaf"):
        (y * 2)._register_post_grad_accumulation_hook(in_place)


@needs_torch
def test_reshape_takes_the_shape_by_keyword_as_torch_and_oneflow():
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    x, t = flow.tensor(a), torch.tensor(a)
    for shape in ([-1], (4, 6), [3, -1, 2]):
        np.testing.assert_array_equal(x.reshape(shape=shape).numpy(), t.reshape(shape=shape).numpy())
    np.testing.assert_array_equal(x.reshape(-1).reshape_as(other=x).numpy(), a)
    np.testing.assert_array_equal(x.view(size=[4, 3, 2]).numpy(), t.view(size=[4, 3, 2]).numpy())
    with pytest.raises(TypeError, match="unexpected keyword argument 'shape'"):
        x.view(shape=[-1])
    with pytest.raises(TypeError, match="unexpected keyword argument 'foo'"):
        x.reshape(foo=[-1])
    with pytest.raises(TypeError, match="not both"):
        x.reshape(2, shape=[12])


@needs_torch
def test_tensor_where_takes_oneflows_condition_first_form():
    # OneFlow's Tensor.where(x, y) is flow.where(self, x, y): the tensor is the condition
    rs = np.random.RandomState(3)
    c = rs.randint(0, 2, size=(3, 2))
    a, b = rs.randn(3, 2).astype(np.float32), np.ones((3, 2), np.float32)
    want = torch.where(torch.tensor(c != 0), torch.tensor(a), torch.tensor(b)).numpy()
    for dt in (flow.int32, flow.int64, flow.bool):
        cond = flow.tensor(c, dtype=dt)
        np.testing.assert_array_equal(cond.where(flow.tensor(a), flow.tensor(b)).numpy(), want)
    np.testing.assert_array_equal(flow.tensor(c).where(flow.tensor(a), 1.0).numpy(), want)
    got = flow.tensor(c).where()
    for g, w in zip(got, np.nonzero(c)):
        np.testing.assert_array_equal(g.numpy(), w)
    # torch's form (a bool condition argument, or a floating self) is unchanged
    x, tc = flow.tensor(a), torch.tensor(c != 0)
    np.testing.assert_array_equal(x.where(flow.tensor(c != 0), flow.tensor(b)).numpy(),
                                  torch.tensor(a).where(tc, torch.tensor(b)).numpy())
    i = flow.tensor(c * 7)
    np.testing.assert_array_equal(i.where(flow.tensor(c == 0), flow.tensor(c)).numpy(),
                                  torch.tensor(c * 7).where(torch.tensor(c == 0), torch.tensor(c)).numpy())


@needs_torch
def test_permute_takes_the_dims_by_keyword_as_torch_and_oneflow():
    a = np.random.default_rng(4).standard_normal((2, 3, 4, 5)).astype(np.float32)
    x, t = flow.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    fy, ty = x.permute(dims=[3, 1, 0, 2]), t.permute(dims=[3, 1, 0, 2])
    np.testing.assert_array_equal(fy.detach().numpy(), ty.detach().numpy())
    w = np.random.default_rng(5).standard_normal(ty.shape).astype(np.float32)
    (fy * flow.tensor(w)).sum().backward()
    (ty * torch.tensor(w)).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), t.grad.numpy())
    with pytest.raises(TypeError, match="not both"):
        x.permute(0, 1, 2, 3, dims=[0, 1, 2, 3])


@needs_torch
@pytest.mark.parametrize("call", ["flip(dims=(1, 3))", "tile(dims=(2, 1, 1, 1, 1))", "repeat(repeats=(1, 2, 1, 1))",
                                  "expand(size=(3, 2, 3, 4, 5))"])
def test_shape_methods_take_their_sequence_by_keyword_as_torch(call):
    a = np.random.default_rng(6).standard_normal((2, 3, 4, 5)).astype(np.float32)
    x, t = flow.tensor(a), torch.tensor(a)
    np.testing.assert_array_equal(eval("x." + call).numpy(), eval("t." + call).numpy())
    name = call.split("(")[0]
    with pytest.raises(TypeError, match="not both"):
        eval(f"x.{name}(1, " + call.split("(", 1)[1])
    with pytest.raises(TypeError, match="unexpected keyword argument 'bogus'"):
        getattr(x, name)(bogus=1)


# --- OneFlow's lr-scheduler forms ----------------------------------------------

def _sgd(lr):
    return flow.optim.SGD([flow.nn.Parameter(flow.ones(2))], lr=lr)


def _lrs(sched, n):
    out = [sched.get_last_lr()[0]]
    for _ in range(n - 1):
        sched.optimizer.step()
        sched.step()
        out.append(sched.get_last_lr()[0])
    return out


def test_polynomial_lr_takes_oneflows_positional_order_and_cycle_from_step_1():
    import math

    def want(step, horizon=10, end=1e-3, power=2.0):  # OneFlow's closed form with cycle
        step = max(step, 1)
        horizon = horizon * math.ceil(step / horizon)
        return (0.5 - end) * (1 - step / horizon) ** power + end

    s = flow.optim.lr_scheduler.PolynomialLR(_sgd(0.5), 10, 1e-3, 2.0, True)   # decay_batch, end, power, cycle
    assert (s.total_iters, s.end_learning_rate, s.power, s.cycle) == (10, 1e-3, 2.0, True)
    np.testing.assert_allclose(_lrs(s, 25), [want(i) for i in range(25)], rtol=1e-12)
    with pytest.raises(TypeError, match="OneFlow's order"):
        flow.optim.lr_scheduler.PolynomialLR(_sgd(0.5), 10, 1e-3, 2.0, True, -1, False, "extra")


@needs_torch
def test_cosine_warm_restarts_oneflows_decay_rate_and_restart_limit():
    import math
    sched = flow.optim.lr_scheduler.CosineAnnealingWarmRestarts(_sgd(0.1), T_0=4, T_mult=2, eta_min=0.01,
                                                                 decay_rate=0.5, restart_limit=2)
    want = []
    for step in range(20):  # OneFlow's get_lr
        k = math.floor(math.log(1 - step / 4 * (1 - 2), 2))
        period, in_period = 2 ** k * 4, step - (1 - 2 ** k) / (1 - 2) * 4
        want.append(0.01 + (0.1 * 0.5 ** k - 0.01) * 0.5 * (1 + math.cos(math.pi * in_period / period))
                    if k < 2 else 0.01)
    np.testing.assert_allclose(_lrs(sched, 20), want, rtol=1e-12, atol=1e-15)
    # the defaults are torch's schedule
    p = torch.nn.Parameter(torch.ones(2))
    topt = torch.optim.SGD([p], lr=0.1)
    tsched = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(topt, T_0=3, T_mult=2, eta_min=0.01)
    twant = []
    for _ in range(15):
        twant.append(tsched.get_last_lr()[0])
        topt.step()
        tsched.step()
    fs = flow.optim.lr_scheduler.CosineAnnealingWarmRestarts(_sgd(0.1), T_0=3, T_mult=2, eta_min=0.01)
    np.testing.assert_allclose(_lrs(fs, 15), twant, rtol=1e-12)
    with pytest.raises(ValueError, match="restart_limit"):
        flow.optim.lr_scheduler.CosineAnnealingWarmRestarts(_sgd(0.1), T_0=3, restart_limit=-1)


def test_scheduler_last_step_is_oneflows_last_epoch():
    s = flow.optim.lr_scheduler.StepLR(_sgd(1.0), step_size=2)
    _lrs(s, 4)
    assert s.last_step == s.last_epoch == 3
    s.last_step = 7
    assert s.last_epoch == 7


def test_save_into_an_existing_directory_and_load_it_as_oneflow(tmp_path):
    sd = {"w": flow.arange(6, dtype=flow.float32).reshape(2, 3), "step": 4}
    flow.save(sd, tmp_path)              # OneFlow's form: the checkpoint is a directory
    assert (tmp_path / "monoflow_checkpoint.mf").is_file()
    back = flow.load(str(tmp_path))
    assert back["step"] == 4
    np.testing.assert_array_equal(back["w"].numpy(), np.arange(6, dtype=np.float32).reshape(2, 3))
    flow.save({"step": 5}, str(tmp_path))   # saved again: replaced
    assert flow.load(tmp_path)["step"] == 5


@pytest.mark.parametrize("merge", [True, False])
def test_ctc_greedy_decoder_matches_a_best_path_reference(merge):
    rs = np.random.RandomState(7)
    T, N, C = 12, 5, 4
    lp = np.log(rs.dirichlet(np.ones(C), size=(T, N))).astype(np.float32)
    lens = np.array([12, 7, 0, 3, 10])
    dec, neg = flow.nn.functional.ctc_greedy_decoder(flow.tensor(lp), flow.tensor(lens), merge)
    assert dec.dtype == flow.int64 and tuple(dec.shape) == (N, T) and tuple(neg.shape) == (N, 1)
    for b in range(N):  # reference: step by step, blank = C - 1, previous = last step's argmax
        out, prev, total = [], -1, 0.0
        for t in range(lens[b]):
            k = int(np.argmax(lp[t, b]))
            total -= float(lp[t, b, k])
            if k != C - 1 and not (merge and k == prev):
                out.append(k)
            prev = k
        np.testing.assert_array_equal(dec.numpy()[b], out + [0] * (T - len(out)))
        np.testing.assert_allclose(neg.numpy()[b, 0], total, rtol=1e-5)
    with pytest.raises(RuntimeError, match="input_lengths"):
        flow.nn.functional.ctc_greedy_decoder(flow.tensor(lp), flow.tensor([13, 1, 1, 1, 1]))


@needs_torch
def test_custom_function_releases_saved_tensors_after_backward_as_torch():
    ctxs = {}

    def make(lib, key):
        class Twice(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x.clone())
                ctxs[key] = ctx
                return x * 2

            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                return g * 2 + 0 * x
        return Twice

    a = np.random.default_rng(8).standard_normal(4).astype(np.float32)
    fx, tx = flow.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    fy, ty = make(flow, "f").apply(fx), make(torch, "t").apply(tx)
    assert ctxs["f"]._is_data_valid()                      # OneFlow's check
    fy.sum().backward(retain_graph=True)
    ty.sum().backward(retain_graph=True)
    assert ctxs["f"]._is_data_valid() and len(ctxs["f"].saved_tensors) == 1 == len(ctxs["t"].saved_tensors)
    fy.sum().backward()
    ty.sum().backward()
    np.testing.assert_array_equal(fx.grad.numpy(), tx.grad.numpy())
    assert not ctxs["f"]._is_data_valid()
    with pytest.raises(RuntimeError, match="backward through the graph a second time") as got:
        ctxs["f"].saved_tensors
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        ctxs["t"].saved_tensors


def test_copy_from_numpy_is_a_data_write_also_into_a_parameter():
    w = flow.nn.Linear(3, 2, bias=False).weight
    v = np.arange(6, dtype=np.float32).reshape(2, 3)
    w.copy_(v)                             # OneFlow's tests load weights so
    np.testing.assert_array_equal(w.detach().numpy(), v)
    assert w.is_leaf and w.requires_grad and w.grad_fn is None


def test_sysconfig_as_oneflows_tests_query_it():
    import os
    sc = flow.sysconfig
    assert sc.with_cuda() is flow.cuda.is_available()
    v = sc.get_cuda_version()
    assert isinstance(v, int) and (v == 0) == (flow.version.cuda is None)
    assert sc.with_rdma() is False and sc.with_mlir() is False
    assert flow.env.rdma_is_initialized() is False  # and turning it on says why it cannot
    with pytest.raises(RuntimeError, match="init_rdma\\(\\): this build has no RDMA transport"):
        flow.env.init_rdma()
    assert os.path.isfile(os.path.join(sc.get_include(), "monoflow", "plugin.h"))
    assert os.path.isdir(sc.get_lib())
    assert sc.get_compile_flags()[0] == "-I" + sc.get_include()
    assert sc.get_link_flags() == ["-L" + sc.get_lib()]
    import importlib
    assert importlib.import_module("monoflow.sysconfig") is sc


@needs_torch
@pytest.mark.parametrize("p", [0.0, 1.0])
def test_dropout_addend_as_oneflows_fused_residual(p):
    rs = np.random.RandomState(9)
    a, b = rs.randn(4, 5), rs.randn(4, 5)
    fx, fa = flow.tensor(a, requires_grad=True), flow.tensor(b, requires_grad=True)
    tx, ta = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
    fy = flow.nn.Dropout(p=p)(fx, fa)
    ty = torch.nn.Dropout(p=p)(tx) + ta
    np.testing.assert_allclose(fy.detach().numpy(), ty.detach().numpy())
    fy.sum().backward()
    ty.sum().backward()
    np.testing.assert_allclose(fx.grad.numpy(), tx.grad.numpy())
    np.testing.assert_allclose(fa.grad.numpy(), ta.grad.numpy())
    np.testing.assert_allclose(flow.nn.functional.dropout(fx, p, False, False, None, fa).detach().numpy(), a + b)


def test_dropout_addend_uses_the_same_mask_as_plain_dropout():
    x, add = flow.randn(6, 7), flow.randn(6, 7)
    g1, g2 = flow.Generator(), flow.Generator()
    g1.manual_seed(11)
    g2.manual_seed(11)
    fused = flow.nn.functional.dropout(x, 0.5, True, False, g1, addend=add)
    plain = flow.nn.functional.dropout(x, 0.5, generator=g2)
    np.testing.assert_allclose(fused.numpy(), (plain + add).numpy())


@needs_torch
def test_utils_tensor_from_and_to_torch_share_memory():
    t = torch.arange(12, dtype=torch.float64).reshape(3, 4).t()      # non-contiguous
    f = flow.utils.tensor.from_torch(t)
    assert f.dtype == flow.float64 and tuple(f.shape) == (4, 3) and f.stride() == t.stride()
    np.testing.assert_array_equal(f.numpy(), t.numpy())
    f[1, 2] = -1.0
    assert t[1, 2].item() == -1.0
    assert not flow.utils.tensor.from_torch(torch.ones(2, requires_grad=True)).requires_grad
    g = flow.arange(6, dtype=flow.int32).reshape(2, 3)
    back = flow.utils.tensor.to_torch(g)
    assert back.dtype == torch.int32 and back.tolist() == [[0, 1, 2], [3, 4, 5]]
    back[0, 0] = 7
    assert g[0, 0].item() == 7
    with pytest.raises(TypeError, match="torch.Tensor"):
        flow.utils.tensor.from_torch(np.ones(2))


@pytest.mark.parametrize("lr_power,lambda2,wd", [(-0.5, 0.0, 0.0), (0.5, 0.01, 0.9)])
def test_one_embedding_ftrl_matches_the_ftrl_proximal_update(lr_power, lambda2, wd):
    from monoflow.one_embedding import FTRL
    rs = np.random.RandomState(12)
    w0 = rs.uniform(size=7).astype(np.float32)
    grads = [rs.uniform(size=7).astype(np.float32) for _ in range(6)]
    hp = dict(lr=0.5, weight_decay=wd, lr_power=lr_power, initial_accumulator_value=0.1, lambda1=0.3,
              lambda2=lambda2, beta=1.0)
    w = flow.nn.Parameter(flow.tensor(w0))
    opt = FTRL([w], **hp)
    x, n, z = w0.astype(np.float64), np.full(7, 0.1), np.zeros(7)
    for i, g in enumerate(grads):
        (w * flow.tensor(g)).sum().backward()
        opt.step()
        opt.zero_grad()
        if i == 2:  # the state survives a state_dict round trip
            sd = opt.state_dict()
            opt = FTRL([w])
            opt.load_state_dict(sd)
        g = g + wd * x
        n2 = n + g * g
        z = z + g - (n2 ** lr_power - n ** lr_power) / 0.5 * x
        x = np.where(np.abs(z) < 0.3, 0.0, (np.sign(z) * 0.3 - z) / ((1.0 + n2 ** lr_power) / 0.5 + lambda2))
        n = n2
        np.testing.assert_allclose(w.detach().numpy(), x, rtol=1e-4, atol=1e-5)
    big = flow.nn.Parameter(flow.tensor(w0))
    opt = FTRL([big], lr=0.5, lambda1=100.0)    # |z| < lambda1 everywhere: every coordinate is zeroed
    (big * flow.tensor(grads[0])).sum().backward()
    opt.step()
    np.testing.assert_array_equal(big.detach().numpy(), np.zeros(7, np.float32))


def test_legacy_tensor_constructor_takes_oneflows_requires_grad_and_dtype():
    data = np.arange(6, dtype=np.float64).reshape(2, 3)
    t = flow.Tensor(data, requires_grad=True, device="cpu")
    assert t.requires_grad and t.is_leaf and t.dtype == flow.float32 and type(t) is flow.Tensor
    (t * 2).sum().backward()
    np.testing.assert_array_equal(t.grad.numpy(), np.full((2, 3), 2.0, np.float32))
    assert not flow.Tensor(data, requires_grad=False).requires_grad
    with pytest.raises(RuntimeError, match="floating point"):
        flow.LongTensor([1], requires_grad=True)
    # older OneFlow's dtype= (its tests pass it; torch refuses it): the untyped constructor makes it
    t = flow.Tensor(np.ones((2, 2)), dtype=flow.int32)
    assert t.dtype == flow.int32 and t.tolist() == [[1, 1], [1, 1]]
    assert flow.Tensor(2, 3, dtype=flow.float64).shape == (2, 3) and flow.Tensor([1], dtype=None).dtype == flow.float32
    assert flow.LongTensor([1], dtype=flow.int64).dtype == flow.int64
    with pytest.raises(TypeError, match="conflicts"):
        flow.LongTensor([1], dtype=flow.int32)
    with pytest.raises(TypeError, match="must be monoflow.dtype"):
        flow.Tensor([1], dtype="int32")
    with pytest.raises(TypeError, match="unexpected keyword argument 'pin'"):
        flow.Tensor([1.0], pin=True)


def test_legacy_constructor_and_rand_make_global_tensors_with_placement_and_sbp():
    p = flow.placement("cpu", ranks=[0])
    t = flow.Tensor([[1, 2], [3, 4]], placement=p, sbp=flow.sbp.broadcast)
    assert t.is_global and t.dtype == flow.float32 and t.placement == p
    np.testing.assert_array_equal(t.to_local().numpy(), [[1, 2], [3, 4]])
    e = flow.Tensor(2, 3, placement=p, sbp=flow.sbp.split(0))
    assert e.is_global and e.shape == (2, 3) and e.sbp == (flow.sbp.split(0),)
    assert flow.LongTensor([1, 2], placement=p, sbp=flow.sbp.broadcast).dtype == flow.int64
    r = flow.rand(3, 4, placement=p, sbp=flow.sbp.broadcast)
    assert r.is_global and r.shape == (3, 4) and ((r.to_local() >= 0) & (r.to_local() < 1)).all()
    with pytest.raises(ValueError, match="sbp"):
        flow.Tensor(2, placement=p)
    with pytest.raises(ValueError, match="either device"):
        flow.Tensor(2, placement=p, sbp=flow.sbp.broadcast, device="cpu")
    with pytest.raises(TypeError, match="to_global"):
        flow.Tensor(flow.ones(2), placement=p, sbp=flow.sbp.broadcast)


def test_grad_enable_is_oneflows_enable_grad():
    x = flow.ones(2, requires_grad=True)
    with flow.no_grad():
        with flow.grad_enable():
            assert (x * 2).requires_grad
        assert not (x * 2).requires_grad


@needs_torch
def test_oneflow_tensor_methods_init_gelu_nms_and_removed_names():
    # the initializer methods draw what nn.init draws from the same seed
    for name, args in [("kaiming_uniform_", (0.1, "fan_out", "relu")), ("kaiming_normal_", ()),
                       ("xavier_uniform_", (2.0,)), ("xavier_normal_", ()), ("trunc_normal_", (0.5, 2.0, -1.0, 3.0)),
                       ("orthogonal_", (1.5,))]:
        x, y = flow.empty(16, 8), flow.empty(16, 8)
        flow.manual_seed(3)
        assert getattr(x, name)(*args) is x
        flow.manual_seed(3)
        getattr(flow.nn.init, name)(y, *args)
        np.testing.assert_array_equal(x.numpy(), y.numpy())
    w = flow.empty(30, 20).orthogonal_(1.5)
    np.testing.assert_allclose((w.T @ w).numpy(), 2.25 * np.eye(20), atol=1e-4)
    a = np.linspace(-3, 3, 13).astype(np.float32)
    for approx in ("none", "tanh"):
        np.testing.assert_allclose(flow.tensor(a).gelu(approx).numpy(),
                                   torch.nn.functional.gelu(torch.tensor(a), approximate=approx).numpy(), rtol=1e-5,
                                   atol=1e-6)
    boxes = flow.tensor([[0.0, 0.0, 1.0, 1.0], [0.0, 0.0, 1.0, 1.1], [2.0, 2.0, 3.0, 3.0]])
    scores = flow.tensor([0.9, 0.8, 0.7])
    np.testing.assert_array_equal(boxes.nms(scores, 0.5).numpy(), flow.nms(boxes, scores, 0.5).numpy())
    t = flow.ones(2)
    assert t.is_lazy is False
    for removed in (t.is_consistent, t.to_consistent):
        with pytest.raises(RuntimeError, match="has been removed"):
            removed()
    g = t.local_to_global(flow.placement("cpu", ranks=[0]), flow.sbp.broadcast)
    assert g.is_global and g.global_to_global(sbp=flow.sbp.split(0)).sbp == (flow.sbp.split(0),)
    with pytest.raises(RuntimeError, match="local"):
        t.global_to_global()


@needs_torch
def test_oneflow_functional_compositions_through_C_match_torch():
    rs = np.random.RandomState(13)
    a, b = rs.randn(2, 4, 3).astype(np.float32), rs.randn(2, 5, 3).astype(np.float32)
    fa, fb = flow.tensor(a, requires_grad=True), flow.tensor(b, requires_grad=True)
    ta, tb = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
    fo = flow._C.batch_matmul(fa, fb, transpose_b=True, alpha=0.5)
    to = 0.5 * ta.bmm(tb.transpose(1, 2))
    np.testing.assert_allclose(fo.detach().numpy(), to.detach().numpy(), rtol=1e-5, atol=1e-6)
    fo.sum().backward()
    to.sum().backward()
    np.testing.assert_allclose(fa.grad.numpy(), ta.grad.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(fb.grad.numpy(), tb.grad.numpy(), rtol=1e-5, atol=1e-6)
    m, v = rs.randn(3, 4).astype(np.float32), rs.randn(4).astype(np.float32)
    np.testing.assert_allclose(flow._C.matrix_vector_product(flow.tensor(m), flow.tensor(v)).numpy(), m @ v, rtol=1e-5)
    x, bias = rs.randn(3, 4).astype(np.float32), rs.randn(4).astype(np.float32)
    F = torch.nn.functional
    np.testing.assert_allclose(flow._C.fast_gelu(flow.tensor(x)).numpy(),
                               F.gelu(torch.tensor(x), approximate="tanh").numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(flow._C.square_relu(flow.tensor(x)).numpy(), np.maximum(x, 0) ** 2, rtol=1e-6)
    np.testing.assert_allclose(flow._C.fused_bias_add_gelu(flow.tensor(x), flow.tensor(bias), axis=1).numpy(),
                               F.gelu(torch.tensor(x) + torch.tensor(bias)).numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(flow._C.fused_bias_add_dropout(flow.tensor(x.T), flow.tensor(bias), p=0.0, axis=0)
                               .numpy(), x.T + bias[:, None], rtol=1e-6)
    sq = rs.randn(2, 4, 4).astype(np.float32)
    want = np.where(np.tril(np.ones((4, 4)), -1) != 0, sq * 2.0, -5.0)
    np.testing.assert_allclose(flow._C.fused_scale_tril(flow.tensor(sq), -1, -5.0, 2.0).numpy(), want, rtol=1e-6)
    np.testing.assert_allclose(flow._C.fused_weighted_sum([flow.tensor(x), flow.tensor(2 * x)], [0.5, 2.0], 3.0)
                               .numpy(), 3.0 * (0.5 * x + 4.0 * x), rtol=1e-5)
    t = rs.rand(3, 4).astype(np.float32)
    np.testing.assert_allclose(flow._C.binary_cross_entropy_with_logits_reduce_mean(flow.tensor(x), flow.tensor(t))
                               .numpy(), F.binary_cross_entropy_with_logits(torch.tensor(x), torch.tensor(t)).numpy(),
                               rtol=1e-5)
    s = rs.randn(3, 3).astype(np.float64) + 3 * np.eye(3)
    np.testing.assert_allclose(flow._C.inv(flow.tensor(s)).numpy(), np.linalg.inv(s), rtol=1e-10)
    p = (rs.rand(5) + 0.5).astype(np.float64)
    np.testing.assert_allclose(flow._C.trigamma(flow.tensor(p)).numpy(), torch.polygamma(1, torch.tensor(p)).numpy(),
                               rtol=1e-8)  # (monoflow's polygamma series: ~1e-9 relative in float64)
    with pytest.raises(RuntimeError, match="a.shape\\[axis\\]"):
        flow._C.fused_bias_add_gelu(flow.tensor(x), flow.tensor(bias), axis=0)


# --- dtype conversions keep the input's stride order (preserve_format) ---------

@needs_torch
@pytest.mark.parametrize("make", [
    lambda m: m.arange(24, dtype=m.int8).reshape(2, 3, 4).permute(2, 0, 1),
    lambda m: m.arange(24, dtype=m.int8).reshape(2, 3, 4).permute(2, 0, 1)[:, :, :2],
    lambda m: m.arange(120, dtype=m.int8).reshape(2, 3, 4, 5).permute(0, 2, 3, 1),
    lambda m: m.arange(30, dtype=m.int8).reshape(5, 6)[::2, ::3].t(),
    lambda m: m.arange(4, dtype=m.int8).reshape(4, 1).expand(4, 3).t(),
])
def test_dtype_conversion_and_clone_preserve_the_stride_order(make):
    f, t = make(flow), make(torch)
    for conv in (lambda x, m: x.float(), lambda x, m: x.to(m.float64), lambda x, m: x.clone()):
        fo, to = conv(f, flow), conv(t, torch)
        assert fo.stride() == to.stride()
        np.testing.assert_array_equal(fo.numpy(), to.numpy())
    fo = flow.cast(f, flow.float32)  # OneFlow's cast: its test checks output.stride() == input.stride()
    assert fo.stride() == t.float().stride()
    np.testing.assert_array_equal(fo.numpy(), t.float().numpy())


def test_preserving_conversion_is_differentiable_and_a_no_op_returns_self():
    x = flow.tensor(np.arange(12.0, dtype=np.float32).reshape(3, 4), requires_grad=True)
    y = x.t().double()
    assert y.stride() == (1, 4)  # torch: (1, 4), the layout of x.t()
    (y * flow.arange(3.0, dtype=flow.float64)).sum().backward()  # y is (4, 3): column j weighs x's row j
    np.testing.assert_array_equal(x.grad.numpy(), np.repeat(np.arange(3.0), 4).reshape(3, 4))
    z = flow.randn(3, 4).t()
    assert z.float() is z and z.to(flow.float32) is z


# --- cdist(p=0): a differentiable count, NaN as torch -------------------------

@needs_torch
def test_cdist_p0_counts_are_differentiable_with_zero_grad_and_nan_as_torch():
    rs = np.random.RandomState(3)
    a, b = rs.randn(2, 3, 4).astype(np.float32), rs.randn(2, 5, 4).astype(np.float32)
    b[0, 1, :2] = a[0, 2, :2]  # some equal coordinates: the count drops
    fa, fb = flow.tensor(a, requires_grad=True), flow.tensor(b, requires_grad=True)
    ta, tb = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
    fo, to = flow.cdist(fa, fb, p=0), torch.cdist(ta, tb, p=0)
    np.testing.assert_array_equal(fo.numpy(), to.detach().numpy())
    assert fo.requires_grad
    fo.sum().backward()
    to.sum().backward()
    np.testing.assert_array_equal(fa.grad.numpy(), ta.grad.numpy())
    np.testing.assert_array_equal(fb.grad.numpy(), np.zeros_like(b))
    n, i = float("nan"), float("inf")
    x, y = [[n, 1.0, i], [1.0, 1.0, 2.0]], [[0.0, 1.0, 0.0], [n, 2.0, i], [1.0, 1.0, 0.0]]
    np.testing.assert_array_equal(flow.cdist(flow.tensor(x), flow.tensor(y), p=0).numpy(),
                                  torch.cdist(torch.tensor(x), torch.tensor(y), p=0).numpy())


# --- addmm: OneFlow's positional (alpha, beta) ---------------------------------

@needs_torch
def test_addmm_takes_alpha_then_beta_positionally_as_oneflow():
    rs = np.random.RandomState(5)
    i, a, b = (rs.randn(*s).astype(np.float32) for s in ((2, 3), (2, 4), (4, 3)))
    want = torch.addmm(torch.tensor(i), torch.tensor(a), torch.tensor(b), alpha=1.5, beta=-2.0).numpy()
    fi, fa, fb = flow.tensor(i), flow.tensor(a), flow.tensor(b)
    np.testing.assert_allclose(flow.addmm(fi, fa, fb, 1.5, -2.0).numpy(), want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(fi.addmm(fa, fb, 1.5, -2.0).numpy(), want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(flow.addmm(fi, fa, fb, beta=-2.0, alpha=1.5).numpy(), want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(flow.addmm(fi, fa, fb).numpy(), i + a @ b, rtol=1e-5, atol=1e-6)


# --- masked_select / masked_fill: OneFlow's integer masks ---------------------

@needs_torch
@pytest.mark.parametrize("dt", ["int8", "uint8", "int64"])
def test_masked_ops_take_an_integer_mask_as_oneflow(dt):
    rs = np.random.RandomState(7)
    x = rs.randn(1, 3, 2).astype(np.float32)
    m = rs.randint(0, 3, size=(3, 3, 2)).astype(dt)  # broadcast against x; 2 counts as set
    tm = torch.tensor(m != 0)
    fx = flow.tensor(x, requires_grad=True)
    tx = torch.tensor(x, requires_grad=True)
    fo, to = flow.masked_select(fx, flow.tensor(m)), torch.masked_select(tx, tm)
    np.testing.assert_array_equal(fo.numpy(), to.detach().numpy())
    fo.sum().backward()
    to.sum().backward()
    np.testing.assert_array_equal(fx.grad.numpy(), tx.grad.numpy())
    m2 = rs.randint(0, 2, size=(1, 3, 2)).astype(dt)
    want = torch.tensor(x).masked_fill(torch.tensor(m2 != 0), -1.5).numpy()
    np.testing.assert_array_equal(flow.masked_fill(flow.tensor(x), flow.tensor(m2), -1.5).numpy(), want)
    np.testing.assert_array_equal(flow.tensor(x).masked_fill(flow.tensor(m2), -1.5).numpy(), want)
    y = flow.tensor(x)
    y.masked_fill_(flow.tensor(m2), -1.5)
    np.testing.assert_array_equal(y.numpy(), want)
    np.testing.assert_array_equal(flow.tensor(x).masked_select(flow.tensor(m2)).numpy(), x[m2 != 0])
    # a float mask too (OneFlow's masked_select test passes triu(ones)): nonzero selects
    np.testing.assert_array_equal(flow.masked_select(flow.tensor(x), flow.tensor(m2.astype(np.float32))).numpy(),
                                  x[np.broadcast_to(m2 != 0, x.shape)])


# --- searchsorted: torch's binary search, so unsorted input answers as torch/OneFlow --

@needs_torch
def test_searchsorted_follows_torchs_binary_search_on_unsorted_and_nan_input():
    s, v = [[1, 3, 5, 7, 9], [2, 4, 6, 8, 10]], [[3, 6, 9], [3, 6, 9]]
    so = [[4, 3, 2, 1, 0], [3, 2, 4, 0, 1]]  # not a sorting permutation: OneFlow's test expects torch's answer
    got = flow.searchsorted(flow.tensor(s), flow.tensor(v), sorter=flow.tensor(so)).numpy()
    np.testing.assert_array_equal(got, [[0, 5, 5], [0, 0, 2]])
    np.testing.assert_array_equal(got, torch.searchsorted(torch.tensor(s), torch.tensor(v),
                                                          sorter=torch.tensor(so)).numpy())
    rs = np.random.RandomState(11)
    for _ in range(60):
        n, k, nd = rs.randint(0, 9), rs.randint(1, 6), rs.randint(1, 3)
        sq = rs.randn(*([2] * (nd - 1) + [n])).astype(np.float32)
        vl = rs.randn(*([2] * (nd - 1) + [k])).astype(np.float32)
        if rs.rand() < 0.5:
            sq = np.sort(sq, -1)
        if sq.size and rs.rand() < 0.3:
            sq.flat[rs.randint(0, sq.size)] = np.nan
        if rs.rand() < 0.3:
            vl.flat[0] = np.nan
        for right in (False, True):
            want = torch.searchsorted(torch.tensor(sq), torch.tensor(vl), right=right).numpy()
            np.testing.assert_array_equal(flow.searchsorted(flow.tensor(sq), flow.tensor(vl), right=right).numpy(),
                                          want)
    seq = flow.tensor([1.0, 3.0, 5.0, 7.0, 9.0])
    assert flow.searchsorted(seq, 5).item() == 2 and flow.searchsorted(seq, 5, right=True).item() == 3
    assert flow.searchsorted(seq, 5, out_int32=True).dtype == flow.int32
    np.testing.assert_array_equal(flow.bucketize(flow.tensor([[0.0, 5.0], [9.5, 4.0]]), seq).numpy(),
                                  torch.bucketize(torch.tensor([[0.0, 5.0], [9.5, 4.0]]),
                                                  torch.tensor([1.0, 3.0, 5.0, 7.0, 9.0])).numpy())


# --- an unsigned right shift by bits - 1 ---------------------------------------

@needs_torch
@pytest.mark.parametrize("dx,dy", [("uint8", "uint8"), ("uint8", "int64"), ("int8", "uint8"), ("int32", "int32")])
def test_right_shift_by_the_last_bit_as_torch(dx, dy):
    rs = np.random.RandomState(13)
    a, b = rs.randint(-300, 300, size=300), rs.randint(-3, 70, size=300)
    b[:4] = 7  # uint8 246 >> 7 is 1 (was 0: the signed limit applied to unsigned types)
    a[:4] = [246, 255, 128, 127]
    tx, ty = torch.tensor(a).to(getattr(torch, dx)), torch.tensor(b).to(getattr(torch, dy))
    fx, fy = flow.tensor(a).to(getattr(flow, dx)), flow.tensor(b).to(getattr(flow, dy))
    for op in ("bitwise_right_shift", "bitwise_left_shift"):
        np.testing.assert_array_equal(getattr(flow, op)(fx, fy).numpy(), getattr(torch, op)(tx, ty).numpy())
    assert (flow.tensor([246], dtype=flow.uint8) >> 7).tolist() == [1]


def test_nonzero_takes_as_tuple_positionally():
    # OneFlow's signature is nonzero(input, as_tuple=False): test_nonzero calls flow.nonzero(x, True)
    x = np.array([[0.0, 1.5, 0.0], [2.0, 0.0, -1.0]], dtype=np.float32)
    t = flow.tensor(x)
    for got in (flow.nonzero(t, True), t.nonzero(True)):
        assert isinstance(got, tuple) and len(got) == 2
        for g, w in zip(got, np.nonzero(x)):
            np.testing.assert_array_equal(g.numpy(), w)
    np.testing.assert_array_equal(flow.nonzero(t, False).numpy(), np.transpose(np.nonzero(x)))


def test_depend_passes_its_input_on_in_eager_and_graph():
    x, y = flow.ones(3), flow.zeros(3)
    assert flow.nn.functional.depend(x, y) is x and flow._C.depend(x, [y, y]) is x

    class G(flow.nn.Graph):
        def build(self, a, b):
            c = b * 2
            return flow.nn.functional.depend(a + 1, c) * 3

    np.testing.assert_array_equal(G()(x, y).numpy(), [6.0, 6.0, 6.0])
    with pytest.raises(TypeError, match="depend"):
        flow.nn.functional.depend(x, 3)


def test_arithmetic_functions_take_oneflows_inplace_flag():
    # OneFlow's functional add/sub/mul/div(..., inplace=True): the in-place method, the input returned
    x = flow.ones(3)
    assert flow.add(x, 7, inplace=True) is x and x.tolist() == [8.0] * 3
    assert flow.sub(x, 1, alpha=2, inplace=True) is x and x.tolist() == [6.0] * 3
    assert flow.mul(x, flow.tensor([1.0, 2.0, 3.0]), inplace=True) is x and x.tolist() == [6.0, 12.0, 18.0]
    assert flow.div(x, 4, rounding_mode="floor", inplace=True) is x and x.tolist() == [1.0, 3.0, 4.0]
    y = flow.add(x, 1)  # the default stays out of place
    assert y is not x and x.tolist() == [1.0, 3.0, 4.0]
    leaf = flow.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf"):
        flow.add(leaf, 1, inplace=True)


def test_relu_pow_fmod_floor_divide_take_oneflows_inplace_flag():
    # OneFlow's test_graph_inplace_operations: flow.relu/pow/fmod/floor_divide(..., inplace=True)
    base = np.array([-2.5, 3.0, 7.5], dtype=np.float32)
    for name, args, expected in [("relu", (), np.maximum(base, 0)), ("pow", (2,), base ** 2),
                                 ("fmod", (2,), np.fmod(base, 2)), ("floor_divide", (2,), np.floor(base / 2))]:
        x = flow.tensor(base)
        assert getattr(flow, name)(x, *args, inplace=True) is x, name
        np.testing.assert_allclose(x.numpy(), expected, err_msg=name)
        y = flow.tensor(base)
        out = getattr(flow, name)(y, *args)  # the default stays out of place
        assert out is not y and y.tolist() == base.tolist()
        np.testing.assert_allclose(out.numpy(), expected, err_msg=name)
        with pytest.raises(TypeError, match=name):
            getattr(flow, name)(y, *args, inplace=1)
    with pytest.raises(RuntimeError, match="leaf"):
        flow.relu(flow.ones(2, requires_grad=True), inplace=True)
