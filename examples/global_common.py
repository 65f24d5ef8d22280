"""What the examples/global_*.py scripts share: the model, the data, the
training loop, and the check of a global run against the same training in
one process. The parallel part of each example stays in its own script.

Every rank of a global job runs the same program (SPMD), so the single-
process reference is simply computed on every rank too (the model is tiny).
"""
import argparse
import json

import numpy as np

import monoflow as flow
import monoflow.nn as nn
import monoflow.nn.functional as F

IN, HIDDEN, OUT, BATCH = 12, 24, 5, 8


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(IN, HIDDEN)
        self.fc2 = nn.Linear(HIDDEN, OUT)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


def batch(step):
    """The whole batch of a step, the same on every rank (numpy, seeded)."""
    rng = np.random.default_rng(100 + step)
    return rng.standard_normal((BATCH, IN)).astype(np.float32), rng.integers(0, OUT, BATCH).astype(np.int64)


def make_optimizer(kind, params):
    if kind == "adamw":
        return flow.optim.AdamW(params, lr=0.02, weight_decay=0.01)
    if kind == "sgd":
        return flow.optim.SGD(params, lr=0.1, momentum=0.9, weight_decay=1e-3)
    raise ValueError(kind)


def _np(t):
    return t.detach().numpy().copy()


def train(model, opt, steps, inputs, clip, start=0):
    """`steps` steps of cross-entropy training; inputs(x, y) turns a batch
    into the tensors to feed (global or local). Records the losses, the
    gradient norms, the first step's gradients and the final parameters."""
    rec = {"loss": [], "norm": []}
    for s in range(start, start + steps):
        x, y = inputs(*batch(s))
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        if s == start:
            rec["grad"] = {k: _np(p.grad) for k, p in model.named_parameters()}
        rec["norm"].append(float(nn.utils.clip_grad_norm_(model.parameters(), clip)))
        opt.step()
        rec["loss"].append(loss.item())
    rec["param"] = {k: _np(p) for k, p in model.named_parameters()}
    return rec


def reference(kind, steps, clip, resume=None, start=0):
    """The same training in this process alone, on local tensors."""
    flow.manual_seed(0)
    model = MLP()
    opt = make_optimizer(kind, model.parameters())
    if resume is not None:
        state = flow.load(resume)
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["optim"])
    return train(model, opt, steps, lambda x, y: (flow.tensor(x), flow.tensor(y)), clip, start)


def compare(got, want, rtol=1e-4, atol=1e-5):
    """Asserts that two records agree (float tolerance: sums over ranks add
    in another order than one process does)."""
    np.testing.assert_allclose(got["loss"], want["loss"], rtol=rtol, atol=atol, err_msg="losses")
    np.testing.assert_allclose(got["norm"], want["norm"], rtol=rtol, atol=atol, err_msg="gradient norms")
    for part in ("grad", "param"):
        assert got[part].keys() == want[part].keys()
        for k in want[part]:
            np.testing.assert_allclose(got[part][k], want[part][k], rtol=rtol, atol=atol, err_msg=f"{part} {k}")


def parse_args(doc):
    p = argparse.ArgumentParser(description=doc.splitlines()[0])
    p.add_argument("--steps", type=int, default=4)
    p.add_argument("--out", help="rank 0 writes the global run's record here (JSON), for the tests")
    p.add_argument("--save", help="checkpoint of the model and optimizer after training (flow.save)")
    p.add_argument("--resume", help="start from this checkpoint (written by any number of ranks and layout)")
    p.add_argument("--start", type=int, default=0, help="index of the first batch (to continue a resumed run)")
    return p.parse_args()


def finish(name, rec, want, args):
    """Prints the losses, checks them against the single-process run, and
    writes the record for the tests."""
    rank = flow.env.get_rank()
    compare(rec, want)
    if rank == 0:
        print(f"{name}: losses " + " ".join(f"{v:.4f}" for v in rec["loss"]))
        print(f"{name}: losses, gradients and parameters match the single-process run")
        if args.out:
            with open(args.out, "w") as f:
                json.dump({k: ({n: a.tolist() for n, a in v.items()} if isinstance(v, dict) else v)
                           for k, v in rec.items()}, f)
