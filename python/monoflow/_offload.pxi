# OneFlow's Tensor.offload() / load() / is_offloaded() (included by _C.pyx
# after _shared_memory.pxi, whose _StorageFields it uses): the storage's bytes
# move to host memory and back in place, so the tensor object, its views and
# Parameters that hold it keep their identity (Note [Offloaded storage] in
# storage.h; the move itself is the core's relocate_storage).


def offload_storage(TensorBase t not None):
    """Moves t's storage to host memory, remembering its device; False when it
    is in host memory already (nothing to do)."""
    cdef _StorageFields* st = _fields(t)
    cdef Device here = t.t.get().device()
    if registry().backend(here.type).host_memory():
        return False
    cdef Device host
    host.type = 0
    host.index = 0
    relocate_storage(t.t, host)
    st.home = here
    st.offloaded = True
    return True


def load_storage(TensorBase t not None):
    """Moves an offloaded storage back to the device it came from; False when
    it was not offloaded."""
    cdef _StorageFields* st = _fields(t)
    if not st.offloaded:
        return False
    relocate_storage(t.t, st.home)
    st.offloaded = False
    return True


def storage_offloaded(TensorBase t not None):
    return _fields(t).offloaded
