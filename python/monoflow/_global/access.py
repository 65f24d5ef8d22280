"""Opening the core's guard on global shards (Note [Global shards] in
core/include/monoflow/global_shard.h) around code the global layer checked."""
from monoflow import _C


class shard_access:
    __slots__ = ("_previous",)

    def __enter__(self):
        self._previous = _C._set_shard_access(True)

    def __exit__(self, *exc):
        _C._set_shard_access(self._previous)
