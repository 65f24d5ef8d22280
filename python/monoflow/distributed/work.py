"""Work: the handle an async_op=True collective returns."""


class Work:
    """wait() blocks until the operation is done on this rank, raises its error
    (RuntimeError) and finishes it (copies staged results back into the
    caller's tensors); is_completed() polls without blocking."""

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
