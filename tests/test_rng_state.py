"""Random state you can save: flow.get_rng_state/set_rng_state, Generator
states, generator= plumbing, and DataLoader epochs resumed mid-way."""
import io
import subprocess
import sys

import numpy as np
import pytest

import monoflow as flow
import monoflow.nn.functional as F
from monoflow.utils.data import DataLoader, TensorDataset
from helpers import TORCH as torch


def _draws(generator=None):
    x = flow.ones(64)
    return [flow.randn(5, generator=generator), flow.rand(5, generator=generator),
            flow.randint(0, 1000, (5,), generator=generator), flow.normal(0.0, 2.0, (5,), generator=generator),
            flow.bernoulli(flow.full((6,), 0.5), generator=generator), flow.empty(4).uniform_(generator=generator),
            flow.empty(4).normal_(generator=generator), F.dropout(x, 0.5, generator=generator),
            flow.randn(3, 3, dtype=flow.float64, generator=generator)]


def _same(a, b):
    assert len(a) == len(b)
    for u, v in zip(a, b):
        assert u.dtype == v.dtype
        np.testing.assert_array_equal(u.numpy(), v.numpy())  # bit for bit


def test_global_state_round_trip_repeats_every_draw_including_dropout():
    flow.manual_seed(1234)
    flow.randn(7)  # somewhere in the stream, not at a seed boundary
    state = flow.get_rng_state()
    assert state.dtype == flow.uint8 and state.dim() == 1 and state.device.type == "cpu"
    first = _draws() + [F.dropout(flow.ones(32), 0.3), flow.nn.Dropout(0.4)(flow.ones(16))]
    flow.set_rng_state(state)
    second = _draws() + [F.dropout(flow.ones(32), 0.3), flow.nn.Dropout(0.4)(flow.ones(16))]
    _same(first, second)
    assert not np.array_equal(first[0].numpy(), _draws()[0].numpy())  # the stream moved on


def test_state_survives_save_and_load():
    flow.manual_seed(5)
    buf = io.BytesIO()
    g = flow.Generator().manual_seed(77)
    flow.save({"global": flow.get_rng_state(), "g": g.get_state()}, buf)
    expected_global, expected_g = flow.rand(10), flow.rand(10, generator=g)
    buf.seek(0)
    states = flow.load(buf)
    flow.set_rng_state(states["global"])
    g2 = flow.Generator()
    g2.set_state(states["g"])
    _same([flow.rand(10), flow.rand(10, generator=g2)], [expected_global, expected_g])


def test_generator_objects():
    g = flow.Generator()
    assert g.device == flow.device("cpu")
    assert g.manual_seed(42) is g and g.initial_seed() == 42
    s = g.get_state()
    a = _draws(g)
    g.set_state(s)
    _same(a, _draws(g))
    g2 = flow.Generator().manual_seed(42)
    _same(a, _draws(g2))  # same seed, same stream
    flow.manual_seed(0)
    before = flow.get_rng_state()
    _draws(g)
    np.testing.assert_array_equal(flow.get_rng_state().numpy(), before.numpy())  # the global one untouched
    s = g.seed()
    assert g.initial_seed() == s
    with pytest.raises(ValueError, match="16 bytes"):
        g.set_state(flow.zeros(3, dtype=flow.uint8))
    with pytest.raises(TypeError, match="Generator"):
        flow.rand(2, generator=object())


@pytest.mark.skipif(not hasattr(flow, "multinomial") or not hasattr(flow, "randperm"),
                    reason="randperm/multinomial are not in this tree")
def test_generator_copies_and_pickles_in_its_state_as_torch():
    import copy
    import pickle
    for L in (flow, torch):
        g = L.Generator().manual_seed(3)
        L.rand(5, generator=g)
        twin, thawed = copy.deepcopy(g), pickle.loads(pickle.dumps(g))
        want = L.rand(4, generator=g)
        assert L.equal(L.rand(4, generator=twin), want) and L.equal(L.rand(4, generator=thawed), want)
        assert twin.initial_seed() == 3
    # a module holding one deep-copies (OneFlow's graph check copies modules)
    m = copy.deepcopy(flow.nn.Dropout(0.5, generator=flow.Generator().manual_seed(1)))
    assert m(flow.ones(8)).shape == (8,)


def test_sampling_ops_repeat_from_a_saved_state():
    g = flow.Generator().manual_seed(8)
    flow.manual_seed(8)
    states = g.get_state(), flow.get_rng_state()
    probs = flow.tensor([0.1, 0.2, 0.3, 0.4])
    first = [flow.randperm(20, generator=g), flow.multinomial(probs, 3, generator=g),
             flow.multinomial(probs, 6, replacement=True, generator=g), flow.randperm(9), flow.multinomial(probs, 2)]
    g.set_state(states[0])
    flow.set_rng_state(states[1])
    again = [flow.randperm(20, generator=g), flow.multinomial(probs, 3, generator=g),
             flow.multinomial(probs, 6, replacement=True, generator=g), flow.randperm(9), flow.multinomial(probs, 2)]
    _same(first, again)


def test_default_generator_is_the_global_state():
    flow.manual_seed(9)
    np.testing.assert_array_equal(flow.default_generator.get_state().numpy(), flow.get_rng_state().numpy())
    assert flow.initial_seed() == 9


def test_each_process_starts_from_its_own_seed_as_in_torch():
    # two fresh processes that never seed draw different numbers (DDP ranks,
    # reruns of a script); a new Generator object starts at its fixed seed
    code = ("import monoflow as flow; print(flow.initial_seed(), flow.rand(3).tolist(), "
            "flow.Generator().initial_seed())")
    runs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split(" ", 1)
            for _ in range(2)]
    assert runs[0][0] != runs[1][0] and runs[0][1].rsplit("]", 1)[0] != runs[1][1].rsplit("]", 1)[0]
    assert runs[0][1].rsplit(" ", 1)[1].strip() == str(flow.Generator().initial_seed()) == "67280421310721"
    if torch is not None:
        assert torch.Generator().initial_seed() == 67280421310721


@pytest.mark.skipif(torch is None, reason="torch is the oracle")
def test_state_api_shape_like_torch():
    assert flow.get_rng_state().dtype.name == "uint8" and torch.get_rng_state().dtype == torch.uint8
    assert torch.Generator().device.type == flow.Generator().device.type


# ---------------------------------------------------------------- DataLoader


def _loader(num_workers, generator):
    x = flow.arange(50, dtype=flow.float32).reshape(25, 2)
    return DataLoader(TensorDataset(x, flow.arange(25)), batch_size=4, shuffle=True, num_workers=num_workers,
                      generator=generator)


def _ids(batches):
    return [b[1].tolist() for b in batches]


@pytest.mark.parametrize("num_workers", [0, 2])
@pytest.mark.parametrize("stop_at", [0, 3, 7])
def test_dataloader_resumes_mid_epoch(num_workers, stop_at):
    loader = _loader(num_workers, flow.Generator().manual_seed(3))
    list(loader)  # an epoch already done
    it = iter(loader)
    head = [next(it) for _ in range(stop_at)]
    state = loader.state_dict()
    tail = list(it)
    next_epoch = list(loader)
    # a new process: a fresh loader, a generator seeded differently
    resumed = _loader(num_workers, flow.Generator().manual_seed(999))
    resumed.load_state_dict(state)
    resumed_tail = list(resumed)
    assert _ids(resumed_tail) == _ids(tail)
    assert len(head) + len(tail) == len(loader)
    assert _ids(list(resumed)) == _ids(next_epoch)  # and the epochs after go on as before


def test_dataloader_resume_with_the_global_generator():
    flow.manual_seed(11)
    loader = _loader(0, None)
    it = iter(loader)
    next(it)
    next(it)
    state, rng = loader.state_dict(), flow.get_rng_state()
    tail = list(it)
    after = flow.rand(3)
    flow.manual_seed(12345)
    resumed = _loader(0, None)
    flow.set_rng_state(rng)
    resumed.load_state_dict(state)
    assert _ids(list(resumed)) == _ids(tail)
    np.testing.assert_array_equal(flow.rand(3).numpy(), after.numpy())


def test_dataloader_state_between_epochs():
    loader = _loader(0, flow.Generator().manual_seed(4))
    list(loader)
    state = loader.state_dict()
    assert state["batches_returned"] == 0
    expected = list(loader)
    resumed = _loader(0, flow.Generator())
    resumed.load_state_dict(state)
    assert _ids(list(resumed)) == _ids(expected)
