"""Tensors in shared memory: share_memory_() in place, monoflow.multiprocessing
sending them as shared segments, DataLoader workers, and Hogwild training."""
import multiprocessing as std_mp
import pickle

import numpy as np
import pytest

import monoflow as flow
import monoflow.multiprocessing as mp
import monoflow.nn as nn
import monoflow.nn.functional as F
from monoflow.utils.data import DataLoader, TensorDataset

TIMEOUT = 120


def test_share_memory_is_in_place_and_keeps_views():
    t = flow.arange(12, dtype=flow.float32).reshape(3, 4)
    view = t[1]  # made before the move: must follow it
    assert not t.is_shared() and not view.is_shared()
    assert t.share_memory_() is t
    assert t.is_shared() and view.is_shared()
    np.testing.assert_array_equal(t.numpy(), np.arange(12, dtype=np.float32).reshape(3, 4))
    view.fill_(-1.0)
    np.testing.assert_array_equal(t.numpy()[1], [-1.0] * 4)
    t.add_(1.0)
    np.testing.assert_array_equal(view.numpy(), [0.0] * 4)
    assert t.share_memory_() is t  # already shared: nothing changes
    assert t[0, 0].item() == 1.0


@pytest.mark.parametrize("dtype", [flow.float32, flow.float64, flow.int64, flow.bfloat16, flow.bool, flow.uint8])
def test_share_memory_keeps_values_of_every_dtype(dtype):
    src = (flow.arange(10) % 3).to(dtype)
    t = src.clone()
    t.share_memory_()
    assert t.dtype == dtype and t.is_shared()
    np.testing.assert_array_equal(t.float().numpy(), src.float().numpy())


def test_module_share_memory_shares_parameters_grads_and_buffers():
    m = nn.Sequential(nn.Linear(3, 2), nn.BatchNorm1d(2))
    m(flow.randn(4, 3)).sum().backward()
    params = list(m.parameters())
    assert m.share_memory() is m
    assert list(m.parameters()) == params  # the same Parameter objects
    assert all(p.is_shared() and p.grad.is_shared() for p in params)
    assert all(b.is_shared() for b in m.buffers())


def test_plain_pickle_stays_by_value():
    t = flow.ones(3).share_memory_()
    back = pickle.loads(pickle.dumps(t))
    assert not back.is_shared()
    back.add_(1)
    assert t.sum().item() == 3.0


def _child_adds(q_in, q_out, received):
    t = q_in.get()
    assert t.is_shared()
    t.add_(10.0)
    q_out.put(flow.full((2,), 7.0))
    received.wait(TIMEOUT)  # a sender serves its descriptors until the receiver has them (as in torch)


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_queue_sends_shared_tensors_both_ways(method):
    ctx = mp.get_context(method)
    q_in, q_out = ctx.Queue(), ctx.Queue()
    t = flow.zeros(2, 3)
    received = ctx.Event()
    p = ctx.Process(target=_child_adds, args=(q_in, q_out, received))
    p.start()
    q_in.put(t)
    back = q_out.get(timeout=TIMEOUT)
    received.set()
    p.join(TIMEOUT)
    assert p.exitcode == 0
    assert t.is_shared()  # moved to shared memory when sent, as torch does
    np.testing.assert_array_equal(t.numpy(), np.full((2, 3), 10.0))
    assert back.is_shared()
    np.testing.assert_array_equal(back.numpy(), [7.0, 7.0])


def _spawned_writer(i, t, p):
    t[i] = float(i + 1)
    with flow.no_grad():
        p.mul_(2.0)
    assert isinstance(p, nn.Parameter) and p.requires_grad


def test_spawn_passes_shared_tensors_and_parameters():
    t = flow.zeros(2).share_memory_()
    p = nn.Parameter(flow.ones(3))
    p.share_memory_()
    mp.spawn(_spawned_writer, args=(t, p), nprocs=2)
    np.testing.assert_array_equal(t.numpy(), [1.0, 2.0])
    np.testing.assert_array_equal(p.detach().numpy(), [4.0] * 3)


def _fails(i):
    if i == 1:
        raise ValueError("boom in child")


def test_spawn_reraises_a_child_error():
    with pytest.raises(mp.ProcessRaisedException, match="boom in child"):
        mp.spawn(_fails, nprocs=2, start_method="fork")


def _dies(i, how):
    import os
    import signal

    if i == 1:
        if how == "exit":
            os._exit(3)
        os.kill(os.getpid(), signal.SIGSEGV)  # (the plugins' loading left the default handler in place)


@pytest.mark.parametrize("how,message", [("exit", "terminated with exit code 3"),
                                         # (SIGABRT under the sanitizer stage: ASan's handler aborts)
                                         ("signal", "terminated with signal SIG(SEGV|ABRT)")])
def test_spawn_reports_a_child_that_died_without_an_error(how, message):
    # (its error pipe is at end of file: that used to surface as a bare EOFError, and a SIGSEGV sent
    # after `import monoflow` was swallowed by a plugin's signal handler, so spawn returned normally)
    with pytest.raises(mp.ProcessExitedException, match=message) as info:
        mp.spawn(_dies, args=(how,), nprocs=2, start_method="fork")
    assert info.value.error_index == 1


def test_sharing_strategy_and_standard_names():
    assert mp.get_sharing_strategy() == "file_descriptor"
    assert mp.get_all_sharing_strategies() == {"file_descriptor"}
    with pytest.raises(ValueError, match="file_system"):
        mp.set_sharing_strategy("file_system")
    assert mp.Queue is std_mp.Queue and mp.cpu_count() == std_mp.cpu_count()


@pytest.mark.parametrize("context", ["fork", "spawn"])
def test_dataloader_workers_send_big_batches_as_shared_memory(context):
    from monoflow.utils.data._worker import SHARE_MIN_BYTES

    row = SHARE_MIN_BYTES // 4 // 4  # float32 elements: 4 rows make a batch tensor big enough to share
    x = flow.arange(10 * row, dtype=flow.float32).reshape(10, row)
    y = flow.arange(10)
    loader = DataLoader(TensorDataset(x, y), batch_size=4, num_workers=2, multiprocessing_context=context)
    batches = list(loader)
    big = [bx.numel() * 4 >= SHARE_MIN_BYTES for bx, _ in batches]
    assert big == [True, True, False]
    assert [bx.is_shared() for bx, _ in batches] == big  # small ones travel by value: cheaper
    assert not any(by.is_shared() for _, by in batches)
    np.testing.assert_array_equal(np.concatenate([bx.numpy() for bx, _ in batches]), x.numpy())
    np.testing.assert_array_equal(np.concatenate([by.numpy() for _, by in batches]), y.numpy())


# ---------------------------------------------------------------- Hogwild


def _blobs(seed, n=512):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 2, n)
    centers = np.array([[2.0, -1.0, 0.5, 1.0], [-2.0, 1.0, -0.5, -1.0]], np.float32)
    x = centers[labels] + rng.normal(0, 1.0, (n, 4)).astype(np.float32)
    return flow.from_numpy(x), flow.from_numpy(labels.astype(np.int64))


def _make_model():
    flow.manual_seed(0)
    return nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 2))


def _evaluate(model, x, y):
    with flow.no_grad():
        logits = model(x)
        return F.cross_entropy(logits, y).item(), (logits.argmax(1) == y).float().mean().item()


def _hogwild_train(rank, model, epochs):
    flow.manual_seed(1 + rank)
    x, y = _blobs(10 + rank)  # each process its own shard of data
    opt = flow.optim.SGD(model.parameters(), lr=0.05, momentum=0.5)
    loader = DataLoader(TensorDataset(x, y), batch_size=32, shuffle=True)
    for _ in range(epochs):
        for bx, by in loader:
            opt.zero_grad()
            F.cross_entropy(model(bx), by).backward()
            opt.step()


@pytest.mark.parametrize("start_method", ["fork", "spawn"])
def test_hogwild_two_processes_train_the_parents_model(start_method):
    ctx = mp.get_context(start_method)
    model = _make_model()
    model.share_memory()
    x, y = _blobs(99)
    loss0, acc0 = _evaluate(model, x, y)
    before = [p.detach().clone() for p in model.parameters()]
    procs = [ctx.Process(target=_hogwild_train, args=(rank, model, 3)) for rank in range(2)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(TIMEOUT)
        assert p.exitcode == 0
    # The parent never trained: everything it sees changed comes from the workers.
    assert all(not np.array_equal(a.numpy(), b.detach().numpy()) for a, b in zip(before, model.parameters()))
    loss1, acc1 = _evaluate(model, x, y)
    assert loss1 < 0.5 * loss0, (loss0, loss1)
    assert acc1 > 0.9 and acc1 > acc0, (acc0, acc1)


def test_without_share_memory_forked_workers_train_private_copies():
    """The control: what Hogwild silently did before share_memory() was real."""
    model = _make_model()
    before = [p.detach().clone().numpy() for p in model.parameters()]
    p = std_mp.get_context("fork").Process(target=_hogwild_train, args=(0, model, 1))
    p.start()
    p.join(TIMEOUT)
    assert p.exitcode == 0
    for a, b in zip(before, model.parameters()):
        np.testing.assert_array_equal(a, b.detach().numpy())
