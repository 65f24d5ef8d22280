"""Data-parallel training whose ranks Ray starts.

    pip install ray                                  # optional: without it this prints so and exits 0
    python examples/ray_train.py [--workers 2] [--steps 60]
    RAY_ADDRESS=auto python examples/ray_train.py    # on a running Ray cluster

Ray places one actor per rank (on any node of its cluster); monoflow knows
nothing of Ray. The group is formed from what Ray tells the actors: actor 0
reports the address of its node (ray.util.get_node_ip_address) and a port
free there; the driver hands that address, each actor's rank and the world
size to every actor, and each calls

    dist.init_process_group(init_method=f"tcp://{addr}:{port}", rank=rank, world_size=n)

(the same as torchrun's variables MASTER_ADDR/MASTER_PORT/RANK/WORLD_SIZE,
which an actor could equally set before dist.init_process_group()). Then it
is ordinary DistributedDataParallel: each rank fits a linear model to its
shard of a synthetic regression set, the gradients are averaged by all-reduce,
and the driver checks that every rank ends with the same weights, close to the
ones that generated the data.
"""
import argparse
import os
import socket
import sys


def free_port(host):
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def train_rank(addr, port, rank, world_size, steps=60, seed=0):
    """One rank's whole job, given what Ray told its actor; returns what the driver checks."""
    os.environ.setdefault("MONOFLOW_NUM_THREADS", "1")   # one core per actor (num_cpus=1)
    import monoflow as flow
    import monoflow.distributed as dist

    dist.init_process_group(init_method=f"tcp://{addr}:{port}", rank=rank, world_size=world_size)
    try:
        # The same synthetic set on every rank (same seed); each trains on its shard.
        flow.manual_seed(seed)
        true_w = flow.tensor([[2.0, -3.0, 0.5, 1.0]])
        x = flow.randn(256, 4)
        y = x @ true_w.T + 0.7 + 0.01 * flow.randn(256, 1)
        shard = slice(rank * 256 // world_size, (rank + 1) * 256 // world_size)
        flow.manual_seed(seed + 1)                   # the same initial weights on every rank
        model = flow.nn.parallel.DistributedDataParallel(flow.nn.Linear(4, 1))
        opt = flow.optim.SGD(model.parameters(), lr=0.1)
        for _ in range(steps):
            opt.zero_grad()
            loss = flow.nn.functional.mse_loss(model(x[shard]), y[shard])
            loss.backward()                          # DDP all-reduces the gradients
            opt.step()
        return {"rank": dist.get_rank(), "world_size": dist.get_world_size(), "backend": dist.get_backend(),
                "loss": float(loss.item()), "weight": model.module.weight.detach().flatten().tolist(),
                "bias": float(model.module.bias.item())}
    finally:
        dist.destroy_process_group()


class Worker:
    """One rank, made a Ray actor by main() (ray.remote(num_cpus=1)(Worker))."""

    def __init__(self, rank, world_size):
        self.rank, self.world_size = rank, world_size

    def address(self):
        """Where this actor's node is reachable, and a port free there (asked of actor 0 only)."""
        import ray
        host = ray.util.get_node_ip_address()
        return host, free_port(host)

    def train(self, addr, port, steps):
        return train_rank(addr, port, self.rank, self.world_size, steps)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--workers", type=int, default=2, help="ranks, one Ray actor each (default 2)")
    p.add_argument("--steps", type=int, default=60, help="SGD steps (default 60)")
    args = p.parse_args(argv)
    try:
        import ray
    except ImportError:
        print("ray_train.py: Ray is not installed (pip install ray); this example needs it, so it stops here.")
        return 0

    ray.init(address=os.environ.get("RAY_ADDRESS"))
    try:
        RemoteWorker = ray.remote(num_cpus=1)(Worker)
        workers = [RemoteWorker.remote(rank, args.workers) for rank in range(args.workers)]
        addr, port = ray.get(workers[0].address.remote())
        print(f"ray_train.py: {args.workers} actors; rank 0 serves the group's store at {addr}:{port}")
        results = sorted(ray.get([w.train.remote(addr, port, args.steps) for w in workers]),
                         key=lambda r: r["rank"])
    finally:
        ray.shutdown()

    for r in results:
        print(f"rank {r['rank']} of {r['world_size']} ({r['backend']}): loss {r['loss']:.5f} "
              f"weight {[round(v, 3) for v in r['weight']]} bias {r['bias']:.3f}")
    assert [r["rank"] for r in results] == list(range(args.workers))
    same = all(r["weight"] == results[0]["weight"] and r["bias"] == results[0]["bias"] for r in results)
    close = all(abs(a - b) < 0.05 for a, b in zip(results[0]["weight"], [2.0, -3.0, 0.5, 1.0]))
    if not (same and close):
        print("ray_train.py: FAILED: " + ("the ranks' weights differ" if not same else "the model did not fit"))
        return 1
    print("ray_train.py: every rank has the same weights, and they fit the data")
    return 0


if __name__ == "__main__":
    sys.exit(main())
