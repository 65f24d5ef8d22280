"""Pipeline parallelism in nn.Graph: modules given a stage with
``graph.<module>.to(flow.nn.graph.GraphModule).set_stage(stage_id, placement)``
(OneFlow's spelling) run on their stage's ranks, and the micro-batches of
``config.set_gradient_accumulation_steps(n)`` flow through the stages.

Note [Pipeline stages in a graph]
    Nothing here schedules anything: a stage is a placement, and the
    schedule comes out of the plan and the actor runtime.
    - Parameters: each staged module's parameters must already be global
      tensors on its stage's placement (``module.to_global(placement, B)``
      before the optimizer is made, so that it holds those tensors); a
      module left elsewhere is refused with a message saying so.
    - Activations: while build runs (traced, or eagerly), each staged
      module's forward first moves its global tensor arguments to the
      stage's placement (``to_global``: the differentiable move of
      _global/move.py, a send on the previous stage's first rank and a
      receive on this stage's, and in backward the gradient going back the
      same way). In the trace these are host nodes (Note [Host nodes] in
      graph/host_node.h); each rank's plan holds only its own stage's
      kernels (the others' shards are empty) plus its sends and receives.
    - Micro-batches: gradient accumulation unrolls build over the n
      micro-batches. build calls ``loss.backward()`` once per micro-batch;
      with stages, those calls are deferred and run in micro-batch order
      at the point the schedule gives them (Note [Pipeline schedules]).
      Per-parameter gradient sums are the same additions in the same order
      as running them in place, so the results are bit for bit those of
      the plain loop. The one difference: code in build that reads .grad
      after its backward() call sees the gradients before that backward
      ran (backward itself returns None either way).
      flow.autograd.backward(loss) is not deferred: still correct, only
      without the schedule.
    - Schedule: the plan orders each rank's sends and receives in trace
      order (Note [Collective order] in graph/plan.h), and with two or more
      worker threads the host nodes run on their own worker, and a send
      waits only for the kernels that produced its buffer (StreamFences,
      Note [Host nodes] in graph/host_node.h), not for the next
      micro-batch's kernels already enqueued. So stage 0 sends micro-batch
      0's activations and goes on with micro-batch 1's forward while stage
      1 computes micro-batch 0, and so on: the stages overlap across
      ranks, under either schedule. A graph with stages therefore runs with
      at least 2 threads.
    - Outputs: each micro-batch's loss lives on the last stage; the graph
      returns them stacked (one loss per micro-batch, as accumulation does),
      a global tensor on the last stage's placement.
    - A job of one process holds every stage: stages change nothing there
      (modules may stay local), and the graph is the plain one.

Note [Pipeline schedules]
    A schedule is only *where in the trace* each micro-batch's backward
    goes: every rank traces the same program, so each rank's plan has its
    stage's kernels in that order, and memory planning (Note [Memory
    planning] in pass_memory.cc) gives the activations lifetimes from it.
    - GPipe: all n forwards, then the n backwards. A stage holds the
      activations of all n micro-batches at its peak.
    - 1F1B (the default): with S stages, micro-batch k's backward is traced
      right after micro-batch k + S - 1's forward (the first S - 1 forwards
      are the warm-up, the last S - 1 backwards the drain). A stage holds
      the activations of at most S micro-batches: 1F1B's peak on stage 0,
      the stage that holds the most; a later stage s keeps S where its own
      1F1B order would keep S - s.
    Why one order for every stage rather than each stage its own 1F1B
    order: the sends and receives of a rank run in trace order (Note
    [Collective order] in graph/plan.h) and a send may complete only once
    its receive is posted, so two stages that order the same transfers
    differently wait on each other forever (stage 0 sends forward 1 while
    stage 1 sends backward 0). One order for all matches every pair by construction; the
    cost is memory on the later stages only, never more than stage 0's.
"""
import contextlib

from monoflow import _C

__all__ = ["stage_scope"]


def _world_size():
    from monoflow._global import groups

    return groups.world_size()


def _check_stages(graph, stages):
    from monoflow._global.placement import placement as Placement

    name = type(graph).__name__
    for stage_id, placement, mod_name, module in stages:
        if not isinstance(placement, Placement):
            raise ValueError(f"{name}: module '{mod_name}' has pipeline stage {stage_id} but no placement; pass "
                             f"one: set_stage({stage_id}, flow.placement('cpu', ranks=[...]))")
        for pname, p in module.named_parameters():
            if not getattr(p, "is_global", False) or p.placement != placement:
                where = f"on {p.placement!r}" if getattr(p, "is_global", False) else "a local tensor"
                raise ValueError(f"{name}: pipeline stage {stage_id} ('{mod_name}') is placed on {placement!r}, but "
                                 f"its parameter '{pname}' is {where}; call {mod_name}.to_global(placement, "
                                 f"flow.sbp.broadcast) before making the optimizer")


def _staged_forward(module, placement):
    from monoflow._global.sbp import broadcast
    from monoflow._global.tensor import global_to_global

    forward = type(module).forward.__get__(module)
    everywhere = (broadcast,) * len(placement.hierarchy)

    def to_stage(a):
        if isinstance(a, _C.TensorBase) and getattr(a, "is_global", False) and a.placement != placement:
            # keeps the SBP where the hierarchies match (data parallel stages
            # stay split), else broadcast. No metadata agreement check: it reads
            # values back (refused in a trace), and every rank builds the same graph.
            nd = tuple(a.sbp) if len(a.sbp) == len(everywhere) else everywhere
            return global_to_global(a, placement, nd, check_meta=False)
        if isinstance(a, (tuple, list)):
            return type(a)(to_stage(v) for v in a)
        return a

    def run(*args, **kwargs):
        return forward(*to_stage(args), **{k: to_stage(v) for k, v in kwargs.items()})
    return run


class _DeferredBackward:
    """Holds build's backward() calls and runs them, in micro-batch order,
    where the schedule puts them: once more than `lag` are pending (1F1B:
    lag = stages - 1), else at flush (GPipe: lag None). Note [Pipeline
    schedules]."""

    def __init__(self, lag=None):
        self.lag = lag
        self.calls = []
        self.originals = {}

    @contextlib.contextmanager
    def installed(self, classes):
        saved = [(cls, cls.__dict__["backward"]) for cls in classes if "backward" in cls.__dict__]
        self.originals = dict(saved)

        def deferred(tensor, gradient=None, retain_graph=None, create_graph=False, inputs=None):
            self.calls.append((tensor, gradient, retain_graph, create_graph, inputs))
            while self.lag is not None and len(self.calls) > self.lag:
                self._run(self.calls.pop(0))

        try:
            for cls, _ in saved:
                cls.backward = deferred
            yield
        finally:
            for cls, original in saved:
                cls.backward = original

    def _run(self, call):
        tensor, gradient, retain_graph, create_graph, inputs = call
        backward = next((self.originals[c] for c in type(tensor).__mro__ if c in self.originals),
                        type(tensor).backward)
        backward(tensor, gradient, retain_graph, create_graph, inputs)

    def flush(self):
        calls, self.calls = self.calls, []
        for call in calls:
            self._run(call)


@contextlib.contextmanager
def stage_scope(graph):
    """While build runs: staged modules compute on their stages, and with
    gradient accumulation the backwards run where the schedule puts them
    (config.set_pipeline_schedule). Nothing changes for a graph without
    stages."""
    stages = graph._stages()
    if not stages or _world_size() == 1:  # one process holds every stage: the plain graph
        yield
        return
    _check_stages(graph, stages)
    if graph.config.threads < 2:
        graph.config.threads = 2  # host nodes on their own worker (see the Note)
    installed = []
    lag = len({stage_id for stage_id, *_ in stages}) - 1 if graph.config.pipeline_schedule == "1F1B" else None
    deferred = _DeferredBackward(lag)
    try:
        for _, placement, name, module in stages:
            if "forward" in module.__dict__:
                raise RuntimeError(f"{type(graph).__name__}: module '{name}' has its own forward attribute (e.g. "
                                   f"activation checkpointing); a pipeline stage wraps the class's forward and "
                                   f"cannot combine with it")
            object.__setattr__(module, "forward", _staged_forward(module, placement))
            installed.append(module)
        if graph.training and graph.config.gradient_accumulation_steps > 1:
            from monoflow._global.tensor import GlobalTensor
            from monoflow._tensor import Tensor

            with deferred.installed([Tensor, GlobalTensor]):
                yield
        else:
            yield
    finally:
        for m in installed:
            m.__dict__.pop("forward", None)
    deferred.flush()  # after every micro-batch's forward, in micro-batch order
