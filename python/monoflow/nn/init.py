"""Parameter initialisation (torch.nn.init): in place, under no_grad, drawing
from monoflow's generators so that manual_seed makes it reproducible."""
import math
import warnings

import numpy as np

from monoflow import _C
from monoflow.autograd.grad_mode import no_grad
from monoflow.ops_sampling import randperm

__all__ = ["calculate_gain", "uniform_", "normal_", "trunc_normal_", "constant_", "ones_", "zeros_", "eye_",
           "dirac_", "xavier_uniform_", "xavier_normal_", "kaiming_uniform_", "kaiming_normal_", "orthogonal_",
           "sparse_"]


def calculate_gain(nonlinearity, param=None):
    """The recommended scaling gain for a nonlinearity (torch's table): 1 for linear/conv/sigmoid, 5/3 for
    tanh, ``sqrt(2)`` for relu, ``sqrt(2 / (1 + slope ** 2))`` for leaky_relu, 3/4 for selu.

    Args:
        nonlinearity (str): the name of the function: ``'linear'``, ``'conv2d'``, ``'sigmoid'``,
            ``'tanh'``, ``'relu'``, ``'leaky_relu'``, ``'selu'``, ...
        param (float, optional): the negative slope of ``'leaky_relu'``. Default: ``None`` (0.01).

    Example::

        >>> nn.init.calculate_gain('relu')
        1.4142135623730951
        >>> nn.init.calculate_gain('tanh')
        1.6666666666666667
    """
    linear = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d")
    if nonlinearity in linear or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif not isinstance(param, bool) and isinstance(param, (int, float)):
            slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor):
    if tensor.dim() < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    receptive = 1
    for s in tensor.shape[2:]:
        receptive *= s
    return tensor.shape[1] * receptive, tensor.shape[0] * receptive


def _calculate_correct_fan(tensor, mode):
    mode = mode.lower()
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of fan_in, fan_out")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def uniform_(tensor, a=0.0, b=1.0, generator=None):
    """Fills the tensor with draws of ``U(a, b)``.

    Args:
        tensor (Tensor): the tensor to fill in place (under ``no_grad``, so a parameter may be passed).
        a (float): the lower bound. Default: ``0.0``.
        b (float): the upper bound. Default: ``1.0``.
        generator (monoflow.Generator, optional): the generator to draw from. Default: the default
            generator.

    Returns:
        the tensor, filled in place.

    Example::

        >>> w = nn.init.uniform_(flow.empty(3, 5), -0.1, 0.1)
        >>> bool((w.abs() <= 0.1).all())
        True
    """
    with no_grad():
        return tensor.uniform_(a, b, generator=generator)


def normal_(tensor, mean=0.0, std=1.0, generator=None):
    """Fills the tensor with draws of ``N(mean, std ** 2)``.

    Args:
        tensor (Tensor): the tensor to fill in place (under ``no_grad``, so a parameter may be passed).
        mean (float): the mean. Default: ``0.0``.
        std (float): the standard deviation. Default: ``1.0``.
        generator (monoflow.Generator, optional): the generator to draw from. Default: the default
            generator.

    Returns:
        the tensor, filled in place.

    Example::

        >>> nn.init.normal_(flow.empty(3, 5), std=0.02).shape
        monoflow.Size([3, 5])
    """
    with no_grad():
        return tensor.normal_(mean, std, generator=generator)


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None):
    """Fills the tensor with draws of ``N(mean, std ** 2)`` conditioned on ``[a, b]``: out-of-range draws
    are redrawn (rejection keeps the exact distribution). ``a >= b`` raises ``ValueError``.

    Args:
        tensor (Tensor): the tensor to fill in place (under ``no_grad``, so a parameter may be passed).
        mean (float): the mean. Default: ``0.0``.
        std (float): the standard deviation. Default: ``1.0``.
        a (float): the lower cut-off. Default: ``-2.0``.
        b (float): the upper cut-off. Default: ``2.0``.
        generator (monoflow.Generator, optional): the generator to draw from. Default: the default
            generator.

    Returns:
        the tensor, filled in place.

    Example::

        >>> w = nn.init.trunc_normal_(flow.empty(100), std=1.0, a=-1.0, b=1.0)
        >>> bool((w.abs() <= 1.0).all())
        True
    """
    if a >= b:
        raise ValueError(f"trunc_normal_: a ({a}) must be less than b ({b})")
    with no_grad():
        tensor.normal_(mean, std, generator=generator)
        if tensor.is_meta:  # no values to redraw
            return tensor
        for _ in range(1000):
            bad = (tensor < a) | (tensor > b)
            if not bool(bad.any()):
                break
            fresh = _C._empty(tuple(tensor.shape), tensor.dtype, tensor.device)
            fresh.normal_(mean, std, generator=generator)
            tensor.copy_(fresh.where(bad, tensor))
        return tensor.clamp_(a, b)


def constant_(tensor, val):
    """Fills the tensor with the value ``val``.

    Args:
        tensor (Tensor): the tensor to fill in place (under ``no_grad``, so a parameter may be passed).
        val (float): the fill value.

    Returns:
        the tensor, filled in place.

    Example::

        >>> nn.init.constant_(flow.empty(2, 2), 0.3)
        tensor([[0.3000, 0.3000],
                [0.3000, 0.3000]])
    """
    with no_grad():
        return tensor.fill_(val)


def ones_(tensor):
    """Fills the tensor with ones.

    Args:
        tensor (Tensor): the tensor to fill in place (under ``no_grad``, so a parameter may be passed).

    Returns:
        the tensor, filled in place.

    Example::

        >>> nn.init.ones_(flow.empty(3))
        tensor([1., 1., 1.])
    """
    return constant_(tensor, 1.0)


def zeros_(tensor):
    """Fills the tensor with zeros.

    Args:
        tensor (Tensor): the tensor to fill in place (under ``no_grad``, so a parameter may be passed).

    Returns:
        the tensor, filled in place.

    Example::

        >>> nn.init.zeros_(flow.empty(3))
        tensor([0., 0., 0.])
    """
    return constant_(tensor, 0.0)


def eye_(tensor):
    """Fills a 2-d tensor with the identity matrix (ones on the diagonal); other ranks raise
    ``ValueError``.

    Args:
        tensor (Tensor): the tensor to fill in place (under ``no_grad``, so a parameter may be passed).

    Returns:
        the tensor, filled in place.

    Example::

        >>> nn.init.eye_(flow.empty(2, 3))
        tensor([[1., 0., 0.],
                [0., 1., 0.]])
    """
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    from monoflow.ops_random import eye

    with no_grad():
        return tensor.copy_(eye(tensor.shape[0], tensor.shape[1], dtype=tensor.dtype, device=tensor.device))


def dirac_(tensor, groups=1):
    """Fills a 3-, 4- or 5-d convolution weight with the Dirac delta, so the convolution is the identity
    map on as many channels as possible.

    Args:
        tensor (Tensor): the tensor to fill in place (under ``no_grad``, so a parameter may be passed).
        groups (int): the number of groups; each group of ``size(0) / groups`` output channels gets its
            own identity. Default: ``1``.

    Returns:
        the tensor, filled in place.

    Example::

        >>> w = nn.init.dirac_(flow.empty(2, 2, 3))
        >>> F.conv1d(flow.tensor([[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]]), w, padding=1)
        tensor([[[1., 2., 3.],
                 [4., 5., 6.]]])
    """
    d = tensor.dim()
    if d not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    out_per_group = tensor.shape[0] // groups
    min_dim = min(out_per_group, tensor.shape[1])
    arr = np.zeros(tuple(tensor.shape), dtype=np.float64)
    for g in range(groups):
        for i in range(min_dim):
            arr[(g * out_per_group + i, i) + tuple(s // 2 for s in tensor.shape[2:])] = 1
    from monoflow._creation import tensor as _tensor

    with no_grad():
        return tensor.copy_(_tensor(arr, dtype=tensor.dtype, device=tensor.device))


def xavier_uniform_(tensor, gain=1.0, generator=None):
    """Glorot/Xavier uniform initialisation: ``U(-bound, bound)`` with ``bound = gain * sqrt(6 / (fan_in +
    fan_out))``.

    Fans: ``fan_in = size(1) * receptive field``, ``fan_out = size(0) * receptive field`` (the tensor
    needs 2 or more dims).

    Args:
        tensor (Tensor): the tensor to fill in place (under ``no_grad``, so a parameter may be passed).
        gain (float): the scaling factor (see :func:`calculate_gain`). Default: ``1.0``.
        generator (monoflow.Generator, optional): the generator to draw from. Default: the default
            generator.

    Returns:
        the tensor, filled in place.

    Example::

        >>> w = nn.init.xavier_uniform_(flow.empty(30, 20))
        >>> bool((w.abs() <= (6 / 50) ** 0.5).all())
        True
    """
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    bound = math.sqrt(3.0) * gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return uniform_(tensor, -bound, bound, generator)


def xavier_normal_(tensor, gain=1.0, generator=None):
    """Glorot/Xavier normal initialisation: ``N(0, std ** 2)`` with ``std = gain * sqrt(2 / (fan_in +
    fan_out))``.

    Fans: ``fan_in = size(1) * receptive field``, ``fan_out = size(0) * receptive field`` (the tensor
    needs 2 or more dims).

    Args:
        tensor (Tensor): the tensor to fill in place (under ``no_grad``, so a parameter may be passed).
        gain (float): the scaling factor. Default: ``1.0``.
        generator (monoflow.Generator, optional): the generator to draw from. Default: the default
            generator.

    Returns:
        the tensor, filled in place.

    Example::

        >>> nn.init.xavier_normal_(flow.empty(30, 20)).shape
        monoflow.Size([30, 20])
    """
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / float(fan_in + fan_out)), generator)


def _kaiming_std(tensor, a, mode, nonlinearity):
    if 0 in tuple(tensor.shape):
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=3)
        return None
    return calculate_gain(nonlinearity, a) / math.sqrt(_calculate_correct_fan(tensor, mode))


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """He/Kaiming uniform initialisation: ``U(-bound, bound)`` with ``bound = gain * sqrt(3 / fan)``,
    ``gain = calculate_gain(nonlinearity, a)``.

    Fans: ``fan_in = size(1) * receptive field``, ``fan_out = size(0) * receptive field`` (the tensor
    needs 2 or more dims). A zero-element tensor is left as is, with a warning.

    Args:
        tensor (Tensor): the tensor to fill in place (under ``no_grad``, so a parameter may be passed).
        a (float): the negative slope of the rectifier after this layer (for ``'leaky_relu'``). Default:
            ``0``.
        mode (str): ``'fan_in'`` keeps the forward variance, ``'fan_out'`` the backward one. Default:
            ``'fan_in'``.
        nonlinearity (str): the nonlinearity's name, for the gain. Default: ``'leaky_relu'``.
        generator (monoflow.Generator, optional): the generator to draw from. Default: the default
            generator.

    Returns:
        the tensor, filled in place.

    Example::

        >>> w = nn.init.kaiming_uniform_(flow.empty(64, 32), nonlinearity='relu')
        >>> bool((w.abs() <= (6 / 32) ** 0.5).all())
        True
    """
    std = _kaiming_std(tensor, a, mode, nonlinearity)
    if std is None:
        return tensor
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """He/Kaiming normal initialisation: ``N(0, std ** 2)`` with ``std = gain / sqrt(fan)``, ``gain =
    calculate_gain(nonlinearity, a)``.

    Fans: ``fan_in = size(1) * receptive field``, ``fan_out = size(0) * receptive field`` (the tensor
    needs 2 or more dims).

    Args:
        tensor (Tensor): the tensor to fill in place (under ``no_grad``, so a parameter may be passed).
        a (float): the negative slope of the rectifier (for ``'leaky_relu'``). Default: ``0``.
        mode (str): ``'fan_in'`` or ``'fan_out'``. Default: ``'fan_in'``.
        nonlinearity (str): the nonlinearity's name. Default: ``'leaky_relu'``.
        generator (monoflow.Generator, optional): the generator to draw from. Default: the default
            generator.

    Returns:
        the tensor, filled in place.

    Example::

        >>> nn.init.kaiming_normal_(flow.empty(64, 32), mode='fan_out', nonlinearity='relu').shape
        monoflow.Size([64, 32])
    """
    std = _kaiming_std(tensor, a, mode, nonlinearity)
    if std is None:
        return tensor
    return normal_(tensor, 0.0, std, generator)


def orthogonal_(tensor, gain=1, generator=None):
    """Fills the tensor with a (semi-)orthogonal matrix over its flattened trailing dims: the Q of a QR
    decomposition of a Gaussian matrix, sign-corrected so that it is uniformly (Haar) distributed, times
    ``gain``.

    Args:
        tensor (Tensor): the tensor to fill in place (under ``no_grad``, so a parameter may be passed).
            It needs 2 or more dims.
        gain (float): the scaling factor. Default: ``1``.
        generator (monoflow.Generator, optional): the generator to draw from. Default: the default
            generator.

    Returns:
        the tensor, filled in place.

    Example::

        >>> w = nn.init.orthogonal_(flow.empty(3, 5))
        >>> flow.allclose(w @ w.T, flow.eye(3), atol=1e-5)
        True
    """
    if tensor.dim() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0 or tensor.is_meta:  # (a meta tensor has no values to set)
        return tensor
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    g = _C._empty((rows, cols), _C.get_default_dtype() if not tensor.dtype.is_floating_point else tensor.dtype,
                 tensor.device)
    g.normal_(0.0, 1.0, generator=generator)
    a = g.double().cpu().numpy()
    if rows < cols:
        a = a.T
    q, r = np.linalg.qr(a)
    q = q * np.sign(np.diag(r))
    if rows < cols:
        q = q.T
    from monoflow._creation import tensor as _tensor

    with no_grad():
        tensor.copy_(_tensor(np.asarray(q, order="C").reshape(tuple(tensor.shape)), dtype=tensor.dtype,
                             device=tensor.device))
        return tensor.mul_(gain)


def sparse_(tensor, sparsity, std=0.01, generator=None):
    """Fills the 2-D tensor as a sparse matrix: entries drawn from N(0, std), then in every column a random
    ``ceil(sparsity * rows)`` of them set to zero (Martens, 2010).

    Args:
        tensor (Tensor): the 2-D tensor to fill in place.
        sparsity (float): the fraction of each column to zero.
        std (float): the standard deviation of the non-zero entries. Default: ``0.01``.
        generator (monoflow.Generator, optional): the generator to draw from.

    Example::

        >>> w = nn.init.sparse_(flow.empty(10, 4), sparsity=0.3)
        >>> int((w == 0).sum())
        12
    """
    if tensor.ndimension() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    num_zeros = int(math.ceil(sparsity * rows))
    with no_grad():
        tensor.normal_(0, std, generator=generator)
        for col in range(cols):
            zero_rows = randperm(rows, generator=generator)[:num_zeros]
            tensor[zero_rows, col] = 0
    return tensor


# torch's deprecated non-underscore aliases
def _deprecated(fn):
    def alias(*args, **kwargs):
        warnings.warn(f"nn.init.{fn.__name__[:-1]} is now deprecated in favor of nn.init.{fn.__name__}.",
                      FutureWarning, stacklevel=2)
        return fn(*args, **kwargs)

    alias.__name__ = fn.__name__[:-1]
    return alias


uniform = _deprecated(uniform_)
normal = _deprecated(normal_)
constant = _deprecated(constant_)
xavier_uniform = _deprecated(xavier_uniform_)
xavier_normal = _deprecated(xavier_normal_)
kaiming_uniform = _deprecated(kaiming_uniform_)
kaiming_normal = _deprecated(kaiming_normal_)
orthogonal = _deprecated(orthogonal_)
sparse = _deprecated(sparse_)
