"""Functions OneFlow exposes only in its functional namespace ``oneflow._C`` (its C++ functional
API), under their OneFlow signatures. ``monoflow._C`` answers these names from here (see
``_oneflow_internal.functional_fallback``); they are compositions of monoflow ops."""
from monoflow import _C, _creation, _functional, ops_special
from monoflow import _composite as _c

__all__ = ["bias_add", "layer_norm", "reduce_sum_like", "reshape_like", "matmul", "sparse_softmax_cross_entropy", "batch_matmul", "matrix_vector_product", "fast_gelu", "square_relu",
           "fused_bias_add_gelu", "fused_bias_add_dropout", "fused_scale_tril", "fused_weighted_sum",
           "binary_cross_entropy_with_logits_reduce_mean", "inv", "trigamma", "rms_norm",
           "layer_norm_affine", "skip_layer_norm", "skip_rms_norm", "trunc_divide", "grouped_matmul",
           "grouped_matmul_bias", "fused_matmul_bias", "fused_matmul_bias_add_relu_dropout", "transpose", "exponential_", "split_like", "sparse_cross_entropy", "fused_mlp",
           "masked_fill_"]


def reshape_like(input, like):
    """``oneflow._C.reshape_like``: ``input`` reshaped to ``like``'s shape (``like``'s values are not read;
    global tensors: the logical shapes).

    Args:
        input (Tensor): the tensor to reshape.
        like (Tensor): the tensor whose shape the result takes.

    Example::

        >>> import monoflow as flow
        >>> flow._C.reshape_like(flow.arange(6), flow.empty(2, 3))
        tensor([[0, 1, 2],
                [3, 4, 5]])
    """
    input = _C.check_tensor(input, "reshape_like", "input", 1)
    like = _C.check_tensor(like, "reshape_like", "like", 2)
    if input.numel() != like.numel():
        raise RuntimeError(f"reshape_like(): The element number of in tensor must be equal to the element number of "
                           f"like tensor, but got {input.numel()} and {like.numel()}")
    return input.reshape(tuple(like.shape))


def reduce_sum_like(input, like, axis):
    """``oneflow._C.reduce_sum_like``: sums ``input`` over ``axis`` and gives the result ``like``'s shape
    (the reverse of ``broadcast_like``; its gradient broadcasts back).

    Args:
        input (Tensor): the tensor to sum.
        like (Tensor): the tensor whose shape the result takes (its values are not read).
        axis (sequence of int): the dims of ``input`` summed over.

    Example::

        >>> import monoflow as flow
        >>> flow._C.reduce_sum_like(flow.ones(2, 3, 4), flow.zeros(3, 1), axis=(0, 2))
        tensor([[8.],
                [8.],
                [8.]])
    """
    input = _C.check_tensor(input, "reduce_sum_like", "input", 1)
    like = _C.check_tensor(like, "reduce_sum_like", "like", 2)
    if (input.dtype.is_floating_point, input.dtype.is_complex) != (like.dtype.is_floating_point, like.dtype.is_complex):
        # (OneFlow wants one dtype; floats of two widths are let through, like's values are never read)
        raise TypeError(f"reduce_sum_like(): Tensors x and like must have the same type, but got {input.dtype} and "
                        f"{like.dtype}")
    axis = (axis,) if isinstance(axis, int) else tuple(axis)
    out = input.sum(dim=axis) if axis else input
    if out.numel() != like.numel():
        raise RuntimeError(f"reduce_sum_like(): input of shape {list(input.shape)} summed over {axis} has "
                           f"{out.numel()} elements, like (shape {list(like.shape)}) has {like.numel()}: The shape of "
                           f"the x tensor must be consistent to the shape of the like tensor")
    return out.reshape(tuple(like.shape))


def _shape_str(shape):
    # a shape as OneFlow prints it in its messages: (4,4), (5,)
    return "(" + ",".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"


def bias_add(x, bias, axis=1):
    """``oneflow._C.bias_add``: ``x`` plus the 1-D ``bias`` laid along dim ``axis`` (OneFlow's checks:
    ``bias`` is 1-D and as long as ``x``'s dim ``axis``).

    Args:
        x (Tensor): the input.
        bias (Tensor): 1-D, of length ``x.shape[axis]``.
        axis (int): the dim of ``x`` the bias runs along. Default: ``1``.

    Example::

        >>> import monoflow as flow
        >>> flow._C.bias_add(flow.zeros(2, 3), flow.tensor([1.0, 2.0, 3.0]), axis=1)
        tensor([[1., 2., 3.],
                [1., 2., 3.]])
    """
    x = _C.check_tensor(x, "bias_add", "x", 1)
    bias = _C.check_tensor(bias, "bias_add", "bias", 2)
    if bias.dim() != 1:
        raise RuntimeError(f"bias_add(): Bias tensor has to be a one-dimensional vector, but got {bias.dim()}D")
    d = _c.wrap_dim("bias_add", axis, x.dim())
    if x.shape[d] != bias.shape[0]:
        raise RuntimeError(f"bias_add(): The size of tensor x {_shape_str(x.shape)} must match the size of tensor b "
                           f"{_shape_str(bias.shape)} at dimension {d}")
    return x + bias.reshape((-1,) + (1,) * (x.dim() - 1 - d))


# --- OneFlow's _C-only compositions (fused kernels in OneFlow; here their unfused math) -------------

def matmul(a, b, transpose_a=False, transpose_b=False, alpha=1.0):
    """``oneflow._C.matmul``: ``alpha * op(a) @ op(b)``, ``op`` the optional transpose of the last two dims
    (``flow.matmul`` / ``torch.matmul`` otherwise: broadcasting, 1-D operands).

    Args:
        a (Tensor): the left operand.
        b (Tensor): the right operand.
        transpose_a (bool): transpose ``a``'s last two dims first (``a`` at least 2-D). Default: ``False``.
        transpose_b (bool): transpose ``b``'s last two dims first (``b`` at least 2-D). Default: ``False``.
        alpha (float): the scale of the product. Default: ``1.0``.

    Example::

        >>> import monoflow as flow
        >>> flow._C.matmul(flow.ones(3, 4), flow.ones(5, 4), transpose_b=True, alpha=0.5)[0]
        tensor([2., 2., 2., 2., 2.])
    """
    a = _C.check_tensor(a, "matmul", "a", 1)
    b = _C.check_tensor(b, "matmul", "b", 2)
    for t, name in ((a, "a"), (b, "b")):
        if t.dim() < 1:  # (torch's wording, then OneFlow's)
            raise RuntimeError(f"matmul(): both arguments to matmul need to be at least 1D, but they are {a.dim()}D "
                               f"and {b.dim()}D (Tensor {name}'s dim should >= 1)")
    for t, flag, name in ((a, transpose_a, "transpose_a"), (b, transpose_b, "transpose_b")):
        if flag and t.dim() < 2:
            raise RuntimeError(f"matmul(): {name}=True needs a tensor of at least 2 dims, got {t.dim()}-D")
    out = _functional.matmul(a.transpose(-2, -1) if transpose_a else a, b.transpose(-2, -1) if transpose_b else b)
    return out if alpha == 1.0 else out * alpha


def sparse_softmax_cross_entropy(logits, label):
    """``oneflow._C.sparse_softmax_cross_entropy``: the per-example softmax cross entropy of ``logits``
    (classes in the last dim) against integer ``label``, unreduced. The functional API takes logits
    first; ``nn.functional.sparse_softmax_cross_entropy`` takes ``(labels, logits)``, as OneFlow's.

    Args:
        logits (Tensor): the unnormalized scores, classes in the last dim.
        label (Tensor): int32/int64 class indices, of ``logits``' shape without its last dim.

    Example::

        >>> import monoflow as flow
        >>> flow._C.sparse_softmax_cross_entropy(flow.tensor([[2.0, 0.0], [0.0, 0.0]]), flow.tensor([0, 1]))
        tensor([0.1269, 0.6931])
    """
    from monoflow.nn.functional.oneflow_losses import sparse_softmax_cross_entropy as by_labels

    return by_labels(label, logits)


def batch_matmul(a, b, transpose_a=False, transpose_b=False, alpha=1.0):
    """``oneflow._C.batch_matmul``: ``alpha * op(a) @ op(b)`` over a batch of matrices, ``op`` the
    optional transpose of the last two dims.

    Args:
        a (Tensor): ``(B, N, K)`` (or ``(B, K, N)`` with ``transpose_a``).
        b (Tensor): ``(B, K, M)`` (or ``(B, M, K)`` with ``transpose_b``).
        transpose_a (bool): transpose ``a``'s matrices first. Default: ``False``.
        transpose_b (bool): transpose ``b``'s matrices first. Default: ``False``.
        alpha (float): the scale of the product. Default: ``1.0``.

    Example::

        >>> import monoflow as flow
        >>> flow._C.batch_matmul(flow.ones(2, 3, 4), flow.ones(2, 5, 4), transpose_b=True, alpha=0.5).shape
        monoflow.Size([2, 3, 5])
    """
    a = _C.check_tensor(a, "batch_matmul", "a", 1)
    b = _C.check_tensor(b, "batch_matmul", "b", 2)
    if a.dim() != 3 or b.dim() != 3:
        raise RuntimeError(f"batch_matmul(): expected 3-D tensors, got {a.dim()}-D and {b.dim()}-D")
    out = (a.transpose(1, 2) if transpose_a else a).bmm(b.transpose(1, 2) if transpose_b else b)
    return out if alpha == 1.0 else out * alpha


def matrix_vector_product(input, vec):
    """``oneflow._C.matrix_vector_product``: ``input @ vec`` for a ``(N, M)`` matrix and an ``M`` vector
    (``monoflow.mv``).

    Args:
        input (Tensor): the ``(N, M)`` matrix.
        vec (Tensor): the ``M`` vector.

    Example::

        >>> import monoflow as flow
        >>> flow._C.matrix_vector_product(flow.ones(2, 3), flow.tensor([1.0, 2.0, 3.0]))
        tensor([6., 6.])
    """
    return _C.check_tensor(input, "matrix_vector_product", "input", 1).mv(vec)


def fast_gelu(x):
    """``oneflow._C.fast_gelu``: GELU's tanh approximation, ``gelu(x, approximate="tanh")``.

    Args:
        x (Tensor): the input.

    Example::

        >>> import monoflow as flow
        >>> flow._C.fast_gelu(flow.tensor([0.0, 1.0]))
        tensor([0.0000, 0.8412])
    """
    from monoflow.nn import functional as F

    return F.gelu(_C.check_tensor(x, "fast_gelu", "x", 1), approximate="tanh")


def square_relu(x):
    """``oneflow._C.square_relu``: ``relu(x) ** 2``.

    Args:
        x (Tensor): the input.

    Example::

        >>> import monoflow as flow
        >>> flow._C.square_relu(flow.tensor([-1.0, 3.0]))
        tensor([0., 9.])
    """
    return _C.check_tensor(x, "square_relu", "x", 1).relu().square()


def _along(op, b, a, axis):
    # b (1-D, a.shape[axis] long) shaped to broadcast along a's dim axis
    if b.dim() != 1 or not -a.dim() <= axis < a.dim() or b.shape[0] != a.shape[axis]:
        raise RuntimeError(f"{op}(): b must be 1-D of a.shape[axis] elements, got shape {list(b.shape)} for "
                           f"a of shape {list(a.shape)} and axis {axis}")
    axis %= a.dim()
    return b.reshape([b.shape[0] if d == axis else 1 for d in range(a.dim())])


def fused_bias_add_gelu(a, b, *, axis):
    """``oneflow._C.fused_bias_add_gelu``: ``gelu(a + b)`` with the 1-D bias ``b`` added along ``a``'s
    dim ``axis``.

    Args:
        a (Tensor): the input.
        b (Tensor): the bias, ``a.shape[axis]`` elements.
        axis (int): the dim of ``a`` the bias runs along.

    Example::

        >>> import monoflow as flow
        >>> flow._C.fused_bias_add_gelu(flow.zeros(2, 2), flow.tensor([0.0, 1.0]), axis=1)
        tensor([[0.0000, 0.8413],
                [0.0000, 0.8413]])
    """
    from monoflow.nn import functional as F

    a = _C.check_tensor(a, "fused_bias_add_gelu", "a", 1)
    b = _C.check_tensor(b, "fused_bias_add_gelu", "b", 2)
    return F.gelu(a + _along("fused_bias_add_gelu", b, a, axis))


def fused_bias_add_dropout(a, b, *, p=0.5, axis, generator=None):
    """``oneflow._C.fused_bias_add_dropout``: ``dropout(a + b, p)`` with the 1-D bias ``b`` added along
    ``a``'s dim ``axis`` (training-mode dropout).

    Args:
        a (Tensor): the input.
        b (Tensor): the bias, ``a.shape[axis]`` elements.
        p (float): the dropout probability. Default: ``0.5``.
        axis (int): the dim of ``a`` the bias runs along.
        generator (monoflow.Generator, optional): the mask's generator.

    Example::

        >>> import monoflow as flow
        >>> flow._C.fused_bias_add_dropout(flow.zeros(2, 2), flow.tensor([1.0, 2.0]), p=0.0, axis=1)
        tensor([[1., 2.],
                [1., 2.]])
    """
    from monoflow.nn import functional as F

    a = _C.check_tensor(a, "fused_bias_add_dropout", "a", 1)
    b = _C.check_tensor(b, "fused_bias_add_dropout", "b", 2)
    return F.dropout(a + _along("fused_bias_add_dropout", b, a, axis), p, True, False, generator)


def fused_scale_tril(x, diagonal=0, fill_value=0, scale=1):
    """``oneflow._C.fused_scale_tril``: ``x * scale`` on and below the ``diagonal``-th diagonal of the last
    two dims, ``fill_value`` above it.

    Args:
        x (Tensor): the input, at least 2-D.
        diagonal (int): which diagonal bounds the kept part (as ``tril``). Default: ``0``.
        fill_value (Number): the value above it. Default: ``0``.
        scale (Number): the factor of the kept part. Default: ``1``.

    Example::

        >>> import monoflow as flow
        >>> flow._C.fused_scale_tril(flow.ones(2, 2), fill_value=-1.0, scale=3.0)
        tensor([[ 3., -1.],
                [ 3.,  3.]])
    """
    x = _C.check_tensor(x, "fused_scale_tril", "x", 1)
    keep = _creation.ones(x.shape[-2:], dtype=x.dtype, device=x.device).tril(diagonal) != 0
    return (x * scale).masked_fill(~keep, fill_value)


def fused_weighted_sum(tensors, weights, alpha=1.0):
    """``oneflow._C.fused_weighted_sum``: ``alpha * sum(w * t for t, w in zip(tensors, weights))``.

    Args:
        tensors (sequence of Tensor): same-shaped tensors.
        weights (sequence of float): one weight per tensor.
        alpha (float): the overall scale. Default: ``1.0``.

    Example::

        >>> import monoflow as flow
        >>> flow._C.fused_weighted_sum([flow.ones(2), flow.full((2,), 2.0)], [0.5, 0.25], alpha=2.0)
        tensor([2., 2.])
    """
    tensors, weights = list(tensors), list(weights)
    if not tensors or len(tensors) != len(weights):
        raise RuntimeError(f"fused_weighted_sum(): expected as many weights as tensors (at least one), got "
                           f"{len(tensors)} tensors and {len(weights)} weights")
    out = tensors[0] * weights[0]
    for t, w in zip(tensors[1:], weights[1:]):
        out = out + t * w
    return out if alpha == 1.0 else out * alpha


def _grouped(op, xs, weights, biases):
    xs, weights = list(xs), list(weights)
    biases = None if biases is None else list(biases)
    if not xs or len(xs) != len(weights) or (biases is not None and len(biases) != len(xs)):
        raise RuntimeError(f"{op}(): expected as many weights{' and biases' if biases is not None else ''} as "
                           f"inputs (at least one), got {len(xs)} inputs, {len(weights)} weights"
                           + ("" if biases is None else f", {len(biases)} biases"))
    out = []
    for i, (x, w) in enumerate(zip(xs, weights)):
        _C.check_tensor(x, op, "xs", 1)
        _C.check_tensor(w, op, "weights", 2)
        if w.dim() != 2 or x.shape[-1] != w.shape[1]:
            raise RuntimeError(f"{op}(): problem {i}: weight must be (n, k) with k = xs[{i}].shape[-1] "
                               f"({x.shape[-1]}), got {list(w.shape)}")
        y = _C.matmul(x, w.transpose(0, 1))
        out.append(y if biases is None else y + biases[i])
    return out


def grouped_matmul(xs, weights):
    """``oneflow._C.grouped_matmul``: ``[x @ w.T for x, w in zip(xs, weights)]``, many matmuls in one call
    (OneFlow fuses them into one CUDA kernel; computed one by one here).

    Args:
        xs (sequence of Tensor): the inputs, each ``(..., k_i)``.
        weights (sequence of Tensor): the weights, each ``(n_i, k_i)`` (as ``nn.Linear``'s).

    Returns:
        list of Tensor: each ``(..., n_i)``.

    Example::

        >>> import monoflow as flow
        >>> ys = flow._C.grouped_matmul([flow.ones(2, 3), flow.ones(1, 2)], [flow.ones(4, 3), flow.ones(5, 2)])
        >>> [tuple(y.shape) for y in ys], ys[0][0, 0].item()
        ([(2, 4), (1, 5)], 3.0)
    """
    return _grouped("grouped_matmul", xs, weights, None)


def grouped_matmul_bias(xs, weights, biases):
    """``oneflow._C.grouped_matmul_bias``: ``[x @ w.T + b for x, w, b in zip(xs, weights, biases)]``
    (OneFlow's fused grouped ``nn.Linear``; computed one by one here).

    Args:
        xs (sequence of Tensor): the inputs, each ``(..., k_i)``.
        weights (sequence of Tensor): the weights, each ``(n_i, k_i)``.
        biases (sequence of Tensor): the biases, each ``(n_i,)``.

    Returns:
        list of Tensor: each ``(..., n_i)``.

    Example::

        >>> import monoflow as flow
        >>> flow._C.grouped_matmul_bias([flow.ones(1, 2)], [flow.ones(3, 2)], [flow.arange(3.0)])
        [tensor([[2., 3., 4.]])]
    """
    return _grouped("grouped_matmul_bias", xs, weights, biases)


def binary_cross_entropy_with_logits_reduce_mean(input, target):
    """``oneflow._C.binary_cross_entropy_with_logits_reduce_mean``:
    ``binary_cross_entropy_with_logits(input, target)`` averaged over all elements.

    Args:
        input (Tensor): the logits.
        target (Tensor): the targets in ``[0, 1]``, of ``input``'s shape.

    Example::

        >>> import monoflow as flow
        >>> flow._C.binary_cross_entropy_with_logits_reduce_mean(flow.zeros(2), flow.ones(2))
        tensor(0.6931)
    """
    from monoflow.nn import functional as F

    return F.binary_cross_entropy_with_logits(input, target, reduction="mean")


def inv(x):
    """``oneflow._C.inv``: the inverse of (each of) the square matrices in ``x`` (``linalg.inv``).

    Args:
        x (Tensor): ``(*, n, n)`` invertible matrices.

    Example::

        >>> import monoflow as flow
        >>> flow._C.inv(flow.tensor([[2.0, 0.0], [0.0, 4.0]]))
        tensor([[0.5000, 0.0000],
                [0.0000, 0.2500]])
    """
    from monoflow import linalg

    return linalg.inv(x)


def trigamma(x):
    """``oneflow._C.trigamma``: the second derivative of ``lgamma``, ``polygamma(1, x)``.

    Args:
        x (Tensor): the input.

    Example::

        >>> import monoflow as flow
        >>> flow._C.trigamma(flow.tensor([1.0]))
        tensor([1.6449])
    """
    return ops_special.polygamma(1, x)


def rms_norm(x, weight=None, normalized_shape=None, epsilon=1e-6):
    """``oneflow._C.rms_norm``: root-mean-square normalisation over the trailing ``normalized_shape``
    dims, ``x / sqrt(mean(x ** 2) + epsilon) * weight``, in OneFlow's argument order (weight before
    the shape). torch's order, ``rms_norm(x, normalized_shape, weight, eps)``, is accepted too (a
    shape second), as ``torch.nn.functional.rms_norm``.

    Args:
        x (Tensor): ``(*, *normalized_shape)``.
        weight (Tensor, optional): the elementwise scale, of shape ``normalized_shape``. Default: ``None``.
        normalized_shape (sequence of int, optional): the trailing dims; ``None``: ``weight``'s shape.
        epsilon (float): added to the mean square. Default: ``1e-6``.

    Example::

        >>> import monoflow as flow
        >>> flow._C.rms_norm(flow.tensor([[3.0, -3.0]]), flow.tensor([1.0, 2.0]), [2], 1e-6)
        tensor([[ 1., -2.]])
    """
    from monoflow.nn.functional.rms_norm import rms_norm as _rms_norm

    if weight is not None and not isinstance(weight, _C.TensorBase):  # torch's order
        return _rms_norm(x, weight, normalized_shape, epsilon)
    if normalized_shape is None:
        if weight is None:
            raise TypeError("rms_norm(): normalized_shape is required when weight is None")
        normalized_shape = tuple(weight.shape)
    return _rms_norm(x, normalized_shape, weight, epsilon)


def layer_norm(x, begin_norm_axis, begin_params_axis, epsilon=1e-5):
    """``oneflow._C.layer_norm``: layer normalisation of ``x`` over the dims from
    ``begin_norm_axis`` on, without scale and shift (``layer_norm_affine`` has them).

    Args:
        x (Tensor): the input.
        begin_norm_axis (int): the first normalised dim (negative counts from the end).
        begin_params_axis (int): accepted for OneFlow's signature (there are no parameters).
        epsilon (float): added to the variance. Default: ``1e-5``.

    Example::

        >>> import monoflow as flow
        >>> flow._C.layer_norm(flow.tensor([[1.0, 3.0]]), begin_norm_axis=1, begin_params_axis=1, epsilon=0.0)
        tensor([[-1.,  1.]])
    """
    from monoflow.nn.functional import layer_norm as _layer_norm

    x = _C.check_tensor(x, "layer_norm", "x", 1)
    a = _C.check_int(begin_norm_axis, "layer_norm", "begin_norm_axis", 2)
    _C.check_int(begin_params_axis, "layer_norm", "begin_params_axis", 3)
    a = a % x.dim() if x.dim() else 0
    return _layer_norm(x, tuple(x.shape[a:]), None, None, epsilon)


def layer_norm_affine(x, gamma, beta, begin_norm_axis, begin_params_axis, epsilon=1e-5):
    """``oneflow._C.layer_norm_affine``: layer normalisation of ``x`` over the dims from
    ``begin_norm_axis`` on, then ``* gamma + beta`` (their shape: ``x``'s dims from
    ``begin_params_axis`` on).

    Args:
        x (Tensor): the input.
        gamma (Tensor): the scale.
        beta (Tensor): the shift.
        begin_norm_axis (int): the first normalised dim (negative counts from the end).
        begin_params_axis (int): the first dim ``gamma`` and ``beta`` span.
        epsilon (float): added to the variance. Default: ``1e-5``.

    Example::

        >>> import monoflow as flow
        >>> flow._C.layer_norm_affine(flow.tensor([[1.0, 3.0]]), flow.tensor([2.0, 2.0]),
        ...                           flow.tensor([0.0, 1.0]), begin_norm_axis=1, begin_params_axis=1,
        ...                           epsilon=0.0)
        tensor([[-2.,  3.]])
    """
    from monoflow.nn.functional import layer_norm

    x = _C.check_tensor(x, "layer_norm_affine", "x", 1)
    a = begin_norm_axis % x.dim() if x.dim() else 0
    p = begin_params_axis % x.dim() if x.dim() else 0
    y = layer_norm(x, tuple(x.shape[a:]), None, None, epsilon)
    view = tuple(x.shape[p:])
    return y * gamma.reshape(view) + beta.reshape(view)


def _skip_add(op, x, bias, skip, alpha):
    x = _C.check_tensor(x, op, "x", 1)
    if bias is not None:
        x = x + bias
    if skip is not None:
        x = x + skip * alpha
    return x


def skip_layer_norm(x, gamma=None, beta=None, bias=None, skip=None, alpha=1e-5, epsilon=1e-5):
    """``oneflow._C.skip_layer_norm``: ``layer_norm(x + bias + alpha * skip) * gamma + beta`` over the
    last dim (OneFlow's fused kernel; here its unfused math).

    Args:
        x (Tensor): the input, ``(*, n)``.
        gamma (Tensor, optional): the scale, ``(n,)``. Default: ``None`` (1).
        beta (Tensor, optional): the shift, ``(n,)``. Default: ``None`` (0).
        bias (Tensor, optional): added to ``x`` first, ``(n,)``. Default: ``None``.
        skip (Tensor, optional): the residual, ``x``'s shape, scaled by ``alpha``. Default: ``None``.
        alpha (float): the scale of ``skip``. Default: ``1e-5``.
        epsilon (float): added to the variance. Default: ``1e-5``.

    Example::

        >>> import monoflow as flow
        >>> flow._C.skip_layer_norm(flow.tensor([[1.0, 3.0]]), skip=flow.tensor([[2.0, 0.0]]),
        ...                         alpha=0.5, epsilon=0.0)
        tensor([[-1.,  1.]])
    """
    from monoflow.nn.functional import layer_norm

    x = _skip_add("skip_layer_norm", x, bias, skip, alpha)
    return layer_norm(x, (x.shape[-1],), gamma, beta, epsilon)


def skip_rms_norm(x, weight=None, bias=None, skip=None, epsilon=1e-5, alpha=1e-5):
    """``oneflow._C.skip_rms_norm``: ``rms_norm(x + bias + alpha * skip) * weight`` over the last dim
    (OneFlow's fused kernel; here its unfused math).

    Args:
        x (Tensor): the input, ``(*, n)``.
        weight (Tensor, optional): the scale, ``(n,)``. Default: ``None`` (1).
        bias (Tensor, optional): added to ``x`` first, ``(n,)``. Default: ``None``.
        skip (Tensor, optional): the residual, ``x``'s shape, scaled by ``alpha``. Default: ``None``.
        epsilon (float): added to the mean square. Default: ``1e-5``.
        alpha (float): the scale of ``skip``. Default: ``1e-5``.

    Example::

        >>> import monoflow as flow
        >>> flow._C.skip_rms_norm(flow.tensor([[1.0, -3.0]]), skip=flow.tensor([[2.0, 0.0]]),
        ...                       epsilon=0.0, alpha=1.0)
        tensor([[ 1., -1.]])
    """
    from monoflow.nn.functional.rms_norm import rms_norm as _rms_norm

    x = _skip_add("skip_rms_norm", x, bias, skip, alpha)
    return _rms_norm(x, (x.shape[-1],), weight, epsilon)


def trunc_divide(x, y):
    """``oneflow._C.trunc_divide``: ``x / y`` rounded toward zero, ``div(x, y, rounding_mode="trunc")``
    (its gradient is zero, as torch's).

    Args:
        x (Tensor): the dividend.
        y (Tensor or number): the divisor.

    Example::

        >>> import monoflow as flow
        >>> flow._C.trunc_divide(flow.tensor([7.0, -7.0]), 2.0)
        tensor([ 3., -3.])
    """
    return _functional.div(_C.check_tensor(x, "trunc_divide", "x", 1), y, rounding_mode="trunc")


def transpose(input, *dims, perm=None):
    """``oneflow._C.transpose``: ``input`` with its dims permuted, in either of OneFlow's
    forms: ``transpose(x, perm)`` (a permutation, as ``permute``) or ``transpose(x, dim0, dim1)``
    (two dims swapped, as ``monoflow.transpose``).

    Args:
        input (Tensor): the tensor.
        dims: one permutation (a list or tuple), or two dims to swap.
        perm (list of int, optional): the permutation as a keyword.

    Example::

        >>> import monoflow as flow
        >>> flow._C.transpose(flow.zeros(4, 5, 3), perm=[2, 0, 1]).shape
        monoflow.Size([3, 4, 5])
        >>> flow._C.transpose(flow.zeros(4, 5), 0, 1).shape
        monoflow.Size([5, 4])
    """
    input = _C.check_tensor(input, "transpose", "input", 1)
    if perm is None and len(dims) == 1 and isinstance(dims[0], (list, tuple)):
        perm = dims[0]
    elif perm is None and len(dims) == 2:
        return input.transpose(*dims)
    elif perm is None or dims:
        raise TypeError(f"transpose(): expected (input, perm) or (input, dim0, dim1), got {len(dims)} positional "
                        f"dims{' and perm=' if perm is not None else ''}")
    return input.permute(*perm)


def exponential_(x, lambd=1.0, generator=None):
    """``oneflow._C.exponential_``: fills ``x`` in place with draws from the exponential
    distribution of rate ``lambd`` (``x.exponential_(lambd, generator=generator)``).

    Args:
        x (Tensor): the floating-point tensor to fill.
        lambd (float): the rate. Default: ``1.0``.
        generator (Generator, optional): the random stream. Default: the default generator.

    Example::

        >>> import monoflow as flow
        >>> x = flow._C.exponential_(flow.empty(3), 2.0)
        >>> bool((x >= 0).all())
        True
    """
    return _C.check_tensor(x, "exponential_", "x", 1).exponential_(lambd, generator=generator)


def split_like(x, like, axis):
    """``oneflow._C.split_like``: ``x`` split along ``axis`` into pieces as long there as the tensors of
    ``like`` (their values are not read), with OneFlow's checks.

    Args:
        x (Tensor): the tensor to split.
        like (sequence of Tensor): one tensor per piece; each has ``x``'s shape except along ``axis``.
        axis (int): the dim split along.

    Returns:
        tuple of Tensor: views of ``x``.

    Example::

        >>> import monoflow as flow
        >>> [p.shape for p in flow._C.split_like(flow.ones(5, 2), (flow.empty(2, 2), flow.empty(3, 2)), 0)]
        [monoflow.Size([2, 2]), monoflow.Size([3, 2])]
    """
    x = _C.check_tensor(x, "split_like", "x", 1)
    like = tuple(_C.check_tensor(t, "split_like", f"like[{i}]") for i, t in enumerate(like))
    if not like:
        raise RuntimeError("split_like(): like must hold at least one tensor")
    axis = int(axis)
    nd = like[0].dim()
    if nd > x.dim():
        raise RuntimeError(f"split_like(): The dimension of like ({nd}) should be less than or equal to input "
                           f"({x.dim()})")
    if not 0 <= axis < nd:
        raise RuntimeError(f"split_like(): The axis ({axis}) should be less than the dimension of like ({nd})")
    for i, t in enumerate(like):
        if t.dim() != nd:
            raise RuntimeError(f"split_like(): The dimension of like_i ({t.dim()}) must match the dimension of the "
                               f"first like ({nd}), at like[{i}]")
        for d in range(nd):
            if d != axis and t.shape[d] != x.shape[d]:
                raise RuntimeError(f"split_like(): The size of input ({x.shape[d]}) must match the size of like_i "
                                   f"({t.shape[d]}) at dimension {d}, at like[{i}]")
    total = sum(t.shape[axis] for t in like)
    if total != x.shape[axis]:
        raise RuntimeError(f"split_like(): In non-dynamic shape situation, the total size of like ({total}) should be "
                           f"equal to the size of input tensor ({x.shape[axis]}) at dimension ({axis})")
    return tuple(x.split([t.shape[axis] for t in like], dim=axis))


def sparse_cross_entropy(prediction, label, depth):
    """``oneflow._C.sparse_cross_entropy``: ``-log(prediction[..., label])`` per example, ``prediction``
    holding probabilities over its last dim of size ``depth`` (no softmax taken), with OneFlow's checks.

    Args:
        prediction (Tensor): the probabilities, classes in the last dim.
        label (Tensor): integer class indices, of ``prediction``'s shape without its last dim.
        depth (int): the number of classes.

    Returns:
        Tensor: of ``label``'s shape; differentiable with respect to ``prediction``.

    Example::

        >>> import monoflow as flow
        >>> flow._C.sparse_cross_entropy(flow.tensor([[0.5, 0.5], [0.25, 0.75]]), flow.tensor([0, 1]), 2)
        tensor([0.6931, 0.2877])
    """
    prediction = _C.check_tensor(prediction, "sparse_cross_entropy", "prediction", 1)
    label = _C.check_tensor(label, "sparse_cross_entropy", "label", 2)
    from monoflow.nn.functional.oneflow_losses import check_sparse_labels

    check_sparse_labels("sparse_cross_entropy", prediction, label)
    if int(depth) != prediction.shape[-1]:
        raise RuntimeError(f"sparse_cross_entropy(): depth ({int(depth)}) must be the size of prediction's last "
                           f"dim ({prediction.shape[-1]})")
    from monoflow import _dtypes

    picked = prediction.gather(-1, label.to(_dtypes.int64).unsqueeze(-1)).squeeze(-1)
    return -picked.log()


def fused_matmul_bias(x, weight, bias, _add_to_output=None, alpha=1.0, beta=1.0):
    """``oneflow._C.fused_matmul_bias``: a linear layer ``alpha * x @ weight.T + bias``, plus
    ``beta * _add_to_output`` when given, with OneFlow's checks (its fused CUDA kernel; here, as its CPU
    path, the unfused math).

    Args:
        x (Tensor): ``(..., K)``.
        weight (Tensor): ``(N, K)``.
        bias (Tensor): ``(N,)``.
        _add_to_output (Tensor, optional): added to the result (broadcast to ``(..., N)``). Default: ``None``.
        alpha (float): the scale of the product. Default: ``1.0``.
        beta (float): the scale of ``_add_to_output``. Default: ``1.0``.

    Example::

        >>> import monoflow as flow
        >>> flow._C.fused_matmul_bias(flow.ones(1, 2), flow.ones(3, 2), flow.tensor([-3.0, 0.0, 1.0]), flow.ones(1, 3))
        tensor([[0., 3., 4.]])
    """
    x = _C.check_tensor(x, "fused_matmul_bias", "x", 1)
    weight = _C.check_tensor(weight, "fused_matmul_bias", "weight", 2)
    bias = _C.check_tensor(bias, "fused_matmul_bias", "bias", 3)
    if x.dim() < 1:
        raise RuntimeError("fused_matmul_bias(): x should be at least 1-D, but got a 0-D tensor")
    if weight.dim() != 2:
        raise RuntimeError(f"fused_matmul_bias(): Weight's dim size should == 2, but got {weight.dim()}")
    if bias.dim() != 1:
        raise RuntimeError(f"fused_matmul_bias(): Bias's dim size should == 1, but got {bias.dim()}")
    if bias.shape[0] != weight.shape[0]:
        raise RuntimeError(f"fused_matmul_bias(): Bias's dim is not equal to weight's first dim: bias has "
                           f"{bias.shape[0]}, weight {weight.shape[0]}")
    if weight.shape[1] != x.shape[-1]:
        raise RuntimeError(f"fused_matmul_bias(): weight's second dim should be equal to input's last dim: "
                           f"weight has {weight.shape[1]}, x {x.shape[-1]}")
    out = _functional.matmul(x, weight.transpose(0, 1))
    out = (out if alpha == 1.0 else out * alpha) + bias
    if _add_to_output is None or beta == 0.0:  # OneFlow skips the term at beta == 0 (no 0 * inf)
        return out
    add = _C.check_tensor(_add_to_output, "fused_matmul_bias", "_add_to_output", 4)
    return out + (add if beta == 1.0 else add * beta)


def _linear_stack(op, x, weights, biases, skip_final_activation, after_layer=None):
    # x = relu(x @ w.T + b) per layer (no relu after the last when skip_final_activation), with
    # OneFlow's checks; after_layer(i, x) post-processes layer i's output (the dropout of
    # fused_matmul_bias_add_relu_dropout).
    x = _C.check_tensor(x, op, "x", 1)
    weights = [_C.check_tensor(w, op, f"weights[{i}]") for i, w in enumerate(weights)]
    biases = [_C.check_tensor(b, op, f"biases[{i}]") for i, b in enumerate(biases)]
    if len(weights) < 1:
        raise RuntimeError(f"{op}(): The number of weights should be greater equal than 1, but got {len(weights)}")
    if len(weights) != len(biases):
        raise RuntimeError(f"{op}(): The number of weights should be equal to biases, but got {len(weights)} "
                           f"weights and {len(biases)} biases")
    k = x.shape[-1] if x.dim() else None
    for i, (w, b) in enumerate(zip(weights, biases)):
        if w.dim() != 2:
            raise RuntimeError(f"{op}(): Weight's dim size should == 2, but weights[{i}] is {w.dim()}-D")
        if b.dim() != 1:
            raise RuntimeError(f"{op}(): Bias's dim size should == 1, but biases[{i}] is {b.dim()}-D")
        if b.shape[0] != w.shape[0]:
            raise RuntimeError(f"{op}(): Bias's dim is not equal to weight's first dim. biases[{i}] has "
                               f"{b.shape[0]}, weights[{i}] {w.shape[0]}")
        if w.shape[1] != k:
            raise RuntimeError(f"{op}(): weight's second dim should be equal to input's second dim. "
                               f"weights[{i}] has {w.shape[1]}, the input to layer {i} {k}")
        k = w.shape[0]
    n = len(weights)
    for i, (w, b) in enumerate(zip(weights, biases)):
        x = _functional.matmul(x, w.transpose(0, 1)) + b
        if i < n - 1 or not skip_final_activation:
            x = x.relu()
        if after_layer is not None:
            x = after_layer(i, x)
    return x


def fused_mlp(x, weights, biases, skip_final_activation):
    """``oneflow._C.fused_mlp``: a stack of linear layers ``x = relu(x @ w.T + b)`` (the last one without
    the relu when ``skip_final_activation``), with OneFlow's checks (its fused kernel; here the unfused math).

    Args:
        x (Tensor): ``(N, K)``.
        weights (sequence of Tensor): ``(out_i, in_i)`` each, ``in_0 == K``.
        biases (sequence of Tensor): ``(out_i,)`` each, one per weight.
        skip_final_activation (bool): leave the last layer's output without the relu.

    Example::

        >>> import monoflow as flow
        >>> flow._C.fused_mlp(flow.ones(1, 2), [flow.ones(3, 2)], [flow.tensor([-3.0, 0.0, 1.0])], False)
        tensor([[0., 2., 3.]])
    """
    return _linear_stack("fused_mlp", x, weights, biases, skip_final_activation)


def fused_matmul_bias_add_relu_dropout(x, weights, biases, skip_final_activation, dropout_rate_list,
                                       generator=None):
    """``oneflow._C.fused_matmul_bias_add_relu_dropout``: :func:`fused_mlp`'s layers, each output then
    passed through training-mode dropout with its own rate (the last layer's too), with OneFlow's checks
    (its fused CUDA kernel; here, as its CPU path, the unfused math).

    Args:
        x (Tensor): ``(N, K)``.
        weights (sequence of Tensor): ``(out_i, in_i)`` each, ``in_0 == K``.
        biases (sequence of Tensor): ``(out_i,)`` each, one per weight.
        skip_final_activation (bool): leave the last layer's output without the relu.
        dropout_rate_list (sequence of float): one dropout probability per layer, each ``>= 0``.
        generator (monoflow.Generator, optional): the dropout masks' generator.

    Example::

        >>> import monoflow as flow
        >>> flow._C.fused_matmul_bias_add_relu_dropout(flow.ones(1, 2), [flow.ones(3, 2)],
        ...     [flow.tensor([-3.0, 0.0, 1.0])], skip_final_activation=False, dropout_rate_list=[0.0])
        tensor([[0., 2., 3.]])
    """
    from monoflow.nn import functional as F

    op = "fused_matmul_bias_add_relu_dropout"
    if not isinstance(weights, (list, tuple)):
        raise TypeError(f"{op}(): argument 'weights' must be a list or tuple of Tensors, not {type(weights).__name__}")
    rates = [float(r) for r in dropout_rate_list]
    n = len(weights)
    if n >= 1 and len(rates) != n:
        raise RuntimeError(f"{op}(): The dropout rate list length should be equal to the number of weights, but got "
                           f"{len(rates)} rates for {n} weights")
    for i, r in enumerate(rates):
        if r < 0.0:
            raise RuntimeError(f"{op}(): Dropout rate should be >= 0.0, but dropout_rate_list[{i}] is {r}")
    return _linear_stack(op, x, weights, biases, skip_final_activation,
                         lambda i, y: F.dropout(y, rates[i], True, False, generator))


def masked_fill_(input, mask, value):
    """``oneflow._C.masked_fill_``: ``input.masked_fill_(mask, value)``, in place (an integer mask: nonzero fills).

    Example::

        >>> import monoflow as flow
        >>> flow._C.masked_fill_(flow.zeros(3), flow.tensor([1, 0, 1]), 2.0)
        tensor([2., 0., 2.])
    """
    return _C.check_tensor(input, "masked_fill_", "input", 1).masked_fill_(mask, value)
