"""A plugin library opened through ctypes: its table, its errors, its kernel list.

This is the kit's direct line to a plugin, beside the core: the contract
checks call the table's entry points themselves, and the kernel list comes
from calling ``register_kernels`` with a host whose ``register_kernel``
records what it is offered.
"""
import ctypes
import os

from monoflow.devices.conformance import abi


class PluginError(Exception):
    """The library cannot be used at all (not loadable, no entry point, no table)."""


class Kernel:
    __slots__ = ("op", "in_dtype", "out_dtype", "fn")

    def __init__(self, op, in_dtype, out_dtype, fn):
        self.op, self.in_dtype, self.out_dtype, self.fn = op, in_dtype, out_dtype, fn

    def key(self):
        return (self.op, abi.dtype_name(self.in_dtype), abi.dtype_name(self.out_dtype))

    def call(self, call):
        return abi.MFKernelFn(self.fn)(ctypes.byref(call))


class Library:
    def __init__(self, path):
        self.path = os.path.abspath(path)
        try:
            self.cdll = ctypes.CDLL(self.path)
        except OSError as exc:
            raise PluginError(f"cannot open {self.path}: {exc}") from None
        try:
            entry = getattr(self.cdll, abi.ENTRY_SYMBOL)
        except AttributeError:
            raise PluginError(f"{self.path} does not export '{abi.ENTRY_SYMBOL}'") from None
        entry.restype = ctypes.c_void_p
        entry.argtypes = []
        address = entry()
        if not address:
            raise PluginError(f"{abi.ENTRY_SYMBOL}() of {self.path} returned no table")
        # Read struct_size first: the table may be shorter than this mirror.
        size = ctypes.c_size_t.from_address(address).value
        self.struct_size = size
        self.address = address
        self.table = abi.MFDevicePlugin.from_address(address)

    # ------------------------------------------------------------ reading the table
    def has(self, field):
        return abi.has_field(self.table, field) and bool(getattr(self.table, field))

    def fn(self, field):
        if not abi.has_field(self.table, field):
            raise AttributeError(f"the table (struct_size {self.struct_size}) has no field '{field}'")
        return getattr(self.table, field)

    @property
    def device_type(self):
        return (self.table.device_type or b"").decode(errors="replace")

    @property
    def host_memory(self):
        return bool(self.table.flags & abi.DEVICE_HOST_MEMORY)

    def last_error(self):
        address = self.table.last_error()
        return ctypes.string_at(address).decode(errors="replace") if address else ""

    def device_count(self):
        return int(self.table.device_count())

    # ------------------------------------------------------------ kernels
    def kernels(self, host_major=None, host_minor=None):
        """(status, [Kernel]): what register_kernels offers to a recording host."""
        found = []

        def record(registry, op, in_dtype, out_dtype, fn):
            try:
                found.append(Kernel(op.decode(errors="replace") if op else "", in_dtype, out_dtype, fn))
            except Exception:  # never let an exception cross the ABI
                return abi.ERR_INTERNAL
            return abi.OK

        callback = abi.RegisterKernelFn(record)
        major, minor = abi.MIRROR_VERSION
        host = abi.MFHostApi(ctypes.sizeof(abi.MFHostApi), major if host_major is None else host_major,
                             minor if host_minor is None else host_minor, None, callback)
        status = self.table.register_kernels(ctypes.byref(host))
        return status, found

    # ------------------------------------------------------------ small helpers for checks
    def alloc(self, device, nbytes):
        out = ctypes.c_void_p()
        status = self.table.allocate(device, nbytes, ctypes.byref(out))
        return status, out.value

    def stream(self, device):
        out = abi.MFStream()
        status = self.table.stream_create(device, ctypes.byref(out))
        return status, out.value

    def event(self, device):
        out = abi.MFEvent()
        status = self.table.event_create(device, ctypes.byref(out))
        return status, out.value


def desc(address, dtype, shape, strides=None):
    """An MFTensorDesc of device memory at `address`; keeps its arrays alive on itself."""
    shape = list(shape)
    if strides is None:
        strides, step = [], 1
        for size in reversed(shape):
            strides.insert(0, step)
            step *= max(size, 1)
    n = len(shape)
    shape_arr = (ctypes.c_int64 * max(n, 1))(*shape)
    strides_arr = (ctypes.c_int64 * max(n, 1))(*strides)
    d = abi.MFTensorDesc(address, dtype, n, shape_arr, strides_arr)
    d._keep = (shape_arr, strides_arr)
    return d


def kernel_call(device, stream, inputs, outputs, attrs=()):
    """An MFKernelCall; `attrs` are (name, value) pairs of scalar attributes."""
    ins = (abi.MFTensorDesc * max(len(inputs), 1))(*inputs)
    outs = (abi.MFTensorDesc * max(len(outputs), 1))(*outputs)
    attr_arr = (abi.MFAttr * max(len(attrs), 1))()
    for k, (name, value) in enumerate(attrs):
        attr_arr[k] = abi.MFAttr(name.encode(), abi.ATTR_SCALAR, 1, int(value), float(value), None)
    call = abi.MFKernelCall(ctypes.sizeof(abi.MFKernelCall), device, stream, len(inputs), ins, len(outputs),
                            outs, len(attrs), attr_arr, 0)
    call._keep = (inputs, outputs, ins, outs, attr_arr)
    return call
