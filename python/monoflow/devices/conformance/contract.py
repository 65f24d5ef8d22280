"""ABI contract checks, made on the plugin's own table through ctypes.

Each check is a function of a `Context` that returns a short detail on
success, raises `Fail` with what went wrong, or `NotCovered` when it does not
apply to this plugin (e.g. foreign-pointer checks on a host-memory device,
where every host address is legitimately device memory). They run in a child
process (see isolate.py): a plugin that crashes fails that one check.
"""
import ctypes
import threading

import numpy as np

from monoflow.devices.conformance import abi
from monoflow.devices.conformance.library import Library, desc, kernel_call

CHECKS = []  # (name, fn, needs_usable_table)
INFO = {}  # what checks_for learnt: the device type


class Fail(Exception):
    pass


class NotCovered(Exception):
    pass


def check(name, prerequisite=True):
    def register(fn):
        CHECKS.append((name, fn, prerequisite))
        return fn
    return register


class Context:
    def __init__(self, path, core_version):
        self.lib = Library(path)
        self.core_version = core_version
        self.table = self.lib.table
        self._kernels = None

    @property
    def kernels(self):
        if self._kernels is None:
            status, found = self.lib.kernels()
            if status != abi.OK:
                raise Fail(f"register_kernels returned {abi.status_name(status)}: {self.lib.last_error()!r}")
            self._kernels = found
        return self._kernels

    def usable(self):
        """Why the table cannot be exercised, or None."""
        major = self.table.abi_major
        if major != self.core_version[0]:
            return f"ABI major {major} differs from the core's {self.core_version[0]}"
        if not abi.has_field(self.table, "register_kernels"):
            return f"struct_size {self.lib.struct_size} is too small"
        if any(not getattr(self.table, f) for f in abi.REQUIRED_FIELDS[5:]):
            return "a required entry point is NULL"
        return None

    # -------------------------------------------------------------- helpers
    def expect_ok(self, status, what):
        if status != abi.OK:
            raise Fail(f"{what} returned {abi.status_name(status)}: {self.lib.last_error()!r}")

    def expect_error(self, status, what, wanted=None):
        """A failing call: an error status (the `wanted` one when given) and a message."""
        if status in (abi.OK, abi.NOT_READY):
            raise Fail(f"{what} returned {abi.status_name(status)}, expected an error")
        if wanted is not None and status != wanted:
            raise Fail(f"{what} returned {abi.status_name(status)}, expected {abi.status_name(wanted)}")
        message = self.lib.last_error()
        if not message.strip():
            raise Fail(f"{what} failed with {abi.status_name(status)} but last_error() is empty")
        return message

    def alloc(self, nbytes, device=0):
        status, ptr = self.lib.alloc(device, nbytes)
        self.expect_ok(status, f"allocate({device}, {nbytes})")
        return ptr

    def free(self, ptr, device=0):
        self.expect_ok(self.table.deallocate(device, ptr), "deallocate")

    def stream(self, device=0):
        status, s = self.lib.stream(device)
        self.expect_ok(status, "stream_create")
        return s

    def sync(self, stream, device=0):
        self.expect_ok(self.table.stream_synchronize(device, stream), "stream_synchronize")

    def h2d(self, stream, dst, data, device=0):
        buf = ctypes.create_string_buffer(bytes(data), len(data))
        self.expect_ok(self.table.memcpy_h2d(device, stream, dst, buf, len(data)), "memcpy_h2d")
        return buf  # the caller keeps it alive until the stream reaches the copy

    def d2h(self, stream, src, nbytes, device=0):
        buf = ctypes.create_string_buffer(nbytes)
        self.expect_ok(self.table.memcpy_d2h(device, stream, buf, src, nbytes), "memcpy_d2h")
        return buf

    def simple_kernel(self):
        """(op, kernel, numpy dtype) of an elementwise float kernel to put in a
        stream sequence, or None: add, mul, copy or fill in float32/float64."""
        by_key = {}
        for k in self.kernels:
            by_key.setdefault((k.op, k.in_dtype), k)
        for op in ("add", "mul", "copy", "fill"):
            for code, dt in ((abi.DTYPE_CODES["float32"], np.float32), (abi.DTYPE_CODES["float64"], np.float64)):
                k = by_key.get((op, code))
                if k is not None and k.out_dtype in (code, abi.DTYPE_ANY):
                    return op, k, dt
        return None

    def run_simple(self, kind, stream, a_ptr, b_ptr, out_ptr, n, device=0):
        """Launches the simple kernel on n elements; returns a function of the
        host inputs giving the expected output."""
        op, k, dt = kind
        code = abi.DTYPE_CODES[np.dtype(dt).name]
        out = desc(out_ptr, code, [n])
        if op in ("add", "mul"):
            call = kernel_call(device, stream, [desc(a_ptr, code, [n]), desc(b_ptr, code, [n])], [out])
            expect = (lambda a, b: a + b) if op == "add" else (lambda a, b: a * b)
        elif op == "copy":
            call = kernel_call(device, stream, [desc(a_ptr, code, [n])], [out])
            expect = lambda a, b: a  # noqa: E731
        else:
            call = kernel_call(device, stream, [], [out], [("value", 3)])
            expect = lambda a, b: np.full_like(a, 3)  # noqa: E731
        self.expect_ok(k.call(call), f"kernel {op}({np.dtype(dt).name})")
        return expect


def _pattern(n, seed):
    return np.random.default_rng(seed).integers(0, 256, n, dtype=np.uint8).tobytes()


# ------------------------------------------------------------------ the table


@check("table: abi version and struct_size", prerequisite=False)
def _version(ctx):
    t, core = ctx.table, ctx.core_version
    if t.abi_major != core[0]:
        raise Fail(f"plugin ABI {t.abi_major}.{t.abi_minor}, core ABI {core[0]}.{core[1]}: the major "
                   "versions differ, the core refuses this plugin (rebuild it against this monoflow's plugin.h)")
    required = abi.MFDevicePlugin.register_kernels.offset + abi.MFDevicePlugin.register_kernels.size
    if ctx.lib.struct_size < required:
        raise Fail(f"struct_size {ctx.lib.struct_size} < {required}, the size of the ABI {core[0]}.0 fields")
    for field, version in abi.OPTIONAL_FIELDS.items():
        if (t.abi_major, t.abi_minor) >= version and not abi.has_field(t, field):
            raise Fail(f"the table says ABI {t.abi_major}.{t.abi_minor} but struct_size "
                       f"{ctx.lib.struct_size} lacks '{field}' (ABI {version[0]}.{version[1]})")
    return f"ABI {t.abi_major}.{t.abi_minor}, struct_size {ctx.lib.struct_size}"


@check("table: required entry points and device type", prerequisite=False)
def _entries(ctx):
    if not abi.has_field(ctx.table, "register_kernels"):
        raise Fail(f"struct_size {ctx.lib.struct_size} is too small to hold the required entry points")
    missing = [f for f in abi.REQUIRED_FIELDS[5:] if not getattr(ctx.table, f)]
    if missing:
        raise Fail("NULL entry points: " + ", ".join(missing))
    name = ctx.lib.device_type
    if not name or not name.isidentifier() or name != name.lower():
        raise Fail(f"device_type {name!r} is not a lower-case identifier")
    return f"device_type '{name}'"


@check("device_count and get_properties")
def _properties(ctx):
    n = ctx.lib.device_count()
    if n < 1:
        raise Fail(f"device_count() = {n}")
    names = []
    for d in range(n):
        props = abi.MFDeviceProperties()
        props.struct_size = ctypes.sizeof(props)
        ctx.expect_ok(ctx.table.get_properties(d, ctypes.byref(props)), f"get_properties({d})")
        names.append(props.name.decode(errors="replace"))
    return f"{n} device(s): {', '.join(names)}"


@check("every device: its own streams, memory and copies")
def _every_device(ctx):
    n = ctx.lib.device_count()
    for d in range(n):
        s = ctx.stream(d)
        p = ctx.alloc(4099, d)
        try:
            data = _pattern(4099, d)
            keep = ctx.h2d(s, p, data, d)
            ctx.expect_ok(ctx.table.memcpy_d2d(d, s, p + 2051, p + 1, 2048), f"memcpy_d2d on device {d}")
            got = ctx.d2h(s, p, 4099, d)
            ctx.sync(s, d)
            del keep
            if got.raw != data[:2051] + data[1:2049]:
                raise Fail(f"device {d}: h2d, d2d within one allocation, d2h gave wrong bytes")
        finally:
            ctx.table.deallocate(d, p)
            ctx.table.stream_destroy(d, s)
    return f"{n} device(s)"


# ------------------------------------------------------------------ kernel registration


@check("register_kernels: a well-formed kernel list")
def _registration(ctx):
    kernels = ctx.kernels
    seen, problems = set(), []
    for k in kernels:
        if not k.op:
            problems.append("an empty op name")
        if k.in_dtype not in abi.DTYPES:
            problems.append(f"{k.op}: input dtype {k.in_dtype}")
        if k.out_dtype not in abi.DTYPES and k.out_dtype != abi.DTYPE_ANY:
            problems.append(f"{k.op}: output dtype {k.out_dtype}")
        if not k.fn:
            problems.append(f"{k.op}: NULL kernel")
        if k.key() in seen:
            problems.append(f"{k.key()} registered twice")
        seen.add(k.key())
    if problems:
        raise Fail("; ".join(problems[:10]))
    return f"{len(kernels)} kernels, {len({k.op for k in kernels})} ops"


@check("register_kernels: a host that rejects kernels")
def _registration_rejected(ctx):
    # An older core rejects op names it does not know. plugin.h leaves the
    # policy to the plugin: fail (the CPU reports the first rejection) or go
    # on without those kernels; either way it must return, and a failure
    # must say why.
    offered = []

    def reject(registry, op, in_dtype, out_dtype, fn):
        offered.append(op)
        return abi.ERR_INVALID_ARGUMENT

    if not ctx.kernels:
        raise NotCovered("the plugin registers no kernels")
    callback = abi.RegisterKernelFn(reject)
    host = abi.MFHostApi(ctypes.sizeof(abi.MFHostApi), *ctx.core_version, None, callback)
    status = ctx.table.register_kernels(ctypes.byref(host))
    if status == abi.OK:
        return f"rejections ignored (MF_OK after {len(offered)} offers)"
    ctx.expect_error(status, "register_kernels with a host rejecting every kernel")
    return f"reported: {abi.status_name(status)}"


@check("register_kernels: concurrent calls from 4 threads")
def _registration_threads(ctx):
    reference = sorted(k.key() for k in ctx.kernels)
    results, errors = [None] * 4, []

    def work(i):
        try:
            status, found = ctx.lib.kernels()
            results[i] = (status, sorted(k.key() for k in found))
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(repr(exc))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise Fail("; ".join(errors))
    for status, keys in results:
        if status != abi.OK or keys != reference:
            raise Fail(f"a concurrent register_kernels gave {abi.status_name(status)} and "
                       f"{len(keys)} kernels instead of {len(reference)}")
    return "identical lists"


# ------------------------------------------------------------------ errors


@check("errors: bad device index is refused with a message")
def _bad_device(ctx):
    n = ctx.lib.device_count()
    s = ctx.stream()
    ptr = ctx.alloc(64)
    host = ctypes.create_string_buffer(64)
    t = ctx.table
    try:
        for bad in (n, -1, 1 << 20):
            props = abi.MFDeviceProperties()
            props.struct_size = ctypes.sizeof(props)
            out = ctypes.c_void_p()
            calls = {
                "get_properties": lambda: t.get_properties(bad, ctypes.byref(props)),
                "allocate": lambda: t.allocate(bad, 64, ctypes.byref(out)),
                "stream_create": lambda: t.stream_create(bad, ctypes.byref(out)),
                "event_create": lambda: t.event_create(bad, ctypes.byref(out)),
                "memcpy_h2d": lambda: t.memcpy_h2d(bad, s, ptr, host, 64),
                "memcpy_d2h": lambda: t.memcpy_d2h(bad, s, host, ptr, 64),
                "memcpy_d2d": lambda: t.memcpy_d2d(bad, s, ptr, ptr, 64),
                "memset": lambda: t.memset(bad, s, ptr, 0, 64),
                "stream_synchronize": lambda: t.stream_synchronize(bad, s),
            }
            for name, call in calls.items():
                ctx.expect_error(call(), f"{name}(device={bad})")
    finally:
        t.stream_synchronize(0, s)
        t.deallocate(0, ptr)
        t.stream_destroy(0, s)
    return f"device indices {n}, -1, {1 << 20}"


@check("errors: an allocation too large fails with MF_ERR_OUT_OF_MEMORY")
def _too_large(ctx):
    for nbytes in (1 << 62, (1 << 64) - 64):
        status, ptr = ctx.lib.alloc(0, nbytes)
        if status == abi.OK:
            ctx.table.deallocate(0, ptr)
        message = ctx.expect_error(status, f"allocate({nbytes} bytes)", abi.ERR_OUT_OF_MEMORY)
    # and the device is still usable
    ctx.free(ctx.alloc(1 << 10))
    return message[:80]


@check("errors: foreign pointers are refused with a message")
def _foreign(ctx):
    if ctx.lib.host_memory:
        raise NotCovered("host-memory device: any host address is device memory")
    s = ctx.stream()
    ptr = ctx.alloc(256)
    host = ctypes.create_string_buffer(256)
    foreign = ctypes.create_string_buffer(256)
    t = ctx.table
    try:
        cases = {
            "deallocate of a host pointer": lambda: t.deallocate(0, foreign),
            "deallocate inside an allocation": lambda: t.deallocate(0, ptr + 8),
            "memcpy_h2d to a host pointer": lambda: t.memcpy_h2d(0, s, foreign, host, 256),
            "memcpy_d2h from a host pointer": lambda: t.memcpy_d2h(0, s, host, foreign, 256),
            "memcpy_d2d to a host pointer": lambda: t.memcpy_d2d(0, s, foreign, ptr, 256),
            "memcpy_h2d past the end of an allocation": lambda: t.memcpy_h2d(0, s, ptr + 128, host, 256),
            "memset of a host pointer": lambda: t.memset(0, s, foreign, 0, 256),
        }
        for what, call in cases.items():
            status = call()
            if status == abi.OK:  # may be detected when the stream runs it
                status = t.stream_synchronize(0, s)
            ctx.expect_error(status, what)
            t.stream_synchronize(0, s)  # clear whatever is left
        # the stream and the allocation still work
        keep = ctx.h2d(s, ptr, b"\x5a" * 256)
        got = ctx.d2h(s, ptr, 256)
        ctx.sync(s)
        del keep
        if got.raw != b"\x5a" * 256:
            raise Fail("after the refused calls, a copy through the same stream gave wrong bytes")
    finally:
        t.deallocate(0, ptr)
        t.stream_destroy(0, s)
    return f"{len(cases)} cases"


@check("errors: zero-byte and edge calls return a status")
def _edges(ctx):
    t = ctx.table
    s = ctx.stream()
    ptr = ctx.alloc(64)
    host = ctypes.create_string_buffer(64)
    try:
        for name, status in (("memcpy_h2d of 0 bytes", t.memcpy_h2d(0, s, ptr, host, 0)),
                             ("memcpy_d2h of 0 bytes", t.memcpy_d2h(0, s, host, ptr, 0)),
                             ("memcpy_d2d of 0 bytes", t.memcpy_d2d(0, s, ptr, ptr, 0)),
                             ("memset of 0 bytes", t.memset(0, s, ptr, 0, 0))):
            if status != abi.OK:
                ctx.expect_error(status, name)
        ctx.sync(s)
        if t.stream_query(0, s) not in (abi.OK, abi.NOT_READY):
            raise Fail(f"stream_query of an idle stream returned {abi.status_name(t.stream_query(0, s))}")
    finally:
        t.deallocate(0, ptr)
        t.stream_destroy(0, s)
    return "ok"


# ------------------------------------------------------------------ streams and events


@check("streams: h2d -> kernel -> d2d -> d2h in order")
def _ordering(ctx):
    kind = ctx.simple_kernel()
    n = (1 << 18) + 3  # elements; enough that an asynchronous device is still busy
    rounds = 4
    s = ctx.stream()
    itemsize = 8
    a, b, c, d = (ctx.alloc(n * itemsize) for _ in range(4))
    keep, outs, expected = [], [], []
    try:
        for r in range(rounds):
            dt = kind[2] if kind else np.float64
            x = np.random.default_rng(r).standard_normal(n).astype(dt)
            y = np.random.default_rng(100 + r).standard_normal(n).astype(dt)
            nbytes = x.nbytes
            keep.append(ctx.h2d(s, a, x.tobytes()))
            keep.append(ctx.h2d(s, b, y.tobytes()))
            if kind:
                expect = ctx.run_simple(kind, s, a, b, c, n)
                want = expect(x, y)
            else:
                ctx.expect_ok(ctx.table.memcpy_d2d(0, s, c, a, nbytes), "memcpy_d2d")
                want = x
            ctx.expect_ok(ctx.table.memcpy_d2d(0, s, d, c, nbytes), "memcpy_d2d")
            outs.append(ctx.d2h(s, d, nbytes))
            expected.append(want)
        ctx.sync(s)
        for r, (got, want) in enumerate(zip(outs, expected)):
            got = np.frombuffer(got.raw, dtype=want.dtype)
            if not np.array_equal(got, want):
                bad = int(np.argmax(got != want))
                raise Fail(f"round {r}: element {bad} is {got[bad]!r}, expected {want[bad]!r} "
                           "(work on one stream ran out of order, or a wrong result)")
        # memset is ordered too
        ctx.expect_ok(ctx.table.memset(0, s, d, 0x7B, 4097), "memset")
        got = ctx.d2h(s, d, 4097)
        ctx.sync(s)
        if got.raw != b"\x7b" * 4097:
            raise Fail("memset then memcpy_d2h on one stream gave wrong bytes")
    finally:
        for p in (a, b, c, d):
            ctx.table.deallocate(0, p)
        ctx.table.stream_destroy(0, s)
    return f"{rounds} rounds of {n} elements" + (f" through '{kind[0]}'" if kind else " (no simple kernel: copies only)")


@check("events: record on one stream, wait on another")
def _events(ctx):
    t = ctx.table
    n = 1 << 22
    s1, s2 = ctx.stream(), ctx.stream()
    status, e = ctx.lib.event(0)
    ctx.expect_ok(status, "event_create")
    a, b, c = (ctx.alloc(n) for _ in range(3))
    try:
        for r in range(3):
            data = _pattern(n, r)
            keep = ctx.h2d(s1, a, data)
            ctx.expect_ok(t.memcpy_d2d(0, s1, b, a, n), "memcpy_d2d")
            ctx.expect_ok(t.event_record(0, e, s1), "event_record")
            ctx.expect_ok(t.stream_wait_event(0, s2, e), "stream_wait_event")
            ctx.expect_ok(t.memcpy_d2d(0, s2, c, b, n), "memcpy_d2d")
            got = ctx.d2h(s2, c, n)
            ctx.sync(s2)
            if got.raw != data:
                raise Fail(f"round {r}: the second stream did not wait for the event recorded on the first")
            ctx.expect_ok(t.event_synchronize(0, e), "event_synchronize")
            q = t.event_query(0, e)
            if q != abi.OK:
                raise Fail(f"event_query after event_synchronize returned {abi.status_name(q)}")
            ctx.sync(s1)
            del keep
        # lifecycle: many streams and events created, used and destroyed
        for _ in range(20):
            st = ctx.stream()
            status, ev = ctx.lib.event(0)
            ctx.expect_ok(status, "event_create")
            keep = ctx.h2d(st, a, b"\x01" * 4096)
            ctx.expect_ok(t.event_record(0, ev, st), "event_record")
            ctx.expect_ok(t.event_synchronize(0, ev), "event_synchronize")
            ctx.expect_ok(t.event_destroy(0, ev), "event_destroy")
            ctx.expect_ok(t.stream_destroy(0, st), "stream_destroy")
            del keep
    finally:
        t.stream_synchronize(0, s1)
        t.stream_synchronize(0, s2)
        for p in (a, b, c):
            t.deallocate(0, p)
        t.event_destroy(0, e)
        t.stream_destroy(0, s1)
        t.stream_destroy(0, s2)
    return "3 rounds of 4 MiB; 20 stream/event lifecycles"


@check("errors: an asynchronous kernel error is reported at synchronize, then cleared")
def _async_error(ctx):
    kernel = None
    for k in ctx.kernels:
        if k.op in ("floor_divide", "remainder", "fmod") and abi.dtype_name(k.in_dtype) in ("int32", "int64"):
            kernel = k
            break
    if kernel is None:
        raise NotCovered("no integer floor_divide/remainder/fmod kernel to divide by zero")
    t = ctx.table
    name = abi.dtype_name(kernel.in_dtype)
    dt = np.dtype(name)
    n = 1024
    s = ctx.stream()
    a, b, out = (ctx.alloc(n * dt.itemsize) for _ in range(3))
    try:
        x = np.arange(1, n + 1, dtype=dt)
        y = np.ones(n, dtype=dt)
        y[n // 2] = 0
        keep = [ctx.h2d(s, a, x.tobytes()), ctx.h2d(s, b, y.tobytes())]
        call = kernel_call(0, s, [desc(a, kernel.in_dtype, [n]), desc(b, kernel.in_dtype, [n])],
                           [desc(out, kernel.in_dtype, [n])])
        status = kernel.call(call)
        where = "at launch"
        if status == abi.OK:
            status = t.stream_synchronize(0, s)
            where = "at synchronize"
        ctx.expect_error(status, f"{kernel.op}({name}) by zero", abi.ERR_ZERO_DIVISION)
        again = t.stream_synchronize(0, s)
        if again != abi.OK:
            raise Fail(f"the error was not cleared: the next stream_synchronize returned {abi.status_name(again)}")
        # the stream still works
        y[n // 2] = 1
        keep.append(ctx.h2d(s, b, y.tobytes()))
        ctx.expect_ok(kernel.call(call), f"{kernel.op}({name})")
        got = ctx.d2h(s, out, n * dt.itemsize)
        ctx.sync(s)
        want = x // y if kernel.op == "floor_divide" else x % y
        if not np.array_equal(np.frombuffer(got.raw, dtype=dt), want):
            raise Fail("after the error was cleared, the kernel gave a wrong result")
        del keep
    finally:
        for p in (a, b, out):
            t.deallocate(0, p)
        t.stream_destroy(0, s)
    return f"{kernel.op}({name}): MF_ERR_ZERO_DIVISION {where}"


# ------------------------------------------------------------------ memory


@check("allocator: many sizes, disjoint and intact")
def _many_sizes(ctx):
    sizes = list(range(1, 130)) + [255, 256, 257, 4095, 4096, 4097, 65535, 65536 + 7, (1 << 20) + 1]
    s = ctx.stream()
    ptrs, keep = [], []
    try:
        for n in sizes:
            ptrs.append(ctx.alloc(n))
        spans = sorted((p, p + n) for p, n in zip(ptrs, sizes))
        for (p0, e0), (p1, _) in zip(spans, spans[1:]):
            if p1 < e0:
                raise Fail(f"allocations overlap: [{p0:#x}, {e0:#x}) and {p1:#x}")
        for i, (p, n) in enumerate(zip(ptrs, sizes)):
            keep.append(ctx.h2d(s, p, _pattern(n, i)))
        outs = [ctx.d2h(s, p, n) for p, n in zip(ptrs, sizes)]
        ctx.sync(s)
        for i, (out, n) in enumerate(zip(outs, sizes)):
            if out.raw != _pattern(n, i):
                raise Fail(f"the allocation of {n} bytes did not keep its bytes (aliasing?)")
    finally:
        for p in ptrs:
            ctx.table.deallocate(0, p)
        ctx.table.stream_destroy(0, s)
    return f"{len(sizes)} allocations of 1 B .. 1 MiB"


@check("allocator: allocate until out of memory (or a 256 MiB cap), free, allocate again")
def _oom_retry(ctx):
    chunk, cap = 16 << 20, 256 << 20
    ptrs, oom = [], None
    try:
        while len(ptrs) * chunk < cap:
            status, p = ctx.lib.alloc(0, chunk)
            if status != abi.OK:
                oom = ctx.expect_error(status, f"allocate({chunk}) after {len(ptrs)} chunks", abi.ERR_OUT_OF_MEMORY)
                break
            ptrs.append(p)
        held = len(ptrs)
    finally:
        for p in ptrs:
            ctx.expect_ok(ctx.table.deallocate(0, p), "deallocate")
    again = []
    try:
        for _ in range(max(held, 1)):
            again.append(ctx.alloc(chunk))
    finally:
        for p in again:
            ctx.table.deallocate(0, p)
    if oom:
        return f"out of memory after {held} x 16 MiB, all of it allocatable again"
    return f"cap reached ({held} x 16 MiB), all of it allocatable again"


@check("copies: odd sizes (1..4097 bytes) at odd offsets")
def _odd_copies(ctx):
    t = ctx.table
    size = 8192 + 256
    s = ctx.stream()
    a, b = ctx.alloc(size), ctx.alloc(size)
    lengths = sorted(set(list(range(1, 70)) + [127, 128, 129, 1000, 1021, 2047, 2048, 2049, 4095, 4096, 4097]))
    offsets = [(0, 0), (1, 3), (7, 1), (63, 65), (3, 0), (0, 129)]
    checked = 0
    try:
        for i, (oa, ob) in enumerate(offsets):
            guard = bytes([0xA5]) * size
            keep = [ctx.h2d(s, b, guard)]
            for n in lengths:
                data = _pattern(n, 1000 * i + n)
                keep.append(ctx.h2d(s, a + oa, data))
                ctx.expect_ok(t.memcpy_d2d(0, s, b + ob, a + oa, n), "memcpy_d2d")
                got = ctx.d2h(s, b + ob, n)
                ctx.sync(s)
                if got.raw != data:
                    raise Fail(f"{n} bytes from offset {oa} to offset {ob}: wrong bytes")
                after = ctx.d2h(s, b, size)
                ctx.sync(s)
                if after.raw[:ob] != guard[:ob] or after.raw[ob + n:] != guard[ob + n:]:
                    raise Fail(f"a copy of {n} bytes to offset {ob} wrote outside its range")
                keep.append(ctx.h2d(s, b, guard))
                checked += 1
            ctx.sync(s)
        # memset at odd offsets
        for n in (1, 3, 17, 4097):
            keep = [ctx.h2d(s, b, bytes(size))]
            ctx.expect_ok(t.memset(0, s, b + 5, 0xC3, n), "memset")
            got = ctx.d2h(s, b, size)
            ctx.sync(s)
            if got.raw[5:5 + n] != b"\xc3" * n or any(got.raw[:5]) or any(got.raw[5 + n:]):
                raise Fail(f"memset of {n} bytes at offset 5 gave wrong bytes")
    finally:
        t.deallocate(0, a)
        t.deallocate(0, b)
        t.stream_destroy(0, s)
    return f"{checked} copies, memsets at offset 5"


@check("threads: 4 threads allocate, copy and launch on their own streams")
def _threads(ctx):
    kind = ctx.simple_kernel()
    errors = []

    def work(seed):
        try:
            s = ctx.stream()
            n = 4096 + seed
            dt = kind[2] if kind else np.float64
            for it in range(25):
                a, b, c = (ctx.alloc(n * 8) for _ in range(3))
                x = np.random.default_rng(seed * 100 + it).standard_normal(n).astype(dt)
                y = np.random.default_rng(seed * 100 + it + 50).standard_normal(n).astype(dt)
                keep = [ctx.h2d(s, a, x.tobytes()), ctx.h2d(s, b, y.tobytes())]
                if kind:
                    want = ctx.run_simple(kind, s, a, b, c, n)(x, y)
                else:
                    ctx.expect_ok(ctx.table.memcpy_d2d(0, s, c, a, x.nbytes), "memcpy_d2d")
                    want = x
                got = ctx.d2h(s, c, x.nbytes)
                ctx.sync(s)
                del keep
                if not np.array_equal(np.frombuffer(got.raw, dtype=want.dtype), want):
                    raise Fail(f"thread {seed}, iteration {it}: wrong result")
                for p in (a, b, c):
                    ctx.free(p)
            ctx.expect_ok(ctx.table.stream_destroy(0, s), "stream_destroy")
        except Exception as exc:
            errors.append(str(exc))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    if errors:
        raise Fail("; ".join(errors[:4]))
    return "4 x 25 iterations" + (f" through '{kind[0]}'" if kind else "")


# ------------------------------------------------------------------ optional entry points


@check("optional: set_num_threads / get_num_threads")
def _num_threads(ctx):
    t = ctx.table
    if not (ctx.lib.has("set_num_threads") and ctx.lib.has("get_num_threads")):
        raise NotCovered("the plugin has no thread team entry points (ABI 1.1, optional)")
    before = t.get_num_threads()
    if before < 1:
        raise Fail(f"get_num_threads() = {before}")
    ctx.expect_error(t.set_num_threads(0), "set_num_threads(0)")
    try:
        ctx.expect_ok(t.set_num_threads(2), "set_num_threads(2)")
        if t.get_num_threads() != 2:
            raise Fail(f"get_num_threads() = {t.get_num_threads()} after set_num_threads(2)")
    finally:
        t.set_num_threads(before)
    return f"{before} threads"


_TRACE_NAMES = {"kernel", "memcpy_h2d", "memcpy_d2h", "memcpy_d2d", "memset"}
_tracers = []  # callbacks stay alive for good: a late record may still arrive


@check("optional: set_tracer reports copies")
def _tracer(ctx):
    t = ctx.table
    if not ctx.lib.has("set_tracer"):
        raise NotCovered("the plugin has no tracer entry point (ABI 1.2, optional)")
    records, lock = [], threading.Lock()

    def on_record(user, rec):
        r = rec.contents
        with lock:
            records.append(((r.name or b"").decode(errors="replace"), r.start_ns, r.end_ns, r.bytes))

    fn = abi.MFTraceFn(on_record)
    _tracers.append(fn)
    s = ctx.stream()
    p = ctx.alloc(4096)
    try:
        ctx.expect_ok(t.set_tracer(fn, None), "set_tracer")
        keep = [ctx.h2d(s, p, b"\x01" * 4096), ctx.d2h(s, p, 4096)]
        ctx.sync(s)
        del keep
    finally:
        t.set_tracer(abi.MFTraceFn(), None)
        t.deallocate(0, p)
        t.stream_destroy(0, s)
    with lock:
        got = list(records)
    names = {r[0] for r in got}
    if not {"memcpy_h2d", "memcpy_d2h"} <= names:
        raise Fail(f"traced {sorted(names)}, expected memcpy_h2d and memcpy_d2h")
    for name, start, end, nbytes in got:
        if name not in _TRACE_NAMES or end < start:
            raise Fail(f"a malformed record: {name!r}, {start}..{end}")
    return f"{len(got)} records"


def checks_for(path):
    """(name, fn) of every contract check on the plugin at `path`, in order.
    When the table cannot be used, the checks that need it report why."""
    from monoflow import devices
    from monoflow.devices.conformance.library import PluginError

    core = abi.header_version(devices.get_include())
    try:
        ctx = Context(path, core)
    except PluginError as exc:
        message = str(exc)

        def unloadable():
            raise Fail(message)
        return [("table: the library exports a plugin table", unloadable)]
    INFO["device_type"] = ctx.lib.device_type
    blocked = ctx.usable()
    out = []
    for name, fn, prerequisite in CHECKS:
        if prerequisite and blocked:
            def not_run(reason=blocked):
                raise NotCovered(f"not run: {reason}")
            out.append((name, not_run))
        else:
            out.append((name, lambda fn=fn: fn(ctx)))
    return out
