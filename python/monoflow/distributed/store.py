"""Key-value stores as classes, with torch.distributed's Store API.

TCPStore and FileStore wrap the collective library's stores (the ones the
rendezvous uses, so one can be handed to ``init_process_group(store=...)``);
PrefixStore gives another store a key namespace; HashStore is an in-process
store (threads of one process).

Values are bytes (a str is encoded as UTF-8); ``add`` keeps a decimal integer
under its key, as torch's stores do. The collective library's stores know only
set/get/add/check/wait: ``delete_key``, ``num_keys`` and ``compare_set`` are
complete in HashStore and raise NotImplementedError naming themselves on the
others.
"""
import threading
import time
from datetime import timedelta

from monoflow.distributed._lib import lib as _lib

_DEFAULT_TIMEOUT = timedelta(minutes=5)  # torch's default store timeout


class DistError(RuntimeError):
    """A failure of the distributed layer (torch.distributed.DistError)."""


class DistStoreError(DistError):
    """A store operation failed or timed out (torch.distributed.DistStoreError)."""


class DistBackendError(DistError):
    """A communication backend failed (torch.distributed.DistBackendError), for ``except`` clauses."""


class DistNetworkError(DistError):
    """A network failure of the distributed layer (torch.distributed.DistNetworkError)."""


class QueueEmptyError(DistStoreError):
    """A store queue was empty (torch.distributed.QueueEmptyError)."""


def _seconds(timeout, what):
    if isinstance(timeout, timedelta):
        return timeout.total_seconds()
    if isinstance(timeout, (int, float)) and not isinstance(timeout, bool):
        return float(timeout)
    raise TypeError(f"{what}: argument 'timeout' must be a datetime.timedelta, not {type(timeout).__name__}")


def _key(key, what):
    if not isinstance(key, str):
        raise TypeError(f"{what}: argument 'key' must be str, not {type(key).__name__}")
    return key


def _bytes(value, what):
    if isinstance(value, str):
        return value.encode()
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    if isinstance(value, (list, tuple)) and all(isinstance(v, int) for v in value):
        return bytes(value)  # torch's bindings take a list of byte values too
    raise TypeError(f"{what}: argument 'value' must be str or bytes, not {type(value).__name__}")


def _keys(keys, what):
    if isinstance(keys, str):
        raise TypeError(f"{what}: argument 'keys' must be a list of str, not str")
    return [_key(k, what) for k in keys]


class Store:
    """The interface every store has (torch.distributed.Store).

    Subclasses implement ``set``, ``get``, ``add``, ``check``, ``wait``;
    ``timeout`` / ``set_timeout`` bound every blocking call. The base class's
    methods raise ``NotImplementedError``.

    Example::

        >>> import monoflow.distributed as dist
        >>> store = dist.HashStore()
        >>> isinstance(store, dist.Store), store.timeout
        (True, datetime.timedelta(seconds=300))
        >>> store.set("epoch", "3"); store.get("epoch")
        b'3'
    """

    def __init__(self):
        self._timeout = _DEFAULT_TIMEOUT

    @property
    def timeout(self):
        return self._timeout

    def set_timeout(self, timeout):
        _seconds(timeout, "Store.set_timeout()")
        self._timeout = timeout if isinstance(timeout, timedelta) else timedelta(seconds=timeout)

    def _missing(self, what):
        return NotImplementedError(f"{type(self).__name__}.{what}: a Store subclass must implement it "
                                   "(TCPStore, FileStore, PrefixStore and HashStore do)")

    def set(self, key, value):
        raise self._missing("set()")

    def get(self, key):
        raise self._missing("get()")

    def add(self, key, amount):
        raise self._missing("add()")

    def check(self, keys):
        raise self._missing("check()")

    def wait(self, keys, timeout=None):
        raise self._missing("wait()")

    def delete_key(self, key):
        raise self._missing("delete_key()")

    def num_keys(self):
        raise self._missing("num_keys()")

    def compare_set(self, key, expected_value, desired_value):
        raise self._missing("compare_set()")


class _LibraryStore(Store):
    """A store of the collective library (a CStore), under torch's method names."""

    def __init__(self, cstore, timeout):
        super().__init__()
        self._c = cstore
        self.set_timeout(timeout)

    def set_timeout(self, timeout):
        super().set_timeout(timeout)
        self._c.set_timeout(self._timeout.total_seconds())

    def set(self, key, value):
        self._c.set(_key(key, "set()"), _bytes(value, "set()"))

    def get(self, key):
        try:
            return self._c.get(_key(key, "get()"))
        except RuntimeError as e:
            raise DistStoreError(str(e)) from None

    def add(self, key, amount):
        return self._c.add(_key(key, "add()"), int(amount))

    def check(self, keys):
        return self._c.check(_keys(keys, "check()"))

    def delete_key(self, key):
        return self._c.delete_key(_key(key, "delete_key()"))

    def num_keys(self):
        return self._c.num_keys()

    def compare_set(self, key, expected_value, desired_value):
        """Sets `desired_value` when the key holds `expected_value` (or is absent and
        `expected_value` is empty); returns the value the key holds afterwards, as torch."""
        return self._c.compare_set(_key(key, "compare_set()"), _bytes(expected_value, "compare_set()"),
                                   _bytes(desired_value, "compare_set()"))

    def wait(self, keys, timeout=None):
        keys = _keys(keys, "wait()")
        try:
            if timeout is None:
                self._c.wait(keys)
            else:
                self._c.wait_for(keys, _seconds(timeout, "wait()"))
        except RuntimeError as e:
            raise DistStoreError(str(e)) from None


class TCPStore(_LibraryStore):
    """A store served over TCP by the master process, joined with the job id and
    secret of the environment (Note [TCPStore handshake] in collective/).

    Args:
        host_name (str): the master's address.
        port (int): its port; 0 with ``is_master`` picks a free one (see ``port``).
        world_size (int, optional): how many processes join, when known.
        is_master (bool): serve the store from this process.
        timeout (timedelta): bound of every blocking call (default 5 minutes).
        wait_for_workers (bool): accepted for torch's signature.
        multi_tenant (bool): accepted for torch's signature.
        master_listen_fd (int, optional): accepted for torch's signature.
        use_libuv (bool): accepted for torch's signature.

    Example::

        >>> import monoflow.distributed as dist
        >>> from datetime import timedelta
        >>> server = dist.TCPStore("127.0.0.1", 0, is_master=True, timeout=timedelta(seconds=5))
        >>> client = dist.TCPStore("127.0.0.1", server.port, timeout=timedelta(seconds=5))
        >>> client.set("epoch", "3"); server.get("epoch")
        b'3'
    """

    def __init__(self, host_name, port, world_size=None, is_master=False, timeout=_DEFAULT_TIMEOUT,
                 wait_for_workers=True, multi_tenant=False, master_listen_fd=None, use_libuv=True):
        from monoflow.distributed.rendezvous import tcp_store

        seconds = _seconds(timeout, "TCPStore()")
        cstore = tcp_store(host_name, port, bool(is_master), seconds,
                           world_size=-1 if world_size is None else int(world_size))
        super().__init__(cstore, timeout)
        self.host = host_name

    @property
    def port(self):
        return self._c.port


class FileStore(_LibraryStore):
    """A store in a directory that the processes of one machine share.

    Args:
        file_name (str): the directory (created when missing).
        world_size (int): accepted for torch's signature.
        timeout (timedelta): bound of every blocking call (default 5 minutes).

    Example::

        >>> import os, tempfile
        >>> import monoflow.distributed as dist
        >>> store = dist.FileStore(os.path.join(tempfile.mkdtemp(), "store"))
        >>> store.set("k", "v"); store.get("k")
        b'v'
        >>> store.add("n", 3), store.check(["k"]), store.check(["missing"])
        (3, True, False)
    """

    def __init__(self, file_name, world_size=-1, timeout=_DEFAULT_TIMEOUT):
        seconds = _seconds(timeout, "FileStore()")
        super().__init__(_lib().file_store(file_name, seconds), timeout)
        self.path = file_name


class PrefixStore(_LibraryStore):
    """`store` with every key read and written as ``prefix + "/" + key``.

    Args:
        prefix (str): the namespace.
        store (Store): a TCPStore, FileStore or PrefixStore.

    Example::

        >>> import os, tempfile
        >>> import monoflow.distributed as dist
        >>> base = dist.FileStore(os.path.join(tempfile.mkdtemp(), "store"))
        >>> trainer = dist.PrefixStore("trainer", base)
        >>> trainer.set("step", "7"); base.get("trainer/step")
        b'7'
    """

    def __init__(self, prefix, store):
        if not isinstance(store, _LibraryStore):
            raise TypeError(f"PrefixStore(): argument 'store' must be a TCPStore, FileStore or PrefixStore, "
                            f"not {type(store).__name__}")
        super().__init__(_lib().prefix_store(_key(prefix, "PrefixStore()"), store._c), store.timeout)
        self.underlying_store = store


class HashStore(Store):
    """A store in this process's memory, shared by its threads, with the whole
    Store API (delete_key, num_keys, compare_set included).

    Example::

        >>> import monoflow.distributed as dist
        >>> s = dist.HashStore()
        >>> s.add("n", 2), s.compare_set("k", "", "v"), s.num_keys()
        (2, b'v', 2)
    """

    def __init__(self):
        super().__init__()
        self._data = {}
        self._changed = threading.Condition()

    def set(self, key, value):
        value = _bytes(value, "set()")
        with self._changed:
            self._data[_key(key, "set()")] = value
            self._changed.notify_all()

    def _wait_locked(self, keys, timeout):
        deadline = time.monotonic() + timeout.total_seconds()
        while not all(k in self._data for k in keys):
            left = deadline - time.monotonic()
            if left <= 0:
                missing = [k for k in keys if k not in self._data]
                raise DistStoreError(f"HashStore: timed out after {timeout.total_seconds():g}s waiting for "
                                     f"keys {missing}")
            self._changed.wait(left)

    def get(self, key):
        key = _key(key, "get()")
        with self._changed:
            self._wait_locked([key], self._timeout)
            return self._data[key]

    def add(self, key, amount):
        key = _key(key, "add()")
        with self._changed:
            old = self._data.get(key, b"0")
            try:
                value = (int(old) if old else 0) + int(amount)  # an empty value counts as 0, as in torch
            except ValueError:
                raise ValueError(f"add(): the value of key {key!r} is not an integer: {old!r}") from None
            self._data[key] = str(value).encode()
            self._changed.notify_all()
            return value

    def check(self, keys):
        keys = _keys(keys, "check()")
        with self._changed:
            return all(k in self._data for k in keys)

    def wait(self, keys, timeout=None):
        keys = _keys(keys, "wait()")
        if timeout is None:
            timeout = self._timeout
        elif not isinstance(timeout, timedelta):
            timeout = timedelta(seconds=_seconds(timeout, "wait()"))
        with self._changed:
            self._wait_locked(keys, timeout)

    def delete_key(self, key):
        with self._changed:
            return self._data.pop(_key(key, "delete_key()"), None) is not None

    def num_keys(self):
        with self._changed:
            return len(self._data)

    def compare_set(self, key, expected_value, desired_value):
        """Sets `desired_value` when the key holds `expected_value` (or is absent and
        `expected_value` is empty); returns the value the key holds afterwards
        (`expected_value` when the key is absent and stays so), as torch."""
        key = _key(key, "compare_set()")
        expected, desired = _bytes(expected_value, "compare_set()"), _bytes(desired_value, "compare_set()")
        with self._changed:
            current = self._data.get(key)
            if current is None:
                if expected:
                    return expected
            elif current != expected:
                return current
            self._data[key] = desired
            self._changed.notify_all()
            return desired
