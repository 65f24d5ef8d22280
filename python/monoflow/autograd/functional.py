"""Higher-order derivatives of whole functions (torch.autograd.functional):
vjp, jvp, jacobian, hessian, vhp, hvp, all built on autograd.grad.

``func`` takes tensors (a tensor or a tuple of them) and returns a tensor or
a tuple; the results follow torch's nesting: a Jacobian is a tensor when
func has one input and one output, a tuple over inputs or outputs when one
side is a tuple, a tuple (over outputs) of tuples (over inputs) when both are.
jvp and hvp use the double-backward trick (a vjp of a vjp), so they need
functions whose backward is itself differentiable.
"""
from monoflow import _C, _creation
from monoflow.autograd.grad_mode import enable_grad
from monoflow.ops_shape import stack

__all__ = ["vjp", "jvp", "jacobian", "hessian", "vhp", "hvp"]


def _as_tuple(x, what, fn_name):
    is_tuple = isinstance(x, (tuple, list))
    items = tuple(x) if is_tuple else (x,)
    for i, t in enumerate(items):
        if not isinstance(t, _C.TensorBase):
            raise TypeError(f"The {what} given to {fn_name} must be either a Tensor or a tuple of Tensors but "
                            f"the value at index {i} has type {type(t).__name__}.")
    return is_tuple, items


def _grad_inputs(inputs, create_graph):
    """Fresh leaves for the inputs (requires_grad on), keeping their graph when create_graph."""
    return tuple(t.view_as(t) if create_graph and t.requires_grad else t.detach().requires_grad_()
                 for t in inputs)


def _autograd_grad(*args, **kwargs):
    # (autograd.grad is defined in the package that imports this module)
    from monoflow.autograd import grad

    return grad(*args, **kwargs)


def _grad(outputs, inputs, grad_outputs, create_graph, strict, what):
    outs = [(o, g) for o, g in zip(outputs, grad_outputs) if o.requires_grad]
    if not outs:
        if strict:
            raise RuntimeError(f"The output of the user-provided function is independent of input {0}. This is not "
                               "allowed in strict mode.")
        return tuple(_creation.zeros_like(x) for x in inputs)
    res = _autograd_grad([o for o, _ in outs], inputs, [g for _, g in outs], retain_graph=True, create_graph=create_graph,
               allow_unused=True)
    result = []
    for i, (r, x) in enumerate(zip(res, inputs)):
        if r is None:
            if strict:
                raise RuntimeError(f"The output of the user-provided function is independent of input {i}. This is "
                                   f"not allowed in strict mode when computing the {what}.")
            r = _creation.zeros_like(x)
        result.append(r)
    return tuple(result)


def _fill_v(v, outputs, fn_name, what):
    if v is None:
        if len(outputs) != 1 or outputs[0].numel() != 1:
            raise RuntimeError(f"The vector v can only be None if the user-provided function returns a single "
                               f"Tensor with a single element ({fn_name}).")
        return (_creation.ones_like(outputs[0]),)
    _, v = _as_tuple(v, what, fn_name)
    if len(v) != len(outputs):
        raise RuntimeError(f"v has invalid size: should be {len(outputs)} but got {len(v)}.")
    for vi, o in zip(v, outputs):
        if tuple(vi.shape) != tuple(o.shape):
            raise RuntimeError(f"Mismatch in shape: v has shape {list(vi.shape)} and the function's output has "
                               f"shape {list(o.shape)}.")
    return v


def _finish(items, is_tuple, create_graph):
    items = tuple(t if create_graph else t.detach() for t in items)
    return items if is_tuple else items[0]


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), v^T J)."""
    in_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
    with enable_grad():
        inputs = _grad_inputs(inputs, create_graph)
        out = func(*inputs)
        out_tuple, outputs = _as_tuple(out, "outputs of the user-provided function", "vjp")
        v = _fill_v(v, outputs, "vjp", "v")
        g = _grad(outputs, inputs, v, create_graph, strict, "vjp")
    return _finish(outputs, out_tuple, create_graph), _finish(g, in_tuple, create_graph)


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), J v), by differentiating the vjp u -> u^T J with respect to u."""
    in_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
    if v is None:
        if len(inputs) != 1 or inputs[0].numel() != 1:
            raise RuntimeError("The vector v can only be None if the input to the user-provided function is a "
                               "single Tensor with a single element.")
        v = (_creation.ones_like(inputs[0]),)
    else:
        _, v = _as_tuple(v, "v", "jvp")
        if len(v) != len(inputs):
            raise RuntimeError(f"v has invalid size: should be {len(inputs)} but got {len(v)}.")
    with enable_grad():
        inputs = _grad_inputs(inputs, create_graph)
        out = func(*inputs)
        out_tuple, outputs = _as_tuple(out, "outputs of the user-provided function", "jvp")
        dummies = tuple(_creation.zeros_like(o).requires_grad_() for o in outputs)
        g = _grad(outputs, inputs, dummies, True, strict, "jvp")
        res = _grad(g, dummies, v, create_graph, strict, "jvp")
    return _finish(outputs, out_tuple, create_graph), _finish(res, out_tuple, create_graph)


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False, strategy="reverse-mode"):
    """The Jacobian of func at inputs: block (i, j) has shape outputs[i].shape + inputs[j].shape."""
    if strategy not in ("reverse-mode", "forward-mode"):
        raise ValueError('Expected strategy to be either "forward-mode" or "reverse-mode".')
    in_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
    with enable_grad():
        inputs = _grad_inputs(inputs, create_graph)
        out = func(*inputs)
        out_tuple, outputs = _as_tuple(out, "outputs of the user-provided function", "jacobian")
        blocks = []
        for o in outputs:
            flat = o.reshape(-1)
            rows = [[] for _ in inputs]
            for k in range(flat.numel()):
                if flat.requires_grad:
                    gs = _autograd_grad([flat[k]], inputs, retain_graph=True, create_graph=create_graph,
                                        allow_unused=True)
                else:
                    gs = (None,) * len(inputs)
                for j, (g, x) in enumerate(zip(gs, inputs)):
                    if g is None:
                        if strict:
                            raise RuntimeError(f"Output {len(blocks)} of the user-provided function is independent "
                                               f"of input {j}. This is not allowed in strict mode.")
                        g = _creation.zeros_like(x)
                    rows[j].append(g)
            per_input = []
            for j, x in enumerate(inputs):
                if rows[j]:
                    jac = stack(rows[j], 0).reshape(*o.shape, *x.shape)
                else:
                    jac = _creation.zeros((*o.shape, *x.shape), dtype=x.dtype, device=x.device)
                per_input.append(jac if create_graph else jac.detach())
            blocks.append(tuple(per_input) if in_tuple else per_input[0])
    return tuple(blocks) if out_tuple else blocks[0]


def _scalar_output(func, fn_name):
    def wrapped(*inputs):
        out = func(*inputs)
        is_tuple, outs = _as_tuple(out, "outputs of the user-provided function", fn_name)
        if is_tuple or outs[0].numel() != 1:
            raise RuntimeError(f"The function given to {fn_name} should return a single Tensor with a single "
                               f"element, got {'a tuple' if is_tuple else list(outs[0].shape)}")
        return outs[0]

    return wrapped


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False, outer_jacobian_strategy="reverse-mode"):
    """The Hessian of a scalar function: the Jacobian of its gradient."""
    in_tuple, inputs_t = _as_tuple(inputs, "inputs", "hessian")
    scalar = _scalar_output(func, "hessian")

    def gradient(*xs):
        out = scalar(*xs)
        g = _grad((out,), xs, (_creation.ones_like(out),), True, strict, "hessian")
        return g if in_tuple else g[0]  # one input Tensor: one Hessian Tensor, as torch

    return jacobian(gradient, inputs_t if in_tuple else inputs_t[0], create_graph=create_graph, strict=strict)


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), v^T H) of a scalar function."""
    in_tuple, inputs = _as_tuple(inputs, "inputs", "vhp")
    scalar = _scalar_output(func, "vhp")
    if v is None:
        if len(inputs) != 1 or inputs[0].numel() != 1:
            raise RuntimeError("The vector v can only be None if the input to the user-provided function is a "
                               "single Tensor with a single element.")
        v = (_creation.ones_like(inputs[0]),)
    else:
        _, v = _as_tuple(v, "v", "vhp")
    with enable_grad():
        inputs = _grad_inputs(inputs, create_graph)
        out = scalar(*inputs)
        g = _grad((out,), inputs, (_creation.ones_like(out),), True, strict, "vhp")
        res = _grad(g, inputs, v, create_graph, strict, "vhp")
    return _finish((out,), False, create_graph), _finish(res, in_tuple, create_graph)


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), H v) of a scalar function (H is symmetric, so this is v^T H transposed)."""
    return vhp(func, inputs, v, create_graph, strict)
