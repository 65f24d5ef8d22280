"""Forms that older PyTorch programs are written in and torch still accepts: the scalar-first
overloads of add/sub/addcmul/addcdiv (Note [Scalar-first overloads] in _C.pyx: 0.4-era optimizers,
``p.data.add_(-lr, grad)``), ``torch.cuda.FloatTensor`` and friends in isinstance checks, and
``nn.parallel.data_parallel``. Checked against torch."""
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import monoflow as flow

torch = pytest.importorskip("torch")

FORMS = [
    ("x.clone().add_(s, y)", "x.clone().add_(y, alpha=s)"),
    ("x.add(s, y)", "x.add(y, alpha=s)"),
    ("lib.add(x, s, y)", "lib.add(x, y, alpha=s)"),
    ("x.clone().sub_(s, y)", "x.clone().sub_(y, alpha=s)"),
    ("x.sub(s, y)", "x.sub(y, alpha=s)"),
    ("lib.sub(x, s, y)", "lib.sub(x, y, alpha=s)"),
    ("x.clone().addcmul_(s, y, z)", "x.clone().addcmul_(y, z, value=s)"),
    ("x.addcmul(s, y, z)", "x.addcmul(y, z, value=s)"),
    ("lib.addcmul(x, s, y, z)", "lib.addcmul(x, y, z, value=s)"),
    ("x.clone().addcdiv_(s, y, z)", "x.clone().addcdiv_(y, z, value=s)"),
    ("x.addcdiv(s, y, z)", "x.addcdiv(y, z, value=s)"),
    ("lib.addcdiv(x, s, y, z)", "lib.addcdiv(x, y, z, value=s)"),
]


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2 ** 16), st.floats(-3, 3, allow_nan=False, width=32), st.sampled_from(FORMS))
def test_scalar_first_forms_equal_the_keyword_forms_and_torch(seed, s, form):
    old, new = form
    rs = np.random.RandomState(seed)
    x, y = rs.randn(2, 3).astype(np.float32), rs.randn(3).astype(np.float32)
    z = (rs.rand(2, 3) + 0.5).astype(np.float32)
    results = []
    for lib in (flow, torch):
        env = dict(lib=lib, s=s, x=lib.tensor(x), y=lib.tensor(y), z=lib.tensor(z))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            results += [eval(old, env).numpy(), eval(new, env).numpy()]
    np.testing.assert_array_equal(results[0], results[1])
    np.testing.assert_allclose(results[0], results[2], rtol=1e-6, atol=1e-6)


def test_scalar_first_forms_warn_once_and_refuse_bad_mixes():
    from monoflow import _C

    _C._warned_overloads.discard("add_")
    x, y = flow.zeros(2), flow.ones(2)
    with pytest.warns(UserWarning, match=r"This overload of add_ is deprecated:\n\tadd_\(Number alpha, Tensor other\)"):
        x.add_(2, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        x.add_(2, y)  # once per op
    assert x.tolist() == [4.0, 4.0]
    with pytest.raises(TypeError, match="add_"):
        x.add_(y, y)  # the leading argument must be a Number
    with pytest.raises(TypeError, match="add"):
        x.add(2, 3)  # ... and the second a Tensor
    with pytest.raises(TypeError, match="alpha given twice"):
        x.sub_(2, y, alpha=3)
    with pytest.raises(TypeError, match="addcmul_"):
        x.addcmul_(2, y, y, value=3)
    with pytest.raises(TypeError, match="addcdiv"):
        flow.addcdiv(x, y, y, y)


def test_cuda_legacy_types_answer_isinstance_like_torch():
    for name in ("FloatTensor", "DoubleTensor", "HalfTensor", "LongTensor", "IntTensor", "ByteTensor", "BoolTensor"):
        t_cls, f_cls = getattr(torch.cuda, name), getattr(flow.cuda, name)
        for dtype in ("float32", "int64", "bool"):
            t, f = torch.zeros(2, dtype=getattr(torch, dtype)), flow.zeros(2, dtype=getattr(flow, dtype))
            assert isinstance(f, f_cls) == isinstance(t, t_cls) is False
            assert isinstance(f, getattr(flow, name)) == isinstance(t, getattr(torch, name))
        assert repr(f_cls) == repr(t_cls).replace("torch", "monoflow")
    if not flow.cuda.is_available():
        with pytest.raises(RuntimeError, match="cuda.FloatTensor.*'cuda'"):
            flow.cuda.FloatTensor(2, 3)


def test_data_parallel_function_runs_the_module():
    lin = flow.nn.Linear(4, 2)
    x = flow.randn(3, 4)
    np.testing.assert_array_equal(flow.nn.parallel.data_parallel(lin, x).detach().numpy(), lin(x).detach().numpy())
    assert flow.nn.parallel.data_parallel(lambda a, k=0: a + k, (x,), module_kwargs={"k": 1}).shape == (3, 4)
    with pytest.raises(NotImplementedError, match="several devices"):
        flow.nn.parallel.data_parallel(lin, x, device_ids=[0, 1])


def _warnings_of(lib, program):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        program(lib)
    return [(w.category.__name__, str(w.message).split(" ")[0].replace("torch.", "").replace("monoflow.", ""))
            for w in caught]


@pytest.mark.parametrize("name, program", [
    ("size_average", lambda lib: lib.nn.functional.nll_loss(lib.log_softmax(lib.randn(4, 3), 1),
                                                            lib.tensor([0, 1, 2, 0]), size_average=False)),
    ("size_average module", lambda lib: lib.nn.MSELoss(reduce=False)),
    ("align_corners", lambda lib: lib.nn.functional.grid_sample(
        lib.randn(1, 1, 4, 4), lib.nn.functional.affine_grid(lib.eye(2, 3).unsqueeze(0), (1, 1, 4, 4)))),
    ("get_lr outside step", lambda lib: lib.optim.lr_scheduler.StepLR(
        lib.optim.SGD([lib.zeros(1, requires_grad=True)], lr=1.0), 1).get_lr()),
    ("cuda.amp", lambda lib: (lib.cuda.amp.GradScaler(enabled=False), lib.cuda.amp.autocast(enabled=False))),
    ("cpu.amp", lambda lib: lib.cpu.amp.autocast(enabled=False)),
])
def test_deprecation_warnings_match_torch(name, program):
    ours = _warnings_of(flow, program)
    theirs = [w for w in _warnings_of(torch, program) if "invariant" not in w[1]]
    assert ours == theirs, name


def test_no_get_lr_warning_inside_step():
    opt = flow.optim.SGD([flow.zeros(1, requires_grad=True)], lr=1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sched = flow.optim.lr_scheduler.StepLR(opt, 1)
        opt.step()
        sched.step()
        assert sched.get_last_lr() == [0.1]
