"""Module.register_full_backward_hook / register_full_backward_pre_hook: identity autograd Functions around a
module's tensor inputs and outputs catch the gradients flowing through them;
when the inputs' gradients are known the hooks run with
(module, grad_input, grad_output) and may replace grad_input."""
from monoflow import _C
from monoflow.autograd.function import Function


class _Identity(Function):
    # Passes the tensors through; the subclasses' backward sees their gradients.
    @staticmethod
    def forward(ctx, state, *tensors):
        ctx.state = state
        return tuple(t.detach() for t in tensors)


class _OutputIdentity(_Identity):
    @staticmethod
    def backward(ctx, *grads):
        state = ctx.state
        grads = state.run_pre_hooks(grads)
        state.grad_output = grads
        if not state.has_inputs:  # nothing upstream: the hooks run now, with grad_input None
            state.run_hooks((None,))
        return (None,) + grads


class _InputIdentity(_Identity):
    @staticmethod
    def backward(ctx, *grads):
        new = ctx.state.run_hooks(grads)
        return (None,) + tuple(new)


class BackwardHook:
    def __init__(self, module, hooks, pre_hooks=()):
        self.module = module
        self.hooks = hooks
        self.pre_hooks = pre_hooks
        self.has_inputs = False
        self.grad_output = None

    def run_pre_hooks(self, grad_output):
        for hook in self.pre_hooks:
            res = hook(self.module, grad_output)
            if res is not None:
                res = tuple(res) if isinstance(res, (tuple, list)) else (res,)
                if len(res) != len(grad_output):
                    raise RuntimeError(f"Backward pre hook returned an invalid number of grad_output, got "
                                       f"{len(res)}, but expected {len(grad_output)}")
                grad_output = res
        return grad_output

    def run_hooks(self, grad_input):
        for hook in self.hooks:
            res = hook(self.module, grad_input, self.grad_output)
            if res is not None:
                res = tuple(res) if isinstance(res, (tuple, list)) else (res,)
                if len(res) != len(grad_input):
                    raise RuntimeError(f"Backward hook returned an invalid number of grad_input, got {len(res)}, "
                                       f"but expected {len(grad_input)}")
                grad_input = res
        return grad_input

    @staticmethod
    def _wrap(fn, state, values):
        pos = [i for i, v in enumerate(values) if isinstance(v, _C.TensorBase) and v.requires_grad]
        if not pos or not _C.is_grad_enabled():
            return values, False
        new = fn.apply(state, *[values[i] for i in pos])
        new = new if isinstance(new, tuple) else (new,)
        out = list(values)
        for i, t in zip(pos, new):
            out[i] = t
        return out, True

    def setup_input_hook(self, args):
        out, self.has_inputs = self._wrap(_InputIdentity, self, list(args))
        return tuple(out)

    def setup_output_hook(self, result):
        single = not isinstance(result, tuple)
        out, _ = self._wrap(_OutputIdentity, self, [result] if single else list(result))
        return out[0] if single else tuple(out)
