"""Activation checkpointing (torch.utils.checkpoint): run a block without
keeping its intermediate activations, and recompute them in the backward pass.

Note [Recomputing with the same random numbers]
  The forward saves the state of the default generator of every device the
  inputs live on (and the CPU's); the recomputation runs from those states
  and then puts the generators back where they were, so dropout inside the
  block draws the same mask twice and the code after the block is
  unaffected.
"""
import warnings

from monoflow import _C
from monoflow.autograd.function import Function
from monoflow.autograd.grad_mode import enable_grad

__all__ = ["checkpoint", "checkpoint_sequential"]


def _devices(tensors):
    devs = {"cpu"}
    for t in tensors:
        devs.add(str(t.device))
    return sorted(devs)


def _get_states(devices):
    return {d: _C.default_generator_for(d).get_state() for d in devices}


def _set_states(states):
    for d, s in states.items():
        _C.default_generator_for(d).set_state(s)


class _Checkpoint(Function):
    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, kw_keys, _anchor, *args):
        ctx.run_function = run_function
        ctx.kw_keys = kw_keys
        tensors = [a for a in args if isinstance(a, _C.TensorBase)]
        ctx.rng_states = _get_states(_devices(tensors)) if preserve_rng_state else None
        ctx.tensor_pos = [i for i, a in enumerate(args) if isinstance(a, _C.TensorBase)]
        ctx.requires = [args[i].requires_grad for i in ctx.tensor_pos]
        ctx.others = [None if isinstance(a, _C.TensorBase) else a for a in args]
        ctx.save_for_backward(*tensors)
        return _call(run_function, args, kw_keys)

    @staticmethod
    def backward(ctx, *grads):
        args = list(ctx.others)
        inputs = []
        for i, t, rg in zip(ctx.tensor_pos, ctx.saved_tensors, ctx.requires):
            x = t.detach()
            x.requires_grad_(rg)
            args[i] = x
            inputs.append(x)
        if ctx.rng_states is not None:
            current = _get_states(ctx.rng_states.keys())
            _set_states(ctx.rng_states)
        try:
            with enable_grad():
                outputs = _call(ctx.run_function, args, ctx.kw_keys)
        finally:
            if ctx.rng_states is not None:
                _set_states(current)
        outputs = outputs if isinstance(outputs, tuple) else (outputs,)
        outs, out_grads = [], []
        for o, g in zip(outputs, grads):
            if isinstance(o, _C.TensorBase) and o.requires_grad and g is not None:
                outs.append(o)
                out_grads.append(g)
        if outs:
            from monoflow.autograd import backward

            backward(outs, out_grads)  # parameters inside the block accumulate here
        input_grads = [None] * len(args)
        for i, x in zip(ctx.tensor_pos, inputs):
            input_grads[i] = x.grad if x.requires_grad else None
        return (None, None, None, None) + tuple(input_grads)


def _call(fn, args, kw_keys):
    if not kw_keys:
        return fn(*args)
    n = len(args) - len(kw_keys)
    return fn(*args[:n], **dict(zip(kw_keys, args[n:])))


def checkpoint(function, *args, use_reentrant=None, context_fn=None, determinism_check="default", debug=False,
               preserve_rng_state=True, **kwargs):
    """function(*args, **kwargs), keeping only its inputs: the activations
    inside are recomputed when the backward pass reaches them. Gradients
    (of the inputs and of parameters used inside) equal the plain call's."""
    if context_fn is not None:
        raise NotImplementedError("checkpoint: context_fn is not supported")
    if use_reentrant and kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    kw_keys = tuple(kwargs)
    all_args = tuple(args) + tuple(kwargs[k] for k in kw_keys)
    if use_reentrant:
        if _C.is_grad_enabled() and not any(isinstance(a, _C.TensorBase) and a.requires_grad for a in args):
            warnings.warn("None of the inputs have requires_grad=True. Gradients will be None", stacklevel=2)
        anchor = None
    else:
        # A tensor that requires grad ties the outputs into the graph even
        # when no input does (the block's parameters still need gradients).
        from monoflow._creation import empty

        anchor = empty(0, requires_grad=True) if _C.is_grad_enabled() else None
    return _Checkpoint.apply(function, preserve_rng_state, kw_keys, anchor, *all_args)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Runs a Sequential (or list of modules) in `segments` chunks, checkpointing
    every chunk but the last."""
    if isinstance(functions, (list, tuple)):
        functions = list(functions)
    else:
        functions = list(functions.children())
    n = len(functions)
    size = max(n // segments, 1)

    def run(start, end):
        def forward(x):
            for f in functions[start:end + 1]:
                x = f(x)
            return x
        return forward

    end = -1
    for start in range(0, size * (segments - 1), size):
        end = start + size - 1
        input = checkpoint(run(start, end), input, use_reentrant=use_reentrant, **kwargs)
    return run(end + 1, n - 1)(input)
