"""Rendezvous: from an init_method (env://, tcp://host:port, file:///dir) to a
store, this process's rank and the world size.

The TCP store is served by rank 0 and bound to all interfaces (0.0.0.0), so
ranks on other machines reach it at MASTER_ADDR; the file store is a shared
directory, for ranks on one machine. The directory must be fresh for each run:
keys left by an earlier run would be taken for this run's.
"""
import os
import urllib.parse

from monoflow.distributed._lib import lib as _lib


def _env_int(name, given):
    if given is not None and given >= 0:
        return given
    value = os.environ.get(name)
    if value is None:
        raise ValueError(f"init_process_group: {name} is not set; run under `python -m monoflow.distributed.launch` "
                         f"or pass {name.lower()}= explicitly")
    try:
        return int(value)
    except ValueError:
        raise ValueError(f"init_process_group: environment variable {name}={value!r} is not an integer") from None


def rendezvous(init_method, rank, world_size, timeout_s):
    """Returns (store, rank, world_size, master_addr)."""
    url = urllib.parse.urlparse(init_method)
    if url.scheme == "env":
        addr = os.environ.get("MASTER_ADDR")
        port = os.environ.get("MASTER_PORT")
        if addr is None or port is None:
            missing = " and ".join(n for n, v in (("MASTER_ADDR", addr), ("MASTER_PORT", port)) if v is None)
            raise ValueError(f"init_process_group: {missing} not set for init_method='env://'; run under "
                             f"`python -m monoflow.distributed.launch`")
        rank, world_size = _env_int("RANK", rank), _env_int("WORLD_SIZE", world_size)
        return _tcp(addr, int(port), rank, world_size, timeout_s)
    if url.scheme == "tcp":
        if not url.hostname or url.port is None:
            raise ValueError(f"init_process_group: init_method {init_method!r} should look like tcp://host:port")
        rank, world_size = _env_int("RANK", rank), _env_int("WORLD_SIZE", world_size)
        return _tcp(url.hostname, url.port, rank, world_size, timeout_s)
    if url.scheme == "file":
        rank, world_size = _env_int("RANK", rank), _env_int("WORLD_SIZE", world_size)
        _check(rank, world_size)
        path = urllib.parse.unquote(url.path)
        return _lib().file_store(path, timeout_s), rank, world_size, "127.0.0.1"
    raise ValueError(f"init_process_group: unsupported init_method {init_method!r} "
                     "(expected env://, tcp://host:port or file:///path)")


def _check(rank, world_size):
    if world_size < 1:
        raise ValueError(f"init_process_group: world_size must be positive, got {world_size}")
    if not 0 <= rank < world_size:
        raise ValueError(f"init_process_group: rank {rank} is out of range for world_size {world_size}")


def _tcp(host, port, rank, world_size, timeout_s):
    _check(rank, world_size)
    store = _lib().tcp_store(host, port, rank == 0, timeout_s)
    return store, rank, world_size, host
