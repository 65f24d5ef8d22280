"""Work: the handle an async_op=True collective returns."""


class Work:
    """The handle of an operation started with ``async_op=True`` (or by ``isend``/``irecv``).

    ``wait()`` blocks until the operation is done on this rank, raises its error
    (``RuntimeError``) and finishes it (copies staged results back into the
    caller's tensors); ``is_completed()`` polls without blocking;
    ``is_success()``, ``exception()`` and ``result()`` report the outcome.
    Made by the collectives, not by users.

    Args:
        cwork: the collective library's handle.
        keep: the buffers the engine reads and writes, kept alive until done.
        finish (callable, optional): what ``wait()`` runs once the operation is done
            (the copy back of staged results). Default: ``None``.
        result (optional): what ``result()`` returns (e.g. the output list). Default: ``None``.

    Example::

        >>> import monoflow.distributed as dist
        >>> dist.is_available()
        True
        >>> t = flow.ones(2)
        >>> work = dist.all_reduce(t, async_op=True)  # doctest: +SKIP
        >>> work.wait()  # doctest: +SKIP
        True
        >>> work.is_completed(), t  # doctest: +SKIP
        (True, tensor([2., 2.]))
    """

    def __init__(self, cwork, keep, finish=None, result=None):
        self._c = cwork
        self._keep = keep          # buffers the engine reads/writes: alive until done
        self._finish = finish
        self._result = result
        self._done = False

    def wait(self, timeout=None):
        if self._done:
            return True
        try:
            self._c.wait()
        finally:
            self._done = True
            self._keep = None
        if self._finish is not None:
            finish, self._finish = self._finish, None
            finish()
        return True

    def is_completed(self):
        return self._c.is_completed()

    def is_success(self):
        return self._c.is_completed() and not self._c.failed()

    def exception(self):
        if not self._c.is_completed() or not self._c.failed():
            return None
        try:
            self._c.wait()
        except RuntimeError as e:
            return e
        return None

    def result(self):
        self.wait()
        return self._result

    def synchronize(self):
        self.wait()

    def __repr__(self):
        state = "completed" if self.is_completed() else "pending"
        return f"<monoflow.distributed.Work {state}>"
