"""The main job: train a small CNN on scikit-learn's handwritten digits.

    python examples/train_digits.py                 # train (about a minute on 2 cores)
    python examples/train_digits.py --resume        # continue from the last checkpoint
    python -m monoflow.distributed.launch --nproc-per-node 2 examples/train_digits.py   # data-parallel

The data set (1,797 8x8 images, 10 classes) ships inside scikit-learn, so
nothing is downloaded. Each epoch prints a progress bar and a summary (loss,
accuracy, samples/s); the model, optimizer and scheduler are checkpointed
after every epoch (atomically, so an interrupted run resumes from the last
complete epoch), and the loss and accuracy curves are drawn to a PNG.
"""
import argparse
import builtins
import json
import os
import sys
import time

import numpy as np

import monoflow as flow
import monoflow.nn as nn
import monoflow.nn.functional as F
from monoflow.utils.data import DataLoader, DistributedSampler, TensorDataset


def load_digits_split(seed, test_fraction=0.2):
    """Images as float32 [N, 1, 8, 8] in [0, 1], labels int64; a stratified split."""
    from sklearn.datasets import load_digits

    digits = load_digits()
    images = (digits.images / 16.0).astype(np.float32)[:, None]
    labels = digits.target.astype(np.int64)
    rng = np.random.default_rng(seed)
    test = np.zeros(len(labels), bool)
    for c in range(10):  # the same share of every class in the test set
        idx = rng.permutation(np.flatnonzero(labels == c))
        test[idx[: int(round(len(idx) * test_fraction))]] = True
    return (images[~test], labels[~test]), (images[test], labels[test])


class DigitsCNN(nn.Module):
    def __init__(self, num_classes=10, batch_norm=True, dropout=0.2):
        super().__init__()
        norm = nn.BatchNorm2d if batch_norm else (lambda c: nn.Identity())
        self.features = nn.Sequential(
            nn.Conv2d(1, 32, 3, padding=1), norm(32), nn.ReLU(),
            nn.Conv2d(32, 64, 3, padding=1), norm(64), nn.ReLU(),
            nn.MaxPool2d(2),                                   # 8x8 -> 4x4
        )
        self.classifier = nn.Sequential(
            nn.Flatten(), nn.Dropout(dropout), nn.Linear(64 * 4 * 4, 128), nn.ReLU(), nn.Linear(128, num_classes),
        )

    def forward(self, x):
        return self.classifier(self.features(x))


def evaluate(model, loader, device):
    model.eval()
    total_loss, correct, count = 0.0, 0, 0
    with flow.no_grad():
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            logits = model(x)
            total_loss += F.cross_entropy(logits, y, reduction="sum").item()
            correct += (logits.argmax(1) == y).sum().item()
            count += y.shape[0]
    return total_loss / count, correct / count


def plot_curves(history, path):
    import matplotlib

    matplotlib.use("Agg")  # files only, no display
    import matplotlib.pyplot as plt

    epochs = [h["epoch"] for h in history]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
    ax1.plot(epochs, [h["train_loss"] for h in history], label="train")
    ax1.plot(epochs, [h["test_loss"] for h in history], label="test")
    ax1.set_xlabel("epoch")
    ax1.set_ylabel("cross-entropy loss")
    ax1.legend()
    ax2.plot(epochs, [h["train_acc"] for h in history], label="train")
    ax2.plot(epochs, [h["test_acc"] for h in history], label="test")
    ax2.set_xlabel("epoch")
    ax2.set_ylabel("accuracy")
    ax2.legend()
    fig.suptitle("monoflow: small CNN on scikit-learn digits")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--epochs", type=int, default=12)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--lr", type=float, default=3e-3)
    p.add_argument("--weight-decay", type=float, default=1e-4)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--device", default="cpu")
    p.add_argument("--backend", default=None, help="collective engine on several ranks (gloo, mpi; default: best)")
    p.add_argument("--workers", type=int, default=0, help="DataLoader worker processes")
    p.add_argument("--out", default=None,
                   help="checkpoint, metrics and plot folder (default runs/digits, runs/digits-Nranks on N processes)")
    p.add_argument("--resume", action="store_true", help="continue from OUT/checkpoint.mf")
    p.add_argument("--stop-after", type=int, default=None, metavar="E",
                   help="stop after epoch E (the schedule still spans --epochs; resume later)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar (logs, CI)")
    # Data parallelism (started by monoflow.distributed.launch) and the flags
    # that make an N-process run reproduce the 1-process loss curve: batch
    # norm (per-rank batch statistics) and dropout (per-rank masks) differ
    # from one process on the global batch, and the sampler must split one
    # shared order without a padded last batch.
    p.add_argument("--no-bn", action="store_true", help="no batch norm in the model")
    p.add_argument("--dropout", type=float, default=0.2, help="dropout probability before the classifier")
    p.add_argument("--drop-last", action="store_true", help="drop the last incomplete (global) batch")
    p.add_argument("--distributed-sampler", action="store_true",
                   help="shuffle with DistributedSampler even on one process (the reference of an N-process run)")
    return p.parse_args(argv)


# ---- data parallelism: one process per rank, started by the launcher, torchrun, srun or mpiexec
def init_distributed(backend=None):
    """(rank, world size); joins the process group when a launcher started several ranks."""
    world = flow.env.get_world_size()  # from the launcher's, torchrun's, srun's or mpiexec's variables
    if world <= 1:
        return 0, 1
    import monoflow.distributed as dist

    dist.init_process_group(backend)  # None: the best engine present (Gloo, else MPI)
    return dist.get_rank(), world


def global_sums(world, *values):
    """The sums of the ranks' values (the epoch's metrics of the whole job)."""
    if world <= 1:
        return values
    import monoflow.distributed as dist

    t = flow.tensor(values, dtype=flow.float64)
    dist.all_reduce(t)
    return t.tolist()


def main(argv=None):
    args = parse_args(argv)
    from tqdm import tqdm

    rank, world = init_distributed(args.backend)
    if args.batch_size % world:
        raise SystemExit(f"--batch-size {args.batch_size} must be divisible by the {world} processes")
    print = builtins.print if rank == 0 else (lambda *a, **k: None)  # rank 0 reports for the job

    if args.out is None:  # a multi-process run must not overwrite the single-process run's checkpoint
        args.out = os.path.join("runs", "digits" if world == 1 else f"digits-{world}ranks")
    os.makedirs(args.out, exist_ok=True)
    ckpt_path = os.path.join(args.out, "checkpoint.mf")
    flow.manual_seed(args.seed)
    (xtr, ytr), (xte, yte) = load_digits_split(args.seed)
    train_set = TensorDataset(flow.from_numpy(xtr), flow.from_numpy(ytr))
    test_set = TensorDataset(flow.from_numpy(xte), flow.from_numpy(yte))
    if world > 1 or args.distributed_sampler:  # each rank its share of every global batch
        sampler = DistributedSampler(train_set, num_replicas=world, rank=rank, shuffle=True, seed=args.seed)
        loader = DataLoader(train_set, batch_size=args.batch_size // world, sampler=sampler,
                            drop_last=args.drop_last, num_workers=args.workers)
    else:
        sampler = None
        loader = DataLoader(train_set, batch_size=args.batch_size, shuffle=True, drop_last=args.drop_last,
                            num_workers=args.workers, generator=flow.Generator().manual_seed(args.seed))
    test_loader = DataLoader(test_set, batch_size=256)

    model = DigitsCNN(batch_norm=not args.no_bn, dropout=args.dropout).to(args.device)
    optimizer = flow.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=args.weight_decay)
    steps_per_epoch = len(loader)
    warmup = flow.optim.lr_scheduler.LinearLR(optimizer, start_factor=0.1, total_iters=steps_per_epoch)
    cosine = flow.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=max(1, (args.epochs - 1) * steps_per_epoch))
    scheduler = flow.optim.lr_scheduler.SequentialLR(optimizer, [warmup, cosine], milestones=[steps_per_epoch])
    history, start_epoch = [], 1

    if args.resume and os.path.exists(ckpt_path):
        state = flow.load(ckpt_path, map_location=args.device)
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        scheduler.load_state_dict(state["scheduler"])
        if loader.generator is not None and state["loader_rng"] is not None:
            loader.generator.set_state(state["loader_rng"])
        # The global random state (dropout masks; the CUDA one for a CUDA
        # run): restored, the resumed run draws what the uninterrupted one would.
        flow.set_rng_state(state["rng_state"])
        if state.get("cuda_rng_state") is not None:
            flow.cuda.set_rng_state(state["cuda_rng_state"], args.device)
        history, start_epoch = state["history"], state["epoch"] + 1
        print(f"resumed from {ckpt_path} after epoch {state['epoch']}")

    train_model = model
    if world > 1:  # after resuming: rank 0's weights are broadcast at wrap time
        train_model = nn.parallel.DistributedDataParallel(model)
    nparams = sum(p.numel() for p in model.parameters())
    print(f"digits: {len(train_set)} train / {len(test_set)} test images; model: {nparams:,} parameters; "
          f"device {args.device}" + (f"; {world} processes" if world > 1 else ""))
    last_epoch = min(args.epochs, args.stop_after or args.epochs)
    for epoch in range(start_epoch, last_epoch + 1):
        train_model.train()
        if sampler is not None:
            sampler.set_epoch(epoch)
        t0 = time.perf_counter()
        total_loss, correct, seen = 0.0, 0, 0
        bar = tqdm(loader, desc=f"epoch {epoch:2d}/{args.epochs}", leave=False, disable=args.no_progress,
                   file=sys.stdout) if rank == 0 else loader
        for x, y in bar:
            x, y = x.to(args.device), y.to(args.device)
            logits = train_model(x)
            loss = F.cross_entropy(logits, y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            scheduler.step()
            n = y.shape[0]
            total_loss += loss.item() * n
            correct += (logits.argmax(1) == y).sum().item()
            seen += n
            if rank == 0:
                bar.set_postfix(loss=f"{loss.item():.4f}")
        total_loss, correct, seen = global_sums(world, total_loss, correct, seen)
        elapsed = time.perf_counter() - t0
        test_loss, test_acc = evaluate(model, test_loader, args.device)
        row = {"epoch": epoch, "train_loss": total_loss / seen, "train_acc": correct / seen,
               "test_loss": test_loss, "test_acc": test_acc, "samples_per_s": seen / elapsed,
               "lr": scheduler.get_last_lr()[0]}
        history.append(row)
        print(f"epoch {epoch:2d}/{args.epochs}  train loss {row['train_loss']:.4f} acc {row['train_acc']:.4f}  "
              f"test loss {test_loss:.4f} acc {test_acc:.4f}  {row['samples_per_s']:,.0f} samples/s  "
              f"lr {row['lr']:.2e}", flush=True)
        if rank == 0:
            flow.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                       "scheduler": scheduler.state_dict(),
                       "loader_rng": loader.generator.get_state() if loader.generator is not None else None,
                       "rng_state": flow.get_rng_state(),
                       "cuda_rng_state": flow.cuda.get_rng_state(args.device) if args.device.startswith("cuda")
                       else None,
                       "epoch": epoch, "history": history}, ckpt_path)

    if not history:
        print("nothing to do: the checkpoint is already at the last epoch")
        return 0
    if rank != 0:
        return 0
    with open(os.path.join(args.out, "metrics.json"), "w") as f:
        json.dump(history, f, indent=1)
    plot_path = os.path.join(args.out, "curves.png")
    plot_curves(history, plot_path)
    final = history[-1]["test_acc"]
    print(f"final test accuracy {final:.4f}; checkpoint {ckpt_path}; curves {plot_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
