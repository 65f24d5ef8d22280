"""DataLoader: batches from a dataset, in the main process or in worker processes.

With ``num_workers > 0`` the workers are real processes (forked on Linux; the
CPU device's streams are fork-safe, see Note [Streams and fork] in
devices/cpu/stream.cpp). Each worker has two pipes: tasks in, results out.
The main process waits on the result pipes and on the workers' process
sentinels together, so a worker that dies (even by SIGKILL) is noticed at once
instead of leaving the loader waiting forever. Tasks go through a plain pipe,
not a multiprocessing.Queue, because a Queue delivers through a feeder thread
that the garbage collector may already have stopped when an abandoned
iterator's __del__ tells its workers to exit; a pipe write is synchronous, and
a closed pipe reads as "exit" on the other end."""
import collections
import contextlib
import itertools
import multiprocessing
import multiprocessing.connection
import os
import pickle
import signal
import threading
import time
import typing
import warnings
import weakref

from monoflow.autograd import profiler as _profiler
from monoflow.ops_random import default_generator, randint
from monoflow.utils.data import _worker
from monoflow.utils.data.collate import default_collate, default_convert
from monoflow.utils.data.dataset import IterableDataset, _T_co
from monoflow.utils.data.sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

__all__ = ["DataLoader"]

# How long shutdown waits for a worker to exit before terminating it.
_SHUTDOWN_TIMEOUT = 5.0


class _InfiniteConstantSampler(Sampler):
    """The 'sampler' of an IterableDataset: the dataset decides what comes next."""

    def __iter__(self):
        while True:
            yield None


def _default_mp_context():
    if "fork" in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context()


@contextlib.contextmanager
def _fork_warning_suppressed():
    # Python >= 3.12 warns when forking a process that has threads. monoflow's
    # own threads (the CPU streams) are fork-safe, which is what that warning is about.
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r".*fork\(\) may lead to deadlocks", category=DeprecationWarning)
        yield


class DataLoader(typing.Generic[_T_co]):  # DataLoader[T] in annotations, as torch's
    """Iterates over a dataset in batches, in the main process or in worker processes.

    ``batch_size`` samples (picked by ``sampler``, or in random order with
    ``shuffle=True``, or grouped by ``batch_sampler``) are merged by
    ``collate_fn``. With ``num_workers > 0`` the batches are loaded by that many
    worker processes and come back in order; each worker seeds monoflow's,
    Python's and numpy's generators with ``base_seed + worker_id``, the base seed
    being drawn from ``generator`` once per epoch. A worker that dies is noticed
    at once (``RuntimeError``), and an exception raised in a worker is re-raised
    in the main process with the worker's traceback.

    Args:
        dataset (Dataset): a map-style or an iterable dataset.
        batch_size (int, optional): samples per batch; ``None`` disables batching
            (each sample goes through :func:`default_convert`). Default: ``1``.
        shuffle (bool, optional): visit a map-style dataset in a new random order
            every epoch. Default: ``False``.
        sampler (Sampler or iterable, optional): the order of the indices; excludes
            ``shuffle``. Default: ``None``.
        batch_sampler (Sampler or iterable, optional): yields lists of indices;
            excludes ``batch_size``, ``shuffle``, ``sampler`` and ``drop_last``.
            Default: ``None``.
        num_workers (int): worker processes; ``0`` loads in the main process. Default: ``0``.
        collate_fn (callable, optional): merges a list of samples into a batch.
            Default: :func:`default_collate`.
        pin_memory (bool): accepted for compatibility and does nothing: monoflow's
            CPU tensors are already host memory. Default: ``False``.
        drop_last (bool): drop the last, shorter batch. Default: ``False``.
        timeout (float): seconds to wait for a batch from the workers (``0``: no
            limit); needs ``num_workers > 0``. Default: ``0``.
        worker_init_fn (callable, optional): called with the worker id in each
            worker, after seeding and before loading. Default: ``None``.
        multiprocessing_context (str or context, optional): how workers start
            (``"fork"``, ``"spawn"``, ...). Default: fork where available.
        generator (Generator, optional): the source of the shuffle order and of the
            workers' base seed. Default: the default generator.
        prefetch_factor (int, optional): batches loaded ahead per worker; only with
            workers. Default: ``2`` with workers.
        persistent_workers (bool): keep the workers alive between epochs; needs
            ``num_workers > 0``. Default: ``False``.
        pin_memory_device (str): accepted for compatibility and ignored. Default: ``""``.
        in_order (bool): return batches in sampler order with workers. monoflow's workers always deliver
            in order, so ``False`` (torch: first come, first served) gives the same batches. Default:
            ``True``.

    Raises:
        ValueError: for conflicting or out-of-range options (e.g. ``sampler`` with
            ``shuffle=True``).

    Example::

        >>> ds = flow.utils.data.TensorDataset(flow.arange(10).float().reshape(5, 2), flow.arange(5))
        >>> loader = flow.utils.data.DataLoader(ds, batch_size=2, shuffle=True)
        >>> x, y = next(iter(loader))
        >>> x.shape, y.shape
        (monoflow.Size([2, 2]), monoflow.Size([2]))
        >>> len(loader), len(flow.utils.data.DataLoader(ds, batch_size=2, drop_last=True))
        (3, 2)
    """

    _FROZEN = ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset", "persistent_workers")

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None, num_workers=0,
                 collate_fn=None, pin_memory=False, drop_last=False, timeout=0, worker_init_fn=None,
                 multiprocessing_context=None, generator=None, *, prefetch_factor=None, persistent_workers=False,
                 pin_memory_device="", in_order=True):
        if not isinstance(num_workers, int) or num_workers < 0:
            raise ValueError("DataLoader: num_workers option should be non-negative; use num_workers=0 to disable "
                             "multiprocessing.")
        if timeout < 0:
            raise ValueError("DataLoader: timeout option should be non-negative")
        if timeout > 0 and num_workers == 0:
            raise ValueError("DataLoader: the timeout option applies to worker processes only; it needs "
                             "num_workers > 0")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError("DataLoader: prefetch_factor option could only be specified in multiprocessing. "
                             "Let num_workers > 0 to enable multiprocessing, otherwise set prefetch_factor to None.")
        if num_workers > 0 and prefetch_factor is None:
            prefetch_factor = 2
        elif prefetch_factor is not None and prefetch_factor < 1:
            raise ValueError("DataLoader: prefetch_factor option should be a positive integer")
        if persistent_workers and num_workers == 0:
            raise ValueError("DataLoader: persistent_workers option needs num_workers > 0")

        if isinstance(dataset, IterableDataset):
            if shuffle not in (False, None):
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified shuffle option, but got "
                                 f"shuffle={shuffle}")
            if sampler is not None:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified sampler option, but got "
                                 f"sampler={sampler}")
            if batch_sampler is not None:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified batch_sampler option, "
                                 f"but got batch_sampler={batch_sampler}")
        shuffle = bool(shuffle)
        if sampler is not None and shuffle:
            raise ValueError("DataLoader: sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("DataLoader: batch_sampler option is mutually exclusive with batch_size, shuffle, "
                                 "sampler, and drop_last")
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError("DataLoader: batch_size=None option disables auto-batching and is mutually exclusive "
                             "with drop_last")
        if sampler is None:
            if isinstance(dataset, IterableDataset):
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)

        self.dataset = dataset
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.in_order = in_order
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.generator = generator
        self.collate_fn = collate_fn if collate_fn is not None else (
            default_collate if batch_sampler is not None else default_convert)
        self.persistent_workers = persistent_workers
        self.multiprocessing_context = multiprocessing_context
        self._iterator = None
        self._resume = None  # set by load_state_dict, used by the next iter()
        self._last_iter = None
        self._initialized = True

    def __setattr__(self, name, value):
        if getattr(self, "_initialized", False) and name in self._FROZEN:
            raise ValueError(f"DataLoader: {name} attribute should not be set after DataLoader is initialized")
        super().__setattr__(name, value)

    @property
    def multiprocessing_context(self):
        return self._mp_context

    @multiprocessing_context.setter
    def multiprocessing_context(self, ctx):
        if ctx is not None:
            if self.num_workers == 0:
                raise ValueError("DataLoader: multiprocessing_context can only be used with multi-process loading "
                                 f"(num_workers > 0), but got num_workers={self.num_workers}")
            if isinstance(ctx, str):
                if ctx not in multiprocessing.get_all_start_methods():
                    raise ValueError(f"DataLoader: multiprocessing_context option should specify a valid start "
                                     f"method in {multiprocessing.get_all_start_methods()!r}, but got {ctx!r}")
                ctx = multiprocessing.get_context(ctx)
            elif not isinstance(ctx, multiprocessing.context.BaseContext):
                raise TypeError(f"DataLoader: multiprocessing_context option should be a valid context object or a "
                                f"string specifying the start method, but got {ctx!r}")
        self._mp_context = ctx

    @property
    def _auto_collation(self):
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        return self.batch_sampler if self._auto_collation else self.sampler

    def __len__(self):
        if isinstance(self.dataset, IterableDataset):
            n = len(self.dataset)
            if self.batch_size is not None:
                n = n // self.batch_size if self.drop_last else -(-n // self.batch_size)
            return n
        return len(self._index_sampler)

    def __iter__(self):
        if self.num_workers == 0:
            it = _SingleProcessIter(self)
        elif not self.persistent_workers:
            it = _MultiProcessIter(self)
        else:
            if self._iterator is not None and self._resume is not None:
                self._iterator._shutdown_workers()  # a resumed epoch starts from the saved generator state
                self._iterator = None
            if self._iterator is None:
                self._iterator = _MultiProcessIter(self)
            else:
                self._iterator._reset(self, first_iter=False)
            it = self._iterator
        self._last_iter = weakref.ref(it)
        return it

    def _shuffle_generator(self):
        return self.generator if self.generator is not None else default_generator

    def state_dict(self):
        """Where the current epoch stands: the shuffling generator's state at
        its start (None between epochs) and now, and how many batches it has
        returned. With
        load_state_dict() a new loader's next epoch continues from there,
        yielding exactly the batches the interrupted one had still to come."""
        it = self._last_iter() if self._last_iter is not None else None
        if it is None or it._finished:
            return {"epoch_start_generator_state": None, "batches_returned": 0,
                    "generator_state": self._shuffle_generator().get_state()}
        return {"epoch_start_generator_state": it._start_state, "batches_returned": it._returned,
                "generator_state": self._shuffle_generator().get_state()}

    def load_state_dict(self, state_dict):
        if state_dict["epoch_start_generator_state"] is not None and isinstance(self.dataset, IterableDataset):
            raise NotImplementedError("DataLoader.load_state_dict: resuming mid-epoch needs a map-style dataset "
                                      "(an IterableDataset decides itself what comes next)")
        self._resume = dict(state_dict)


def _started(sampler):
    """iter(sampler), its first index already drawn: a sampler draws its
    epoch's order lazily, and drawing it when the epoch starts, whatever the
    workers' prefetching, gives one generator state per epoch position (what
    DataLoader.state_dict relies on)."""
    it = iter(sampler)
    try:
        first = next(it)
    except StopIteration:
        return it
    return itertools.chain([first], it)


class _BaseIter:
    def __init__(self, loader):
        self._dataset = loader.dataset
        self._auto_collation = loader._auto_collation
        self._drop_last = loader.drop_last
        self._index_sampler = loader._index_sampler
        self._collate_fn = loader.collate_fn
        resume, loader._resume = loader._resume, None
        generator = loader._shuffle_generator()
        mid_epoch = resume is not None and resume["epoch_start_generator_state"] is not None
        if resume is not None:  # mid-epoch: replay the epoch from its start; else go on from the saved state
            generator.set_state(resume["epoch_start_generator_state"] if mid_epoch else resume["generator_state"])
        self._start_state = generator.get_state()
        # Drawn every epoch, also without workers, so that the loader consumes
        # the generator identically whatever num_workers is.
        self._base_seed = int(randint(0, 2**63 - 1, (), generator=loader.generator).item())
        self._sampler_iter = _started(self._index_sampler)
        self._returned, self._finished = 0, False
        # One batch at a time: threads sharing an iterator would otherwise race on the
        # task bookkeeping (a KeyError, or a wait for an answer another thread took: a hang).
        self._lock = threading.RLock()
        if mid_epoch:  # skip what was returned, as drawn then
            for _ in range(resume["batches_returned"]):
                next(self._sampler_iter)
            self._returned = resume["batches_returned"]
            generator.set_state(resume["generator_state"])

    def __iter__(self):
        return self

    def __next__(self):
        with self._lock:
            return self._next_locked()

    def _next_locked(self):
        try:
            if _profiler.is_recording():  # the wait for a batch, as torch's profiler names it
                with _profiler.record_function(f"enumerate(DataLoader)#{type(self).__name__}.__next__"):
                    data = self._next_data()
            else:
                data = self._next_data()
        except StopIteration:
            self._finished = True
            raise
        self._returned += 1
        return data

    def __len__(self):
        return len(self._index_sampler)


class _SingleProcessIter(_BaseIter):
    def __init__(self, loader):
        super().__init__(loader)
        self._fetcher = _worker.make_fetcher(self._dataset, self._auto_collation, self._collate_fn,
                                             self._drop_last)

    def _next_data(self):
        index = next(self._sampler_iter)
        return self._fetcher.fetch(index)  # StopIteration from an exhausted IterableDataset ends the epoch


class _MultiProcessIter(_BaseIter):
    """Tasks are numbered in sampler order and handed round-robin to the
    workers that still have data, at most ``prefetch_factor`` per worker ahead;
    results are buffered until their turn, so batches come back in order."""

    def __init__(self, loader):
        super().__init__(loader)
        self._num_workers = loader.num_workers
        self._prefetch_factor = loader.prefetch_factor
        self._timeout = loader.timeout
        self._persistent = loader.persistent_workers
        self._shutdown = False
        self._workers, self._index_conns, self._readers = [], [], []
        ctx = loader.multiprocessing_context or _default_mp_context()
        self._done_event = ctx.Event()
        try:
            for i in range(self._num_workers):
                index_in, index_out = ctx.Pipe(duplex=False)
                reader, writer = ctx.Pipe(duplex=False)
                p = ctx.Process(
                    target=_worker.worker_loop, name=f"monoflow-dataloader-worker-{i}", daemon=True,
                    args=(self._dataset, index_in, writer, self._done_event, self._auto_collation,
                          self._collate_fn, self._drop_last, self._base_seed, loader.worker_init_fn, i,
                          self._num_workers, os.getpid(), self._index_conns))
                with _fork_warning_suppressed():
                    p.start()
                # Each end lives in one process only, so that a death reads as EOF on the other side.
                index_in.close()
                writer.close()
                self._workers.append(p)
                self._index_conns.append(index_out)
                self._readers.append(reader)
            self._reset(loader, first_iter=True)  # (the sampler iterator is _BaseIter's)
        except BaseException:
            self._shutdown_workers()
            raise

    def _reset(self, loader, first_iter):
        if not first_iter:  # persistent workers keep their seeds, but the draw keeps every epoch's shuffle alike
            self._start_state = loader._shuffle_generator().get_state()
            randint(0, 2**63 - 1, (), generator=loader.generator)
            self._sampler_iter = _started(self._index_sampler)
            self._returned, self._finished = 0, False
        self._send_idx = 0  # next task to hand out
        self._rcvd_idx = 0  # next task to return
        self._task_info = {}  # task -> (worker,) while pending, (worker, data) once here early
        self._tasks_outstanding = 0
        self._workers_status = [True] * self._num_workers
        self._worker_cycle = itertools.cycle(range(self._num_workers))
        self._received = collections.deque()
        if not first_iter:  # persistent workers, next epoch: restart their iterators
            for i in range(self._num_workers):
                self._send(i, _worker._ResumeIteration())
            pending = self._num_workers
            while pending:
                idx, _ = self._get_data()
                if isinstance(idx, _worker._ResumeIteration):
                    pending -= 1
                # anything else is left over from an epoch the user broke out of
        for _ in range(self._prefetch_factor * self._num_workers):
            self._try_put_index()

    def _try_put_index(self):
        if self._tasks_outstanding >= self._prefetch_factor * self._num_workers:
            return
        try:
            index = next(self._sampler_iter)
        except StopIteration:
            return
        for _ in range(self._num_workers):
            worker = next(self._worker_cycle)
            if self._workers_status[worker]:
                break
        else:
            return  # every worker's IterableDataset copy is exhausted
        self._send(worker, (self._send_idx, index))
        self._task_info[self._send_idx] = (worker,)
        self._tasks_outstanding += 1
        self._send_idx += 1

    def _next_data(self):
        while True:
            # Skip tasks of workers that ran dry (IterableDataset) before answering them.
            while self._rcvd_idx < self._send_idx:
                info = self._task_info.get(self._rcvd_idx)
                if info is not None:
                    if len(info) == 2 or self._workers_status[info[0]]:
                        break
                    del self._task_info[self._rcvd_idx]
                    self._tasks_outstanding -= 1  # its worker will never answer it
                self._rcvd_idx += 1
            else:
                if not self._persistent:
                    self._shutdown_workers()
                raise StopIteration
            if len(self._task_info[self._rcvd_idx]) == 2:
                data = self._task_info.pop(self._rcvd_idx)[1]
                self._rcvd_idx += 1
                return self._process(data)
            idx, data = self._get_data()
            if isinstance(idx, _worker._ResumeIteration):
                continue
            self._tasks_outstanding -= 1
            if isinstance(data, _worker._IterableDatasetStopIteration):
                del self._task_info[idx]  # answered (with "nothing left")
                self._mark_worker_done(data.worker_id)
                self._try_put_index()
                continue
            if idx != self._rcvd_idx:
                self._task_info[idx] += (data,)
                continue
            del self._task_info[idx]
            self._rcvd_idx += 1
            return self._process(data)

    def _process(self, data):
        self._try_put_index()
        if isinstance(data, _worker.ExceptionWrapper):
            data.reraise()
        return data

    def _send(self, worker, message):
        try:
            self._index_conns[worker].send(message)
        except OSError:  # BrokenPipeError: it died
            self._worker_died(worker)

    def _mark_worker_done(self, worker):
        self._workers_status[worker] = False
        if not self._persistent:  # it has nothing more to say: let it exit
            self._send(worker, None)
            self._readers[worker].close()
            self._readers[worker] = None

    def _get_data(self):
        """The next (task, data) any worker sent; raises if one died or on timeout."""
        if self._shutdown:
            raise RuntimeError("DataLoader: the iterator's workers have been shut down")
        deadline = time.monotonic() + self._timeout if self._timeout > 0 else None
        while not self._received:
            live = [i for i, r in enumerate(self._readers) if r is not None]
            waitables = [self._readers[i] for i in live] + [self._workers[i].sentinel for i in live]
            remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
            ready = multiprocessing.connection.wait(waitables, timeout=remaining)
            if not ready:
                self._shutdown_workers()
                raise RuntimeError(f"DataLoader timed out after {self._timeout} seconds")
            for i in live:
                if self._readers[i] in ready or self._workers[i].sentinel in ready:
                    self._receive_from(i)
        return self._received.popleft()

    def _receive_from(self, i):
        reader = self._readers[i]
        try:
            if reader.poll():
                self._received.append(pickle.loads(reader.recv_bytes()))
                return
        except (EOFError, OSError):
            pass
        else:
            if self._workers[i].is_alive():
                return  # readiness raced with a read; nothing lost
        self._worker_died(i)

    def _worker_died(self, i):
        p = self._workers[i]
        p.join(_SHUTDOWN_TIMEOUT)  # it closed its pipe: reap it for the exit code
        code = p.exitcode
        if code is not None and code < 0:
            try:
                how = f"killed by signal {signal.Signals(-code).name}"
            except ValueError:
                how = f"killed by signal {-code}"
        else:
            how = f"exit code {code}"
        self._shutdown_workers()
        raise RuntimeError(f"DataLoader worker {i} (pid {p.pid}) exited unexpectedly ({how})")

    def _shutdown_workers(self):
        if self._shutdown:
            return
        self._shutdown = True
        try:
            self._done_event.set()
            for conn in self._index_conns:
                try:
                    conn.send(None)
                    conn.close()
                except OSError:  # it died, or the garbage collector closed the pipe first
                    pass
            for i, r in enumerate(self._readers):
                if r is not None:
                    r.close()  # a worker blocked sending to us gets EPIPE and exits
                    self._readers[i] = None
            deadline = time.monotonic() + _SHUTDOWN_TIMEOUT
            for p in self._workers:
                p.join(max(0.0, deadline - time.monotonic()))
            for p in self._workers:
                if p.is_alive():
                    p.terminate()
                    p.join()
        except Exception:  # noqa: BLE001 - interpreter teardown: best effort
            pass

    def __del__(self):
        if hasattr(self, "_shutdown"):
            self._shutdown_workers()
