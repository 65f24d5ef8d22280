"""The device-plugin ABI: loading and refusing plugins, discovery (entry
points, environment variable), tensors on a third-party device ("testdev",
tests/plugins/testdev) and the CPU fallback for ops it has no kernel for.

Checks that depend on a process's first use of something (warnings emitted
once, what import discovers) run in a fresh interpreter."""
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import monoflow as flow
from monoflow import _plugins


def abi_version():
    """(major, minor) from the plugin.h this monoflow was built with."""
    with open(os.path.join(flow.devices.get_include(), "monoflow", "plugin.h")) as f:
        text = f.read()
    major = int(re.search(r"#define MF_ABI_MAJOR (\d+)", text).group(1))
    minor = int(re.search(r"#define MF_ABI_MINOR (\d+)", text).group(1))
    return major, minor


def run_python(code, tmp_path, env_extra=None, pythonpath=None):
    """Runs `code` in a fresh interpreter; returns the JSON it prints last.

    The child must never crash: a non-zero exit status fails the test with
    its output."""
    env = dict(os.environ)
    env.pop("MONOFLOW_DEVICE_PLUGINS", None)
    env.update(env_extra or {})
    if pythonpath:
        env["PYTHONPATH"] = os.pathsep.join([pythonpath] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=str(tmp_path), env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, f"child exited with {proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
    return json.loads(proc.stdout.strip().splitlines()[-1])


# The built-in accelerator plugins loaded here (opencl where it was built and
# PoCL runs it): a child loads them too, after the plugins it discovers.
BUILTINS = [t for t in flow.devices.available() if t in _plugins.BUILTIN_PLUGINS]

# A child that imports monoflow while recording every warning, then reports.
IMPORT_AND_REPORT = """
    import json, warnings
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        import monoflow as flow
    ok = (flow.ones(3) + 1).numpy().tolist() == [2.0, 2.0, 2.0]
    extra = {}
    if "testdev" in flow.devices.available():
        extra["testdev_add"] = (flow.ones(2, device="testdev:1") + 1).numpy().tolist()
    print(json.dumps({
        "available": flow.devices.available(),
        "failed": flow.devices.failed(),
        "warnings": [(w.category.__name__, str(w.message)) for w in caught],
        "cpu_works": ok,
        **extra,
    }))
"""


# ---------------------------------------------------------------- loading


def test_plugin_of_another_abi_major_is_refused(plugins):
    major, minor = abi_version()
    path = plugins["badabi"]
    with pytest.raises(RuntimeError) as info:
        flow.devices.load(path)
    msg = str(info.value)
    assert path in msg
    assert f"ABI {major + 1}.{minor}" in msg  # the plugin's version
    assert f"ABI {major}.{minor}" in msg  # the core's version
    assert "badabi" not in flow.devices.available()


BAD_PLUGINS = {
    "nullentry": ["returned no plugin table"],
    "failreg": ["register_kernels failed", "registration failed on purpose"],
    "noentry": ["does not export 'monoflow_device_plugin'"],
    "corrupt": ["invalid ELF header"],
    "missing": ["No such file or directory"],
}


@pytest.mark.parametrize("name", sorted(BAD_PLUGINS))
def test_broken_plugin_raises_naming_path_and_reason(plugins, name):
    before = flow.devices.available()
    path = plugins[name]
    for _ in range(2):  # a second attempt fails the same way
        with pytest.raises(RuntimeError) as info:
            flow.devices.load(path)
        msg = str(info.value)
        assert path in msg
        for reason in BAD_PLUGINS[name]:
            assert reason in msg
    # nothing half-registered, and the process goes on working
    assert flow.devices.available() == before
    with pytest.raises(RuntimeError, match=name):
        flow.device(name)
    np.testing.assert_array_equal((flow.arange(4) * 3).numpy(), [0, 3, 6, 9])
    np.testing.assert_array_equal((flow.ones(2, device="testdev") + 1).numpy(), [2.0, 2.0])


def test_loading_the_same_plugin_twice_is_a_no_op(plugins, tmp_path):
    path = plugins["testdev"]
    before = flow.devices.available()
    t = flow.full((3,), 4.0, device="testdev")
    assert flow.devices.load(path) == "testdev"
    # the same library under other spellings of its path is the same plugin
    link = tmp_path / "libalias.so"
    os.symlink(path, link)
    assert flow.devices.load(str(link)) == "testdev"
    dotted = os.path.join(os.path.dirname(path), ".", os.path.basename(path))
    assert flow.devices.load(dotted) == "testdev"
    assert flow.devices.available() == before
    assert flow.devices.available().count("testdev") == 1
    assert flow.devices.info("testdev")["path"] == path
    # existing tensors and the device's state are untouched
    np.testing.assert_array_equal((t + t).numpy(), [8.0, 8.0, 8.0])


def test_another_library_claiming_a_registered_device_type_is_refused(plugins, tmp_path):
    copy = tmp_path / "libmonoflow_testdev_copy.so"
    shutil.copy(plugins["testdev"], copy)
    with pytest.raises(RuntimeError) as info:
        flow.devices.load(str(copy))
    msg = str(info.value)
    assert str(copy) in msg and plugins["testdev"] in msg and "'testdev'" in msg
    assert flow.devices.info("testdev")["path"] == plugins["testdev"]


def test_device_info_and_count(plugins):
    info = flow.devices.info("testdev")
    assert info["type"] == "testdev" and info["path"] == plugins["testdev"]
    assert info["host_memory"] is False
    assert [d["name"] for d in info["devices"]] == ["monoflow test device 0", "monoflow test device 1"]
    assert flow.devices.count("testdev") == 2
    assert flow.devices.info("cpu")["host_memory"] is True
    assert flow.devices.available()[0] == "cpu"
    with pytest.raises(RuntimeError, match="nosuchdev"):
        flow.devices.count("nosuchdev")


# ---------------------------------------------------------------- discovery


def test_discovery_through_the_environment_variable(plugins, tmp_path):
    bad = [plugins["badabi"], plugins["missing"], plugins["corrupt"], plugins["nullentry"]]
    env = {"MONOFLOW_DEVICE_PLUGINS": os.pathsep.join([plugins["testdev"]] + bad + [""])}
    out = run_python(IMPORT_AND_REPORT, tmp_path, env)
    assert out["available"] == ["cpu", "testdev"] + BUILTINS
    assert out["cpu_works"] and out["testdev_add"] == [2.0, 2.0]
    failed = dict((source, reason) for source, reason in out["failed"])
    assert len(failed) == len(bad)
    device_warnings = [msg for cat, msg in out["warnings"] if cat == "DeviceWarning"]
    assert len(device_warnings) == len(bad)
    for path in bad:
        (source,) = [s for s in failed if path in s]
        assert "MONOFLOW_DEVICE_PLUGINS" in source
        assert path in failed[source]  # the reason is the loader's message, naming the path
        assert sum(path in w for w in device_warnings) == 1
    assert "ABI" in failed[[s for s in failed if plugins["badabi"] in s][0]]


def test_discovery_through_entry_points(plugins, tmp_path):
    site = tmp_path / "site"
    dist = site / "mf_test_plugins-1.0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: mf-test-plugins\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(textwrap.dedent("""\
        [monoflow.devices]
        testdev = mf_test_plugins:testdev_paths
        badabi = mf_test_plugins:BADABI
        raising = mf_test_plugins:raising
        nomodule = mf_no_such_module_xyz:paths
        notapath = mf_test_plugins:NOT_A_PATH
        """))
    (site / "mf_test_plugins.py").write_text(textwrap.dedent(f"""\
        def testdev_paths():
            return [{plugins["testdev"]!r}]

        BADABI = {plugins["badabi"]!r}
        NOT_A_PATH = 42

        def raising():
            raise RuntimeError("boom from the entry point")
        """))
    out = run_python(IMPORT_AND_REPORT, tmp_path, pythonpath=str(site))
    assert out["available"] == ["cpu", "testdev"] + BUILTINS
    assert out["cpu_works"] and out["testdev_add"] == [2.0, 2.0]
    failed = {source: reason for source, reason in out["failed"]}
    by_name = {name: [s for s in failed if f"entry point '{name}'" in s] for name in
               ("badabi", "raising", "nomodule", "notapath", "testdev")}
    assert by_name["testdev"] == []
    for name in ("badabi", "raising", "nomodule", "notapath"):
        assert len(by_name[name]) == 1, (name, failed)
    assert plugins["badabi"] in failed[by_name["badabi"][0]] and "ABI" in failed[by_name["badabi"][0]]
    assert "boom from the entry point" in failed[by_name["raising"][0]]
    assert "mf_no_such_module_xyz" in failed[by_name["nomodule"][0]]
    device_warnings = [msg for cat, msg in out["warnings"] if cat == "DeviceWarning"]
    assert len(device_warnings) == 4
    assert any("boom from the entry point" in w for w in device_warnings)


def test_import_with_nothing_to_discover_reports_nothing(tmp_path):
    out = run_python(IMPORT_AND_REPORT, tmp_path)
    assert out["available"] == ["cpu"] + BUILTINS
    assert out["failed"] == []
    assert [w for w in out["warnings"] if w[0] == "DeviceWarning"] == []


# ---------------------------------------------------------------- tensors on testdev

DTYPE_VALUES = {
    "bool": [True, False, True, True],
    "uint8": [0, 255, 7, 128],
    "int8": [-128, 127, 0, -1],
    "int16": [-32768, 32767, 5, -300],
    "int32": [-(2 ** 31), 2 ** 31 - 1, 12345, -6],
    "int64": [-(2 ** 62) - 5, 2 ** 62 + 3, 0, -1],
    "float16": [0.5, -65504.0, 1e-3, 3.25],
    "bfloat16": [1.5, -3.0e38, 0.0078125, 256.0],
    "float32": [1.25, -3.4e38, 1e-30, float("inf")],
    "float64": [1.0 / 3.0, -1e300, 5e-324, float("nan")],
}


def values_of(t):
    """A copy of a tensor's values as numpy, read from wherever it lives."""
    if t.dtype == flow.bfloat16:
        t = t.float()
    return np.array(t.numpy(), copy=True)  # a CPU tensor's numpy() shares its memory


@pytest.mark.parametrize("name", sorted(DTYPE_VALUES))
def test_values_survive_the_round_trip_through_testdev(name):
    dt = getattr(flow, name)
    src = flow.tensor(DTYPE_VALUES[name], dtype=dt).reshape(2, 2)
    expected = values_of(src)
    on0 = src.to("testdev")
    assert on0.device == flow.device("testdev", 0) and str(on0.device) == "testdev:0"
    assert on0.dtype == dt and tuple(on0.shape) == (2, 2)
    on1 = on0.to("testdev:1")
    assert on1.device.type == "testdev" and on1.device.index == 1
    back = on1.to("cpu")
    assert back.device == flow.device("cpu")
    for t in (on0, on1, back, on1.cpu()):
        np.testing.assert_array_equal(values_of(t), expected)
    if name != "bfloat16":  # .numpy() straight from device memory
        got = on1.numpy()
        assert got.dtype == expected.dtype
        np.testing.assert_array_equal(got, expected)
    # the testdev copies are independent of the source
    src.fill_(0)
    np.testing.assert_array_equal(values_of(on1), expected)


def test_numpy_of_a_testdev_tensor_is_a_copy():
    t = flow.arange(12, dtype=flow.float32).reshape(3, 4).to("testdev")
    a = t.numpy()
    a[:] = -1
    np.testing.assert_array_equal(t.numpy(), np.arange(12, dtype=np.float32).reshape(3, 4))
    # non-contiguous views come back in logical order
    np.testing.assert_array_equal(t.T.numpy(), np.arange(12, dtype=np.float32).reshape(3, 4).T)
    np.testing.assert_array_equal(t[1:, ::2].numpy(), [[4.0, 6.0], [8.0, 10.0]])
    assert t[2, 3].item() == 11.0


def test_copy_between_devices():
    ref = np.arange(12, dtype=np.float32).reshape(3, 4)
    cpu = flow.tensor(ref)
    dev = flow.zeros(3, 4, device="testdev")
    dev.copy_(cpu)
    np.testing.assert_array_equal(dev.numpy(), ref)
    back = flow.zeros(3, 4)
    back.copy_(dev)
    np.testing.assert_array_equal(back.numpy(), ref)
    other = flow.zeros(3, 4, device="testdev:1")
    other.copy_(dev)  # device to device
    np.testing.assert_array_equal(other.numpy(), ref)
    # non-contiguous source and destination, with a cast and a broadcast
    dst = flow.zeros(3, 4, dtype=flow.float64, device="testdev:1")
    src = flow.tensor(ref[:, :2].T.copy(), dtype=flow.int64).T  # (3, 2), transposed
    assert not src.is_contiguous() and not dst[:, 1:3].is_contiguous()
    dst[:, 1:3].copy_(src)
    expected = np.zeros((3, 4))
    expected[:, 1:3] = ref[:, :2]
    np.testing.assert_array_equal(dst.numpy(), expected)
    dst[:, 0].copy_(flow.tensor([7.0]))
    expected[:, 0] = 7.0
    np.testing.assert_array_equal(dst.numpy(), expected)
    cpu_dst = flow.zeros(4, 3)
    cpu_dst.T.copy_(dst)
    np.testing.assert_array_equal(cpu_dst.numpy(), expected.T)


@pytest.mark.parametrize("devs", [("cpu", "testdev"), ("testdev", "cpu"), ("testdev:0", "testdev:1")])
def test_ops_mixing_devices_raise_naming_both(devs):
    a = flow.ones(2, 2, device=devs[0])
    b = flow.ones(2, 2, device=devs[1])
    names = [str(flow.device(d)) for d in devs]
    for fn in (lambda: a + b, lambda: a * b, lambda: a - b, lambda: a @ b, lambda: a.add_(b),
               lambda: flow.maximum(a, b), lambda: a == b):
        with pytest.raises(RuntimeError) as info:
            fn()
        assert all(n in str(info.value) for n in names), str(info.value)
    np.testing.assert_array_equal(a.numpy(), np.ones((2, 2)))


@pytest.mark.parametrize("spec", ["nosuchdev", "nosuchdev:1", "cuda:0", "Testdev"])
def test_unknown_device_strings_raise_naming_the_type(spec):
    name = spec.split(":")[0]
    uses = [lambda: flow.ones(2, device=spec), lambda: flow.ones(2).to(spec)]
    if name in flow._C.device_types():
        pytest.skip(f"a {name} plugin is loaded here")
    if name == "cuda":  # one of torch's device names: it can be named without its plugin, not used
        assert flow.device(spec).type == "cuda"
    else:
        uses.append(lambda: flow.device(spec))
    for fn in uses:
        with pytest.raises(RuntimeError, match=f"'{name}'"):
            fn()


def test_bad_device_indices_and_malformed_strings():
    with pytest.raises(RuntimeError, match="testdev has 2 device"):
        flow.ones(2, device="testdev:2")
    for spec in ("testdev:", "testdev:x", "testdev:-1", "cpu:0:1"):
        with pytest.raises(RuntimeError, match="device"):
            flow.device(spec)


# ---------------------------------------------------------------- CPU fallback

def _np(x):
    return np.asarray(x, dtype=np.float32)


A = _np(np.arange(24).reshape(4, 6) % 7 - 3)
B = _np(np.arange(24).reshape(4, 6) % 5 + 1)

# name -> (op counted as a fallback, dtype of the operands, fn, numpy reference)
FALLBACK_CASES = {
    "sub": ("sub", None, lambda a, b: a - b, lambda a, b: a - b),
    "sum": ("sum", None, lambda a, b: a.sum(dim=1), lambda a, b: a.sum(axis=1)),
    "sum_all": ("sum", None, lambda a, b: a.sum(), lambda a, b: a.sum()),
    "matmul": ("matmul", None, lambda a, b: a @ b.T, lambda a, b: a @ b.T),
    "div": ("div", None, lambda a, b: a / b, lambda a, b: a / b),
    "maximum": ("maximum", None, lambda a, b: flow.maximum(a, b), np.maximum),
    "lt": ("lt", None, lambda a, b: a < b, lambda a, b: a < b),
    "neg": ("neg", None, lambda a, b: -a, lambda a, b: -a),
    "int64_add": ("add", flow.int64, lambda a, b: a + b, lambda a, b: (a + b).astype(np.int64)),
    "float16_mul": ("mul", flow.float16, lambda a, b: a * b, lambda a, b: (a * b).astype(np.float16)),
}


@pytest.mark.parametrize("case", sorted(FALLBACK_CASES))
def test_cpu_fallback_gives_the_right_values_and_is_counted(case):
    op, dt, fn, ref = FALLBACK_CASES[case]
    a, b = flow.tensor(A).to("testdev:1"), flow.tensor(B).to("testdev:1")
    if dt is not None:  # cast first: the cast itself falls back too
        a, b = a.to(dt), b.to(dt)
    before = flow.devices.fallback_counts().get(("testdev", op), 0)
    out = fn(a, b)
    assert out.device == flow.device("testdev:1")
    assert flow.devices.fallback_counts().get(("testdev", op), 0) == before + 1
    expected = ref(A, B)
    got = out.numpy()
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)
    # the inputs are unchanged
    np.testing.assert_array_equal(a.float().numpy(), A)
    np.testing.assert_array_equal(b.float().numpy(), B)


def test_profiler_shows_a_fallback_and_the_cpu_kernel_inside_it():
    a, b = flow.tensor(A).to("testdev:1"), flow.tensor(B).to("testdev:1")
    with flow.profiler.profile() as prof:
        out = a - b
    np.testing.assert_array_equal(out.numpy(), A - B)
    events = prof.events()
    (fallback,) = [e for e in events if e.kind == "fallback"]
    assert fallback.name == "sub" and fallback.device == "testdev:1"
    inner = [e for e in events if e.kind == "op" and e.cpu_parent is fallback]
    assert [(e.name, e.device) for e in inner] == [("sub", "cpu:0")]
    # the testdev plugin has no tracer (ABI 1.2's set_tracer is optional): its own work has no kernel rows
    assert all(e.device != "testdev:1" for e in events if e.kind == "kernel")


def test_native_kernels_run_on_the_plugin_and_fallbacks_do_not(testdev_lib):
    a, b = flow.tensor(A).to("testdev"), flow.tensor(B).to("testdev")
    launches = testdev_lib.testdev_kernel_launches
    counts = flow.devices.fallback_counts
    n_add, n_mul, n_all = launches(b"add"), launches(b"mul"), launches(None)
    before = counts()
    c = a + b
    assert launches(b"add") == n_add + 1
    d = a * b
    assert launches(b"mul") == n_mul + 1
    assert counts() == before  # no fallback for float32 add/mul
    n_all = launches(None)
    e = a - b
    f = a.sum()
    assert launches(None) == n_all  # sub and sum never reached a testdev kernel
    assert launches(b"sub") == 0
    assert counts()[("testdev", "sub")] == before.get(("testdev", "sub"), 0) + 1
    np.testing.assert_array_equal(c.numpy(), A + B)
    np.testing.assert_array_equal(d.numpy(), A * B)
    np.testing.assert_array_equal(e.numpy(), A - B)
    assert f.item() == A.sum()
    # float64 add is native too, int64 add is not
    n_add = launches(b"add")
    a.double() + b.double()
    assert launches(b"add") == n_add + 1
    a.long() + b.long()
    assert launches(b"add") == n_add + 1


def test_cpu_fallback_on_non_contiguous_and_broadcast_inputs():
    base = np.arange(48, dtype=np.float32).reshape(6, 8) - 20
    t = flow.tensor(base).to("testdev")
    row = flow.tensor(base[0]).to("testdev")
    cases = [
        (lambda: t.T - t.T, base.T - base.T),
        (lambda: t[1:5, ::3] - t[:4, 1::3], base[1:5, ::3] - base[:4, 1::3]),
        (lambda: t - row, base - base[0]),  # stride-0 broadcast input
        (lambda: t[::2].T.sum(dim=0), base[::2].T.sum(axis=0)),
        (lambda: t[:, ::2] @ t[:4, 1::2].T, base[:, ::2] @ base[:4, 1::2].T),
        (lambda: t[::2, 2:].long() // 3, base[::2, 2:].astype(np.int64) // 3),
    ]
    for fn, expected in cases:
        np.testing.assert_array_equal(fn().numpy(), expected)
    np.testing.assert_array_equal(t.numpy(), base)  # inputs untouched


def test_cpu_fallback_in_place_on_non_contiguous_outputs():
    ref = np.arange(24, dtype=np.int64).reshape(4, 6)
    t = flow.tensor(ref).to("testdev")  # int64: no testdev kernel at all
    t[:, ::2] += 1
    ref[:, ::2] += 1
    np.testing.assert_array_equal(t.numpy(), ref)  # the odd columns are untouched
    t[:, 1::2] *= 3
    ref[:, 1::2] *= 3
    t.T[2:4, 1:3] -= 100
    ref.T[2:4, 1:3] -= 100
    np.testing.assert_array_equal(t.numpy(), ref)
    v = t[1:, ::5]
    v -= flow.tensor([[1, 2]]).to("testdev")  # broadcast operand
    ref[1:, ::5] -= np.array([[1, 2]])
    np.testing.assert_array_equal(t.numpy(), ref)
    # the written view interleaves with the one read, in the same storage:
    # writing back the host copy's gaps must not clobber anything
    t[:, ::2] += t[:, 1::2]
    ref[:, ::2] += ref[:, 1::2]
    np.testing.assert_array_equal(t.numpy(), ref)
    # float32 in-place sub (no testdev kernel) on a view of a view
    f = flow.tensor(ref.astype(np.float32)).to("testdev:1")
    fv = f[::2][:, 1:5:3]
    fv -= 0.5
    fref = ref.astype(np.float32)
    fref[::2][:, 1:5:3] -= 0.5
    np.testing.assert_array_equal(f.numpy(), fref)


FALLBACK_WARNING_CHILD = """
    import json, warnings
    import monoflow as flow
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        a = flow.ones(2, 3, device="testdev")
        b = flow.ones(2, 3, device="testdev")
        native = len(caught)
        for _ in range(3):
            a + b          # native float32 kernel: no warning
            a - b          # fallback: 'sub'
        for _ in range(2):
            a.sum()        # fallback: 'sum'
        i = flow.ones(2, 3, dtype=flow.int64, device="testdev")
        for _ in range(2):
            i + i          # fallback: 'add' (int64)
        s = (a - b).numpy().tolist()
    print(json.dumps({
        "native": native,
        "warnings": [(w.category.__name__, str(w.message)) for w in caught],
        "counts": [[k[0], k[1], n] for k, n in flow.devices.fallback_counts().items()],
        "sub": s,
    }))
"""


def test_fallback_warns_once_per_device_and_op_and_counts_each_time(plugins, tmp_path):
    out = run_python(FALLBACK_WARNING_CHILD, tmp_path, {"MONOFLOW_DEVICE_PLUGINS": plugins["testdev"]})
    assert out["native"] == 0
    assert all(cat == "DeviceWarning" for cat, _ in out["warnings"])
    msgs = [m for _, m in out["warnings"]]
    for op in ("sub", "sum", "add"):
        mine = [m for m in msgs if f"'{op}'" in m]
        assert len(mine) == 1, (op, msgs)
        assert "testdev" in mine[0]
    assert "int64" in [m for m in msgs if "'add'" in m][0]
    counts = {(d, op): n for d, op, n in out["counts"]}
    assert counts[("testdev", "sub")] == 4
    assert counts[("testdev", "sum")] == 2
    assert counts[("testdev", "add")] == 2
    assert out["sub"] == [[0.0] * 3] * 2


FALLBACK_WARNING_AS_ERROR_CHILD = """
    import json, warnings
    import monoflow as flow
    a = flow.ones(3, device="testdev")
    raised = 0
    with warnings.catch_warnings():
        warnings.simplefilter("error", flow.devices.DeviceWarning)
        for _ in range(2):  # each attempt fails: the op never ran, so it warns again
            try:
                a - a
            except flow.devices.DeviceWarning:
                raised += 1
    failed_count = flow.devices.fallback_counts().get(("testdev", "sub"), 0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = (a - a).numpy().tolist()
        a - a
    print(json.dumps({"raised": raised, "failed_count": failed_count, "result": r,
                      "later_warnings": len(caught),
                      "count": flow.devices.fallback_counts()[("testdev", "sub")]}))
"""


def test_fallback_warning_turned_into_an_error_stops_the_op_every_time(plugins, tmp_path):
    out = run_python(FALLBACK_WARNING_AS_ERROR_CHILD, tmp_path, {"MONOFLOW_DEVICE_PLUGINS": plugins["testdev"]})
    assert out["raised"] == 2
    assert out["failed_count"] == 0  # nothing ran, nothing counted
    assert out["result"] == [0.0, 0.0, 0.0]
    assert out["later_warnings"] == 1  # warned once when it finally ran
    assert out["count"] == 2


def test_loading_plugins_keeps_the_processs_signal_handlers():
    """Note [Plugins keep the process's signal handlers]: PoCL and LLVM (the OpenCL plugin's runtime)
    installed handlers that swallowed the first fatal signal of the process; after import the
    dispositions are the ones the process had (here the defaults), and a crash still kills it."""
    import subprocess
    import sys

    # (compared with the process's own dispositions before the import: under the sanitizer stage
    # ASan's handlers are there from the start, and its handler ends a crash with SIGABRT)
    code = ("import signal\n"
            "names = ('SIGSEGV', 'SIGBUS', 'SIGILL', 'SIGFPE', 'SIGABRT')\n"
            "before = [signal.getsignal(getattr(signal, n)) for n in names]\n"
            "import monoflow\n"
            "print(sorted(monoflow._C.device_types()),"
            " [n for n, b in zip(names, before) if signal.getsignal(getattr(signal, n)) != b])\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip().endswith("[]"), r.stdout
    crash = subprocess.run([sys.executable, "-c", "import os, signal, monoflow\nos.kill(os.getpid(), signal.SIGSEGV)\n"
                            "print('alive')"], capture_output=True, text=True, timeout=120)
    assert crash.returncode in (-11, -6) and "alive" not in crash.stdout, (crash.returncode, crash.stdout)
