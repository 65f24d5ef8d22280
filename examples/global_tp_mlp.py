"""Tensor parallelism: an MLP whose layers are split over 2 ranks.

    python -m monoflow.distributed.launch --nproc-per-node 2 examples/global_tp_mlp.py

Megatron's layout for two Linear layers: the first is column parallel (each
rank holds half of the hidden units: its weight rows and bias entries, SBP
split(0) of nn.Linear's (out, in) weight), the second row parallel (the
matching half of its inputs, split(1)). In x @ W terms, with W = weight.T of
shape (in, out), that is W1 split(1) and W2 split(0). The input is broadcast;
the hidden activations stay split, never gathered; the second layer's
outputs are partial sums, added up by one all-reduce (in the loss). The
gradients come back the same way, so no other communication is needed.

The run is checked against the same training in one process: losses,
gradients and final parameters must agree.
"""
import monoflow as flow
from global_common import MLP, finish, make_optimizer, parse_args, reference, train

CLIP = 0.5


def main():
    args = parse_args(__doc__)
    P = flow.placement("cpu", [0, 1])
    B = flow.sbp.broadcast
    flow.manual_seed(0)
    model = MLP()
    model.fc1.to_global(P, flow.sbp.split(0))  # weight rows and bias: column parallel
    model.fc2.to_global(P, flow.sbp.split(1))  # weight columns (its 1-D bias is broadcast)
    opt = make_optimizer("adamw", model.parameters())  # after to_global: it holds the global parameters
    if args.resume:
        state = flow.load(args.resume)
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["optim"])

    def inputs(x, y):
        return flow.tensor(x, placement=P, sbp=B), flow.tensor(y, placement=P, sbp=B)

    rec = train(model, opt, args.steps, inputs, CLIP, args.start)
    if args.save:
        flow.save({"model": model.state_dict(), "optim": opt.state_dict()}, args.save)
    finish("tensor parallel", rec, reference("adamw", args.steps, CLIP, args.resume, args.start), args)


if __name__ == "__main__":
    main()
