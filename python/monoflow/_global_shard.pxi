# Global-tensor support in the bindings (Note [Global shards] in
# core/include/monoflow/global_shard.h). Included by _C.pyx.

cdef extern from "monoflow/global_shard.h" namespace "monoflow":
    cbool c_set_shard_access "monoflow::set_shard_access"(cbool allowed)
    cbool c_shard_access_allowed "monoflow::shard_access_allowed"()


def _mark_global_shard(t, bint flag):
    _tt(t, "_mark_global_shard", "t", 1).get().global_shard = flag


def _is_global_shard(t):
    return _tt(t, "_is_global_shard", "t", 1).get().global_shard


def _set_shard_access(bint allowed):
    """Allows ops on marked shards on this thread; returns the previous state."""
    return c_set_shard_access(allowed)


def _alias(cls, t):
    """A new `cls` object for the same tensor (same storage, same autograd state)."""
    cdef Tensor h = _tt(t, "_alias", "t", 2)
    if not (isinstance(cls, type) and issubclass(cls, TensorBase)):
        raise TypeError(f"_alias(): argument 'cls' must be a Tensor subclass, not {cls!r}")
    obj = mf_new_instance(cls)
    (<TensorBase>obj).t = h
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
