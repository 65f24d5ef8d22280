"""trace(fn, *example_inputs) -> CompiledTrace: record fn's kernel launches once,
replay them on the actor runtime with new inputs.

Tensors among the arguments (nested in tuples, lists and dicts too) are the
graph's inputs: each run rebinds them to the tensors it is given, which must
have the traced shapes, dtypes and devices. Everything else fn touches is
part of the graph: parameters and optimizer state are updated in place (and
eager code sees the updates), tensors made from host data inside fn are
constants. Other arguments are constants too, and a run must pass equal ones.
"""
from monoflow import _C

__all__ = ["CompiledTrace", "trace"]


def _flatten(obj, tensors):
    """The structure of `obj` with its tensors replaced by their index in `tensors`."""
    if isinstance(obj, _C.TensorBase):
        tensors.append(obj)
        if getattr(obj, "is_global", False):  # the plan sees its shard; keep what makes it global
            return ("global", len(tensors) - 1, (obj.placement, tuple(obj.sbp), tuple(obj.shape)))
        return ("tensor", len(tensors) - 1)
    if isinstance(obj, (tuple, list)):
        # the kind, the items, and the exact type (namedtuples: max(dim)'s values/indices)
        kind = "tuple" if isinstance(obj, tuple) else "list"
        return (kind, tuple(_flatten(v, tensors) for v in obj), type(obj))
    if isinstance(obj, dict):
        return ("dict", tuple(obj.keys()), tuple(_flatten(v, tensors) for v in obj.values()))
    return ("const", obj)


def _unflatten(spec, tensors):
    kind = spec[0]
    if kind == "tensor":
        return tensors[spec[1]]
    if kind == "global":  # a replay's output is the shard: wrap it as the traced global tensor was
        from monoflow._global.tensor import wrap

        placement, nd_sbp, shape = spec[2]
        return wrap(tensors[spec[1]], placement, nd_sbp, shape)
    if kind in ("tuple", "list"):
        items = [_unflatten(s, tensors) for s in spec[1]]
        cls = spec[2]
        if cls is tuple or cls is list:
            return cls(items)
        return cls(*items) if hasattr(cls, "_fields") else cls(items)
    if kind == "dict":
        return {k: _unflatten(s, tensors) for k, s in zip(spec[1], spec[2])}
    return spec[1]


def _same_constants(a, b):
    try:
        return bool(a == b)
    except Exception:  # e.g. numpy arrays: compare by identity
        return a is b


def _check_spec(traced, given, where="arguments"):
    if traced[0] != given[0]:
        raise ValueError(f"graph run: {where} differ from the traced ones ({given[0]} where the trace had "
                         f"{traced[0]})")
    if traced[0] == "global" and traced[2] != given[2]:
        raise ValueError(f"graph run: a global tensor among the {where} has placement, sbp and shape {given[2]} "
                         f"where the trace had {traced[2]}; trace again for another layout")
    if traced[0] == "const":
        if not _same_constants(traced[1], given[1]):
            raise ValueError(f"graph run: the non-tensor {where} differ from the traced ones ({given[1]!r} where "
                             f"the trace had {traced[1]!r}); trace again for other constants")
    elif traced[0] in ("tuple", "list", "dict"):
        if traced[0] == "dict" and traced[1] != given[1]:
            raise ValueError(f"graph run: dict keys of the {where} differ from the traced ones")
        items = 2 if traced[0] == "dict" else 1
        a, b = traced[items], given[items]
        if len(a) != len(b):
            raise ValueError(f"graph run: {where} have {len(b)} elements where the trace had {len(a)}")
        for x, y in zip(a, b):
            _check_spec(x, y, where)


class CompiledTrace:
    """A traced function, compiled into a plan and bound to an actor runtime."""

    def __init__(self, plan, runtime, arg_spec, out_spec, example_outputs):
        self._plan = plan
        self._runtime = runtime
        self._arg_spec = arg_spec
        self._out_spec = out_spec
        self.example_outputs = example_outputs  # fn's result while traced (None for a lazy trace)

    def _feeds(self, args):
        tensors = []
        spec = _flatten(tuple(args), tensors)
        _check_spec(self._arg_spec, spec)
        return tensors

    def run(self, *args, iterations=1, slots=1, threads=1, timeout=60.0):
        """Runs the graph `iterations` times on the same inputs; returns the
        last iteration's outputs, structured as fn's result.

        slots: copies of each intermediate buffer, i.e. how many iterations
        may be in flight through the actors that use it. threads: worker
        threads (1: the calling thread). timeout: seconds without progress
        before the run fails."""
        outs = self._runtime.run([self._feeds(args)], iterations, slots, threads, timeout)
        return _unflatten(self._out_spec, outs[-1]) if outs else None

    def run_flat(self, tensors, *, slots=1, threads=1, timeout=60.0):
        """run() for a caller that already flattened the arguments (tensors in
        the order _flatten visits them) and checked their structure and
        constants against the traced ones: skips that per-call Python work."""
        outs = self._runtime.run([tensors], 1, slots, threads, timeout)
        return _unflatten(self._out_spec, outs[-1]) if outs else None

    def run_each(self, feeds, *, slots=1, threads=1, timeout=60.0):
        """One iteration per element of `feeds` (a tuple of arguments each, as
        for run()), all in one run; returns the outputs of every iteration."""
        feeds = [tuple(f) if isinstance(f, (tuple, list)) else (f,) for f in feeds]
        outs = self._runtime.run([self._feeds(f) for f in feeds], len(feeds), slots, threads, timeout)
        return [_unflatten(self._out_spec, o) for o in outs]

    def describe(self, passes=False):
        """The plan: nodes, storages by class, the passes that ran, and the
        edges between iterations. passes=True: first the listing before and
        after each pass (kept when traced with debug=True)."""
        return self._plan.describe(passes)

    @property
    def passes(self):
        """[(name, summary)] of the plan passes that ran, in order."""
        return self._plan.passes()

    def stats(self):
        """Counts: nodes, storages per class, edges per kind, random nodes,
        arenas (memory planning's; not counted among the transient storages)."""
        return self._plan.stats()

    def memory(self, slots=1):
        """Bytes the plan holds: persistent (parameters, optimizer state,
        constants: shared by every iteration), transient before memory
        planning ("transient_traced", one block per intermediate) and after
        it ("transient": the arenas), both times `slots` copies, and output
        (fresh blocks of one iteration)."""
        if not isinstance(slots, int) or isinstance(slots, bool) or slots < 1:
            raise ValueError(f"CompiledTrace.memory: slots must be an int >= 1, got {slots!r}")
        m = self._plan.memory()
        m["transient_traced"] *= slots
        m["transient"] *= slots
        return m

    @property
    def dead(self):
        """True once a run timed out with an actor stuck in a kernel call."""
        return self._runtime.dead


def _pass_names(passes):
    if passes is None:
        return []
    if isinstance(passes, str):
        if passes == "default":
            return _C._graph_default_passes()
        raise ValueError(f"graph trace: passes must be 'default', None or a sequence of pass names, got {passes!r}")
    names = list(passes)
    for n in names:  # checked before fn runs, not after
        if not isinstance(n, str):
            raise TypeError(f"graph trace: pass names must be strings, got {type(n).__name__}")
    return names


def trace(fn, *example_inputs, execute=True, passes="default", debug=False, variables=(), all_variables=False):
    """Records the kernels fn(*example_inputs) launches and compiles them.

    execute=True runs them while recording (fn has its normal effects once,
    and example_outputs holds its result); execute=False only records (a
    lazy trace, for code that never reads values back, not even inside the
    core's argument checks). Reading on the host the values of an input, of
    a tensor in `variables` (state whose values change between calls:
    parameters, buffers), of anything a traced kernel wrote, or of a tensor
    that requires grad, raises RuntimeError inside fn; other tensors are
    constants of the trace and can be read (Note [Constants read while
    tracing] in graph/trace.h). all_variables=True says `variables` holds all
    the state fn updates: a kernel writing in place to a constant it read then
    raises DynamicShapeError (Note [Constants written in place]); otherwise
    the replays update such memory in place, as state.

    passes: the plan passes to run ("default": all of them - "constfold",
    "cse", "dce", ..., "memory" - except constfold on a lazy trace;
    None or (): the plan is the trace, kernel for kernel). debug=True keeps
    the plan listing before and after each pass, for describe(passes=True).
    """
    pass_names = _pass_names(passes)
    if not execute:
        # Constant folding keeps the values the trace computed: a lazy trace computed none.
        if passes == "default":
            pass_names = [n for n in pass_names if n != "constfold"]
        elif "constfold" in pass_names:
            raise ValueError("graph trace: the 'constfold' pass needs the values the trace computes; "
                             "it cannot run on a lazy trace (execute=False)")
    inputs = []
    arg_spec = _flatten(tuple(example_inputs), inputs)
    recorder = _C._GraphTrace(execute)
    try:
        recorder.mark_variables(inputs + [t for t in variables if isinstance(t, _C.TensorBase)])
        if all_variables:
            recorder.forbid_constant_writes()
        result = fn(*example_inputs)
    except BaseException:
        recorder.abort()
        raise
    outputs = []
    out_spec = _flatten(result, outputs)
    del result  # finish() must see only the references the graph's outputs hold
    plan, traced_outputs = recorder.finish(inputs, outputs, pass_names, debug)
    example = _unflatten(out_spec, traced_outputs) if execute else None
    return CompiledTrace(plan, _C._GraphRuntime(plan), arg_spec, out_spec, example)
