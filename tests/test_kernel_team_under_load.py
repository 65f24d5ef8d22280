"""The default kernel team follows the other processes' load (Note [Kernel
threads] in devices/cpu/threads.h): it is re-sized between kernels while
processes that hog the cores come and go. Results must not depend on the team
size the worker happened to pick, and no kernel may stall when it changes."""
import subprocess
import sys
import time

import numpy as np
import pytest

import monoflow as flow


@pytest.fixture
def hogs():
    procs = []

    def start(n):
        procs.extend(subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(n))

    yield start
    for p in procs:
        p.kill()
        p.wait()


def _check_parallel_kernels(rng):
    # sizes above the parallel grain, so every op opens an OpenMP region
    a = rng.standard_normal((384, 256)).astype(np.float32)
    b = rng.standard_normal((256, 320)).astype(np.float32)
    x = rng.standard_normal(1 << 18).astype(np.float32)
    fa, fb, fx = flow.tensor(a), flow.tensor(b), flow.tensor(x)
    np.testing.assert_allclose((fa @ fb).numpy(), a @ b, rtol=1e-4, atol=1e-3)
    np.testing.assert_allclose(fx.sum().numpy(), x.astype(np.float64).sum(), rtol=1e-4, atol=1e-2)
    np.testing.assert_allclose(flow.softmax(fa, dim=1).numpy(),
                               np.exp(a - a.max(1, keepdims=True)) / np.exp(a - a.max(1, keepdims=True)).sum(1, keepdims=True),
                               rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(flow.sigmoid(fx).numpy(), 1 / (1 + np.exp(-x)), rtol=1e-5, atol=1e-6)


def test_results_while_load_comes_and_goes(hogs):
    rng = np.random.default_rng(0)
    _check_parallel_kernels(rng)          # quiet: the whole machine
    hogs(3)
    deadline = time.monotonic() + 1.5     # several 200 ms samples: the team shrinks meanwhile
    while time.monotonic() < deadline:
        _check_parallel_kernels(rng)
    _check_parallel_kernels(rng)


def test_fixed_team_then_default_again():
    rng = np.random.default_rng(1)
    before = flow.get_num_threads()
    flow.set_num_threads(1)
    try:
        assert flow.get_num_threads() == 1
        _check_parallel_kernels(rng)
    finally:
        flow.set_num_threads(before)
    assert flow.get_num_threads() == before
    _check_parallel_kernels(rng)


def _order_sensitive_results():
    # a full sum and a long column reduction (partials merged in order), a
    # convolution's weight gradient over many images (per-slot partials), and
    # matrix products
    g = flow.Generator().manual_seed(7)
    x = flow.randn(1 << 20, generator=g)
    m = flow.randn(4096, 8, generator=g)
    img = flow.randn(32, 3, 16, 16, generator=g)
    w = flow.randn(4, 3, 3, 3, generator=g, requires_grad=True)
    flow.nn.functional.conv2d(img, w).square().sum().backward()
    # a product split into gemm calls by rows (OpenBLAS's edge tiles round differently) and its fused
    # bias form, as a Linear layer's forward runs
    a, b, bias = flow.randn(128, 1024, generator=g), flow.randn(128, 1024, generator=g), flow.randn(128, generator=g)
    return [x.sum().numpy(), m.sum(0).numpy(), w.grad.numpy(), (a @ b.t()).numpy(),
            flow.addmm(bias, a, b.t()).numpy(), flow.nn.functional.linear(a, b, bias).numpy()]


def test_results_are_the_same_bits_under_load(hogs):
    """Note [Results independent of the team] (devices/cpu/strided.h): the work
    is cut by the nominal team, so a shrunken team gives the same bits."""
    quiet = _order_sensitive_results()
    hogs(3)
    deadline = time.monotonic() + 1.5
    while time.monotonic() < deadline:
        for a, b in zip(quiet, _order_sensitive_results()):
            assert np.array_equal(a, b)
