/* monoflow device-plugin ABI.
 *
 * A device plugin is a shared library that exports one symbol,
 * `monoflow_device_plugin`, returning a pointer to a static MFDevicePlugin
 * table. The core dlopen()s the library, checks the table and then talks to
 * the device only through these function pointers.
 *
 * Note [ABI stability]
 *   - Plain C only: no C++ type, no exception and no ownership of core objects
 *     crosses this boundary. Plugins never link against the core.
 *   - Every table starts with `struct_size`; new entries are only ever appended,
 *     so a newer core reads an older plugin's table by checking struct_size
 *     before touching a field (see MF_HAS_FIELD), and an older core simply
 *     ignores trailing fields it does not know.
 *   - `abi_major` changes only when an existing field changes meaning; the core
 *     refuses a plugin of another major version with a clear message.
 *     `abi_minor` is bumped whenever fields are appended.
 *   - Errors are MFStatus codes; the human-readable message of the most recent
 *     failure on the calling thread is returned by `last_error`.
 */
#ifndef MONOFLOW_PLUGIN_H_
#define MONOFLOW_PLUGIN_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MF_ABI_MAJOR 1
#define MF_ABI_MINOR 3  /* 1: MF_COMPLEX64, MF_COMPLEX128; the thread-team entries. 2: tracing.
                           3: MFDeviceProperties.runs_on_host_cpu */

#if defined(_WIN32)
#define MF_EXPORT __declspec(dllexport)
#else
#define MF_EXPORT __attribute__((visibility("default")))
#endif

/* True when a table of the given struct_size contains `field`. */
#define MF_HAS_FIELD(ptr, type, field) \
  ((ptr)->struct_size >= offsetof(type, field) + sizeof((ptr)->field))

typedef enum MFStatus {
  MF_OK = 0,
  MF_NOT_READY = 1,          /* stream/event query: work still pending */
  MF_ERR_OUT_OF_MEMORY = 2,  /* allocate: the device has no room */
  MF_ERR_INVALID_ARGUMENT = 3,
  MF_ERR_UNSUPPORTED = 4,
  MF_ERR_KERNEL = 5,         /* a kernel failed (possibly asynchronously) */
  MF_ERR_ZERO_DIVISION = 6,  /* integer division by zero inside a kernel */
  MF_ERR_INTERNAL = 7
} MFStatus;

/* Element types. The numbering is part of the ABI. */
typedef enum MFDType {
  MF_BOOL = 0,
  MF_UINT8 = 1,
  MF_INT8 = 2,
  MF_INT16 = 3,
  MF_INT32 = 4,
  MF_INT64 = 5,
  MF_FLOAT16 = 6,
  MF_BFLOAT16 = 7,
  MF_FLOAT32 = 8,
  MF_FLOAT64 = 9,
  /* ABI 1.1: interleaved (real, imag) pairs of float32 / float64, as C99's
   * float _Complex and std::complex. A plugin built before never sees them:
   * it registers no complex kernels, so they fall back to the CPU. */
  MF_COMPLEX64 = 10,
  MF_COMPLEX128 = 11,
  MF_NUM_DTYPES = 12,
  MF_DTYPE_ANY = -1 /* kernel registration: any output dtype */
} MFDType;

typedef struct MFStream_* MFStream; /* opaque, owned by the plugin */
typedef struct MFEvent_* MFEvent;   /* opaque, owned by the plugin */

/* Note [Device addresses]
 *   `data` below, and every pointer that allocate returns or a copy, memset or
 *   kernel receives, is a *device address*: to the core an opaque number that
 *   it offsets by byte counts (views, the caching allocator's block splits) and
 *   never dereferences unless the device has MF_DEVICE_HOST_MEMORY.
 *   A device whose memory is reached through handles rather than pointers
 *   (OpenCL cl_mem, Vulkan VkBuffer, an NPU's buffer ids) does not need a
 *   second field for "handle + offset": its allocate hands out addresses from
 *   a range it reserved (mmap PROT_NONE, so they can alias nothing) and each
 *   entry point resolves an address to (handle, offset) by looking up the
 *   allocation that contains it. devices/opencl does this. We chose it over
 *   an appended (handle, offset) pair in MFTensorDesc because every existing
 *   plugin, the core's offset arithmetic and the copy entry points stay as
 *   they are, a lookup in an ordered map of live allocations costs far less
 *   than a kernel launch, and pointer-addressed devices (CUDA, shared
 *   virtual memory) keep passing real pointers with nothing to resolve.
 */

/* A strided view of device memory (DLPack-like). `data` already includes the
 * storage offset; `shape` and `strides` (in elements, >= 0) have `ndim`
 * entries and stay valid only for the duration of the call that receives
 * them: an asynchronous plugin must copy them. */
typedef struct MFTensorDesc {
  void* data;
  int32_t dtype; /* MFDType */
  int32_t ndim;
  const int64_t* shape;
  const int64_t* strides;
} MFTensorDesc;

typedef enum MFAttrKind {
  MF_ATTR_SCALAR = 0, /* a number: `i` holds it for integer/bool ops, `f` for floating ones */
  MF_ATTR_INTS = 1,   /* a list of integers in `ints[0..count)` */
  MF_ATTR_DTYPE = 2   /* an MFDType in `i` */
} MFAttrKind;

typedef struct MFAttr {
  const char* name;
  int32_t kind; /* MFAttrKind */
  int32_t count;
  int64_t i;
  double f;
  const int64_t* ints;
} MFAttr;

/* Everything a kernel gets. The core guarantees the conventions of the op
 * (documented in docs/kernels.md) before calling: same device for all
 * operands, the registered input dtype, output memory already allocated. */
typedef struct MFKernelCall {
  size_t struct_size;
  int32_t device;
  MFStream stream;
  int32_t num_inputs;
  const MFTensorDesc* inputs;
  int32_t num_outputs;
  const MFTensorDesc* outputs;
  int32_t num_attrs;
  const MFAttr* attrs;
  /* ABI 1.2: nonzero while the core profiles; a plugin with a tracer set
   * reports the kernel's run with this correlation id (MFTraceRecord).
   * Read it only when MF_HAS_FIELD(call, MFKernelCall, trace_id). */
  uint64_t trace_id;
} MFKernelCall;

/* A kernel enqueues its work on `call->stream` and returns. A failure it can
 * detect before launching is returned at once; a failure while running is
 * reported by the next stream_synchronize/stream_query on that stream. */
typedef MFStatus (*MFKernelFn)(const MFKernelCall* call);

/* Services the core offers to a plugin while it registers its kernels. */
typedef struct MFHostApi {
  size_t struct_size;
  uint32_t abi_major;
  uint32_t abi_minor;
  void* registry; /* opaque, pass back unchanged */
  /* Register `fn` for op `op_name` on inputs of `in_dtype`. `out_dtype` is
   * MF_DTYPE_ANY when the kernel handles every output dtype the op can ask
   * for (e.g. `copy` that also casts). Unknown op names are rejected. */
  MFStatus (*register_kernel)(void* registry, const char* op_name, int32_t in_dtype,
                              int32_t out_dtype, MFKernelFn fn);
} MFHostApi;

/* ABI 1.2: what a plugin reports about one piece of stream work it ran, for
 * the profiler (Note [Profiler events] in monoflow/profiler.h). Times are
 * CLOCK_MONOTONIC nanoseconds of the host, when the work started and ended
 * (a device with its own clock converts). */
typedef struct MFTraceRecord {
  size_t struct_size;
  int32_t device;
  MFStream stream;
  uint64_t correlation; /* the launching MFKernelCall's trace_id; 0 for copies */
  const char* name;     /* static: "kernel", "memcpy_h2d", "memcpy_d2h", "memcpy_d2d", "memset" */
  int64_t start_ns;
  int64_t end_ns;
  uint64_t bytes;       /* copies and memsets: bytes moved; 0 otherwise */
} MFTraceRecord;

/* Called on any plugin thread; must return quickly and never throws. */
typedef void (*MFTraceFn)(void* user, const MFTraceRecord* record);

typedef struct MFDeviceProperties {
  size_t struct_size;
  char name[128];
  uint64_t total_memory; /* bytes, 0 if unknown */
  int32_t multiprocessor_count;
  /* ABI 1.3: nonzero when the device is the host's own processor seen
   * through another API (OpenCL on PoCL): a device, but not an accelerator,
   * so monoflow.accelerator does not offer it. Zero from older plugins. */
  int32_t runs_on_host_cpu;
} MFDeviceProperties;

enum MFDeviceFlags {
  /* The device's memory is ordinary host memory: the core may share it with
   * numpy and read it directly after synchronising the stream. */
  MF_DEVICE_HOST_MEMORY = 1u << 0
};

typedef struct MFDevicePlugin {
  size_t struct_size;
  uint32_t abi_major;
  uint32_t abi_minor;
  const char* device_type; /* e.g. "cpu", "cuda"; lower-case identifier */
  uint32_t flags;          /* MFDeviceFlags */

  const char* (*last_error)(void); /* message of the last failure on this thread */

  int32_t (*device_count)(void);
  MFStatus (*get_properties)(int32_t device, MFDeviceProperties* out);

  /* Raw memory. The core's caching allocator sits above these. */
  MFStatus (*allocate)(int32_t device, size_t nbytes, void** out);
  MFStatus (*deallocate)(int32_t device, void* ptr);

  /* Copies are ordered on `stream`; host buffers must stay valid until the
   * stream reaches the copy (the core synchronises before reusing them). */
  MFStatus (*memcpy_h2d)(int32_t device, MFStream stream, void* dst, const void* src, size_t nbytes);
  MFStatus (*memcpy_d2h)(int32_t device, MFStream stream, void* dst, const void* src, size_t nbytes);
  MFStatus (*memcpy_d2d)(int32_t device, MFStream stream, void* dst, const void* src, size_t nbytes);
  MFStatus (*memset)(int32_t device, MFStream stream, void* dst, int value, size_t nbytes);

  MFStatus (*stream_create)(int32_t device, MFStream* out);
  MFStatus (*stream_destroy)(int32_t device, MFStream stream);
  /* Blocks until all work on `stream` is done. Returns the first error a
   * kernel on the stream raised since the previous synchronize, and clears it. */
  MFStatus (*stream_synchronize)(int32_t device, MFStream stream);
  MFStatus (*stream_query)(int32_t device, MFStream stream); /* MF_OK or MF_NOT_READY */

  MFStatus (*event_create)(int32_t device, MFEvent* out);
  MFStatus (*event_destroy)(int32_t device, MFEvent event);
  MFStatus (*event_record)(int32_t device, MFEvent event, MFStream stream);
  MFStatus (*stream_wait_event)(int32_t device, MFStream stream, MFEvent event);
  MFStatus (*event_query)(int32_t device, MFEvent event); /* MF_OK or MF_NOT_READY */
  MFStatus (*event_synchronize)(int32_t device, MFEvent event);

  MFStatus (*register_kernels)(const MFHostApi* host);
  /* Appended fields go below this line; bump MF_ABI_MINOR. */

  /* ABI 1.1, optional (may be null): the team of host threads that runs the
   * plugin's kernels (torch.set_num_threads). set_num_threads(n), n > 0, fixes
   * the team at n threads for kernels enqueued after the call; get_num_threads
   * returns the team size kernels use now. */
  MFStatus (*set_num_threads)(int32_t n);
  int32_t (*get_num_threads)(void);

  /* ABI 1.2, optional (may be null): while `fn` is set the plugin calls it
   * once per kernel, copy and memset it runs (after it ran), with `user`
   * passed back; set_tracer(NULL, NULL) stops it. Work launched while a
   * tracer was set may report shortly after it is cleared: the core ignores
   * such late records. */
  MFStatus (*set_tracer)(MFTraceFn fn, void* user);
} MFDevicePlugin;

typedef const MFDevicePlugin* (*MFPluginEntryFn)(void);
#define MF_PLUGIN_ENTRY_SYMBOL "monoflow_device_plugin"

#ifdef __cplusplus
}
#endif

#endif /* MONOFLOW_PLUGIN_H_ */
