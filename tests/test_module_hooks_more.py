"""nn.Module's state-dict hooks, extra state, backward pre-hooks, global module hooks, to_empty and
set_submodule, each run on monoflow and on torch with the same weights and compared."""
import numpy as np
import pytest
import torch

import monoflow as flow

W = np.arange(6, dtype=np.float32).reshape(2, 3) / 10
B = np.array([0.5, -0.5], dtype=np.float32)


def _model(lib):
    class WithExtra(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = lib.nn.Linear(3, 2)
            self.counter = 5

        def get_extra_state(self):
            return {"counter": self.counter}

        def set_extra_state(self, state):
            self.counter = state["counter"]

    m = WithExtra()
    with lib.no_grad():
        m.fc.weight.copy_(lib.tensor(W))
        m.fc.bias.copy_(lib.tensor(B))
    return m


def _state_dict_round_trip(lib):
    log = []
    m = _model(lib)
    m.register_state_dict_pre_hook(lambda mod, prefix, keep_vars: log.append(("pre", prefix, keep_vars)))
    m.register_state_dict_post_hook(lambda mod, sd, prefix, meta: log.append(("post", sorted(sd))))
    m.fc.register_state_dict_pre_hook(lambda mod, prefix, keep_vars: log.append(("child pre", prefix)))
    sd = m.state_dict()
    log.append(("keys", sorted(sd), sd["_extra_state"]))

    m2 = _model(lib)
    m2.counter = 0

    def pre(mod, state_dict, prefix, meta, strict, missing, unexpected, errors):
        log.append(("load pre", prefix, strict))
        state_dict[prefix + "fc.bias"] = state_dict[prefix + "fc.bias"] * 0 + 7

    def post(mod, incompatible):
        log.append(("load post", list(incompatible.missing_keys), list(incompatible.unexpected_keys)))
        incompatible.unexpected_keys.clear()  # a post hook may forgive keys in place

    m2.register_load_state_dict_pre_hook(pre)
    m2.register_load_state_dict_post_hook(post)
    sd["stray"] = sd["fc.bias"]
    result = m2.load_state_dict(sd)
    log.append(("loaded", m2.counter, m2.fc.bias.detach().numpy().tolist(), list(result.unexpected_keys)))
    return log


def test_state_dict_hooks_and_extra_state_match_torch():
    assert _state_dict_round_trip(flow) == _state_dict_round_trip(torch)


def test_missing_extra_state_is_a_missing_key_as_in_torch():
    for lib in (flow, torch):
        m = _model(lib)
        with pytest.raises(RuntimeError, match="_extra_state"):
            m.load_state_dict({"fc.weight": lib.tensor(W), "fc.bias": lib.tensor(B)})


def test_state_dict_post_hook_must_not_return_a_value():
    m = _model(flow)
    m.register_state_dict_post_hook(lambda *a: {})
    with pytest.raises(RuntimeError, match="post-hook must return None"):
        m.state_dict()


def _backward_pre_hook(lib):
    m = _model(lib)
    seen = []

    def hook(mod, grad_output):
        seen.append(tuple(grad_output[0].shape))
        return (grad_output[0] * 2,)

    handle = m.fc.register_full_backward_pre_hook(hook)
    x = lib.ones(4, 3, requires_grad=True)
    (m.fc(x) * lib.tensor([1.0, 3.0])).sum().backward()
    first = x.grad.numpy().copy()
    handle.remove()
    x.grad = None
    (m.fc(x) * lib.tensor([1.0, 3.0])).sum().backward()
    return seen, first, x.grad.numpy()


def test_backward_pre_hook_replaces_grad_output_as_torch():
    (seen_f, first_f, second_f), (seen_t, first_t, second_t) = _backward_pre_hook(flow), _backward_pre_hook(torch)
    assert seen_f == seen_t == [(4, 2)]
    np.testing.assert_allclose(first_f, first_t, rtol=1e-6)
    np.testing.assert_allclose(second_f, second_t, rtol=1e-6)
    np.testing.assert_allclose(first_f, 2 * second_f, rtol=1e-6)


def _global_hooks(lib):
    from importlib import import_module

    mm = import_module(lib.__name__ + ".nn.modules.module")
    log = []
    handles = [
        mm.register_module_forward_pre_hook(lambda mod, args: log.append(("pre", type(mod).__name__))),
        mm.register_module_forward_hook(lambda mod, args, out: log.append(("fwd", type(mod).__name__))),
        mm.register_module_full_backward_hook(
            lambda mod, gin, gout: log.append(("bwd", type(mod).__name__, tuple(gout[0].shape)))),
        mm.register_module_parameter_registration_hook(lambda mod, name, p: log.append(("param", name))),
        mm.register_module_module_registration_hook(lambda mod, name, sub: log.append(("module", name))),
        mm.register_module_buffer_registration_hook(lambda mod, name, b: log.append(("buffer", name))),
    ]
    try:
        net = lib.nn.Sequential(lib.nn.Linear(3, 2), lib.nn.ReLU())
        net.register_buffer("scale", lib.ones(1))
        x = lib.ones(2, 3, requires_grad=True)
        net(x).sum().backward()
    finally:
        for h in handles:
            h.remove()
    lib.nn.Linear(3, 2)(x)  # removed: nothing more is logged
    return log


def test_global_module_hooks_run_for_every_module_as_torch():
    assert _global_hooks(flow) == _global_hooks(torch)


def test_to_empty_and_set_submodule_as_torch():
    for lib in (flow, torch):
        m = _model(lib)
        assert m.to_empty(device="cpu") is m
        assert tuple(m.fc.weight.shape) == (2, 3) and m.fc.weight.dtype == lib.float32
        assert isinstance(m.fc.weight, lib.nn.Parameter)
        seq = lib.nn.Sequential(lib.nn.Sequential(lib.nn.Linear(3, 3)))
        seq.set_submodule("0.0", lib.nn.Linear(3, 7))
        assert tuple(seq[0][0].weight.shape) == (7, 3)
        with pytest.raises(AttributeError):
            seq.set_submodule("0.missing", lib.nn.Linear(3, 7), strict=True)
        with pytest.raises(ValueError):
            seq.set_submodule("", lib.nn.Linear(3, 7))


def test_register_backward_hook_is_a_full_backward_hook():
    m = _model(flow)
    got = []
    m.fc.register_backward_hook(lambda mod, gin, gout: got.append((gin[0].shape, gout[0].shape)))
    x = flow.ones(4, 3, requires_grad=True)
    m.fc(x).sum().backward()
    assert got == [((4, 3), (4, 2))]
