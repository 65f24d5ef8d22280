"""The builds of the CPU plugin (Note [Three builds of the CPU plugin] in
devices/cpu/CMakeLists.txt): the widest one the CPU runs is picked,
MONOFLOW_CPU_ISA names one, and all give the same values (bit for bit except
where fast_math.h's polynomials use FMA, which the baseline lacks: there within
2 float ulps of each other and 3 of float64; GELU's 1 + erf cancels for
negative x, so it is held to 2 ulps of erf scaled by |x|; few-row products
are BLAS's in the baseline). The AVX2 and AVX-512 builds both use FMA: the
same bits everywhere."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from monoflow import _plugins

_PROGRAM = r"""
import json, numpy as np, monoflow as flow
from monoflow import _plugins
x = np.linspace(-12, 12, 4001, dtype=np.float32)
t = flow.tensor(x)
out = {"plugin": _plugins.cpu_plugin_path()}
for name in ("exp", "tanh", "sigmoid", "erf", "sqrt", "neg", "relu"):
    out[name] = getattr(flow, name)(t).numpy().tolist()
out["gelu"] = flow.nn.functional.gelu(t).numpy().tolist()
tg = t.clone().requires_grad_()
flow.nn.functional.gelu(tg).sum().backward()
out["gelu_grad"] = tg.grad.numpy().tolist()
out["sum"] = float(t.sum())
# contiguous runs of every length near the 32-lane and 2048-element blocks (per-channel sums: the
# AVX-512 build folds its lanes in registers, in the generic loop's order)
y = flow.tensor(np.random.default_rng(1).standard_normal(2 * 5000).astype(np.float32))
out["sum_runs"] = [float(y[:n].sum()) for n in [*range(1, 70), 95, 96, 97, 2047, 2048, 2049, 4100, 5000]]
out["sum_channels"] = y[:4 * 3 * 64].reshape(4, 3, 8, 8).sum((0, 2, 3)).numpy().tolist()
# few-row products (Note [Few-row products read the matrix once]): 16-lane sums in one order
rng = np.random.default_rng(0)
a, w = rng.standard_normal((7, 83)).astype(np.float32), rng.standard_normal((13, 83)).astype(np.float32)
out["matmul_few_rows"] = (flow.tensor(a) @ flow.tensor(w).t()).numpy().tolist()
print(json.dumps(out))
"""

def _usable(name):
    """Whether the build `name` exists here and this CPU runs it."""
    _, lib, needs = next(b for b in _plugins._CPU_BUILDS if b[0] == name)
    return os.path.exists(os.path.join(_plugins.lib_dir(), lib)) and needs <= _plugins._cpu_flags()


def _run(isa):
    env = dict(os.environ, MONOFLOW_CPU_ISA=isa)
    r = subprocess.run([sys.executable, "-c", _PROGRAM], env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.strip().splitlines()[-1])


def test_baseline_is_picked_on_request():
    assert _run("baseline")["plugin"].endswith("libmonoflow_cpu.so")


def test_bad_isa_value_is_refused(monkeypatch):
    monkeypatch.setenv("MONOFLOW_CPU_ISA", "sse9")
    with pytest.raises(RuntimeError, match="MONOFLOW_CPU_ISA"):
        _plugins.cpu_plugin_path()


def test_auto_picks_the_widest_usable_build():
    widest = next((lib for name, lib, _ in _plugins._CPU_BUILDS if _usable(name)), "libmonoflow_cpu.so")
    assert _run("auto")["plugin"].endswith(widest)


@pytest.mark.skipif(not (_usable("avx2") and _usable("avx512")),
                    reason="no AVX-512 and AVX2 builds, or this CPU lacks the instructions")
def test_avx512_and_avx2_builds_give_the_same_bits():
    wide, narrow = _run("avx512"), _run("avx2")
    assert wide["plugin"].endswith("libmonoflow_cpu_avx512.so")
    for name in wide:
        if name != "plugin":
            assert wide[name] == narrow[name], name


@pytest.mark.skipif(not _usable("avx2"), reason="no AVX2 + FMA build, or this CPU lacks the instructions")
def test_builds_agree():
    auto, base = _run("avx2"), _run("baseline")
    assert auto["plugin"].endswith("libmonoflow_cpu_avx2.so")
    for name in ("sqrt", "neg", "relu", "sum", "sum_runs", "sum_channels"):  # no FMA on their path: the same bits
        assert auto[name] == base[name], name
    x = np.linspace(-12, 12, 4001, dtype=np.float32).astype(np.float64)  # the inputs, exactly
    ref = {"exp": np.exp(x), "tanh": np.tanh(x), "sigmoid": 1 / (1 + np.exp(-x))}
    # the baseline's BLAS sums the few-row products in another order: float rounding apart
    np.testing.assert_allclose(auto["matmul_few_rows"], base["matmul_few_rows"], rtol=1e-5, atol=1e-5)
    for name in ("exp", "tanh", "sigmoid", "erf", "gelu", "gelu_grad"):
        a, b = np.asarray(auto[name], np.float32), np.asarray(base[name], np.float32)
        ulp = np.spacing(np.maximum(np.abs(a), np.abs(b))).astype(np.float64)
        if name.startswith("gelu"):  # 1 + erf(x / sqrt 2) cancels for x < 0: an ulp of erf, scaled by |x|
            ulp = np.float64(np.spacing(np.float32(1))) * np.maximum(1, np.abs(x))
        assert np.all(np.abs(a.astype(np.float64) - b) <= 2 * ulp + 1e-30), name
        if name in ref:
            r = ref[name]
            assert np.all(np.abs(a - r) <= 3 * np.spacing(np.abs(r).astype(np.float32)) + 1e-38), name


@pytest.mark.parametrize("env, want", [({}, "10000"), ({"GOMP_SPINCOUNT": "5"}, "5"),
                                       ({"OMP_WAIT_POLICY": "active"}, None)])
def test_openmp_spin_default_yields_to_the_users_setting(env, want):
    # Note [A short OpenMP spin]: the default applies only where the user set neither variable
    base = {k: v for k, v in os.environ.items() if k not in ("GOMP_SPINCOUNT", "OMP_WAIT_POLICY")}
    code = "import os, monoflow; print(os.environ.get('GOMP_SPINCOUNT'))"
    r = subprocess.run([sys.executable, "-c", code], env=dict(base, **env), capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip().splitlines()[-1] == str(want)
