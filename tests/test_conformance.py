"""The device-plugin conformance kit (python -m monoflow.devices.conformance):
its ctypes mirror of plugin.h, its isolation of crashing checks, a clean
report on every registered device (cpu, testdev, opencl where it is built)
and failures on deliberately broken plugins (tests/plugins/testdev variants)."""
import ctypes
import json
import os
import shutil
import subprocess
import sys

import pytest

import monoflow as flow
from monoflow.devices import conformance
from monoflow.devices.conformance import abi
from monoflow.devices.conformance.isolate import run_suite


def run_kit(target, tmp_path, *args):
    """Runs the kit as a user does; returns (exit code, report dict, stdout)."""
    out = tmp_path / "report.json"
    env = dict(os.environ)
    env.pop("MONOFLOW_DEVICE_PLUGINS", None)
    proc = subprocess.run([sys.executable, "-m", "monoflow.devices.conformance", target, "--json", str(out), *args],
                          capture_output=True, text=True, timeout=900, env=env)
    assert out.exists(), f"no report written\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
    return proc.returncode, json.loads(out.read_text()), proc.stdout


def by_name(report):
    return {r["name"]: r for r in report["results"]}


# ---------------------------------------------------------------- the mirror


def test_ctypes_mirror_matches_plugin_h(tmp_path):
    """offsetof/sizeof of every field of every struct, from the C compiler,
    equal the ctypes mirror's; so do the enums and the ABI version."""
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if cc is None:
        pytest.skip("no C compiler")
    lines = ["#include <stdio.h>", "#include <stddef.h>", "#include <monoflow/plugin.h>", "int main(void) {"]
    for struct in abi.STRUCTS:
        name = struct.__name__
        lines.append(f'  printf("{name} size %zu align %zu\\n", sizeof({name}), _Alignof({name}));')
        for field, _ in struct._fields_:
            lines.append(f'  printf("{name}.{field} %zu %zu\\n", offsetof({name}, {field}), '
                         f'sizeof((({name}*)0)->{field}));')
    constants = {"MF_ABI_MAJOR": abi.MIRROR_VERSION[0], "MF_ABI_MINOR": abi.MIRROR_VERSION[1],
                 "MF_DTYPE_ANY": abi.DTYPE_ANY, "MF_NUM_DTYPES": len(abi.DTYPES),
                 "MF_DEVICE_HOST_MEMORY": abi.DEVICE_HOST_MEMORY, "MF_ATTR_SCALAR": abi.ATTR_SCALAR,
                 "MF_ATTR_INTS": abi.ATTR_INTS, "MF_ATTR_DTYPE": abi.ATTR_DTYPE}
    constants.update({name: code for code, name in abi.STATUS_NAMES.items()})
    constants.update({f"MF_{name.upper()}": code for name, code in abi.DTYPE_CODES.items()})
    for name in constants:
        lines.append(f'  printf("const {name} %lld\\n", (long long)({name}));')
    lines.append('  printf("const MF_PLUGIN_ENTRY_SYMBOL %s\\n", MF_PLUGIN_ENTRY_SYMBOL);')
    lines += ["  return 0;", "}"]
    src = tmp_path / "layout.c"
    src.write_text("\n".join(lines) + "\n")
    exe = tmp_path / "layout"
    subprocess.run([cc, "-std=c11", "-Wall", "-Werror", "-I", flow.devices.get_include(), str(src), "-o", str(exe)],
                   check=True, capture_output=True, text=True)
    printed = subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout.splitlines()
    mismatches = []
    for line in printed:
        words = line.split()
        if words[0] == "const":
            want = abi.ENTRY_SYMBOL if words[1] == "MF_PLUGIN_ENTRY_SYMBOL" else constants[words[1]]
            got = words[2] if words[1] == "MF_PLUGIN_ENTRY_SYMBOL" else int(words[2])
            if got != want:
                mismatches.append(f"{words[1]}: header {got}, mirror {want}")
        elif words[1] == "size":
            struct = getattr(abi, words[0])
            if (int(words[2]), int(words[4])) != (ctypes.sizeof(struct), ctypes.alignment(struct)):
                mismatches.append(f"{words[0]}: header size/align {words[2]}/{words[4]}, mirror "
                                  f"{ctypes.sizeof(struct)}/{ctypes.alignment(struct)}")
        else:
            struct_name, field = words[0].split(".")
            desc = getattr(getattr(abi, struct_name), field)
            if (desc.offset, desc.size) != (int(words[1]), int(words[2])):
                mismatches.append(f"{words[0]}: header offset/size {words[1]}/{words[2]}, mirror "
                                  f"{desc.offset}/{desc.size}")
    assert not mismatches, "the ctypes mirror (conformance/abi.py) drifted from plugin.h:\n" + "\n".join(mismatches)
    # every field of the header's structs is in the mirror: a field appended to
    # plugin.h without the mirror moves sizeof past the mirror's last field
    assert abi.header_version(flow.devices.get_include()) == abi.MIRROR_VERSION


def test_a_crashing_check_fails_alone():
    results = run_suite("selftest", "unused", timeout=60)
    assert [(r.name, r.status) for r in results] == [
        ("passes", "passed"), ("crashes", "failed"), ("runs after the crash", "passed")]
    assert results[1].detail.startswith(("the process was killed by", "the process exited with"))  # SIGSEGV, or ASan's abort


# ---------------------------------------------------------------- clean devices


def test_kit_passes_on_cpu(tmp_path):
    code, report, stdout = run_kit("cpu", tmp_path)
    assert report["failed"] == 0, stdout
    assert code == 0
    assert stdout.rstrip().splitlines()[-1] == f"{report['passed']} passed, 0 failed"
    names = by_name(report)
    # the contract ran in full, and the op suite over most of the CPU's kernels
    for name in ("streams: h2d -> kernel -> d2d -> d2h in order", "events: record on one stream, wait on another",
                 "errors: an asynchronous kernel error is reported at synchronize, then cleared",
                 "allocator: allocate until out of memory (or a 256 MiB cap), free, allocate again",
                 "threads: 4 threads allocate, copy and launch on their own streams",
                 "add(float32)", "matmul(float64)", "conv2d(float32)", "softmax(float16)", "index(int64)"):
        assert names[name]["status"] == "passed", names[name]
    ops = [r for r in report["results"] if r["suite"] == "ops"]
    assert sum(r["status"] == "passed" for r in ops) > 0.9 * len(ops)


def test_kit_passes_on_testdev_in_process(plugins):
    """The kit as a library, on the device type conftest registered."""
    report = conformance.run("testdev")
    assert report.path == plugins["testdev"] and report.device_type == "testdev"
    assert report.failed == 0, "\n".join(f"{r.name}: {r.detail}" for r in report.failures())
    ops = {r.name: r.status for r in report.results if r.suite == "ops"}
    assert ops == {f"{op}({dt})": "passed" for op in ("fill", "copy", "add", "mul") for dt in ("float32", "float64")}
    contract = {r.name: r.status for r in report.results if r.suite == "contract"}
    assert contract["errors: foreign pointers are refused with a message"] == "passed"


@pytest.mark.parametrize("device_type", ["opencl", "cuda"])
def test_kit_passes_on_accelerators(device_type, tmp_path):
    if device_type not in flow.devices.available():
        pytest.skip(f"{device_type} is not built or has no runtime here")
    code, report, stdout = run_kit(device_type, tmp_path)
    assert report["failed"] == 0 and code == 0, stdout


# ---------------------------------------------------------------- broken plugins


def test_plugin_of_another_abi_major_is_reported(plugins, tmp_path):
    code, report, stdout = run_kit(plugins["badabi"], tmp_path)
    assert code != 0
    names = by_name(report)
    version = names["table: abi version and struct_size"]
    assert version["status"] == "failed" and "major versions differ" in version["detail"]
    assert names["the core loads the plugin"]["status"] == "failed"
    assert "ABI" in names["the core loads the plugin"]["detail"]
    # nothing else is exercised on a table of unknown meaning
    assert names["streams: h2d -> kernel -> d2d -> d2h in order"]["status"] == "not covered"
    assert stdout.rstrip().endswith(f"{report['passed']} passed, {report['failed']} failed")


def test_plugin_without_last_error_messages_is_reported(plugins, tmp_path):
    code, report, _ = run_kit(plugins["nolasterror"], tmp_path, "--suite", "contract")
    assert code != 0
    failed = {r["name"]: r["detail"] for r in report["results"] if r["status"] == "failed"}
    assert "errors: bad device index is refused with a message" in failed
    assert "errors: foreign pointers are refused with a message" in failed
    assert all("last_error() is empty" in d for d in failed.values()), failed


def test_kernel_ignoring_strides_is_reported(plugins, tmp_path):
    code, report, _ = run_kit(plugins["badstrides"], tmp_path, "--suite", "ops")
    assert code != 0
    status = {r["name"]: r["status"] for r in report["results"]}
    assert status["add(float32)"] == status["add(float64)"] == "failed"
    assert status["mul(float32)"] == status["copy(float64)"] == "passed"


@pytest.mark.parametrize("name", ["nullentry", "noentry", "corrupt", "missing", "failreg"])
def test_unusable_plugins_are_reported(plugins, tmp_path, name):
    code, report, _ = run_kit(plugins[name], tmp_path, "--suite", "contract")
    assert code != 0 and report["failed"] >= 1


def test_unknown_target_is_a_usage_error(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "monoflow.devices.conformance", "nosuchdevice"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "nosuchdevice" in proc.stderr


# ---------------------------------------------------------------- the guide's example


def _guide_files():
    """{file name: text} of the code blocks of docs/writing_a_plugin.md that
    start with their file name (a comment on the first line)."""
    path = os.path.join(os.path.dirname(__file__), "..", "docs", "writing_a_plugin.md")
    text = open(path).read()
    files = {}
    for block in text.split("```")[1::2]:
        lang, _, body = block.partition("\n")
        first = body.splitlines()[0] if body else ""
        for name in ("CMakeLists.txt", "mydev.c"):
            if name in first and first.lstrip().startswith(("#", "/*")):
                files[name] = body
    return files


def test_the_guides_minimal_plugin_passes_the_kit(tmp_path):
    if shutil.which("cmake") is None or shutil.which("ninja") is None:
        pytest.skip("cmake and ninja are needed to build the example")
    files = _guide_files()
    assert set(files) == {"CMakeLists.txt", "mydev.c"}
    src = tmp_path / "mydev"
    src.mkdir()
    for name, body in files.items():
        (src / name).write_text(body)
    build = tmp_path / "build"
    for cmd in (["cmake", "-S", str(src), "-B", str(build), "-G", "Ninja",
                 f"-DMONOFLOW_INCLUDE_DIR={flow.devices.get_include()}", "-DCMAKE_C_FLAGS=-Wall -Werror"],
                ["cmake", "--build", str(build)]):
        proc = subprocess.run(cmd, capture_output=True, text=True)
        assert proc.returncode == 0, proc.stdout + proc.stderr
    code, report, stdout = run_kit(str(build / "libmonoflow_mydev.so"), tmp_path)
    assert code == 0 and report["failed"] == 0, stdout
    assert by_name(report)["add(float32)"]["status"] == "passed"
