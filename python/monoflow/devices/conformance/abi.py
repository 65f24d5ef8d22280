"""A ctypes mirror of ``monoflow/plugin.h``: its enums, structs and function types.

The mirror is checked field by field against the C header by
tests/test_conformance.py (a C program prints offsetof/sizeof of every field),
so it cannot drift from the header the core is built with.
"""
import ctypes
import re

c_size_t = ctypes.c_size_t

# MFStatus
OK = 0
NOT_READY = 1
ERR_OUT_OF_MEMORY = 2
ERR_INVALID_ARGUMENT = 3
ERR_UNSUPPORTED = 4
ERR_KERNEL = 5
ERR_ZERO_DIVISION = 6
ERR_INTERNAL = 7
STATUS_NAMES = {0: "MF_OK", 1: "MF_NOT_READY", 2: "MF_ERR_OUT_OF_MEMORY", 3: "MF_ERR_INVALID_ARGUMENT",
                4: "MF_ERR_UNSUPPORTED", 5: "MF_ERR_KERNEL", 6: "MF_ERR_ZERO_DIVISION", 7: "MF_ERR_INTERNAL"}

# MFDType: name as monoflow spells it, element size in bytes
DTYPES = {0: ("bool", 1), 1: ("uint8", 1), 2: ("int8", 1), 3: ("int16", 2), 4: ("int32", 4),
          5: ("int64", 8), 6: ("float16", 2), 7: ("bfloat16", 2), 8: ("float32", 4), 9: ("float64", 8),
          10: ("complex64", 8), 11: ("complex128", 16)}
DTYPE_ANY = -1
DTYPE_CODES = {name: code for code, (name, _) in DTYPES.items()}

# MFAttrKind
ATTR_SCALAR, ATTR_INTS, ATTR_DTYPE = 0, 1, 2

DEVICE_HOST_MEMORY = 1 << 0

ENTRY_SYMBOL = "monoflow_device_plugin"

MFStream = ctypes.c_void_p
MFEvent = ctypes.c_void_p
MFStatus = ctypes.c_int  # a C enum: int-sized on every ABI monoflow supports


def status_name(code):
    return STATUS_NAMES.get(code, f"status {code}")


def dtype_name(code):
    if code == DTYPE_ANY:
        return "any"
    return DTYPES.get(code, (f"dtype {code}", 0))[0]


class MFTensorDesc(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("dtype", ctypes.c_int32), ("ndim", ctypes.c_int32),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("strides", ctypes.POINTER(ctypes.c_int64))]


class MFAttr(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("kind", ctypes.c_int32), ("count", ctypes.c_int32),
                ("i", ctypes.c_int64), ("f", ctypes.c_double), ("ints", ctypes.POINTER(ctypes.c_int64))]


class MFKernelCall(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("device", ctypes.c_int32), ("stream", MFStream),
                ("num_inputs", ctypes.c_int32), ("inputs", ctypes.POINTER(MFTensorDesc)),
                ("num_outputs", ctypes.c_int32), ("outputs", ctypes.POINTER(MFTensorDesc)),
                ("num_attrs", ctypes.c_int32), ("attrs", ctypes.POINTER(MFAttr)),
                ("trace_id", ctypes.c_uint64)]


MFKernelFn = ctypes.CFUNCTYPE(MFStatus, ctypes.POINTER(MFKernelCall))
# The kernel pointer as a plain address, so that registration can record it.
RegisterKernelFn = ctypes.CFUNCTYPE(MFStatus, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int32,
                                    ctypes.c_int32, ctypes.c_void_p)


class MFHostApi(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("abi_major", ctypes.c_uint32), ("abi_minor", ctypes.c_uint32),
                ("registry", ctypes.c_void_p), ("register_kernel", RegisterKernelFn)]


class MFTraceRecord(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("device", ctypes.c_int32), ("stream", MFStream),
                ("correlation", ctypes.c_uint64), ("name", ctypes.c_char_p), ("start_ns", ctypes.c_int64),
                ("end_ns", ctypes.c_int64), ("bytes", ctypes.c_uint64)]


MFTraceFn = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.POINTER(MFTraceRecord))


class MFDeviceProperties(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("name", ctypes.c_char * 128), ("total_memory", ctypes.c_uint64),
                ("multiprocessor_count", ctypes.c_int32), ("runs_on_host_cpu", ctypes.c_int32)]


_F = ctypes.CFUNCTYPE
_i32, _vp = ctypes.c_int32, ctypes.c_void_p


class MFDevicePlugin(ctypes.Structure):
    _fields_ = [
        ("struct_size", c_size_t), ("abi_major", ctypes.c_uint32), ("abi_minor", ctypes.c_uint32),
        ("device_type", ctypes.c_char_p), ("flags", ctypes.c_uint32),
        ("last_error", _F(_vp)),  # const char*, read with ctypes.string_at
        ("device_count", _F(_i32)),
        ("get_properties", _F(MFStatus, _i32, ctypes.POINTER(MFDeviceProperties))),
        ("allocate", _F(MFStatus, _i32, c_size_t, ctypes.POINTER(_vp))),
        ("deallocate", _F(MFStatus, _i32, _vp)),
        ("memcpy_h2d", _F(MFStatus, _i32, MFStream, _vp, _vp, c_size_t)),
        ("memcpy_d2h", _F(MFStatus, _i32, MFStream, _vp, _vp, c_size_t)),
        ("memcpy_d2d", _F(MFStatus, _i32, MFStream, _vp, _vp, c_size_t)),
        ("memset", _F(MFStatus, _i32, MFStream, _vp, ctypes.c_int, c_size_t)),
        ("stream_create", _F(MFStatus, _i32, ctypes.POINTER(MFStream))),
        ("stream_destroy", _F(MFStatus, _i32, MFStream)),
        ("stream_synchronize", _F(MFStatus, _i32, MFStream)),
        ("stream_query", _F(MFStatus, _i32, MFStream)),
        ("event_create", _F(MFStatus, _i32, ctypes.POINTER(MFEvent))),
        ("event_destroy", _F(MFStatus, _i32, MFEvent)),
        ("event_record", _F(MFStatus, _i32, MFEvent, MFStream)),
        ("stream_wait_event", _F(MFStatus, _i32, MFStream, MFEvent)),
        ("event_query", _F(MFStatus, _i32, MFEvent)),
        ("event_synchronize", _F(MFStatus, _i32, MFEvent)),
        ("register_kernels", _F(MFStatus, ctypes.POINTER(MFHostApi))),
        # ABI 1.1 (optional)
        ("set_num_threads", _F(MFStatus, _i32)),
        ("get_num_threads", _F(_i32)),
        # ABI 1.2 (optional)
        ("set_tracer", _F(MFStatus, MFTraceFn, _vp)),
    ]


# The fields every plugin must provide (everything up to register_kernels).
_NAMES = [name for name, _ in MFDevicePlugin._fields_]
REQUIRED_FIELDS = _NAMES[:_NAMES.index("register_kernels") + 1]
OPTIONAL_FIELDS = {"set_num_threads": (1, 1), "get_num_threads": (1, 1), "set_tracer": (1, 2)}

STRUCTS = [MFTensorDesc, MFAttr, MFKernelCall, MFHostApi, MFTraceRecord, MFDeviceProperties, MFDevicePlugin]


def has_field(table, field):
    """MF_HAS_FIELD: whether a table of its struct_size contains `field`."""
    desc = getattr(type(table), field)
    return table.struct_size >= desc.offset + desc.size


def header_version(include_dir):
    """(MF_ABI_MAJOR, MF_ABI_MINOR) of the plugin.h in `include_dir`."""
    import os

    with open(os.path.join(include_dir, "monoflow", "plugin.h")) as f:
        text = f.read()
    return (int(re.search(r"#define MF_ABI_MAJOR (\d+)", text).group(1)),
            int(re.search(r"#define MF_ABI_MINOR (\d+)", text).group(1)))


# The version this mirror describes: fields up to set_tracer are ABI 1.2; ABI 1.3 appended
# MFDeviceProperties.runs_on_host_cpu.
MIRROR_VERSION = (1, 3)
