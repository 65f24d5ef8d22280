"""What the fusion pass tests (test_graph_fuse_*.py) share: the pass lists
with and without fusion, exact numpy copies, the op names of
a plan, the check that a traced function replays bit for bit as eager
with and without fusion, and what a device may fuse given the kernels its
plugin registers. (A helper module, not a test file.)"""
from collections import Counter

import numpy as np

import monoflow as flow
from monoflow import _C, _graph
from monoflow.devices.conformance.library import Library

FUSION = ("fuse_elementwise", "fuse_epilogue")
NO_FUSION = [p for p in _C._graph_default_passes() if p not in FUSION]
DEFAULT = list(_C._graph_default_passes())


def np_widened(t):
    """A numpy copy of t; float16/bfloat16 widened to float32 (exact)."""
    t = t.detach()
    if t.dtype in (flow.float16, flow.bfloat16):
        t = t.float()  # exact widening
    return t.numpy().copy()


def plan_ops(ct):
    """Op names of the final plan's nodes."""
    lines = ct.describe().splitlines()
    return [ln.split(" = ")[1].split(".")[0].split("(")[0] for ln in lines if ln.strip().startswith("%") and " = " in ln]


def _flat(r):
    return list(r) if isinstance(r, (tuple, list)) else [r]


def matches_eager(f, args_list, passes=DEFAULT, slots_threads=((1, 1), (2, 2))):
    """Traces f on args_list[0] with `passes` and without fusion; both replay
    every args of the list bit for bit as eager, one iteration per run and
    several per run. Returns the trace with `passes`."""
    ct = _graph.trace(f, *args_list[0], passes=passes)
    raw = _graph.trace(f, *args_list[0], passes=NO_FUSION)
    want = [f(*args) for args in args_list]
    for args, w in zip(args_list, want):
        for got in (ct.run(*args), raw.run(*args)):
            for g, e in zip(_flat(got), _flat(w)):
                np.testing.assert_array_equal(np_widened(g), np_widened(e))
    for slots, threads in slots_threads:
        for g, w in zip(ct.run_each(args_list, slots=slots, threads=threads), want):
            for a, b in zip(_flat(g), _flat(w)):
                np.testing.assert_array_equal(np_widened(a), np_widened(b))
    return ct


# --------------------------------------------------- what a device fuses
# Note [Fusing on a device without fused kernels] (core graph/fusion.h): a
# device that does not register the graph's fused kernels (opencl, testdev)
# runs a fused node through the CPU's fused kernel, so a group forms there
# only when its members ran on the CPU too. The expectations below follow
# from the kernels the device's plugin itself registers.

FUSED_OPS = ("fused_elementwise", "matmul_epilogue", "conv_epilogue")
# Members a group may take on any device: they compute no arithmetic (the pass
# admits fills and same-dtype copies; plan_ops shows no dtypes).
_NO_ARITHMETIC = {"fill", "copy"}
_native = {}


def native_ops(device):
    """Names of the ops `device`'s plugin registers kernels for itself (what
    it does not run goes through the CPU fallback)."""
    kind = device.split(":")[0]
    if kind not in _native:
        status, kernels = Library(flow.devices.info(kind)["path"]).kernels()
        assert status == 0, f"register_kernels of {kind}: status {status}"
        _native[kind] = frozenset(k.op for k in kernels)
    return _native[kind]


def can_fuse(device, fused_op, members):
    """Whether a group of `members` (op names) may become one `fused_op` node on
    `device`: the device runs `fused_op` itself, or no member has a kernel of
    the device's own (each ran on the CPU anyway)."""
    native = native_ops(device)
    return fused_op in native or not (set(members) & native) - _NO_ARITHMETIC


def assert_fused_only_what_the_device_can_run(device, ops, raw_ops):
    """`ops` is a plan with fusion, `raw_ops` the same plan without. Where the
    plan holds a fused node the device has no kernel for, what fusion took
    out of the plan is only ops without a kernel of the device's own: no
    native kernel was swapped for the CPU's fused one."""
    native = native_ops(device)
    if all(op in native for op in FUSED_OPS if op in ops):
        return
    taken = Counter(raw_ops) - Counter(ops)
    pulled = sorted(op for op in taken if op in native and op not in _NO_ARITHMETIC)
    assert not pulled, f"{device}: fusion moved {pulled}, which {device} runs itself, into the CPU's fused kernels"


def plan_of(graph):
    """The compiled trace of an nn.Graph that has run one input signature."""
    assert len(graph._plans) == 1, graph
    return next(iter(graph._plans.values()))
