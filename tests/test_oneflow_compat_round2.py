"""OneFlow names its own tests reach (issue 13, second probe of OneFlow's suite): `x in t` over
any tensor, hook handles' ``hooks_dict_ref()``, ``_oneflow_internal.TensorTuple``, OneFlow's
``_C.layer_norm`` signature and DDP's ``_is_ddp_module``. Checked against torch where it has them."""
import numpy as np
import pytest

import monoflow as flow

torch = pytest.importorskip("torch")


def test_contains_looks_at_every_element_like_torch():
    data = [[1, 2, 3], [4, 5, 6]]
    for probe in (1, 7, 2.0, 6.5, True):
        assert (probe in flow.tensor(data)) == (probe in torch.tensor(data)), probe
    assert flow.tensor(5) in flow.tensor(data)
    assert flow.tensor([7, 8, 9]) not in flow.tensor(data)  # broadcast over the rows, as torch
    for bad in ("a", [1], None):
        with pytest.raises(RuntimeError, match="only supports Tensor or scalar"):
            bad in flow.tensor(data)  # noqa: B015


def test_hook_handles_point_at_their_table():
    m = flow.nn.Sigmoid()
    h = m.register_forward_pre_hook(lambda mod, inp: None)
    assert h.hooks_dict_ref() is m._forward_pre_hooks and h.id in m._forward_pre_hooks
    h.remove()
    assert h.id not in m._forward_pre_hooks


def test_tensor_tuple_is_what_backward_hooks_receive():
    from monoflow._oneflow_internal import TensorTuple

    seen = []
    lin = flow.nn.Linear(2, 2)
    lin.register_full_backward_hook(lambda mod, gin, gout: seen.append((type(gin), type(gout))))
    lin(flow.randn(3, 2, requires_grad=True)).sum().backward()
    assert seen and all(issubclass(t, TensorTuple) for pair in seen for t in pair)


def test_c_layer_norm_takes_oneflow_signature():
    x = np.random.RandomState(0).randn(2, 3, 4).astype(np.float32)
    for axis in (1, 2, -1):
        got = flow._C.layer_norm(flow.tensor(x), begin_norm_axis=axis, begin_params_axis=axis, epsilon=1e-6).numpy()
        shape = x.shape[axis % 3:]
        want = torch.nn.functional.layer_norm(torch.tensor(x), shape, eps=1e-6).numpy()
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    with pytest.raises(TypeError, match="begin_norm_axis"):
        flow._C.layer_norm(flow.tensor(x), "1", 1)


def test_ddp_marks_its_module():
    import subprocess
    import sys

    # (its own process: wrapping sets up a process group, which would outlive this test)
    code = ("import monoflow as flow; "
            "print(flow.nn.parallel.DistributedDataParallel(flow.nn.Linear(2, 2))._is_ddp_module)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "True"
