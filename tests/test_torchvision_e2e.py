"""End to end: the real torchvision package (when installed) imported with ``import torch`` pointed at monoflow,
by mock_torch and by a bare sys.modules alias, running an MNIST-style data pipeline and a torchvision model.
torchvision is not a test dependency: without it these tests skip."""
import importlib.util
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.skipif(importlib.util.find_spec("torchvision") is None, reason="torchvision is not installed")

SCRIPT = textwrap.dedent('''
    import os, struct, sys
    import numpy as np
    if sys.argv[1] == "mock":
        import monoflow.mock_torch as m
        m.enable()
    else:
        import monoflow
        sys.modules["torch"] = monoflow
    import torch, torchvision
    from torchvision import datasets, models, transforms, utils
    assert torch.Tensor.__module__ == "monoflow"
    root = sys.argv[2]
    raw = os.path.join(root, "MNIST", "raw")
    os.makedirs(raw, exist_ok=True)
    rng = np.random.default_rng(0)
    imgs = rng.integers(0, 256, (8, 28, 28), dtype=np.uint8)
    labels = rng.integers(0, 10, 8).astype(np.uint8)
    for split in ("train", "t10k"):
        with open(os.path.join(raw, split + "-images-idx3-ubyte"), "wb") as f:
            f.write(struct.pack(">IIII", 2051, 8, 28, 28) + imgs.tobytes())
        with open(os.path.join(raw, split + "-labels-idx1-ubyte"), "wb") as f:
            f.write(struct.pack(">II", 2049, 8) + labels.tobytes())
    tf = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.1307,), (0.3081,))])
    ds = datasets.MNIST(root, train=True, transform=tf)
    x, y = ds[3]
    np.testing.assert_allclose(x.numpy()[0], (imgs[3] / 255.0 - 0.1307) / 0.3081, rtol=1e-5, atol=1e-5)
    assert y == int(labels[3])
    batch, target = next(iter(torch.utils.data.DataLoader(ds, batch_size=4, shuffle=False)))
    assert tuple(batch.shape) == (4, 1, 28, 28) and target.tolist() == labels[:4].tolist()
    net = models.resnet18(num_classes=10)
    net.conv1 = torch.nn.Conv2d(1, 64, 7, 2, 3, bias=False)
    loss = torch.nn.functional.cross_entropy(net(batch), target)
    loss.backward()
    assert np.isfinite(loss.item()) and net.fc.weight.grad is not None
    grid = utils.make_grid(batch, nrow=2, normalize=True)
    assert tuple(grid.shape) == (3, 62, 62)
    keep = torch.ops.torchvision.nms(torch.tensor([[0., 0, 2, 2], [0.1, 0, 2.1, 2], [5., 5, 6, 6]]),
                                     torch.tensor([0.9, 0.8, 0.7]), 0.5)
    assert keep.tolist() == [0, 2]
    print("ok")
''')


@pytest.mark.parametrize("how", ["mock", "alias"])
def test_torchvision_runs_on_monoflow(tmp_path, how):
    script = tmp_path / "run_tv.py"
    script.write_text(SCRIPT)
    res = subprocess.run([sys.executable, str(script), how, str(tmp_path / "data")], capture_output=True, text=True,
                         timeout=600, cwd=str(tmp_path))
    assert res.returncode == 0 and res.stdout.strip().endswith("ok"), res.stdout[-2000:] + res.stderr[-4000:]
