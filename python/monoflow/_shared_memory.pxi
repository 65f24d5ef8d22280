# Storages in shared memory segments (included by _C.pyx); the segments
# themselves are made in monoflow/_shared_memory.py.
#
# torch's share_memory_() keeps the tensor object and every view of it, and
# only swaps the memory under them (Note [Moving a storage in place] in
# storage.h): the segment is borrowed by a throw-away Storage whose memory is
# swapped in; the old memory then goes back the usual way (to the caching
# allocator, or to its lender). Nothing caches a storage's address across
# ops, so views made before the move see the segment.
from libc.string cimport memcpy
from cpython.ref cimport Py_INCREF


cdef extern from "monoflow/storage.h" namespace "monoflow":
    cdef cppclass _Block "monoflow::Block":
        pass
    cdef cppclass _StorageFields "monoflow::Storage":
        void* data
        size_t nbytes
        _Block* block
        void (*release)(void*)
        void* release_ctx
        cbool host_visible
        void swap_memory(_StorageFields& other)
        cbool offloaded
        Device home


cdef _StorageFields* _fields(TensorBase t) except NULL:
    if t.t.get() == NULL or t.t.get().storage.get() == NULL:
        raise RuntimeError("shared memory: the tensor has no storage (an uninitialised tensor handle)")
    return <_StorageFields*>t.t.get().storage.get()


def storage_owner(TensorBase t not None):
    """The Python object keeping t's memory alive when it was lent by one
    (a shared memory segment), else None."""
    cdef _StorageFields* st = _fields(t)
    if st.release != release_pyobject or st.release_ctx == NULL:
        return None
    return <object>st.release_ctx


def storage_layout(TensorBase t not None):
    """(storage bytes, element offset, strides) of t within its storage."""
    return (_fields(t).nbytes, t.t.get().offset, tuple(t.t.get().strides[i] for i in range(t.t.get().dim())))


def _move_storage_to(TensorBase t not None, owner, uintptr_t addr, size_t capacity):
    """Copies t's whole storage to `addr` (memory kept alive by `owner`) and
    makes the storage use it from now on, for t and all its views."""
    cdef _StorageFields* st = _fields(t)
    cdef Device d = t.t.get().device()
    if not registry().backend(d.type).host_memory():
        raise RuntimeError(f"share_memory_: only tensors in host memory can be shared, this one is on "
                           f"{_wrap_device(d)}")
    if capacity < st.nbytes:
        raise ValueError(f"share_memory_: the segment holds {capacity} bytes, the storage needs {st.nbytes}")
    c_synchronize(d)  # queued kernels must finish with the old memory first
    if st.nbytes:
        memcpy(<void*>addr, st.data, st.nbytes)
    Py_INCREF(owner)
    cdef shared_ptr[Storage] old = borrow(d, <void*>addr, st.nbytes, release_pyobject, <void*>owner)
    cdef _StorageFields* o = <_StorageFields*>old.get()
    # `old` now holds the previous memory and frees it when it goes. The segment
    # comes in host-visible (borrowed memory is): host code in other processes
    # reads it, so kernels on it complete before their op returns (Note
    # [Host-visible memory] in storage.h).
    st.swap_memory(o[0])
    t.t.get().storage.get().retire_if_exported(old)  # (a numpy array may still view the old memory)

