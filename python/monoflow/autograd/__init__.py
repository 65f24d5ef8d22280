"""Automatic differentiation: the engine is in the C++ core; this package is
its Python face (torch.autograd's names)."""
from monoflow import _C, _creation
from monoflow._composite import flag as _flag
from monoflow.autograd.engine_callbacks import backward_frame as _backward_frame
from monoflow.autograd.function import Function, FunctionCtx
from monoflow.autograd.grad_mode import (enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled,
                                         is_multithreading_enabled, no_grad, set_grad_enabled,
                                         set_multithreading_enabled)
from monoflow.autograd.gradcheck import GradcheckError, gradcheck, gradgradcheck
from monoflow.autograd.variable import Variable
from monoflow.autograd.anomaly_mode import (detect_anomaly, is_anomaly_check_nan_enabled, is_anomaly_enabled,
                                            set_detect_anomaly)
from monoflow.autograd import functional  # noqa: E402
from monoflow.autograd import profiler  # noqa: E402
from monoflow.autograd import graph  # noqa: E402
from monoflow.autograd import forward_ad  # noqa: E402,F401


def _seq(x):
    if x is None:
        return []
    return list(x) if isinstance(x, (list, tuple)) else [x]


def _check_implicit_grads(tensors, grads):
    # torch: the implicit gradient 1 exists only for real outputs
    for t, g in zip(tensors, grads):
        if g is None and isinstance(t, _C.TensorBase) and t.dtype.is_complex:
            raise RuntimeError("grad can be implicitly created only for real scalar outputs")


def _out_grads_alias(op, name, value, out_grads):
    # OneFlow's autograd.grad/backward called the vectors ``out_grads``
    if out_grads is None:
        return value
    if value is not None:
        raise TypeError(f"autograd.{op}(): got both {name} and its OneFlow alias out_grads; give one")
    return out_grads


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None, *, out_grads=None):
    """Computes the gradients of ``tensors`` and accumulates them into the leaves' ``.grad``.

    The same as ``tensors.backward(grad_tensors)`` for one tensor; for several,
    one pass computes the sum of their vector-Jacobian products.

    Args:
        tensors (Tensor or sequence of Tensor): the outputs to differentiate.
        grad_tensors (Tensor or sequence, optional): the vectors of the
            vector-Jacobian products, one per tensor (``None`` entries for scalar
            outputs, meaning 1). Default: ``None``.
        retain_graph (bool, optional): keep the graph for another backward; defaults
            to ``create_graph``.
        create_graph (bool): record the backward pass, for higher-order derivatives.
            Default: ``False``.
        inputs (Tensor or sequence, optional): accumulate only into these leaves.
            Default: ``None`` (all leaves).
        out_grads (Tensor or sequence, optional): OneFlow's older name of
            ``grad_tensors`` (keyword only; give one of the two).

    Example::

        >>> x = flow.tensor([1.0, 2.0], requires_grad=True)
        >>> flow.autograd.backward((x * x).sum())
        >>> x.grad
        tensor([2., 4.])
        >>> flow.autograd.backward(x * 3, grad_tensors=flow.ones(2))
        >>> x.grad
        tensor([5., 7.])
    """
    grad_tensors = _out_grads_alias("backward", "grad_tensors", grad_tensors, out_grads)
    tensors = _seq(tensors)
    grads = _seq(grad_tensors) or [None] * len(tensors)
    _check_implicit_grads(tensors, grads)
    create_graph = _flag("backward", "create_graph", create_graph)
    retain_graph = create_graph if retain_graph is None else _flag("backward", "retain_graph", retain_graph)
    with _backward_frame(run_callbacks=True):
        _C.backward(tensors, grads, retain_graph, create_graph, _seq(inputs))


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, only_inputs=True,
         allow_unused=None, is_grads_batched=False, materialize_grads=False, *, out_grads=None):
    """Computes and returns the gradients of ``outputs`` with respect to ``inputs`` (``.grad`` is left alone).

    Args:
        outputs (Tensor or sequence of Tensor): the outputs to differentiate.
        inputs (Tensor or sequence of Tensor): the tensors to differentiate with respect to.
        grad_outputs (Tensor or sequence, optional): the vectors of the
            vector-Jacobian products, one per output (``None`` for a scalar output).
            Default: ``None``.
        retain_graph (bool, optional): keep the graph for another backward; defaults
            to ``create_graph``.
        create_graph (bool): record the gradient computation, so that the results
            can be differentiated again. Default: ``False``.
        only_inputs (bool): accepted for torch compatibility (always true). Default: ``True``.
        allow_unused (bool, optional): return ``None`` for an input the outputs do not
            depend on instead of raising ``RuntimeError``; defaults to
            ``materialize_grads``.
        is_grads_batched (bool): the first dimension of every grad_output indexes
            independent vectors, and each result gains that leading dimension (one
            backward pass per vector here; torch vectorizes). Default: ``False``.
        materialize_grads (bool): return zeros instead of ``None`` for unused inputs.
            Default: ``False``.
        out_grads (Tensor or sequence, optional): OneFlow's older name of
            ``grad_outputs`` (keyword only; give one of the two).

    Returns:
        tuple of Tensor: one gradient per input.

    Example::

        >>> x = flow.tensor([1.0, 2.0], requires_grad=True)
        >>> (g,) = flow.autograd.grad((x ** 3).sum(), x, create_graph=True)
        >>> g
        tensor([ 3., 12.], grad_fn=<MulBackward0>)
        >>> flow.autograd.grad(g.sum(), x)
        (tensor([ 6., 12.]),)
        >>> b = flow.tensor([1.0], requires_grad=True)
        >>> flow.autograd.grad((x * 2).sum(), [x, b], materialize_grads=True)
        (tensor([2., 2.]), tensor([0.]))
    """
    grad_outputs = _out_grads_alias("grad", "grad_outputs", grad_outputs, out_grads)
    outputs = _seq(outputs)
    inputs_l = _seq(inputs)
    grads = _seq(grad_outputs) or [None] * len(outputs)
    _check_implicit_grads(outputs, grads)
    if retain_graph is None:
        retain_graph = create_graph
    if allow_unused is None:
        allow_unused = materialize_grads
    # (flags: an array's truth value would be asked by the bindings, naming no op)
    retain_graph, create_graph, allow_unused = (None if v is None else _flag("grad", n, v) for n, v in (
        ("retain_graph", retain_graph), ("create_graph", create_graph), ("allow_unused", allow_unused)))
    with _backward_frame(run_callbacks=False):  # (grad() writes no .grad: nothing to finish)
        if is_grads_batched:
            return _batched_grad(outputs, inputs_l, grads, retain_graph, create_graph, allow_unused,
                                 materialize_grads)
        res = _C.grad(outputs, inputs_l, grads, retain_graph, create_graph, allow_unused)
    if materialize_grads:
        res = [_creation.zeros_like(x) if r is None else r for r, x in zip(res, inputs_l)]
    return tuple(res)


def _batched_grad(outputs, inputs, grads, retain_graph, create_graph, allow_unused, materialize_grads):
    # One backward pass per vector of the batch (torch vectorises with vmap;
    # the values are the same).
    if any(g is None for g in grads):
        raise RuntimeError("grad(): is_grads_batched=True needs a grad_output for every output")
    sizes = {g.shape[0] if g.dim() else None for g in grads}
    if len(sizes) != 1 or None in sizes:
        raise RuntimeError("grad(): with is_grads_batched=True every grad_output needs the same leading batch dim")
    (batch,) = sizes
    from monoflow import _creation
    from monoflow.ops_shape import stack

    per_input = [[] for _ in inputs]
    for b in range(batch):
        keep = retain_graph or b < batch - 1
        res = _C.grad(outputs, inputs, [g[b] for g in grads], keep, create_graph, allow_unused)
        for i, r in enumerate(res):
            per_input[i].append(r)
    out = []
    for x, rs in zip(inputs, per_input):
        if all(r is None for r in rs):
            out.append(_creation.zeros((batch, *x.shape), dtype=x.dtype, device=x.device) if materialize_grads
                       else None)
        else:
            out.append(stack([_creation.zeros_like(x) if r is None else r for r in rs], 0))
    return tuple(out)


__all__ = ["Function", "FunctionCtx", "GradcheckError", "backward", "detect_anomaly", "enable_grad", "functional",
           "grad", "gradcheck", "gradgradcheck", "inference_mode", "is_anomaly_check_nan_enabled",
           "is_anomaly_enabled", "is_grad_enabled", "is_multithreading_enabled", "no_grad", "set_detect_anomaly",
           "set_grad_enabled", "set_multithreading_enabled", "Variable"]
