"""Data x tensor parallelism on a 2 x 2 hierarchy of 4 ranks.

    python -m monoflow.distributed.launch --nproc-per-node 4 examples/global_hybrid.py

Placement [[0, 1], [2, 3]]: hierarchy axis 0 (the rows {0,1}, {2,3}) is the
data-parallel axis, axis 1 (the columns {0,2}, {1,3}) the tensor-parallel
one. Inputs are (S(0), B): the batch is split over axis 0 and broadcast over
axis 1. Weights are (B, S(0)) / (B, S(1)): whole along axis 0, split over
axis 1 as in examples/global_tp_mlp.py. Each axis then runs its own
collectives in its own groups: the tensor-parallel all-reduce of the outputs
within a row, the data-parallel all-reduce of the gradients within a column.

The parameters are converted one by one here (Module.to_global does the
same for a whole module): a local tensor becomes global as broadcast (each
rank holds the same value, from the same seed), then is laid out.

With --resume, training continues from a checkpoint written by another job
(e.g. examples/global_tp_mlp.py --save on 2 ranks): the saved logical values
are re-laid out on these 4 ranks. Checked against one process either way.
"""
import monoflow as flow
import monoflow.nn as nn
from global_common import MLP, finish, make_optimizer, parse_args, reference, train

CLIP = 0.5


def main():
    args = parse_args(__doc__)
    P = flow.placement("cpu", [[0, 1], [2, 3]])
    B, S = flow.sbp.broadcast, flow.sbp.split
    flow.manual_seed(0)
    model = MLP()
    layout = {"fc1.weight": (B, S(0)), "fc1.bias": (B, S(0)), "fc2.weight": (B, S(1)), "fc2.bias": (B, B)}
    for name, sbp in layout.items():
        layer_name, attr = name.split(".")
        layer = getattr(model, layer_name)
        local = getattr(layer, attr)
        setattr(layer, attr, nn.Parameter(local.to_global(P, (B, B)).to_global(P, sbp)))
    opt = make_optimizer("adamw", model.parameters())
    if args.resume:
        state = flow.load(args.resume)  # logical values, whoever wrote them
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["optim"])

    def inputs(x, y):
        return flow.tensor(x, placement=P, sbp=(S(0), B)), flow.tensor(y, placement=P, sbp=(S(0), B))

    rec = train(model, opt, args.steps, inputs, CLIP, args.start)
    if args.save:
        flow.save({"model": model.state_dict(), "optim": opt.state_dict()}, args.save)
    finish("hybrid 2x2", rec, reference("adamw", args.steps, CLIP, args.resume, args.start), args)


if __name__ == "__main__":
    main()
