"""autograd.graph.saved_tensors_hooks / save_on_cpu on the tensors built-in operators save in the C++
engine (Note [Saved-tensor hooks]), against torch: what is packed, the unpack at backward, gradients,
double backward, errors, and nesting."""
import numpy as np
import pytest
import torch

import monoflow as flow


def _counting(lib, log):
    def pack(t):
        log.append(("pack", tuple(t.shape), float(t.detach().sum())))
        return ("box", t)

    def unpack(p):
        log.append(("unpack",))
        assert p[0] == "box"
        return p[1]

    return lib.autograd.graph.saved_tensors_hooks(pack, unpack)


def _mul_program(lib, log):
    x = lib.ones(1, 2, 3).requires_grad_()
    y = lib.full((1, 2, 3), 2.0).requires_grad_()
    with _counting(lib, log):
        z = x * y
    z.sum().backward()
    return x.grad.numpy(), y.grad.numpy()


def test_mul_packs_both_operands_in_torchs_order_and_unpacks_at_backward():
    logs = {"monoflow": [], "torch": []}
    got, want = _mul_program(flow, logs["monoflow"]), _mul_program(torch, logs["torch"])
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a, b)
    assert logs["monoflow"] == logs["torch"]  # y (other) first, then x, then two unpacks


def test_packed_values_replace_the_saved_tensors():
    # unpack returns something else: backward uses it, proving the saved tensor is not kept aside
    for lib in (flow, torch):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t.detach() * 0 + 10, lambda p: p):
            y = (x * x).sum()
        y.backward()
        assert x.grad.tolist() == [20.0, 20.0], lib.__name__


@pytest.mark.parametrize("prog", ["exp", "matmul", "tanh", "softmax", "conv"])
def test_grads_under_save_on_cpu_match_torch(prog):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((2, 3, 5, 5)).astype(np.float32)
    w = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
    out = []
    for lib in (flow, torch):
        x = lib.tensor(a, requires_grad=True)
        k = lib.tensor(w, requires_grad=True)
        with lib.autograd.graph.save_on_cpu():
            if prog == "exp":
                y = x.exp() * 2
            elif prog == "matmul":
                y = x @ x.transpose(-1, -2)
            elif prog == "tanh":
                y = x.tanh().tanh()
            elif prog == "softmax":
                y = x.softmax(-1).log()
            else:
                y = lib.nn.functional.conv2d(x, k, padding=1).relu()
        (y * y).sum().backward()
        out.append((x.grad.numpy(), k.grad.numpy() if k.grad is not None else None))
    np.testing.assert_allclose(out[0][0], out[1][0], rtol=1e-4, atol=1e-5)
    if out[1][1] is not None:
        np.testing.assert_allclose(out[0][1], out[1][1], rtol=1e-4, atol=1e-4)


def test_double_backward_through_packed_outputs():
    for lib in (flow, torch):
        x = lib.tensor([0.5, 1.5], requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
            y = x.exp()
        (g,) = lib.autograd.grad(y.sum(), x, create_graph=True)
        (gg,) = lib.autograd.grad(g.sum(), x)
        np.testing.assert_allclose(gg.numpy(), np.exp([0.5, 1.5]), rtol=1e-6)


def test_hook_errors_reach_python():
    x = flow.ones(2, requires_grad=True)

    def bad_pack(t):
        raise ValueError("pack failed")

    with pytest.raises(ValueError, match="pack failed"):
        with flow.autograd.graph.saved_tensors_hooks(bad_pack, lambda p: p):
            x * x
    with flow.autograd.graph.saved_tensors_hooks(lambda t: t, lambda p: "not a tensor"):
        y = (x * x).sum()
    # OneFlow's phrase (exceptions/test_saved_tensor_hooks), then torch's
    with pytest.raises(TypeError, match=r"^saved_tensors_hooks: unpack_hook should return a Tensor, but got "
                                        r"`<class 'str'>` instead \(Output of saved tensor unpack_hook expected "
                                        r"to be a Tensor but got result of type str\)$"):
        y.backward()
    # the stack is balanced again: ordinary recording works
    (x * x).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]


def test_the_innermost_hooks_pack_and_the_same_pair_unpacks():
    seen = []
    x = flow.ones(2, requires_grad=True)
    with flow.autograd.graph.saved_tensors_hooks(lambda t: ("outer", t), lambda p: seen.append(p[0]) or p[1]):
        with flow.autograd.graph.saved_tensors_hooks(lambda t: ("inner", t), lambda p: seen.append(p[0]) or p[1]):
            y = x.exp().sum()
        z = (x * 3).sin().sum()
    (y + z).backward()
    assert sorted(seen) == ["inner", "outer"]
