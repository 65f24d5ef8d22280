"""Automatic differentiation: the engine is in the C++ core; this package is
its Python face (torch.autograd's names)."""
from monoflow import _C
from monoflow.autograd.function import Function, FunctionCtx
from monoflow.autograd.grad_mode import enable_grad, inference_mode, is_grad_enabled, no_grad, set_grad_enabled
from monoflow.autograd.gradcheck import GradcheckError, gradcheck


def _seq(x):
    if x is None:
        return []
    return list(x) if isinstance(x, (list, tuple)) else [x]


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    """Accumulates the gradients of ``tensors`` into the leaves' ``.grad``."""
    tensors = _seq(tensors)
    grads = _seq(grad_tensors) or [None] * len(tensors)
    if retain_graph is None:
        retain_graph = create_graph
    _C.backward(tensors, grads, retain_graph, create_graph, _seq(inputs))


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, allow_unused=None,
         materialize_grads=False):
    """The gradients of ``outputs`` with respect to ``inputs``, returned (not accumulated)."""
    single = not isinstance(inputs, (list, tuple))
    outputs = _seq(outputs)
    inputs_l = _seq(inputs)
    grads = _seq(grad_outputs) or [None] * len(outputs)
    if retain_graph is None:
        retain_graph = create_graph
    if allow_unused is None:
        allow_unused = materialize_grads
    res = _C.grad(outputs, inputs_l, grads, retain_graph, create_graph, allow_unused)
    if materialize_grads:
        import monoflow as flow

        res = [flow.zeros_like(x) if r is None else r for r, x in zip(res, inputs_l)]
    return tuple(res)


__all__ = ["Function", "FunctionCtx", "GradcheckError", "backward", "enable_grad", "grad", "gradcheck",
           "inference_mode", "is_grad_enabled", "no_grad", "set_grad_enabled"]
