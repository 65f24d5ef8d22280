"""OneFlow's quantization-aware-training convolutions (nn.QatConv1d/2d/3d): a Conv with its input
and weight fake-quantized (nn.MovingAverageMinMaxObserver for the input, nn.MinMaxObserver for the
weight, nn.FakeQuantization for both) before the convolution."""
from monoflow.nn.modules.conv import Conv1d, Conv2d, Conv3d
from monoflow.nn.modules.min_max_observer import FakeQuantization, MinMaxObserver, MovingAverageMinMaxObserver

__all__ = ["QatConv1d", "QatConv2d", "QatConv3d"]


class _QatConvMixin:
    def _init_fake_quants(self, quantization_formula, quantization_bit, quantization_scheme,
                          weight_quant_per_layer, input_quant_momentum):
        from monoflow import _creation, int64

        self.input_min_max_observer = MovingAverageMinMaxObserver(
            stop_update_after_iters=1, quantization_formula=quantization_formula,
            quantization_bit=quantization_bit, quantization_scheme=quantization_scheme,
            momentum=input_quant_momentum)
        self.register_buffer("current_train_step", _creation.zeros(1, dtype=int64))
        self.weight_min_max_observer = MinMaxObserver(
            quantization_formula=quantization_formula, quantization_bit=quantization_bit,
            quantization_scheme=quantization_scheme, per_layer_quantization=weight_quant_per_layer)
        self.fake_quantizer = FakeQuantization(quantization_formula=quantization_formula,
                                               quantization_bit=quantization_bit,
                                               quantization_scheme=quantization_scheme)

    def _fake_quantized(self, input):
        in_scale, in_zero_point = self.input_min_max_observer(input, self.current_train_step)
        w_scale, w_zero_point = self.weight_min_max_observer(self.weight)
        return (self.fake_quantizer(input, in_scale, in_zero_point),
                self.fake_quantizer(self.weight, w_scale, w_zero_point))


_ARGS_DOC = """
    Args:
        in_channels (int): the channels of the input.
        out_channels (int): the channels of the output.
        kernel_size (int or tuple): the size of the kernel.
        stride (int or tuple): the step of the kernel. Default: ``1``.
        padding (int, tuple or str): zero padding of each spatial dim (as in the Conv). Default: ``0``.
        dilation (int or tuple): the spacing between kernel elements. Default: ``1``.
        groups (int): blocked connections from input to output channels. Default: ``1``.
        bias (bool): learn an additive bias. Default: ``True``.
        padding_mode (str): ``'zeros'``, ``'reflect'``, ``'replicate'`` or ``'circular'``. Default: ``'zeros'``.
        quantization_formula (str): ``"google"`` or ``"cambricon"``. Default: ``"google"``.
        quantization_bit (int): the number of bits, 2 to 8. Default: ``8``.
        quantization_scheme (str): ``"symmetric"`` or ``"affine"``. Default: ``"symmetric"``.
        weight_quant_per_layer (bool): one weight scale for the whole weight; ``False``: one per output
            channel. Default: ``True``.
        input_quant_momentum (float): the momentum of the input's running min/max. Default: ``0.95``.
"""


def _qat(base, n, conv_name):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 bias=True, padding_mode="zeros", quantization_formula="google", quantization_bit=8,
                 quantization_scheme="symmetric", weight_quant_per_layer=True, input_quant_momentum=0.95):
        base.__init__(self, in_channels, out_channels, kernel_size, stride=stride, padding=padding,
                      dilation=dilation, groups=groups, bias=bias, padding_mode=padding_mode)
        self._init_fake_quants(quantization_formula, quantization_bit, quantization_scheme,
                               weight_quant_per_layer, input_quant_momentum)

    def forward(self, input):
        from monoflow.nn import functional as F

        x, w = self._fake_quantized(input)
        return self._conv_forward(getattr(F, conv_name), x, w, self.bias)

    shape = ", ".join(["8"] * n)
    doc = (f"""A {base.__name__} whose input and weight are fake-quantized first (OneFlow's
    ``nn.QatConv{n}d``), for quantization-aware training.

    The input's scale and zero point come from an ``nn.MovingAverageMinMaxObserver``
    (``input_min_max_observer``, stepped by the ``current_train_step`` buffer), the weight's from an
    ``nn.MinMaxObserver`` (``weight_min_max_observer``); ``nn.FakeQuantization`` (``fake_quantizer``)
    rounds both to the quantization grid with a straight-through gradient, then the convolution runs
    as in {base.__name__}.
""" + _ARGS_DOC + f"""
    Example::

        >>> m = nn.QatConv{n}d(2, 4, 3, padding=1, quantization_bit=8)
        >>> m(flow.rand(1, 2, {shape})).shape
        monoflow.Size([1, 4, {shape}])
    """)
    return type(f"QatConv{n}d", (_QatConvMixin, base),
                {"__init__": __init__, "forward": forward, "__doc__": doc, "__module__": __name__,
                 "__qualname__": f"QatConv{n}d"})


QatConv1d = _qat(Conv1d, 1, "conv1d")
QatConv2d = _qat(Conv2d, 2, "conv2d")
QatConv3d = _qat(Conv3d, 3, "conv3d")
