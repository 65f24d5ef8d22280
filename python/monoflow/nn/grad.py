"""torch.nn.grad: the gradients of a convolution with respect to its input and its weight, for
custom autograd Functions that call a convolution in their forward. Each is the convolution's own
backward, run through autograd on a zero input of the given size (the convolution is linear in each
argument, so the gradient does not depend on the value it is taken at)."""
from monoflow import _creation
from monoflow.autograd import grad as _autograd_grad
from monoflow.autograd.grad_mode import enable_grad
from monoflow.nn import functional as F

__all__ = ["conv1d_input", "conv1d_weight", "conv2d_input", "conv2d_weight", "conv3d_input", "conv3d_weight"]

_CONV = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}


def _input_grad(n, input_size, weight, grad_output, stride, padding, dilation, groups):
    with enable_grad():
        x = _creation.zeros(*input_size, dtype=grad_output.dtype, device=grad_output.device, requires_grad=True)
        out = _CONV[n](x, weight.detach(), None, stride, padding, dilation, groups)
        return _autograd_grad(out, x, grad_output)[0]


def _weight_grad(n, input, weight_size, grad_output, stride, padding, dilation, groups):
    with enable_grad():
        w = _creation.zeros(*weight_size, dtype=grad_output.dtype, device=grad_output.device, requires_grad=True)
        out = _CONV[n](input.detach(), w, None, stride, padding, dilation, groups)
        return _autograd_grad(out, w, grad_output)[0]


_SPATIAL = {1: "L", 2: "H, W", 3: "D, H, W"}
_KERNEL = {1: "k", 2: "kH, kW", 3: "kD, kH, kW"}
_EXAMPLES = {
    (1, "input"): ('nn.grad.conv1d_input((1, 1, 4), flow.ones(1, 1, 2), flow.ones(1, 1, 3)).tolist()', '[[[1.0, 2.0, 2.0, 1.0]]]'),
    (1, "weight"): ('nn.grad.conv1d_weight(flow.ones(1, 1, 4), (1, 1, 2), flow.ones(1, 1, 3)).tolist()', '[[[3.0, 3.0]]]'),
    (2, "input"): ('nn.grad.conv2d_input((1, 1, 3, 3), flow.ones(1, 1, 2, 2), flow.ones(1, 1, 2, 2))[0, 0, 1].tolist()', '[2.0, 4.0, 2.0]'),
    (2, "weight"): ('nn.grad.conv2d_weight(flow.ones(1, 1, 3, 3), (1, 1, 2, 2), flow.ones(1, 1, 2, 2)).tolist()', '[[[[4.0, 4.0], [4.0, 4.0]]]]'),
    (3, "input"): ('nn.grad.conv3d_input((1, 1, 2, 2, 2), flow.ones(1, 1, 1, 1, 1), flow.ones(1, 1, 2, 2, 2)).sum().item()', '8.0'),
    (3, "weight"): ('nn.grad.conv3d_weight(flow.ones(1, 1, 2, 2, 2), (1, 1, 1, 1, 1), flow.ones(1, 1, 2, 2, 2)).item()', '8.0'),
}
_ARGS_TAIL = """        grad_output (Tensor): the gradient of the output.
        stride (int or tuple): as the convolution's. Default: ``1``.
        padding (int or tuple): as the convolution's. Default: ``0``.
        dilation (int or tuple): as the convolution's. Default: ``1``.
        groups (int): as the convolution's. Default: ``1``."""


def _make(n, which):
    if which == "input":
        def fn(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
            return _input_grad(n, input_size, weight, grad_output, stride, padding, dilation, groups)
        args = (f"        input_size (sequence of int): the input's shape ``(N, C_in, {_SPATIAL[n]})``.\n"
                f"        weight (Tensor): the kernel ``(C_out, C_in / groups, {_KERNEL[n]})``.\n")
        of = "an input of shape `input_size`"
    else:
        def fn(input, weight_size, grad_output, stride=1, padding=0, dilation=1, groups=1):
            return _weight_grad(n, input, weight_size, grad_output, stride, padding, dilation, groups)
        args = (f"        input (Tensor): the input ``(N, C_in, {_SPATIAL[n]})``.\n"
                f"        weight_size (sequence of int): the kernel's shape ``(C_out, C_in / groups, {_KERNEL[n]})``.\n")
        of = "a weight of shape `weight_size`"
    call, result = _EXAMPLES[n, which]
    fn.__name__ = fn.__qualname__ = f"conv{n}d_{which}"
    fn.__doc__ = f"""The gradient of ``conv{n}d(input, weight)`` with respect to {of}.

    Args:
{args}{_ARGS_TAIL}

    Example::

        >>> {call}
        {result}
    """
    return fn


conv1d_input, conv1d_weight = _make(1, "input"), _make(1, "weight")
conv2d_input, conv2d_weight = _make(2, "input"), _make(2, "weight")
conv3d_input, conv3d_weight = _make(3, "input"), _make(3, "weight")
