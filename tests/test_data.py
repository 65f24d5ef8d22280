"""monoflow.utils.data: datasets, samplers, collation and the DataLoader, in
the main process and with worker processes, against torch.utils.data where
torch is installed."""
import collections
import gc
import os
import pickle
import random
import signal
import time

import numpy as np
import pytest

import monoflow as flow
from monoflow.utils import data as mdata
from monoflow.utils.data import (
    BatchSampler, ConcatDataset, DataLoader, Dataset, IterableDataset, RandomSampler, SequentialSampler, Subset,
    SubsetRandomSampler, TensorDataset, default_collate, get_worker_info, random_split,
)

HANG_GUARD = 60  # a DataLoader timeout that turns a hang into a failure; never hit when things work


def as_np(x):
    """Nested batches -> nested numpy/python values, for comparing monoflow with torch."""
    if hasattr(x, "numpy"):
        return x.numpy().tolist()
    if isinstance(x, dict):
        return {k: as_np(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return type(x)(as_np(v) for v in x) if not hasattr(x, "_fields") else type(x)(*map(as_np, x))
    return x


def batches_np(loader):
    return [as_np(b) for b in loader]


class Squares(Dataset):
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if not 0 <= i < self.n:
            raise IndexError(i)
        return {"x": flow.tensor([float(i), float(i * i)]), "i": i}


class Stream(IterableDataset):
    """0..n-1, each worker taking every num_workers-th element."""

    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __iter__(self):
        info = get_worker_info()
        start, step = (0, 1) if info is None else (info.id, info.num_workers)
        return iter(range(start, self.n, step))


class Failing(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, i):
        if i == 5:
            raise ValueError(f"sample {i} is corrupt")
        return i


class KillsItself(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, i):
        if i == 3:
            os.kill(os.getpid(), signal.SIGKILL)
        return i


class Slow(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        if i == 1:
            time.sleep(1.0)
        return i


class Seeds(Dataset):
    """What a worker's generators produce."""

    def __len__(self):
        return 4

    def __getitem__(self, i):
        info = get_worker_info()
        return (info.id, info.seed, random.random(), float(np.random.rand()), float(flow.rand(1)))


# ---------------------------------------------------------------- samplers


def test_sequential_and_batch_samplers():
    assert list(SequentialSampler(range(5))) == [0, 1, 2, 3, 4]
    bs = BatchSampler(SequentialSampler(range(10)), 4, drop_last=False)
    assert list(bs) == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]] and len(bs) == 3
    bs = BatchSampler(SequentialSampler(range(10)), 4, drop_last=True)
    assert list(bs) == [[0, 1, 2, 3], [4, 5, 6, 7]] and len(bs) == 2


def test_random_sampler_is_a_permutation_reproducible_under_manual_seed():
    flow.manual_seed(7)
    a = list(RandomSampler(range(50)))
    flow.manual_seed(7)
    b = list(RandomSampler(range(50)))
    flow.manual_seed(8)
    c = list(RandomSampler(range(50)))
    assert sorted(a) == list(range(50))
    assert a == b and a != c


def test_random_sampler_generator_overrides_the_global_seed():
    def draw(global_seed):
        flow.manual_seed(global_seed)
        g = flow.Generator()
        g.manual_seed(3)
        return list(RandomSampler(range(40), generator=g))

    assert draw(1) == draw(2)
    g = flow.Generator()
    g.manual_seed(4)
    assert draw(1) != list(RandomSampler(range(40), generator=g))


def test_random_sampler_replacement_and_num_samples():
    flow.manual_seed(0)
    s = RandomSampler(range(5), replacement=True, num_samples=70)
    got = list(s)
    assert len(got) == len(s) == 70 and set(got) <= set(range(5)) and len(set(got)) > 1
    s = RandomSampler(range(5), num_samples=12)  # without replacement: permutations chained
    got = list(s)
    assert len(got) == 12 and sorted(got[:5]) == list(range(5)) and sorted(got[5:10]) == list(range(5))


def test_subset_random_sampler():
    idx = [10, 20, 30, 40, 50]
    flow.manual_seed(1)
    got = list(SubsetRandomSampler(idx))
    assert sorted(got) == idx and len(SubsetRandomSampler(idx)) == 5


def test_weighted_random_sampler_never_picks_zero_weights():
    flow.manual_seed(0)
    got = list(mdata.WeightedRandomSampler([0.0, 1.0, 0.0, 3.0], 200))
    assert set(got) == {1, 3} and got.count(3) > got.count(1)


@pytest.mark.parametrize("make, exc", [
    (lambda: RandomSampler(range(3), replacement=1), TypeError),
    (lambda: RandomSampler(range(3), num_samples=0), ValueError),
    (lambda: BatchSampler(range(3), 0, False), ValueError),
    (lambda: BatchSampler(range(3), 2, 1), ValueError),
])
def test_sampler_argument_errors(make, exc):
    with pytest.raises(exc):
        make()


# ---------------------------------------------------------------- datasets


def test_tensor_concat_subset_datasets():
    x, y = flow.arange(6).float(), flow.arange(6) * 10
    td = TensorDataset(x, y)
    assert len(td) == 6 and [float(v) for v in td[2]] == [2.0, 20.0]
    cat = ConcatDataset([Squares(3), Squares(2)])
    assert len(cat) == 5 and cat[3]["i"] == 0 and cat[-1]["i"] == 1 and cat[2]["i"] == 2
    assert (Squares(2) + Squares(1))[2]["i"] == 0
    sub = Subset(Squares(10), [9, 1, 4])
    assert len(sub) == 3 and [sub[k]["i"] for k in range(3)] == [9, 1, 4]
    with pytest.raises(ValueError):
        TensorDataset(flow.zeros(3), flow.zeros(4))
    with pytest.raises(TypeError):
        ConcatDataset([Stream(3)])
    with pytest.raises(IndexError):
        cat[5]


def test_random_split_ints_and_fractions():
    g = flow.Generator()
    g.manual_seed(0)
    parts = random_split(range(10), [3, 7], generator=g)
    assert [len(p) for p in parts] == [3, 7]
    assert sorted(list(parts[0]) + list(parts[1])) == list(range(10))
    g.manual_seed(0)
    again = random_split(range(10), [3, 7], generator=g)
    assert [list(p) for p in again] == [list(p) for p in parts]
    # fractions: floor, then the remainder round-robin from the first split
    assert [len(p) for p in random_split(range(5), [0.5, 0.5])] == [3, 2]
    assert [len(p) for p in random_split(range(10), [0.25, 0.25, 0.5])] == [3, 2, 5]
    with pytest.raises(ValueError):
        random_split(range(10), [3, 3])


def test_random_split_lengths_match_torch():
    torch = pytest.importorskip("torch")
    for n, lengths in [(5, [0.5, 0.5]), (10, [0.25, 0.25, 0.5]), (7, [0.1, 0.2, 0.7]), (10, [2, 8])]:
        ours = [len(p) for p in random_split(range(n), lengths)]
        theirs = [len(p) for p in torch.utils.data.random_split(range(n), lengths)]
        assert ours == theirs, (n, lengths)


# ---------------------------------------------------------------- collate

Point = collections.namedtuple("Point", "x y")


def test_default_collate_nested_structures():
    batch = [
        {"img": flow.full((2,), float(i)), "label": i, "w": 0.5 * i, "name": f"s{i}", "flag": i % 2 == 0,
         "pt": Point(flow.tensor(i), np.float32(i)), "pair": (i, flow.tensor([i, i])), "arr": np.array([i, -i])}
        for i in range(3)
    ]
    out = default_collate(batch)
    assert out["img"].shape == (3, 2) and out["img"][:, 0].tolist() == [0.0, 1.0, 2.0]
    assert out["label"].dtype == flow.int64 and out["label"].tolist() == [0, 1, 2]
    assert out["w"].dtype == flow.float64 and out["w"].tolist() == [0.0, 0.5, 1.0]
    assert out["name"] == ["s0", "s1", "s2"]
    assert out["flag"].dtype == flow.bool and out["flag"].tolist() == [True, False, True]
    assert isinstance(out["pt"], Point) and out["pt"].x.tolist() == [0, 1, 2]
    assert out["pt"].y.dtype == flow.float32
    assert isinstance(out["pair"], list) and out["pair"][1].shape == (3, 2)  # tuples collate to lists, as torch
    assert out["arr"].dtype == flow.int64 and out["arr"].tolist() == [[0, 0], [1, -1], [2, -2]]
    od = default_collate([collections.OrderedDict(b=1, a=2), collections.OrderedDict(b=3, a=4)])
    assert isinstance(od, collections.OrderedDict) and list(od) == ["b", "a"]


def test_default_collate_errors():
    with pytest.raises(RuntimeError, match="equal size"):
        default_collate([[1, 2], [3]])
    with pytest.raises(TypeError, match="default_collate"):
        default_collate([None, None])
    with pytest.raises(TypeError, match="default_collate"):
        default_collate([np.array(["a"]), np.array(["b"])])


def test_default_collate_matches_torch():
    torch = pytest.importorskip("torch")
    samples = [{"a": [i, float(i)], "b": (np.arange(3) * i, "x"), "c": Point(i, [i, i])} for i in range(4)]
    tsamples = [{"a": [i, float(i)], "b": (np.arange(3) * i, "x"), "c": Point(i, [i, i])} for i in range(4)]
    ours, theirs = default_collate(samples), torch.utils.data.default_collate(tsamples)
    assert as_np(ours) == as_np(theirs)
    assert ours["a"][1].dtype.name == str(theirs["a"][1].dtype).split(".")[1]


# ---------------------------------------------------------------- DataLoader, main process


def test_dataloader_len_drop_last_and_contents():
    ds = TensorDataset(flow.arange(10).float())
    assert len(DataLoader(ds, batch_size=3)) == 4
    assert len(DataLoader(ds, batch_size=3, drop_last=True)) == 3
    got = [b[0].tolist() for b in DataLoader(ds, batch_size=3)]
    assert got == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0], [6.0, 7.0, 8.0], [9.0]]
    got = [b[0].tolist() for b in DataLoader(ds, batch_size=3, drop_last=True)]
    assert got == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0], [6.0, 7.0, 8.0]]
    # no batching: samples come one by one, numpy converted to tensors
    plain = list(DataLoader([np.array([1, 2]), np.array([3, 4])], batch_size=None))
    assert [isinstance(p, flow.Tensor) for p in plain] == [True, True] and plain[1].tolist() == [3, 4]
    # a batch_sampler decides the batches
    got = [b.tolist() for b in DataLoader(list(range(6)), batch_sampler=[[5, 0], [1, 2, 3]])]
    assert got == [[5, 0], [1, 2, 3]]
    # pin_memory is accepted (a no-op on the CPU) and changes nothing
    assert batches_np(DataLoader(ds, batch_size=4, pin_memory=True)) == batches_np(DataLoader(ds, batch_size=4))


def test_dataloader_matches_torch_without_shuffle():
    torch = pytest.importorskip("torch")
    ours = DataLoader(TensorDataset(flow.arange(14).float().view(7, 2), flow.arange(7)), batch_size=3)
    theirs = torch.utils.data.DataLoader(
        torch.utils.data.TensorDataset(torch.arange(14).float().view(7, 2), torch.arange(7)), batch_size=3)
    assert batches_np(ours) == batches_np(theirs) and len(ours) == len(theirs)


def test_shuffle_is_reproducible_under_manual_seed_and_generator():
    ds = list(range(30))

    def epoch(seed, generator=None):
        flow.manual_seed(seed)
        return [b.tolist() for b in DataLoader(ds, batch_size=7, shuffle=True, generator=generator)]

    a, b, c = epoch(0), epoch(0), epoch(1)
    assert a == b and a != c
    assert sorted(sum(a, [])) == ds
    g = flow.Generator()
    g.manual_seed(5)
    d = epoch(0, g)
    g.manual_seed(5)
    e = epoch(1, g)  # the explicit generator decides, not the global seed
    assert d == e and d != a
    # consecutive epochs of one loader differ
    flow.manual_seed(0)
    loader = DataLoader(ds, batch_size=30, shuffle=True)
    assert [b.tolist() for b in loader] != [b.tolist() for b in loader]


def test_iterable_dataset_main_process():
    loader = DataLoader(Stream(7), batch_size=3)
    assert [b.tolist() for b in loader] == [[0, 1, 2], [3, 4, 5], [6]] and len(loader) == 3
    assert [b.tolist() for b in DataLoader(Stream(7), batch_size=3, drop_last=True)] == [[0, 1, 2], [3, 4, 5]]
    assert len(DataLoader(Stream(7), batch_size=3, drop_last=True)) == 2
    assert get_worker_info() is None


BAD_ARGS = [
    (dict(shuffle=True, sampler=[0, 1]), "map"),
    (dict(batch_sampler=[[0]], batch_size=2), "map"),
    (dict(batch_sampler=[[0]], drop_last=True), "map"),
    (dict(batch_size=None, drop_last=True), "map"),
    (dict(num_workers=-1), "map"),
    (dict(timeout=-1), "map"),
    (dict(persistent_workers=True), "map"),
    (dict(prefetch_factor=2), "map"),
    (dict(batch_size=0), "map"),
    (dict(shuffle=True), "iterable"),
    (dict(sampler=[0]), "iterable"),
    (dict(batch_sampler=[[0]]), "iterable"),
]


@pytest.mark.parametrize("kwargs, kind", BAD_ARGS)
def test_dataloader_argument_errors(kwargs, kind):
    ds = Stream(4) if kind == "iterable" else list(range(4))
    with pytest.raises(ValueError):
        DataLoader(ds, **kwargs)


def test_dataloader_argument_errors_match_torch():
    torch = pytest.importorskip("torch")

    class TorchStream(torch.utils.data.IterableDataset):
        def __iter__(self):
            return iter(range(4))

    for kwargs, kind in BAD_ARGS:
        ds = TorchStream() if kind == "iterable" else list(range(4))
        with pytest.raises(ValueError):
            torch.utils.data.DataLoader(ds, **kwargs)
    loader, tloader = DataLoader(list(range(4))), torch.utils.data.DataLoader(list(range(4)))
    for attr in ("batch_size", "sampler", "drop_last"):
        with pytest.raises(ValueError):
            setattr(tloader, attr, None)
        with pytest.raises(ValueError):
            setattr(loader, attr, None)


# ---------------------------------------------------------------- DataLoader, worker processes


def test_workers_give_the_same_batches_as_the_main_process():
    ds = Squares(23)

    def epoch(num_workers):
        flow.manual_seed(11)
        loader = DataLoader(ds, batch_size=4, shuffle=True, num_workers=num_workers, timeout=HANG_GUARD
                            if num_workers else 0)
        return batches_np(loader)

    serial, parallel = epoch(0), epoch(2)
    assert serial == parallel
    assert sorted(i for b in serial for i in b["i"]) == list(range(23))


def test_iterable_dataset_sharded_over_workers():
    loader = DataLoader(Stream(11), batch_size=2, num_workers=2, timeout=HANG_GUARD)
    got = [b.tolist() for b in loader]
    # each worker batches its own shard; batches alternate between workers
    assert got == [[0, 2], [1, 3], [4, 6], [5, 7], [8, 10], [9]]
    flat = sorted(v for b in got for v in b)
    assert flat == list(range(11))


def test_worker_seeds_are_base_plus_worker_id_and_reproducible():
    def epoch():
        flow.manual_seed(123)
        loader = DataLoader(Seeds(), batch_size=None, num_workers=2, timeout=HANG_GUARD)
        return [tuple(x.tolist() if hasattr(x, "tolist") else x for x in sample) for sample in loader]

    a, b = epoch(), epoch()
    assert a == b
    ids = [s[0] for s in a]
    seeds = {s[0]: s[1] for s in a}
    assert sorted(set(ids)) == [0, 1] and seeds[1] == seeds[0] + 1
    first = {s[0]: s[2:] for s in reversed(a)}  # each worker's first sample
    assert first[0] != first[1]  # python, numpy and monoflow streams differ between workers
    random.seed(seeds[0])
    assert first[0][0] == random.random()
    # the base seed comes from the loader's generator when it has one
    g = flow.Generator()
    seeds_by_global_seed = []
    for global_seed in (1, 2):
        flow.manual_seed(global_seed)
        g.manual_seed(9)
        loader = DataLoader(Seeds(), batch_size=None, num_workers=2, generator=g, timeout=HANG_GUARD)
        seeds_by_global_seed.append(sorted({s[1].item() if hasattr(s[1], "item") else s[1] for s in loader}))
    assert seeds_by_global_seed[0] == seeds_by_global_seed[1] and seeds_by_global_seed[0] != sorted(seeds.values())


def test_worker_exception_is_reraised_with_worker_id_and_traceback():
    loader = DataLoader(Failing(), batch_size=2, num_workers=2, timeout=HANG_GUARD)
    it = iter(loader)
    assert next(it).tolist() == [0, 1] and next(it).tolist() == [2, 3]
    with pytest.raises(ValueError) as info:
        next(it)
    msg = str(info.value)
    assert "worker process 0" in msg and "Traceback" in msg and "sample 5 is corrupt" in msg
    assert "__getitem__" in msg
    # the loader goes on with the next batch, as torch's does
    assert next(it).tolist() == [6, 7]


def test_worker_killed_by_a_signal_is_an_error_not_a_hang():
    loader = DataLoader(KillsItself(), batch_size=2, num_workers=2, timeout=HANG_GUARD)
    with pytest.raises(RuntimeError, match=r"worker 1 \(pid \d+\) exited unexpectedly \(killed by signal SIGKILL"):
        for _ in loader:
            pass


def test_timeout():
    loader = DataLoader(Slow(), batch_size=1, num_workers=1, timeout=0.1)
    it = iter(loader)
    assert next(it).tolist() == [0]
    with pytest.raises(RuntimeError, match="timed out after 0.1 seconds"):
        next(it)


def test_workers_exit_when_the_iterator_is_exhausted_or_deleted():
    loader = DataLoader(list(range(20)), batch_size=2, num_workers=2, timeout=HANG_GUARD)
    it = iter(loader)
    workers = list(it._workers)
    assert all(p.is_alive() for p in workers)
    assert sum(len(b) for b in it) == 20
    assert all(not p.is_alive() and p.exitcode == 0 for p in workers)
    it = iter(loader)
    next(it)
    workers = list(it._workers)
    del it
    gc.collect()
    assert all(not p.is_alive() for p in workers)


def test_persistent_workers_keep_their_processes_across_epochs():
    flow.manual_seed(3)
    loader = DataLoader(Stream(9), batch_size=2, num_workers=2, persistent_workers=True, timeout=HANG_GUARD)
    first = [b.tolist() for b in loader]
    pids = [p.pid for p in loader._iterator._workers]
    second = [b.tolist() for b in loader]
    assert first == second and sorted(v for b in first for v in b) == list(range(9))
    assert [p.pid for p in loader._iterator._workers] == pids and all(p.is_alive() for p in loader._iterator._workers)
    it = loader._iterator
    del loader
    it._shutdown_workers()
    assert not any(p.is_alive() for p in it._workers)


def test_worker_init_fn_runs_in_each_worker():
    class WhoAmI(Dataset):
        def __len__(self):
            return 4

        def __getitem__(self, i):
            return os.environ.get("MF_TEST_WORKER", "unset")

    def init(worker_id):
        os.environ["MF_TEST_WORKER"] = f"w{worker_id}"

    got = sum(DataLoader(WhoAmI(), batch_size=1, num_workers=2, worker_init_fn=init, timeout=HANG_GUARD), [])
    assert sorted(got) == ["w0", "w0", "w1", "w1"] and "MF_TEST_WORKER" not in os.environ


# ---------------------------------------------------------------- tensors cross processes by pickling


@pytest.mark.parametrize("dtype", [flow.float32, flow.float64, flow.float16, flow.bfloat16, flow.int64, flow.int8,
                                   flow.uint8, flow.bool])
def test_tensor_pickle_round_trip(dtype):
    x = (flow.arange(24).view(2, 3, 4) - 11).to(dtype)
    x = x.transpose(0, 2)  # non-contiguous
    y = pickle.loads(pickle.dumps(x))
    assert y.dtype == dtype and tuple(y.shape) == (4, 3, 2)
    assert y.float().tolist() == x.float().tolist()
    s = pickle.loads(pickle.dumps(flow.tensor(2.5, dtype=flow.bfloat16)))
    assert s.dim() == 0 and float(s) == 2.5



_TWO_THREADS_ONE_ITERATOR = """
import threading
from monoflow.utils.data import DataLoader
for _ in range(3):
    it = iter(DataLoader(list(range(100)), batch_size=10, num_workers=2))
    got, errors = [], []
    def consume():
        try:
            for b in it:
                got.extend(b.tolist())
        except Exception as e:
            errors.append(repr(e))
    ts = [threading.Thread(target=consume) for _ in range(2)]
    [t.start() for t in ts]
    [t.join() for t in ts]
    print(sorted(got) == list(range(100)), errors)
"""


def test_two_threads_share_one_multiprocess_iterator():
    # Each batch once, then both threads see StopIteration; this used to hang (or raise
    # KeyError). (torch 2.13 hangs here at times as well.)
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", _TWO_THREADS_ONE_ITERATOR], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == ["True []"] * 3
