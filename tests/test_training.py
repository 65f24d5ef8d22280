"""Training end to end: modules + autograd + optimizers + data against torch,
a long loop whose memory does not grow, and the main job."""
import json
import os
import sys

import numpy as np
import pytest

import monoflow as flow

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = os.path.join(os.path.dirname(HERE), "examples")


def copy_params(src_torch, dst_flow):
    """torch module parameters/buffers -> the monoflow module with the same names."""
    state = {k: flow.tensor(v.detach().numpy()) for k, v in src_torch.state_dict().items()}
    dst_flow.load_state_dict(state)


@pytest.mark.parametrize("opt_name", ["SGD", "Adam"])
def test_cnn_training_matches_torch(opt_name):
    torch = pytest.importorskip("torch")

    def build(lib):
        nn = lib.nn
        return nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2),
                             nn.Flatten(), nn.Linear(4 * 4 * 4, 10))

    torch.manual_seed(0)
    tm = build(torch).double()
    fm = build(flow).double()
    copy_params(tm, fm)
    kw = {"lr": 0.05, "momentum": 0.9} if opt_name == "SGD" else {"lr": 1e-2}
    topt = getattr(torch.optim, opt_name)(tm.parameters(), **kw)
    fopt = getattr(flow.optim, opt_name)(fm.parameters(), **kw)
    rng = np.random.default_rng(0)
    for _ in range(4):
        x = rng.standard_normal((8, 1, 8, 8))
        y = rng.integers(0, 10, 8)
        tl = torch.nn.functional.cross_entropy(tm(torch.tensor(x)), torch.tensor(y))
        fl = flow.nn.functional.cross_entropy(fm(flow.tensor(x)), flow.tensor(y))
        np.testing.assert_allclose(fl.item(), tl.item(), rtol=1e-10)
        topt.zero_grad()
        fopt.zero_grad()
        tl.backward()
        fl.backward()
        topt.step()
        fopt.step()
    for (name, tp), fp in zip(tm.state_dict().items(), fm.state_dict().values()):
        np.testing.assert_allclose(fp.numpy(), tp.numpy(), rtol=1e-8, atol=1e-10, err_msg=name)


def test_long_loop_memory_is_flat():
    # 1,000 steps of a small MLP: after warm-up the caching allocator neither
    # allocates more live bytes nor asks the device for more memory.
    flow.manual_seed(0)
    nn = flow.nn
    model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))
    opt = flow.optim.Adam(model.parameters(), lr=1e-3)
    x, y = flow.randn(8, 16), flow.randint(0, 4, (8,))

    def step():
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss

    for _ in range(10):
        step()
    flow.synchronize()
    before = flow.memory.memory_stats()
    for _ in range(1000):
        loss = step()
    del loss
    flow.synchronize()
    after = flow.memory.memory_stats()
    assert after["allocated_bytes"] <= before["allocated_bytes"]
    assert after["reserved_bytes"] == before["reserved_bytes"]
    assert after["num_raw_allocs"] == before["num_raw_allocs"]


def test_main_job_reaches_accuracy_and_resumes(tmp_path):
    pytest.importorskip("sklearn")
    pytest.importorskip("matplotlib")
    pytest.importorskip("tqdm")
    sys.path.insert(0, EXAMPLES)
    try:
        import train_digits
    finally:
        sys.path.remove(EXAMPLES)
    out = str(tmp_path / "run")
    # the default configuration, stopped after 10 of its 12 epochs, then resumed
    assert train_digits.main(["--out", out, "--no-progress", "--stop-after", "10"]) == 0
    assert train_digits.main(["--out", out, "--no-progress", "--resume"]) == 0
    history = json.load(open(os.path.join(out, "metrics.json")))
    assert [h["epoch"] for h in history] == list(range(1, 13))
    assert history[-1]["test_acc"] >= 0.97
    with open(os.path.join(out, "curves.png"), "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"
    state = flow.load(os.path.join(out, "checkpoint.mf"))
    assert state["epoch"] == 12
