"""Tensor.register_post_accumulate_grad_hook against torch: the optimizer-step-in-backward pattern,
accumulation over passes, removal, errors."""
import numpy as np
import pytest

import monoflow

torch = pytest.importorskip("torch")


def _optimizer_in_backward(T):
    rng = np.random.default_rng(0)
    model = T.nn.Sequential(T.nn.Linear(4, 8), T.nn.ReLU(), T.nn.Linear(8, 1))
    with T.no_grad():
        for p in model.parameters():
            p.copy_(T.from_numpy(rng.standard_normal(tuple(p.shape)).astype(np.float32)))
    optimizer_dict = {p: T.optim.Adam([p], lr=0.01) for p in model.parameters()}

    def optimizer_hook(parameter):
        optimizer_dict[parameter].step()
        optimizer_dict[parameter].zero_grad()

    for p in model.parameters():
        p.register_post_accumulate_grad_hook(optimizer_hook)
    x = T.from_numpy(rng.standard_normal((16, 4)).astype(np.float32))
    losses = []
    for _ in range(6):
        loss = (model(x) ** 2).mean()
        loss.backward()
        losses.append(loss.item())
    assert all(p.grad is None for p in model.parameters())  # zero_grad() in the hook: None, as torch
    return losses


def test_optimizer_step_in_backward_trains_as_torch():
    np.testing.assert_allclose(_optimizer_in_backward(monoflow), _optimizer_in_backward(torch), rtol=1e-5)


def test_hook_sees_the_accumulated_gradient_once_per_pass_and_can_be_removed():
    seen = {}
    for T in (torch, monoflow):
        x = T.ones(3, requires_grad=True)
        got = []
        h = x.register_post_accumulate_grad_hook(lambda t: got.append(t.grad.tolist()))
        (x * 2).sum().backward()
        (x * x * 3).sum().backward()  # x is used twice: one call with the pass's total
        h.remove()
        (x * 5).sum().backward()
        seen[T.__name__] = (got, x.grad.tolist())
    assert seen["monoflow"] == seen["torch"] == ([[2.0, 2.0, 2.0], [8.0, 8.0, 8.0]], [13.0, 13.0, 13.0])


def test_non_leaf_is_refused_as_torch():
    for T in (torch, monoflow):
        y = T.ones(2, requires_grad=True) * 2
        with pytest.raises(RuntimeError):
            y.register_post_accumulate_grad_hook(lambda t: None)


def test_hook_keeps_no_reference_to_its_leaf():
    import gc
    import weakref
    x = monoflow.ones(2, requires_grad=True)
    x.register_post_accumulate_grad_hook(lambda t: None)
    ref = weakref.ref(x)
    del x
    gc.collect()
    assert ref() is None
