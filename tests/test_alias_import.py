"""A bare name alias, sys.modules["torch"] = monoflow, then `import torch.nn as nn`: the submodules
are monoflow's own modules (monoflow/_alias_import.py), not second copies run under the alias's
name (which failed at import, and would have made a second nn.Module class). Run in a child
process: the alias would hide the real torch from the other tests."""
import subprocess
import sys

PROGRAM = r'''
import sys
import monoflow
sys.modules["torch"] = monoflow
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim.lr_scheduler
import torch.utils.data
from torch.utils.data import DataLoader, TensorDataset
import torch.distributed as dist
assert nn is monoflow.nn and F is monoflow.nn.functional and dist is monoflow.distributed
assert torch.optim.lr_scheduler is monoflow.optim.lr_scheduler and DataLoader is monoflow.utils.data.DataLoader
assert sys.modules["torch.nn"] is monoflow.nn and monoflow.nn.__spec__.name == "monoflow.nn"
model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
assert isinstance(model, monoflow.nn.Module)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
torch.manual_seed(0)
x_all = torch.randn(16, 3)
data = DataLoader(TensorDataset(x_all, x_all @ torch.tensor([[1.0], [-2.0], [0.5]])), batch_size=8)  # learnable
losses = []
for _ in range(20):
    for x, y in data:
        opt.zero_grad()
        loss = F.mse_loss(model(x), y)
        loss.backward()
        opt.step()
    losses.append(loss.item())
assert losses[-1] < losses[0], losses
# names print as the imported library's (Note [The name the program imported])
assert str(torch.float32) == "torch.float32" and repr(x_all.shape) == "torch.Size([16, 3])"
assert x_all.type() == "torch.FloatTensor" and repr(torch.channels_last) == "torch.channels_last"
assert "dtype=torch.float64" in repr(x_all.double()) and repr(x_all.max(0)).startswith("torch.return_types.max(")
try:
    import torch.no_such_module
except ModuleNotFoundError as e:
    print("missing:", e.name)
print("ok")
'''


def test_bare_alias_imports_monoflow_submodules():
    r = subprocess.run([sys.executable, "-c", PROGRAM], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["missing:", "monoflow.no_such_module", "ok"], r.stdout


def test_without_an_alias_the_finder_declines():
    from monoflow._alias_import import AliasFinder

    finder = AliasFinder()
    assert sys.modules.get("torch") is not sys.modules["monoflow"]  # (this process has no alias)
    assert finder.find_spec("torch.nn") is None
    assert finder.find_spec("monoflow.nn") is None and finder.find_spec("numpy.linalg") is None


def test_names_follow_a_oneflow_alias_and_default_to_monoflow():
    program = ("import sys, monoflow; assert str(monoflow.float32) == 'monoflow.float32'; "
               "sys.modules['oneflow'] = monoflow; import oneflow as flow; "
               "print(flow.float16, flow.ones(2).shape, flow.ones(1, dtype=flow.int8).type())")
    r = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["oneflow.float16", "oneflow.Size([2])", "oneflow.CharTensor"], r.stdout
