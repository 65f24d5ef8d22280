# DLPack interop (the unversioned DLManagedTensor protocol that numpy and
# PyTorch both speak). Included by _C.pyx. Host-memory devices only.
from cpython.pycapsule cimport (PyCapsule_Destructor, PyCapsule_GetPointer, PyCapsule_IsValid, PyCapsule_New,
                                PyCapsule_SetName)
from libc.stdint cimport int32_t, uint8_t, uint16_t, uint32_t, uint64_t


cdef extern from *:
    """
    #include <stdlib.h>
    /* DLPack's C ABI (v0.8 layout), declared here from the specification. */
    typedef struct { int32_t device_type; int32_t device_id; } MFDLDevice;
    typedef struct { uint8_t code; uint8_t bits; uint16_t lanes; } MFDLDataType;
    typedef struct {
      void* data; MFDLDevice device; int32_t ndim; MFDLDataType dtype;
      int64_t* shape; int64_t* strides; uint64_t byte_offset;
    } MFDLTensor;
    typedef struct MFDLManagedTensor {
      MFDLTensor dl_tensor; void* manager_ctx; void (*deleter)(struct MFDLManagedTensor*);
    } MFDLManagedTensor;
    /* DLPack 1.x: versioned, with flags (0: writable). numpy hands out
       writable arrays only for these. */
    typedef struct MFDLManagedTensorVersioned {
      uint32_t major; uint32_t minor; void* manager_ctx;
      void (*deleter)(struct MFDLManagedTensorVersioned*); uint64_t flags; MFDLTensor dl_tensor;
    } MFDLManagedTensorVersioned;

    /* Exported tensors keep their memory alive through manager_ctx (an _ExportedMemory). */
    static void mf_dlpack_deleter(MFDLManagedTensor* m) {
      PyGILState_STATE g = PyGILState_Ensure();
      Py_XDECREF((PyObject*)m->manager_ctx);
      PyGILState_Release(g);
      free(m->dl_tensor.shape);
      free(m);
    }
    static void mf_dlpack_deleter_versioned(MFDLManagedTensorVersioned* m) {
      PyGILState_STATE g = PyGILState_Ensure();
      Py_XDECREF((PyObject*)m->manager_ctx);
      PyGILState_Release(g);
      free(m->dl_tensor.shape);
      free(m);
    }
    static void mf_dlpack_versioned_capsule_destructor(PyObject* capsule) {
      if (PyCapsule_IsValid(capsule, "dltensor_versioned")) {
        MFDLManagedTensorVersioned* m =
            (MFDLManagedTensorVersioned*)PyCapsule_GetPointer(capsule, "dltensor_versioned");
        if (m && m->deleter) m->deleter(m);
      }
    }
    static MFDLManagedTensorVersioned* mf_dlpack_alloc_versioned(int ndim) {
      MFDLManagedTensorVersioned* m = (MFDLManagedTensorVersioned*)calloc(1, sizeof(MFDLManagedTensorVersioned));
      if (!m) return NULL;
      m->dl_tensor.shape = (int64_t*)calloc(2 * (ndim > 0 ? ndim : 1), sizeof(int64_t));
      if (!m->dl_tensor.shape) { free(m); return NULL; }
      m->dl_tensor.strides = m->dl_tensor.shape + ndim;
      m->major = 1;
      m->minor = 0;
      m->deleter = mf_dlpack_deleter_versioned;
      return m;
    }
    /* A capsule never consumed still owns its tensor. */
    static void mf_dlpack_capsule_destructor(PyObject* capsule) {
      if (PyCapsule_IsValid(capsule, "dltensor")) {
        MFDLManagedTensor* m = (MFDLManagedTensor*)PyCapsule_GetPointer(capsule, "dltensor");
        if (m && m->deleter) m->deleter(m);
      }
    }
    /* Imported tensors: the storage's release hook hands the memory back. */
    static void mf_dlpack_release_imported(void* ctx) {
      MFDLManagedTensor* m = (MFDLManagedTensor*)ctx;
      if (m && m->deleter) m->deleter(m);
    }
    static MFDLManagedTensor* mf_dlpack_alloc(int ndim) {
      MFDLManagedTensor* m = (MFDLManagedTensor*)calloc(1, sizeof(MFDLManagedTensor));
      if (!m) return NULL;
      m->dl_tensor.shape = (int64_t*)calloc(2 * (ndim > 0 ? ndim : 1), sizeof(int64_t));
      if (!m->dl_tensor.shape) { free(m); return NULL; }
      m->dl_tensor.strides = m->dl_tensor.shape + ndim;
      m->deleter = mf_dlpack_deleter;
      return m;
    }
    """
    ctypedef struct MFDLDevice:
        int32_t device_type
        int32_t device_id
    ctypedef struct MFDLDataType:
        uint8_t code
        uint8_t bits
        uint16_t lanes
    ctypedef struct MFDLTensor:
        void* data
        MFDLDevice device
        int32_t ndim
        MFDLDataType dtype
        int64_t* shape
        int64_t* strides
        uint64_t byte_offset
    ctypedef struct MFDLManagedTensor:
        MFDLTensor dl_tensor
        void* manager_ctx
        void (*deleter)(MFDLManagedTensor*)
    ctypedef struct MFDLManagedTensorVersioned:
        uint32_t major
        uint32_t minor
        void* manager_ctx
        uint64_t flags
        MFDLTensor dl_tensor
    void mf_dlpack_capsule_destructor(object capsule)
    void mf_dlpack_versioned_capsule_destructor(object capsule)
    MFDLManagedTensorVersioned* mf_dlpack_alloc_versioned(int ndim)
    void mf_dlpack_release_imported(void* ctx)
    MFDLManagedTensor* mf_dlpack_alloc(int ndim)

cdef enum:
    kDLCPU = 1
    kDLInt = 0
    kDLUInt = 1
    kDLFloat = 2
    kDLComplex = 5
    kDLBfloat = 4
    kDLBool = 6

# monoflow dtype index -> (DLPack code, bits)
cdef tuple _DL_CODES = ((kDLBool, 8), (kDLUInt, 8), (kDLInt, 8), (kDLInt, 16), (kDLInt, 32), (kDLInt, 64),
                        (kDLFloat, 16), (kDLBfloat, 16), (kDLFloat, 32), (kDLFloat, 64),
                        (kDLComplex, 64), (kDLComplex, 128))


cdef void _fill_dl_tensor(MFDLTensor* dl, TensorImpl* p):
    code, bits = _DL_CODES[<int>p.dtype]
    dl.data = p.data_ptr()
    dl.device.device_type = kDLCPU
    dl.device.device_id = 0
    dl.ndim = p.dim()
    dl.dtype.code = code
    dl.dtype.bits = bits
    dl.dtype.lanes = 1
    dl.byte_offset = 0
    for i in range(p.dim()):
        dl.shape[i] = p.shape[i]
        dl.strides[i] = p.strides[i]


def to_dlpack(tensor, bint versioned=False):
    """A DLPack capsule viewing t's memory (kept alive until consumed and
    released): "dltensor_versioned" (DLPack 1.0, writable) when the consumer
    accepts it, else the legacy "dltensor"."""
    cdef TensorBase t = _tensor_obj(tensor, "to_dlpack", "tensor", 1)
    cdef TensorImpl* p = t.t.get()
    cdef Device d = p.device()
    if not registry().backend(d.type).host_memory():
        raise BufferError(f"__dlpack__: only tensors in host memory can be exported, this one is on "
                          f"{_wrap_device(d)}; call .cpu() first")
    c_synchronize(d)  # the consumer reads the memory right away
    p.storage.get().host_visible = True  # Note [Host-visible memory]
    cdef MFDLManagedTensor* m
    cdef MFDLManagedTensorVersioned* mv
    if versioned:
        mv = mf_dlpack_alloc_versioned(p.dim())
        if mv == NULL:
            raise MemoryError("__dlpack__: out of host memory")
        _fill_dl_tensor(&mv.dl_tensor, p)
        mv.flags = 0
        keeper = _ExportedMemory.of(p.storage)  # (the memory, not the tensor: Note [Exported memory])
        Py_INCREF(keeper)
        mv.manager_ctx = <void*>keeper
        return PyCapsule_New(<void*>mv, "dltensor_versioned",
                             <PyCapsule_Destructor>mf_dlpack_versioned_capsule_destructor)
    m = mf_dlpack_alloc(p.dim())
    if m == NULL:
        raise MemoryError("__dlpack__: out of host memory")
    _fill_dl_tensor(&m.dl_tensor, p)
    keeper = _ExportedMemory.of(p.storage)
    Py_INCREF(keeper)
    m.manager_ctx = <void*>keeper
    return PyCapsule_New(<void*>m, "dltensor", <PyCapsule_Destructor>mf_dlpack_capsule_destructor)


def from_dlpack_capsule(capsule):
    """A CPU tensor viewing the memory a "dltensor" capsule describes; consumes it."""
    if not PyCapsule_IsValid(capsule, "dltensor"):
        raise ValueError("from_dlpack: expected an unconsumed 'dltensor' capsule")
    cdef MFDLManagedTensor* m = <MFDLManagedTensor*>PyCapsule_GetPointer(capsule, "dltensor")
    cdef MFDLTensor* dl = &m.dl_tensor
    if dl.device.device_type != kDLCPU:
        raise BufferError(f"from_dlpack: only CPU memory can be imported (DLPack device type {dl.device.device_type})")
    if dl.dtype.lanes != 1:
        raise BufferError("from_dlpack: vector dtypes (lanes != 1) are not supported")
    try:
        idx = _DL_CODES.index((dl.dtype.code, dl.dtype.bits))
    except ValueError:
        raise BufferError(f"from_dlpack: unsupported DLPack dtype (code {dl.dtype.code}, {dl.dtype.bits} bits)")
    shape = [dl.shape[i] for i in range(dl.ndim)]
    if dl.strides != NULL:
        strides = [dl.strides[i] for i in range(dl.ndim)]
    else:  # compact row-major
        strides, acc = [], 1
        for n in reversed(shape):
            strides.insert(0, acc)
            acc *= max(n, 1)
    if any(s < 0 for s in strides):
        raise BufferError("from_dlpack: negative strides are not supported")
    cdef size_t isz = itemsize(<DType>idx)
    extent = 0 if 0 in shape else 1
    if extent:
        for n, s in zip(shape, strides):
            extent += (n - 1) * s
    cdef Device cpu
    cpu.type = 0
    cpu.index = 0
    cdef shared_ptr[Storage] st = borrow(cpu, <char*>dl.data + dl.byte_offset, extent * isz,
                                         mf_dlpack_release_imported, <void*>m)
    PyCapsule_SetName(capsule, "used_dltensor")  # the storage owns it now
    cdef Tensor base = c_empty(Dims(), <DType>idx, cpu)
    base.get().storage = st
    return wrap(make_view(base, _dims(shape, "from_dlpack"), _dims(strides, "from_dlpack"), 0))
