"""A DDP training program written the way the public DDP tutorials write one
(issue 13), run by tests/test_ddp_torchrun_style.py.

Launched the way torchrun launches a script: only the environment says who
this process is (MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE, LOCAL_RANK).
--init chooses how the script joins: init_process_group("gloo"),
init_process_group() with no backend, or not at all (OneFlow: DDP sets the
environment up by itself). --reference N runs one process that takes, at each
step, the union of the batches N ranks would take: the run DDP must match.
--framework torch runs the same program on PyTorch (the oracle). Each process
writes its final parameters and losses to OUT/<tag>_rank<R>.json.
"""
import argparse
import json
import os

import numpy as np

N_SAMPLES, N_FEATURES, BATCH, EPOCHS, LR = 64, 6, 8, 4, 0.05


def parse():
    p = argparse.ArgumentParser()
    p.add_argument("--framework", choices=["monoflow", "torch"], default="monoflow")
    p.add_argument("--init", choices=["gloo", "default", "none"], default="gloo")
    p.add_argument("--reference", type=int, default=0, metavar="N")
    p.add_argument("--out", required=True)
    p.add_argument("--tag", required=True)
    return p.parse_args()


def data():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((N_SAMPLES, N_FEATURES)).astype(np.float32)
    y = (x @ rng.standard_normal((N_FEATURES, 1)) + 0.1 * rng.standard_normal((N_SAMPLES, 1))).astype(np.float32)
    return x, y


def build_model(torch):
    class ToyModel(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.net1 = torch.nn.Linear(N_FEATURES, 10)
            self.relu = torch.nn.ReLU()
            self.net2 = torch.nn.Linear(10, 1)

        def forward(self, x):
            return self.net2(self.relu(self.net1(x)))

    model = ToyModel()
    # The same starting point in every framework and process.
    rng = np.random.default_rng(1)
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.tensor(rng.uniform(-0.4, 0.4, tuple(p.shape)).astype(np.float32)))
    return model


def step(torch, model, optimizer, x, y):
    optimizer.zero_grad()
    loss = torch.nn.MSELoss()(model(x), y)
    loss.backward()
    optimizer.step()
    return float(loss.item())


def rank_batches(world, rank):
    """The batches of DistributedSampler(shuffle=False) + DataLoader on `rank`."""
    idx = list(range(rank, N_SAMPLES, world))
    return [idx[i:i + BATCH] for i in range(0, len(idx), BATCH)]


def train_reference(torch, world):
    x, y = data()
    model = build_model(torch)
    optimizer = torch.optim.SGD(model.parameters(), lr=LR)
    losses = []
    per_rank = [rank_batches(world, r) for r in range(world)]
    for _ in range(EPOCHS):
        for k in range(len(per_rank[0])):
            idx = sum((per_rank[r][k] for r in range(world)), [])
            losses.append(step(torch, model, optimizer, torch.tensor(x[idx]), torch.tensor(y[idx])))
    return model, losses, 0


def train_ddp(torch, init):
    dist = torch.distributed
    DDP = torch.nn.parallel.DistributedDataParallel
    from_utils = torch.utils.data
    if init == "gloo":
        dist.init_process_group("gloo")
    elif init == "default":
        dist.init_process_group()
    local_rank = int(os.environ["LOCAL_RANK"])
    device = torch.device("cuda", local_rank) if torch.cuda.is_available() else torch.device("cpu")
    model = build_model(torch).to(device)
    ddp_model = DDP(model, device_ids=[local_rank] if device.type == "cuda" else None)
    rank, world = dist.get_rank(), dist.get_world_size()
    x, y = data()
    dataset = from_utils.TensorDataset(torch.tensor(x), torch.tensor(y))
    sampler = from_utils.distributed.DistributedSampler(dataset, num_replicas=world, rank=rank, shuffle=False)
    loader = from_utils.DataLoader(dataset, batch_size=BATCH, sampler=sampler)
    optimizer = torch.optim.SGD(ddp_model.parameters(), lr=LR)
    losses = []
    for epoch in range(EPOCHS):
        sampler.set_epoch(epoch)
        for xb, yb in loader:
            losses.append(step(torch, ddp_model, optimizer, xb.to(device), yb.to(device)))
    dist.barrier()
    dist.destroy_process_group()
    return model, losses, rank


def main():
    args = parse()
    if args.framework == "torch":
        import torch
    else:
        import monoflow as torch
    torch.manual_seed(0)
    if args.reference:
        model, losses, rank = train_reference(torch, args.reference)
    else:
        model, losses, rank = train_ddp(torch, args.init)
    params = {n: p.detach().cpu().numpy().tolist() for n, p in model.named_parameters()}
    with open(os.path.join(args.out, f"{args.tag}_rank{rank}.json"), "w") as f:
        json.dump({"params": params, "losses": losses}, f)


if __name__ == "__main__":
    main()
