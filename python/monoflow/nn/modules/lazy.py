"""Lazy modules: layers whose input size is read from the first input they see.

Until the first forward their parameters are UninitializedParameter; a forward pre-hook
materialises them from the input's shape, runs reset_parameters, and turns the module into its
ordinary class (``cls_to_become``: LazyLinear becomes Linear), as torch does.
"""
from monoflow.nn.modules.batchnorm import BatchNorm1d, BatchNorm2d, BatchNorm3d
from monoflow.nn.modules.conv import Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from monoflow.nn.modules.instancenorm import InstanceNorm1d, InstanceNorm2d, InstanceNorm3d
from monoflow.nn.modules.linear import Linear
from monoflow.nn.parameter import UninitializedBuffer, UninitializedParameter, is_lazy

__all__ = ["LazyModuleMixin", "LazyLinear", "LazyConv1d", "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d",
           "LazyConvTranspose2d", "LazyConvTranspose3d", "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d",
           "LazyInstanceNorm1d", "LazyInstanceNorm2d", "LazyInstanceNorm3d"]


class LazyModuleMixin:
    """Mixin for modules that infer their parameters' shapes on the first forward.

    Subclasses implement ``initialize_parameters(*args)``, which materialises every uninitialised
    parameter from the inputs, and set ``cls_to_become`` to the class the module turns into.

    Example::

        >>> m = nn.LazyLinear(2)
        >>> m.has_uninitialized_params()
        True
        >>> _ = m(flow.randn(1, 3))
        >>> type(m).__name__  # materialised: now a plain Linear
        'Linear'
    """

    cls_to_become = None
    _inferred = None  # the size the first forward infers ("in_features", "in_channels")

    def reset_parameters(self):
        # the base layer's initialisation, once the first forward has given the sizes
        if not self.has_uninitialized_params() and getattr(self, self._inferred) != 0:
            super().reset_parameters()

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._initialize_hook = self.register_forward_pre_hook(LazyModuleMixin._infer_parameters,
                                                               with_kwargs=True)

    def has_uninitialized_params(self):
        """True while a parameter or buffer of this module is still uninitialised."""
        tensors = list(self._parameters.values()) + list(self._buffers.values())
        return any(is_lazy(t) for t in tensors)

    def initialize_parameters(self, *args, **kwargs):
        raise NotImplementedError(f"initialize_parameters is not implemented for {type(self).__name__}")

    def _infer_parameters(self, args, kwargs=None):
        self.initialize_parameters(*args, **(kwargs or {}))
        if self.has_uninitialized_params():
            raise RuntimeError(f"module {type(self).__name__} has not been fully initialized")
        self._initialize_hook.remove()
        del self._initialize_hook
        if self.cls_to_become is not None:
            self.__class__ = self.cls_to_become

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs):
        # A checkpoint gives the shapes: materialise from it, then copy as usual.
        from monoflow import _C

        for store in (self._parameters, self._buffers):
            for name, t in store.items():
                key = prefix + name
                if t is not None and is_lazy(t) and key in state_dict \
                        and isinstance(state_dict[key], _C.TensorBase):
                    t.materialize(state_dict[key].shape)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                      unexpected_keys, error_msgs)
        if not self.has_uninitialized_params() and hasattr(self, "_initialize_hook"):
            self._initialize_hook.remove()
            del self._initialize_hook
            if self.cls_to_become is not None:
                self.__class__ = self.cls_to_become


class LazyLinear(LazyModuleMixin, Linear):
    """A :class:`Linear` whose ``in_features`` is inferred from ``input.shape[-1]`` on the first forward.

    Args:
        out_features (int): size of each output sample.
        bias (bool): whether to learn an additive bias. Default: ``True``.
        device (monoflow.device, optional): where the parameters are made. Default: the default device.
        dtype (monoflow.dtype, optional): the parameters' dtype. Default: the default dtype.

    Example::

        >>> m = nn.LazyLinear(3)
        >>> m(flow.randn(2, 5)).shape
        monoflow.Size([2, 3])
        >>> type(m).__name__, m.in_features
        ('Linear', 5)
    """

    cls_to_become = Linear
    _inferred = "in_features"

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        super().__init__(0, 0, False, device=device, dtype=dtype)
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def initialize_parameters(self, input, *args, **kwargs):
        if self.has_uninitialized_params():
            from monoflow import no_grad

            with no_grad():
                self.in_features = input.shape[-1]
                self.weight.materialize((self.out_features, self.in_features))
                if self.bias is not None:
                    self.bias.materialize((self.out_features,))
                self.reset_parameters()


class _LazyConvNd(LazyModuleMixin):
    _n = None
    _inferred = "in_channels"

    def _lazy_setup(self, out_channels, groups, bias, device, dtype):
        # after the base class built an empty (in_channels=0) layer: the real sizes come on the first forward
        self.out_channels = out_channels
        if out_channels % groups != 0:
            raise ValueError(f"{type(self).__name__}: out_channels must be divisible by groups")
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def initialize_parameters(self, input, *args, **kwargs):
        if self.has_uninitialized_params():
            from monoflow import no_grad

            if input.dim() not in (self._n + 1, self._n + 2):
                raise RuntimeError(f"{type(self).__name__}: expected a {self._n + 1}D (unbatched) or "
                                   f"{self._n + 2}D (batched) input, but got input of size {list(input.shape)}")
            in_channels = input.shape[0 if input.dim() == self._n + 1 else 1]
            if in_channels % self.groups != 0:
                raise ValueError(f"{type(self).__name__}: in_channels must be divisible by groups")
            with no_grad():
                self.in_channels = in_channels
                if self.transposed:
                    self.weight.materialize((in_channels, self.out_channels // self.groups, *self.kernel_size))
                else:
                    self.weight.materialize((self.out_channels, in_channels // self.groups, *self.kernel_size))
                if self.bias is not None:
                    self.bias.materialize((self.out_channels,))
                self.reset_parameters()


def _public(cls, base):
    # the generated class under its public name, as nn.Lazy<Base>
    cls.__name__ = cls.__qualname__ = "Lazy" + base.__name__
    cls.__module__ = "monoflow.nn"
    return cls


def _lazy_conv(base, n):
    class LazyConv(_LazyConvNd, base):
        __doc__ = f"""A :class:`{base.__name__}` whose ``in_channels`` is inferred from the input on the first
        forward (``input.shape[1]``, or ``input.shape[0]`` unbatched); it then becomes a {base.__name__}.

        Args:
            out_channels (int): number of output channels.
            kernel_size (int or tuple): size of the kernel.
            stride (int or tuple): stride of the convolution. Default: ``1``.
            padding (int, tuple or str): padding on each side, or ``'same'``/``'valid'``. Default: ``0``.
            dilation (int or tuple): spacing between kernel elements. Default: ``1``.
            groups (int): number of blocked connections. Default: ``1``.
            bias (bool): whether to learn an additive bias. Default: ``True``.
            padding_mode (str): ``'zeros'`` only. Default: ``'zeros'``.
            device (monoflow.device, optional): where the parameters are made. Default: the default device.
            dtype (monoflow.dtype, optional): the parameters' dtype. Default: the default dtype.

        Example::

            >>> m = nn.Lazy{base.__name__}(4, 3)
            >>> _ = m(flow.randn(1, 2, *([5] * {n})))
            >>> m.in_channels, type(m).__name__
            (2, '{base.__name__}')
        """
        cls_to_become = base
        _n = n

        def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                     padding_mode="zeros", device=None, dtype=None):
            # in_channels=0 builds an empty weight; the real one comes on the first forward.
            super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode,
                             device=device, dtype=dtype)
            self._lazy_setup(out_channels, groups, bias, device, dtype)

    return _public(LazyConv, base)


LazyConv1d = _lazy_conv(Conv1d, 1)
LazyConv2d = _lazy_conv(Conv2d, 2)
LazyConv3d = _lazy_conv(Conv3d, 3)
LazyLinear.__module__ = "monoflow.nn"


def _lazy_conv_transpose(base, n):
    class LazyConvTranspose(_LazyConvNd, base):
        __doc__ = f"""A :class:`{base.__name__}` whose ``in_channels`` is inferred from the input on the first
        forward (``input.shape[1]``, or ``input.shape[0]`` unbatched); it then becomes a {base.__name__}.

        Args:
            out_channels (int): number of output channels.
            kernel_size (int or tuple): size of the kernel.
            stride (int or tuple): stride of the convolution. Default: ``1``.
            padding (int or tuple): implicit zero padding removed from each side. Default: ``0``.
            output_padding (int or tuple): extra size added to one side of the output. Default: ``0``.
            groups (int): number of blocked connections. Default: ``1``.
            bias (bool): whether to learn an additive bias. Default: ``True``.
            dilation (int or tuple): spacing between kernel elements. Default: ``1``.
            padding_mode (str): ``'zeros'`` only. Default: ``'zeros'``.
            device (monoflow.device, optional): where the parameters are made. Default: the default device.
            dtype (monoflow.dtype, optional): the parameters' dtype. Default: the default dtype.

        Example::

            >>> m = nn.Lazy{base.__name__}(4, 3)
            >>> _ = m(flow.randn(1, 2, *([5] * {n})))
            >>> m.in_channels, type(m).__name__
            (2, '{base.__name__}')
        """
        cls_to_become = base
        _n = n

        def __init__(self, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1, bias=True,
                     dilation=1, padding_mode="zeros", device=None, dtype=None):
            super().__init__(0, 0, kernel_size, stride, padding, output_padding, groups, False, dilation,
                             padding_mode, device=device, dtype=dtype)
            self._lazy_setup(out_channels, groups, bias, device, dtype)

    return _public(LazyConvTranspose, base)


LazyConvTranspose1d = _lazy_conv_transpose(ConvTranspose1d, 1)
LazyConvTranspose2d = _lazy_conv_transpose(ConvTranspose2d, 2)
LazyConvTranspose3d = _lazy_conv_transpose(ConvTranspose3d, 3)


class _LazyNormBase(LazyModuleMixin):
    # num_features comes from the channel dim of the first input; affine parameters and running
    # statistics wait uninitialised until then.
    _inferred = "num_features"
    _spatial = None  # spatial dims of an unbatched input minus one (None: every input is batched)

    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, device=None, dtype=None,
                 *, bias=True):
        super().__init__(0, eps, momentum, False, False, device=device, dtype=dtype)
        self.affine, self.track_running_stats = affine, track_running_stats
        if affine:
            self.weight = UninitializedParameter(device=device, dtype=dtype)
            self.bias = UninitializedParameter(device=device, dtype=dtype) if bias else None
        if track_running_stats:
            from monoflow._creation import tensor
            from monoflow._dtypes import int64

            self.running_mean = UninitializedBuffer(device=device, dtype=dtype)
            self.running_var = UninitializedBuffer(device=device, dtype=dtype)
            self.num_batches_tracked = tensor(0, dtype=int64, device=device)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input, *args, **kwargs):
        if self.has_uninitialized_params():
            from monoflow import no_grad

            unbatched = self._spatial is not None and input.dim() == self._spatial + 1
            self.num_features = input.shape[0 if unbatched else 1]
            with no_grad():
                for t in (self.weight, self.bias, self.running_mean, self.running_var):
                    if t is not None and is_lazy(t):
                        t.materialize((self.num_features,))
                self.reset_parameters()


def _lazy_norm(base, spatial=None):
    class LazyNorm(_LazyNormBase, base):
        __doc__ = f"""A :class:`{base.__name__}` whose ``num_features`` is inferred from the input's channel
        dimension on the first forward; it then becomes a {base.__name__}.

        Args:
            eps (float): added to the variance for stability. Default: ``1e-5``.
            momentum (float, optional): the weight of the new batch in the running statistics. Default:
                ``0.1``.
            affine (bool): learn a per-channel ``weight`` and ``bias``. Default: ``True``.
            track_running_stats (bool): keep running statistics. Default: ``True``.
            device (monoflow.device, optional): where the tensors are made. Default: the default device.
            dtype (monoflow.dtype, optional): their dtype. Default: the default dtype.
            bias (bool, keyword only): learn ``bias`` (with ``affine``). Default: ``True``.

        Example::

            >>> m = nn.Lazy{base.__name__}()
            >>> _ = m(flow.randn(2, 3, *([4] * {base.__name__[-2]})))
            >>> m.num_features, type(m).__name__
            (3, '{base.__name__}')
        """
        cls_to_become = base
        _spatial = spatial

    return _public(LazyNorm, base)


LazyBatchNorm1d = _lazy_norm(BatchNorm1d)
LazyBatchNorm2d = _lazy_norm(BatchNorm2d)
LazyBatchNorm3d = _lazy_norm(BatchNorm3d)
LazyInstanceNorm1d = _lazy_norm(InstanceNorm1d, 1)
LazyInstanceNorm2d = _lazy_norm(InstanceNorm2d, 2)
LazyInstanceNorm3d = _lazy_norm(InstanceNorm3d, 3)
