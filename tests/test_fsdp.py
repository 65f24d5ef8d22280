"""FullyShardedDataParallel (ZeRO-2/3 in eager) and ZeroRedundancyOptimizer (ZeRO-1): training on N ranks
matches one process on the whole batch, each rank holds its share of parameters/gradients/optimizer state,
checkpoints hold the full model."""
import subprocess
import sys

import numpy as np
import pytest

import monoflow as flow
import monoflow.distributed as dist
from monoflow.distributed.fsdp import FullyShardedDataParallel as FSDP
from monoflow.distributed.fsdp import ShardingStrategy

@pytest.fixture(autouse=True)
def _own_world_of_one():
    """FSDP joins a world of one in this process (as DDP does); tests after these start without it."""
    was = dist.is_initialized()
    yield
    if dist.is_initialized() and not was:
        dist.destroy_process_group()


WORKER = r'''
import json, sys
import numpy as np
import monoflow as flow
import monoflow.distributed as dist
from monoflow.distributed.fsdp import FullyShardedDataParallel as FSDP, ShardingStrategy

def make():
    flow.manual_seed(0)
    return flow.nn.Sequential(flow.nn.Linear(6, 16), flow.nn.GELU(), flow.nn.Dropout(0.0), flow.nn.Linear(16, 3))

dist.init_process_group()
r, n = dist.get_rank(), dist.get_world_size()
g = flow.Generator().manual_seed(7)
x, y = flow.randn(4 * n, 6, generator=g), flow.randint(0, 3, (4 * n,), generator=g)
out = {}
for strategy in ("FULL_SHARD", "SHARD_GRAD_OP", "NO_SHARD"):
    model = FSDP(make(), sharding_strategy=getattr(ShardingStrategy, strategy))
    opt = flow.optim.AdamW(model.parameters(), lr=0.05)
    losses = []
    for _ in range(4):
        opt.zero_grad()
        loss = flow.nn.functional.cross_entropy(model(x[4 * r:4 * r + 4]), y[4 * r:4 * r + 4])
        loss.backward()
        opt.step()
        losses.append(loss.item())
    state = model.state_dict()
    held = model.flat_param.numel() + model.flat_param.grad.numel() + sum(
        v.numel() for s in opt.state.values() for v in s.values() if isinstance(v, flow.Tensor) and v.dim() > 0)
    out[strategy] = {"state": {k: v.numpy().tolist() for k, v in state.items()}, "held": held,
                     "loss": losses}
# auto_wrap_policy: each Linear a unit of its own, the rest in the outer unit
from monoflow.distributed.fsdp.wrap import ModuleWrapPolicy
model = FSDP(make(), auto_wrap_policy=ModuleWrapPolicy({flow.nn.Linear}))
opt = flow.optim.AdamW(model.parameters(), lr=0.05)
for _ in range(4):
    opt.zero_grad()
    flow.nn.functional.cross_entropy(model(x[4 * r:4 * r + 4]), y[4 * r:4 * r + 4]).backward()
    opt.step()
out["WRAPPED"] = {"state": {k: v.numpy().tolist() for k, v in model.state_dict().items()},
                  "units": [name for name, _ in model.named_parameters()]}
# peak memory of one forward + backward: per-layer units gather one layer's parameters at a time
from monoflow.memory import max_memory_allocated, memory_allocated, reset_peak_memory_stats
peaks = {}
for wrapped in (False, True):
    flow.manual_seed(3)
    big = flow.nn.Sequential(*[m for _ in range(4) for m in (flow.nn.Linear(256, 256), flow.nn.ReLU())])
    model = FSDP(big, auto_wrap_policy=ModuleWrapPolicy({flow.nn.Linear}) if wrapped else None)
    xb = flow.randn(8, 256)
    base = memory_allocated()
    reset_peak_memory_stats()
    model(xb).sum().backward()
    peaks[str(wrapped)] = max_memory_allocated() - base
out["peaks"] = peaks
# ZeRO-1: DDP's gradients, AdamW's moments on the owning rank only
from monoflow.distributed.optim import ZeroRedundancyOptimizer
model = flow.nn.parallel.DistributedDataParallel(make())
opt = ZeroRedundancyOptimizer(model.parameters(), flow.optim.AdamW, lr=0.05)
for _ in range(4):
    opt.zero_grad()
    flow.nn.functional.cross_entropy(model(x[4 * r:4 * r + 4]), y[4 * r:4 * r + 4]).backward()
    opt.step()
out["ZERO1"] = {"state": {k: v.numpy().tolist() for k, v in model.module.state_dict().items()},
                "moments": sum(v.numel() for s in opt.state.values() for v in s.values()
                               if isinstance(v, flow.Tensor) and v.dim() > 0)}
# the reference: one process, the whole batch
ref = make()
opt = flow.optim.AdamW(ref.parameters(), lr=0.05)
for _ in range(4):
    opt.zero_grad()
    flow.nn.functional.cross_entropy(ref(x), y).backward()
    opt.step()
out["ref"] = {k: v.numpy().tolist() for k, v in ref.state_dict().items()}
out["numel"] = sum(p.numel() for p in ref.parameters())
with open(sys.argv[1] % r, "w") as f:
    json.dump(out, f)
dist.destroy_process_group()
'''


@pytest.mark.skipif(not dist.is_gloo_available(), reason="monoflow was built without Gloo")
@pytest.mark.parametrize("n", [2, 4])
def test_sharded_training_matches_one_process(tmp_path, n):
    import json

    script = tmp_path / "worker.py"
    script.write_text(WORKER)
    run = subprocess.run([sys.executable, "-m", "monoflow.distributed.launch", "--nproc-per-node", str(n), str(script),
                          str(tmp_path / "rank%d.json")], capture_output=True, text=True, timeout=240)
    assert run.returncode == 0, run.stderr[-3000:]
    ranks = [json.loads((tmp_path / f"rank{r}.json").read_text()) for r in range(n)]
    numel = ranks[0]["numel"]
    for strategy in ("FULL_SHARD", "SHARD_GRAD_OP", "NO_SHARD"):
        for r in range(n):
            got = ranks[r][strategy]["state"]
            assert got.keys() == ranks[r]["ref"].keys()
            for k in got:  # the full model on every rank, as one process trained it
                np.testing.assert_allclose(got[k], ranks[r]["ref"][k], rtol=2e-4, atol=2e-5, err_msg=(strategy, k))
        # parameters + gradients + AdamW's two moments held by each rank
        held = [ranks[r][strategy]["held"] for r in range(n)]
        expected = 4 * numel if strategy == "NO_SHARD" else 4 * -(-numel // n)
        assert held == [expected] * n, (strategy, held)
    for r in range(n):  # auto-wrapped: each Linear its own unit, the same model trained
        assert ranks[r]["WRAPPED"]["units"] == ["module.0.flat_param", "module.3.flat_param"]
        for k, v in ranks[r]["WRAPPED"]["state"].items():
            np.testing.assert_allclose(v, ranks[r]["ref"][k], rtol=2e-4, atol=2e-5, err_msg=("WRAPPED", k))
        peaks = ranks[r]["peaks"]  # 4 layers of 256 KiB: one gathered at a time instead of all four
        assert 2 * peaks["True"] < peaks["False"], peaks
    for r in range(n):  # ZeRO-1: the same model, the moments split over the ranks
        for k, v in ranks[r]["ZERO1"]["state"].items():
            np.testing.assert_allclose(v, ranks[r]["ref"][k], rtol=2e-4, atol=2e-5, err_msg=("ZERO1", k))
    moments = [ranks[r]["ZERO1"]["moments"] for r in range(n)]
    assert sum(moments) == 2 * numel and max(moments) < 2 * numel


def test_one_process_is_plain_training_and_checkpoints_round_trip():
    def make():
        flow.manual_seed(1)
        return flow.nn.Sequential(flow.nn.Linear(5, 7), flow.nn.Tanh(), flow.nn.Linear(7, 2))

    x = flow.randn(6, 5)
    for strategy in ShardingStrategy:
        model, ref = FSDP(make(), sharding_strategy=strategy), make()
        assert [n for n, _ in model.named_parameters()] == ["flat_param"]
        model(x).pow(2).sum().backward()
        ref(x).pow(2).sum().backward()
        want = np.concatenate([p.grad.numpy().ravel() for p in ref.parameters()])
        np.testing.assert_allclose(model.flat_param.grad.numpy()[:want.size], want, rtol=1e-6, atol=1e-7)
        plain = make()
        plain.load_state_dict(model.state_dict())  # a plain model loads the gathered checkpoint
        np.testing.assert_array_equal(plain(x).detach().numpy(), ref(x).detach().numpy())
        other = FSDP(flow.nn.Sequential(flow.nn.Linear(5, 7), flow.nn.Tanh(), flow.nn.Linear(7, 2)))
        other.load_state_dict(ref.state_dict())
        np.testing.assert_array_equal(other(x).detach().numpy(), ref(x).detach().numpy())


def test_tied_weights_are_stored_once_and_errors():
    class Tied(flow.nn.Module):
        def __init__(self):
            super().__init__()
            self.a = flow.nn.Linear(3, 3, bias=False)
            self.b = flow.nn.Linear(3, 3, bias=False)
            self.b.weight = self.a.weight

        def forward(self, x):
            return self.b(self.a(x))

    flow.manual_seed(0)
    m = Tied()
    w = m.a.weight.detach().clone()
    f = FSDP(m)
    assert f.flat_param.numel() == 9
    x = flow.randn(2, 3)
    np.testing.assert_allclose(f(x).detach().numpy(), (x @ w.T @ w.T).numpy(), rtol=1e-6)
    with pytest.raises(TypeError, match="FullyShardedDataParallel"):
        FSDP("not a module")
    with pytest.raises(TypeError, match="sharding_strategy"):
        FSDP(flow.nn.Linear(2, 2), sharding_strategy="FULL")
    with pytest.raises(RuntimeError, match="no parameters"):
        FSDP(flow.nn.ReLU())


def test_auto_wrap_policies_make_units_and_keep_the_module_names():
    import functools

    from monoflow.distributed.fsdp.wrap import ModuleWrapPolicy, size_based_auto_wrap_policy

    def make():
        flow.manual_seed(2)
        return flow.nn.Sequential(flow.nn.Linear(5, 7), flow.nn.BatchNorm1d(7), flow.nn.Tanh(),
                                  flow.nn.Sequential(flow.nn.Linear(7, 7), flow.nn.ReLU()), flow.nn.Linear(7, 2))

    x, ref = flow.randn(6, 5), make()
    by_class = FSDP(make(), auto_wrap_policy=ModuleWrapPolicy({flow.nn.Linear}))
    assert [n for n, _ in by_class.named_parameters()] == [
        "flat_param", "module.0.flat_param", "module.3.0.flat_param", "module.4.flat_param"]  # BatchNorm's: outer
    by_size = FSDP(make(), auto_wrap_policy=functools.partial(size_based_auto_wrap_policy, min_num_params=40))
    assert [n for n, _ in by_size.named_parameters()] == ["flat_param", "module.0.flat_param",
                                                         "module.3.0.flat_param"]
    for model in (by_class, by_size):
        assert sorted(model.state_dict()) == sorted(ref.state_dict())  # the plain module's names
        model(x).pow(2).sum().backward()
        ref.zero_grad()
        ref(x).pow(2).sum().backward()
        plain = make()
        plain.load_state_dict(model.state_dict())
        np.testing.assert_array_equal(plain(x).detach().numpy(), ref(x).detach().numpy())
        other = FSDP(make(), auto_wrap_policy=ModuleWrapPolicy({flow.nn.Linear}))
        other.load_state_dict(ref.state_dict())
        np.testing.assert_allclose(other(x).detach().numpy(), ref(x).detach().numpy(), rtol=1e-6)
        # each unit holds its layer's gradient: the outer one BatchNorm's, the inner ones their Linear's
        lin = model.module[0].flat_param.grad.numpy()
        want = np.concatenate([ref[0].weight.grad.numpy().ravel(), ref[0].bias.grad.numpy().ravel()])
        np.testing.assert_allclose(lin[:want.size], want, rtol=1e-5, atol=1e-6)
    with pytest.raises(RuntimeError, match="missing keys"):
        by_class.load_state_dict({k: v for k, v in ref.state_dict().items() if k != "3.0.weight"})
