"""OneFlow's quantization-aware-training modules: MinMaxObserver (scale and zero point from a
tensor's range) and FakeQuantization (quantize then dequantize, with a straight-through gradient).
Compositions of monoflow ops; the formulas are OneFlow's "google" and "cambricon" ones."""
import math

from monoflow.autograd import no_grad
from monoflow.nn.module import Module

__all__ = ["MinMaxObserver", "MovingAverageMinMaxObserver", "FakeQuantization", "Quantization"]

_FORMULAS = ("google", "cambricon")
_SCHEMES = ("symmetric", "affine")


def _check_options(op, formula, bit, scheme):
    if formula not in _FORMULAS:
        raise ValueError(f"{op}: quantization_formula must be 'google' or 'cambricon', got {formula!r}")
    if scheme not in _SCHEMES:
        raise ValueError(f"{op}: quantization_scheme must be 'symmetric' or 'affine', got {scheme!r}")
    if isinstance(bit, bool) or not isinstance(bit, int) or not 2 <= bit <= 8:
        raise ValueError(f"{op}: quantization_bit must be an int in [2, 8], got {bit!r}")


class MinMaxObserver(Module):
    """Computes the quantization scale and zero point of a tensor from its min and max (OneFlow's
    ``nn.MinMaxObserver``).

    ``"google"`` formula, ``"symmetric"`` scheme: ``scale = max|x| / (2^(bit-1) - 1)``, zero point 0;
    ``"affine"``: ``scale = (max - min) / (2^bit - 1)``, ``zero_point = -round(min / scale)``.
    ``"cambricon"`` formula: ``scale = floor(log2(max|x|)) - (bit - 2)`` (a power-of-two shift),
    zero point 0, always per layer.

    Args:
        quantization_formula (str): ``"google"`` or ``"cambricon"``. Default: ``"google"``.
        quantization_bit (int): the number of bits, 2 to 8. Default: ``8``.
        quantization_scheme (str): ``"symmetric"`` or ``"affine"``. Default: ``"symmetric"``.
        per_layer_quantization (bool): one scale for the whole tensor; ``False``: one per slice
            along dim 0 (per channel). Default: ``True``.

    Shape:
        - Input: any shape.
        - Output: ``(scale, zero_point)``, each of shape ``(1,)`` per layer or ``(input.shape[0],)``
          per channel, in the input's dtype.

    Example::

        >>> obs = nn.MinMaxObserver(quantization_bit=8)
        >>> scale, zero_point = obs(flow.tensor([[-1.27, 0.5], [0.25, 1.0]]))
        >>> scale, zero_point
        (tensor([0.0100]), tensor([0.]))
    """

    def __init__(self, quantization_formula="google", quantization_bit=8, quantization_scheme="symmetric",
                 per_layer_quantization=True):
        super().__init__()
        _check_options("MinMaxObserver", quantization_formula, quantization_bit, quantization_scheme)
        self.quantization_formula = quantization_formula
        self.quantization_bit = quantization_bit
        self.quantization_scheme = quantization_scheme
        self.per_layer_quantization = per_layer_quantization

    def forward(self, input):
        with no_grad():
            per_layer = self.per_layer_quantization or self.quantization_formula == "cambricon"
            x = input.detach().reshape(1 if per_layer else input.shape[0], -1)
            bit = self.quantization_bit
            if self.quantization_formula == "cambricon":
                top = float(x.abs().max())
                shift = math.floor(math.log2(top)) - (bit - 2) if top > 0 else -(bit - 2)
                scale = input.new_full((1,), float(shift))
                return scale, input.new_zeros((1,))
            if self.quantization_scheme == "symmetric":
                scale = x.abs().amax(dim=1) / (2.0 ** (bit - 1) - 1)
                return scale.to(input.dtype), scale.new_zeros(scale.shape).to(input.dtype)
            lo, hi = x.amin(dim=1), x.amax(dim=1)
            scale = (hi - lo) / (2.0 ** bit - 1)
            zero_point = -(lo / scale).round()
            return scale.to(input.dtype), zero_point.to(input.dtype)

    def extra_repr(self):
        return (f"quantization_formula={self.quantization_formula!r}, quantization_bit={self.quantization_bit}, "
                f"quantization_scheme={self.quantization_scheme!r}, "
                f"per_layer_quantization={self.per_layer_quantization}")


class MovingAverageMinMaxObserver(Module):
    """Per-layer scale and zero point from running min/max statistics (OneFlow's
    ``nn.MovingAverageMinMaxObserver``), for activations in quantization-aware training.

    In training mode, while ``current_train_step < stop_update_after_iters``, each call folds the
    input's max (``max|x|`` for the symmetric scheme and the cambricon formula) and min into the
    ``moving_max`` / ``moving_min`` buffers: the first call takes them as they are, later calls blend
    ``stat = momentum * stat + (1 - momentum) * new``. The scale and zero point then follow
    :class:`MinMaxObserver`'s formulas from the buffers. In eval mode the buffers are used as they are.

    Args:
        stop_update_after_iters (int): the step from which the statistics stay fixed. Default: ``1``.
        quantization_formula (str): ``"google"`` or ``"cambricon"``. Default: ``"google"``.
        quantization_bit (int): the number of bits, 2 to 8. Default: ``8``.
        quantization_scheme (str): ``"symmetric"`` or ``"affine"``. Default: ``"symmetric"``.
        momentum (float): the weight of the running statistic. Default: ``0.95``.
        training (bool, optional): older OneFlow releases' keyword: sets the module's training
            mode (``True``: the statistics update; ``False``: as ``eval()``), as ``train(training)``.
            Default: ``None`` (the usual training mode of a new module).

    Shape:
        - Input: ``(input, current_train_step)``, ``current_train_step`` a one-element integer tensor.
        - Output: ``(scale, zero_point)``, each of shape ``(1,)``.

    Example::

        >>> obs = nn.MovingAverageMinMaxObserver(quantization_bit=8)
        >>> scale, zero_point = obs(flow.tensor([-1.27, 0.5]), flow.tensor([0]))
        >>> scale, obs.moving_max
        (tensor([0.0100]), tensor([1.2700]))
    """

    def __init__(self, stop_update_after_iters=1, quantization_formula="google", quantization_bit=8,
                 quantization_scheme="symmetric", momentum=0.95, *, training=None):
        super().__init__()
        if training is not None:
            self.train(bool(training))
        _check_options("MovingAverageMinMaxObserver", quantization_formula, quantization_bit, quantization_scheme)
        from monoflow import _creation

        self.stop_update_after_iters = stop_update_after_iters
        self.quantization_formula = quantization_formula
        self.quantization_bit = quantization_bit
        self.quantization_scheme = quantization_scheme
        self.momentum = momentum
        self.register_buffer("moving_max", _creation.zeros(1))
        self.register_buffer("moving_min", _creation.zeros(1))

    def forward(self, input, current_train_step):
        with no_grad():
            x = input.detach().to(self.moving_max.dtype)
            symmetric = self.quantization_formula == "cambricon" or self.quantization_scheme == "symmetric"
            step = int(current_train_step.reshape(-1)[0]) if hasattr(current_train_step, "reshape") \
                else int(current_train_step)
            if self.training and step < self.stop_update_after_iters:
                new_max = x.abs().max() if symmetric else x.max()
                new_min = new_max if symmetric else x.min()
                for buf, new in ((self.moving_max, new_max), (self.moving_min, new_min)):
                    if float(buf[0]) == 0.0:
                        buf.fill_(float(new))
                    else:
                        buf.mul_(self.momentum).add_(new * (1 - self.momentum))
            bit = self.quantization_bit
            hi, lo = self.moving_max.clone(), self.moving_min.clone()
            if self.quantization_formula == "cambricon":
                top = float(hi[0])
                shift = math.floor(math.log2(top)) - (bit - 2) if top > 0 else -(bit - 2)
                return input.new_full((1,), float(shift)), input.new_zeros((1,))
            if symmetric:
                scale = hi / (2.0 ** (bit - 1) - 1)
                return scale.to(input.dtype), input.new_zeros((1,))
            scale = (hi - lo) / (2.0 ** bit - 1)
            return scale.to(input.dtype), (-(lo / scale).round()).to(input.dtype)

    def extra_repr(self):
        return (f"stop_update_after_iters={self.stop_update_after_iters}, "
                f"quantization_formula={self.quantization_formula!r}, quantization_bit={self.quantization_bit}, "
                f"quantization_scheme={self.quantization_scheme!r}, momentum={self.momentum}")


def _levels(m, input, scale, zero_point):
    """The integer levels (as input's dtype) of input under m's formula, with the broadcast scale
    (a step; 2**shift for cambricon) and zero point (0 for the symmetric forms)."""
    bit = m.quantization_bit
    view = (-1,) + (1,) * (input.dim() - 1) if scale.numel() > 1 else ()
    s = scale.detach().to(input.dtype).reshape(view)
    z = zero_point.detach().to(input.dtype).reshape(view)
    x = input.detach()
    if m.quantization_formula == "cambricon":
        s = 2.0 ** s
    if m.quantization_formula == "cambricon" or m.quantization_scheme == "symmetric":
        top = 2.0 ** (bit - 1) - 1
        return (x / s).round().clamp(-top, top), s, z * 0
    return (x / s + z).round().clamp(0, 2.0 ** bit - 1), s, z


class _QuantizationOptions(Module):
    """The options FakeQuantization and Quantization share, checked and shown alike."""

    def __init__(self, quantization_formula, quantization_bit, quantization_scheme):
        super().__init__()
        _check_options(type(self).__name__, quantization_formula, quantization_bit, quantization_scheme)
        self.quantization_formula = quantization_formula
        self.quantization_bit = quantization_bit
        self.quantization_scheme = quantization_scheme

    def extra_repr(self):
        return (f"quantization_formula={self.quantization_formula!r}, quantization_bit={self.quantization_bit}, "
                f"quantization_scheme={self.quantization_scheme!r}")


class FakeQuantization(_QuantizationOptions):
    """Quantizes then dequantizes a tensor with a given scale and zero point (OneFlow's
    ``nn.FakeQuantization``), for quantization-aware training; the gradient passes straight through.

    ``"google"`` formula, ``"symmetric"``: ``clamp(round(x / s), -(2^(bit-1) - 1), 2^(bit-1) - 1) * s``;
    ``"affine"``: ``(clamp(round(x / s + z), 0, 2^bit - 1) - z) * s``. ``"cambricon"``: the symmetric
    form with ``s = 2^scale`` (``scale`` holds the shift). Rounding is half to even. A ``scale`` with
    one element per slice along dim 0 quantizes per channel.

    Args:
        quantization_formula (str): ``"google"`` or ``"cambricon"``. Default: ``"google"``.
        quantization_bit (int): the number of bits, 2 to 8. Default: ``8``.
        quantization_scheme (str): ``"symmetric"`` or ``"affine"``. Default: ``"symmetric"``.

    Shape:
        - Input: ``(input, scale, zero_point)``, as :class:`MinMaxObserver` returns them.
        - Output: ``input``'s shape.

    Example::

        >>> x = flow.tensor([0.123, -0.7, 1.0])
        >>> scale, zero_point = nn.MinMaxObserver(quantization_bit=2)(x)
        >>> nn.FakeQuantization(quantization_bit=2)(x, scale, zero_point)
        tensor([ 0., -1.,  1.])
    """

    def __init__(self, quantization_formula="google", quantization_bit=8, quantization_scheme="symmetric"):
        super().__init__(quantization_formula, quantization_bit, quantization_scheme)

    def forward(self, input, scale, zero_point):
        with no_grad():
            levels, s, z = _levels(self, input, scale, zero_point)
            q = (levels - z) * s
        return input + (q - input.detach())  # the values of q, the gradient of the identity


class Quantization(_QuantizationOptions):
    """Quantizes a tensor to its integer levels with a given scale and zero point (OneFlow's
    ``nn.Quantization``); the levels keep the input's dtype.

    ``"google"`` formula, ``"symmetric"``: ``clamp(round(x / s), -(2^(bit-1) - 1), 2^(bit-1) - 1)``;
    ``"affine"``: ``clamp(round(x / s + z), 0, 2^bit - 1)``; ``"cambricon"``: the symmetric form with
    ``s = 2^scale``. Rounding is half to even; a ``scale`` per slice along dim 0 quantizes per channel.

    Args:
        quantization_formula (str): ``"google"`` or ``"cambricon"``. Default: ``"google"``.
        quantization_bit (int): the number of bits, 2 to 8. Default: ``8``.
        quantization_scheme (str): ``"symmetric"`` or ``"affine"``. Default: ``"symmetric"``.

    Shape:
        - Input: ``(input, scale, zero_point)``, as :class:`MinMaxObserver` returns them.
        - Output: ``input``'s shape.

    Example::

        >>> x = flow.tensor([0.123, -0.7, 1.0])
        >>> scale, zero_point = nn.MinMaxObserver(quantization_bit=2)(x)
        >>> nn.Quantization(quantization_bit=2)(x, scale, zero_point)
        tensor([ 0., -1.,  1.])
    """

    def __init__(self, quantization_formula="google", quantization_bit=8, quantization_scheme="symmetric"):
        super().__init__(quantization_formula, quantization_bit, quantization_scheme)

    def forward(self, input, scale, zero_point):
        with no_grad():
            return _levels(self, input, scale, zero_point)[0]

