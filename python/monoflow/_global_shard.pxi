# Global-tensor support in the bindings (Note [Global shards] in
# core/include/monoflow/global_shard.h). Included by _C.pyx.

cdef extern from "monoflow/global_shard.h" namespace "monoflow":
    cbool c_set_shard_access "monoflow::set_shard_access"(cbool allowed)


def _mark_global_shard(TensorBase t, bint flag):
    t.t.get().global_shard = flag


def _is_global_shard(TensorBase t):
    return t.t.get().global_shard


def _set_shard_access(bint allowed):
    """Allows ops on marked shards on this thread; returns the previous state."""
    return c_set_shard_access(allowed)


def _alias(cls, TensorBase t):
    """A new `cls` object for the same tensor (same storage, same autograd state)."""
    obj = mf_new_instance(cls)
    (<TensorBase>obj).t = t.t
    return obj
