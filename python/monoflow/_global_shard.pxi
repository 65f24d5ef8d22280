# Global-tensor support in the bindings (Note [Global shards] in
# core/include/monoflow/global_shard.h). Included by _C.pyx.

cdef extern from "monoflow/global_shard.h" namespace "monoflow":
    cbool c_set_shard_access "monoflow::set_shard_access"(cbool allowed)
    cbool c_shard_access_allowed "monoflow::shard_access_allowed"()


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


def _has_global(tuple args, dict kwargs):
    """Whether an argument, or an element of a list/tuple argument, is a global
    tensor (a marked shard): the free functions' fast test, run on every call.
    Inside the global layer's own local calls (guard open) shards are local."""
    if c_shard_access_allowed():
        return False
    for a in args:
        if isinstance(a, TensorBase):
            if (<TensorBase>a).t.get().global_shard:
                return True
        elif isinstance(a, (list, tuple)):
            for v in a:
                if isinstance(v, TensorBase) and (<TensorBase>v).t.get().global_shard:
                    return True
    if kwargs:
        for a in kwargs.values():
            if isinstance(a, TensorBase) and (<TensorBase>a).t.get().global_shard:
                return True
    return False
