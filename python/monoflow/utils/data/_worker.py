"""The DataLoader worker process: fetches batches for the indices it is sent
and sends them back pickled.

Protocol. The main process sends ``(task_idx, index)`` down the worker's task
pipe; the worker answers ``(task_idx, batch)`` on its result pipe, where a
batch may be an ``ExceptionWrapper`` (the dataset raised) or an
``_IterableDatasetStopIteration`` (its copy of an IterableDataset is
exhausted). ``_ResumeIteration`` (persistent workers, next epoch) is echoed
back once the worker has restarted its iterator. ``None``, or the task pipe
closing, means exit."""
import os
import pickle
import queue
import random
import sys
import threading
import traceback
from multiprocessing.reduction import ForkingPickler

import numpy as np

from monoflow._tensor import Tensor
from monoflow.ops_random import manual_seed

__all__ = ["WorkerInfo", "get_worker_info"]

# How often an idle worker checks that its parent is alive and still wants it.
_PARENT_CHECK_INTERVAL = 1.0

_worker_info = None


class WorkerInfo:
    """What a DataLoader worker process knows about itself; read-only once made.

    Returned by :func:`get_worker_info` inside a worker.

    Args:
        id (int): the worker's index, in ``[0, num_workers)``.
        num_workers (int): the number of workers of the loader.
        seed (int): the seed of the worker's monoflow, ``random`` and numpy generators
            (the epoch's base seed plus ``id``).
        dataset (Dataset): the worker's copy of the dataset.

    Example::

        >>> info = flow.utils.data.WorkerInfo(id=0, num_workers=2, seed=7, dataset=None)
        >>> info
        WorkerInfo(id=0, num_workers=2, seed=7)
        >>> info.seed = 1
        Traceback (most recent call last):
        ...
        RuntimeError: WorkerInfo: cannot assign attribute 'seed'; it is read-only
    """

    __slots__ = ("id", "num_workers", "seed", "dataset")

    def __init__(self, id, num_workers, seed, dataset):  # noqa: A002 - torch's name
        self.id, self.num_workers, self.seed, self.dataset = id, num_workers, seed, dataset

    def __setattr__(self, name, value):
        if hasattr(self, "dataset"):
            raise RuntimeError(f"WorkerInfo: cannot assign attribute {name!r}; it is read-only")
        object.__setattr__(self, name, value)

    def __repr__(self):
        return f"WorkerInfo(id={self.id}, num_workers={self.num_workers}, seed={self.seed})"


def get_worker_info():
    """Returns the :class:`WorkerInfo` of the current DataLoader worker process, or ``None`` in the main process.

    An :class:`IterableDataset` uses it to give each worker its own shard; a
    ``worker_init_fn`` to configure the worker's copy of the dataset.

    Example::

        >>> flow.utils.data.get_worker_info() is None
        True
        >>> class WhoAmI(flow.utils.data.Dataset):
        ...     def __len__(self):
        ...         return 2
        ...     def __getitem__(self, i):
        ...         return flow.utils.data.get_worker_info().num_workers
        >>> list(flow.utils.data.DataLoader(WhoAmI(), batch_size=None, num_workers=1))
        [1, 1]
    """
    return _worker_info


class ExceptionWrapper:
    """An exception raised in a worker, carried to the main process with its
    traceback as text and re-raised there."""

    def __init__(self, where):
        exc_type, exc, tb = sys.exc_info()
        self.exc_type = exc_type
        self.msg = (f"Caught {exc_type.__name__} {where}.\nOriginal "
                    + "".join(traceback.format_exception(exc_type, exc, tb)))
        try:  # an exception class defined in a function can't be pickled
            pickle.dumps(exc_type)
        except Exception:  # noqa: BLE001
            self.exc_type = RuntimeError

    def reraise(self):
        msg = self.msg
        if self.exc_type is KeyError:
            msg = _KeyErrorMessage(msg)  # KeyError reprs its argument: keep the newlines readable
        try:
            exc = self.exc_type(msg)
        except Exception:  # noqa: BLE001 - its constructor takes other arguments
            raise RuntimeError(msg) from None
        raise exc


class _KeyErrorMessage(str):
    def __repr__(self):
        return self


class _IterableDatasetStopIteration:
    def __init__(self, worker_id):
        self.worker_id = worker_id


class _ResumeIteration:
    pass


class _MapFetcher:
    def __init__(self, dataset, auto_collation, collate_fn, drop_last):
        self.dataset, self.auto_collation, self.collate_fn = dataset, auto_collation, collate_fn

    def fetch(self, index):
        if not self.auto_collation:
            return self.collate_fn(self.dataset[index])
        getitems = getattr(self.dataset, "__getitems__", None)
        data = getitems(index) if callable(getitems) else [self.dataset[i] for i in index]
        return self.collate_fn(data)


class _IterableFetcher:
    def __init__(self, dataset, auto_collation, collate_fn, drop_last):
        self.it = iter(dataset)
        self.auto_collation, self.collate_fn, self.drop_last = auto_collation, collate_fn, drop_last
        self.ended = False

    def fetch(self, index):
        if self.ended:
            raise StopIteration
        if not self.auto_collation:
            return self.collate_fn(next(self.it))
        data = []
        for _ in index:  # the index is [None] * batch_size: only its length matters
            try:
                data.append(next(self.it))
            except StopIteration:
                self.ended = True
                break
        if not data or (self.drop_last and len(data) < len(index)):
            raise StopIteration
        return self.collate_fn(data)


def make_fetcher(dataset, auto_collation, collate_fn, drop_last):
    from monoflow.utils.data.dataset import IterableDataset

    kind = _IterableFetcher if isinstance(dataset, IterableDataset) else _MapFetcher
    return kind(dataset, auto_collation, collate_fn, drop_last)


def seed_worker(seed, worker_id):
    """Seeds monoflow's, Python's and numpy's global generators for one worker."""
    random.seed(seed)
    manual_seed(seed)
    # numpy takes 32-bit words; mixing the worker id in through SeedSequence
    # keeps the workers' streams apart even for adjacent seeds.
    np.random.seed(np.random.SeedSequence([worker_id, seed]).generate_state(4))


# Note [Batches through shared memory]: a batch tensor of at least this many
# bytes goes to the main process as a shared memory segment (one copy into
# the segment, none on the way back; monoflow.multiprocessing's reducer);
# smaller ones go by value, which on this path is cheaper than setting up a
# segment and handing its descriptor over (measured: 64x784 float32 batches
# by value 8 ms, shared 14 ms; 64x12288 by value 120 ms, shared 73 ms, on a
# loaded 2-core machine). The main process needs no sharing semantics here:
# the worker lets go of the batch once it is sent.
SHARE_MIN_BYTES = 1 << 20


class _BatchPickler(ForkingPickler):
    def reducer_override(self, obj):
        if type(obj) is Tensor and obj.numel() * obj.element_size() < SHARE_MIN_BYTES:
            return obj.__reduce__()
        return NotImplemented


class _Sender:
    """Sends pickled results from a thread, so that the worker computes its
    next batch while a big one is still going through the pipe."""

    def __init__(self, conn, worker_id):
        self.conn, self.worker_id = conn, worker_id
        self.queue = queue.SimpleQueue()
        self.thread = threading.Thread(target=self._run, name="monoflow-dataloader-sender", daemon=True)
        self.thread.start()

    def _run(self):
        while True:
            payload = self.queue.get()
            if payload is None:
                return
            try:
                self.conn.send_bytes(payload)
            except OSError:  # the main process closed its end (shutdown)
                return

    def send(self, task_idx, data):
        try:
            payload = _BatchPickler.dumps((task_idx, data))
        except Exception:  # noqa: BLE001 - e.g. an unpicklable sample
            wrapped = ExceptionWrapper(f"while pickling a batch in DataLoader worker process {self.worker_id}")
            payload = _BatchPickler.dumps((task_idx, wrapped))
        self.queue.put(bytes(payload))

    def close(self, flush):
        self.queue.put(None)
        if flush:
            self.thread.join()


def worker_loop(dataset, tasks, conn, done_event, auto_collation, collate_fn, drop_last, base_seed,
                init_fn, worker_id, num_workers, parent_pid, siblings_tasks):
    global _worker_info
    sender = None
    for c in siblings_tasks:  # forked copies of the other workers' task pipes: keep their EOF meaningful
        c.close()
    try:
        seed = base_seed + worker_id
        seed_worker(seed, worker_id)
        _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed, dataset=dataset)
        sender = _Sender(conn, worker_id)
        init_error = None
        try:
            if init_fn is not None:
                init_fn(worker_id)
            fetcher = make_fetcher(dataset, auto_collation, collate_fn, drop_last)
        except Exception:  # noqa: BLE001 - reported with the first batch
            init_error = ExceptionWrapper(f"in DataLoader worker process {worker_id}")
        iteration_end = False
        while True:
            try:
                if not tasks.poll(_PARENT_CHECK_INTERVAL):
                    if done_event.is_set() or os.getppid() != parent_pid:  # abandoned or orphaned
                        break
                    continue
                r = tasks.recv()
            except (EOFError, OSError):  # the main process closed the pipe, or died
                break
            if r is None:
                break
            if isinstance(r, _ResumeIteration):
                iteration_end = False
                try:
                    fetcher = make_fetcher(dataset, auto_collation, collate_fn, drop_last)
                except Exception:  # noqa: BLE001
                    init_error = ExceptionWrapper(f"in DataLoader worker process {worker_id}")
                sender.send(r, None)
                continue
            if done_event.is_set() or iteration_end:
                continue  # shutting down, or nothing left: ignore until told to exit
            task_idx, index = r
            if init_error is not None:
                data = init_error  # every task fails: the worker could not start
            else:
                try:
                    data = fetcher.fetch(index)
                except StopIteration:
                    if not isinstance(fetcher, _IterableFetcher):
                        data = ExceptionWrapper(f"in DataLoader worker process {worker_id}")
                    else:
                        data = _IterableDatasetStopIteration(worker_id)
                        iteration_end = True
                except Exception:  # noqa: BLE001 - re-raised in the main process
                    data = ExceptionWrapper(f"in DataLoader worker process {worker_id}")
            sender.send(task_idx, data)
            del data, index, r
    except KeyboardInterrupt:
        pass  # the main process gets it too and shuts the workers down
    if sender is not None:
        sender.close(flush=not done_event.is_set())
