"""spawn(fn, args, nprocs): run fn(i, *args) in nprocs processes and wait for
them, like torch.multiprocessing.spawn. A process that raises makes the
others stop, and the parent re-raises with the child's traceback."""
import multiprocessing
import multiprocessing.connection
import signal
import traceback

__all__ = ["spawn", "start_processes", "ProcessContext", "ProcessRaisedException", "ProcessExitedException"]


class ProcessException(Exception):
    def __init__(self, msg, error_index, error_pid):
        super().__init__(msg)
        self.msg, self.error_index, self.pid = msg, error_index, error_pid

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.pid)


class ProcessRaisedException(ProcessException):
    """A spawned process raised; the message holds its traceback."""


class ProcessExitedException(ProcessException):
    """A spawned process exited with a non-zero code or was killed by a signal."""

    def __init__(self, msg, error_index, error_pid, exit_code, signal_name=None):
        super().__init__(msg, error_index, error_pid)
        self.exit_code, self.signal_name = exit_code, signal_name

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.pid, self.exit_code, self.signal_name)


def _wrap(fn, i, args, error_conn):
    try:
        fn(i, *args)
    except KeyboardInterrupt:
        pass
    except Exception:  # noqa: BLE001 - reported to the parent, which re-raises
        error_conn.send(traceback.format_exc())
        raise SystemExit(1)
    finally:
        error_conn.close()


class ProcessContext:
    """The processes started by :func:`start_processes` with ``join=False``: ``pids()`` and ``join(timeout)``.

    ``join`` waits for a process to finish and returns ``True`` once all have
    ended well; when one failed it terminates the others and raises
    :class:`ProcessRaisedException` or :class:`ProcessExitedException`.

    Args:
        processes (list): the ``multiprocessing.Process`` objects.
        error_conns (list): the pipes on which each process reports an exception.

    Example::

        >>> ctx = flow.multiprocessing.start_processes(lambda i: None, nprocs=2, join=False, start_method="fork")
        >>> len(ctx.pids())
        2
        >>> while not ctx.join():
        ...     pass
    """

    def __init__(self, processes, error_conns):
        self.processes, self.error_conns = processes, error_conns

    def pids(self):
        return [p.pid for p in self.processes]

    def join(self, timeout=None):
        """Waits for one process to finish; True once all have ended well.
        Raises (after terminating the others) when one failed."""
        live = [p.sentinel for p in self.processes if p.exitcode is None]
        if not live:
            return True
        ready = multiprocessing.connection.wait(live, timeout=timeout)
        failed = None
        for i, p in enumerate(self.processes):
            if p.sentinel in ready:
                p.join()
                if p.exitcode != 0 and failed is None:
                    failed = i
        if failed is None:
            return all(p.exitcode is not None for p in self.processes)
        for p in self.processes:
            if p.is_alive():
                p.terminate()
            p.join()
        p, conn = self.processes[failed], self.error_conns[failed]
        error = None
        if conn.poll():  # (also true at end of file: a child that died without sending one)
            try:
                error = conn.recv()
            except EOFError:
                pass
        if error is not None:
            raise ProcessRaisedException(f"\n\n-- Process {failed} terminated with the following error:\n"
                                         + error, failed, p.pid)
        if p.exitcode < 0:
            name = signal.Signals(-p.exitcode).name
            raise ProcessExitedException(f"process {failed} terminated with signal {name}", failed, p.pid,
                                         p.exitcode, name)
        raise ProcessExitedException(f"process {failed} terminated with exit code {p.exitcode}", failed, p.pid,
                                     p.exitcode)


def start_processes(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """Starts ``nprocs`` processes running ``fn(i, *args)``; waits for them, or returns their :class:`ProcessContext`.

    Args:
        fn (callable): the function each process runs as ``fn(i, *args)``, ``i`` being the
            process index; with ``"spawn"`` it must be importable (defined at module level).
        args (tuple): the further arguments of ``fn``. Default: ``()``.
        nprocs (int): the number of processes. Default: ``1``.
        join (bool): wait for all of them; otherwise return the :class:`ProcessContext`.
            Default: ``True``.
        daemon (bool): start the processes as daemons. Default: ``False``.
        start_method (str): ``"spawn"``, ``"fork"`` or ``"forkserver"``. Default: ``"spawn"``.

    Raises:
        ProcessRaisedException: when a process raised (its traceback in the message);
            the others are terminated.
        ProcessExitedException: when a process exited with a non-zero code or a signal.

    Example::

        >>> flow.multiprocessing.start_processes(lambda i, x: None, args=(1,), nprocs=2, start_method="fork")
    """
    ctx = multiprocessing.get_context(start_method)
    processes, error_conns = [], []
    for i in range(nprocs):
        reader, writer = ctx.Pipe(duplex=False)
        p = ctx.Process(target=_wrap, args=(fn, i, args, writer), daemon=daemon)
        p.start()
        writer.close()
        processes.append(p)
        error_conns.append(reader)
    context = ProcessContext(processes, error_conns)
    if not join:
        return context
    while not context.join():
        pass


def spawn(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """Starts ``nprocs`` processes running ``fn(i, *args)``, as torch.multiprocessing.spawn.

    With ``join=True`` it waits for all of them (and re-raises a failure);
    otherwise it returns a :class:`ProcessContext`. Tensors passed in ``args``
    travel as shared memory.

    Args:
        fn (callable): the function each process runs as ``fn(i, *args)``, ``i`` being the
            process index; with ``"spawn"`` it must be importable (defined at module level).
        args (tuple): the further arguments of ``fn``. Default: ``()``.
        nprocs (int): the number of processes. Default: ``1``.
        join (bool): wait for all of them; otherwise return the :class:`ProcessContext`.
            Default: ``True``.
        daemon (bool): start the processes as daemons. Default: ``False``.
        start_method (str): ``"spawn"``, ``"fork"`` or ``"forkserver"``. Default: ``"spawn"``.

    Raises:
        ProcessRaisedException: when a process raised (its traceback in the message);
            the others are terminated.
        ProcessExitedException: when a process exited with a non-zero code or a signal.

    Example::

        >>> flow.multiprocessing.spawn(lambda i: None, nprocs=2, start_method="fork")
        >>> flow.multiprocessing.spawn(lambda i: 1 / 0, start_method="fork")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        monoflow.multiprocessing.spawn.ProcessRaisedException: ...
    """
    return start_processes(fn, args, nprocs, join, daemon, start_method)
