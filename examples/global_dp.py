"""Data parallelism with global tensors on 2 ranks.

    python -m monoflow.distributed.launch --nproc-per-node 2 examples/global_dp.py

The parameters are broadcast (every rank holds all of them), the batch is
split(0): each rank makes a global tensor from its own rows. The forward
runs on each rank's rows; the parameters' gradients arrive as partial sums
(one per rank's rows) and their grad hooks all-reduce them to broadcast,
which is DistributedDataParallel's all-reduce, deduced from the SBPs.

The run is checked against the same training in one process on the whole
batch: losses, gradients and final parameters must agree.
"""
import monoflow as flow
from global_common import BATCH, MLP, finish, make_optimizer, parse_args, reference, train

CLIP = 0.5


def main():
    args = parse_args(__doc__)
    P = flow.placement("cpu", [0, 1])
    rank, n = flow.env.get_rank(), BATCH // 2
    # the ranks may start different (here: on purpose); to_global broadcasts
    # the first rank's values, which the single-process reference shares
    flow.manual_seed(0 if rank == 0 else 1234)
    model = MLP()
    model.to_global(P, flow.sbp.broadcast)
    opt = make_optimizer("sgd", model.parameters())

    def inputs(x, y):  # this rank's rows, as pieces of the global batch
        mine = slice(rank * n, (rank + 1) * n)
        return (flow.tensor(x[mine]).to_global(P, flow.sbp.split(0)),
                flow.tensor(y[mine]).to_global(P, flow.sbp.split(0)))

    rec = train(model, opt, args.steps, inputs, CLIP, args.start)
    if args.save:
        flow.save({"model": model.state_dict(), "optim": opt.state_dict()}, args.save)
    finish("data parallel", rec, reference("sgd", args.steps, CLIP), args)


if __name__ == "__main__":
    main()
