"""Reductions: sum, mean, prod, min/max, arg-reductions, norms, cumulative ops, statistics."""
from monoflow._docs import add_doc, add_inplace_docs  # noqa: F401

# ---------------------------------------------------------------- sums and means

add_doc("sum", "sum(input, dim=None, keepdim=False, *, dtype=None) -> Tensor", r"""
    Sums the elements of ``input``, over all of them or over the dims ``dim``.

    Integer and bool inputs are summed in ``int64`` (as in PyTorch), floating
    inputs in their own dtype, unless ``dtype`` is given.

    Args:
        input (Tensor): the tensor to reduce.
        dim (int or tuple of ints, optional): the dims to reduce. Default: all.
        keepdim (bool): keep the reduced dims, with size 1. Default: ``False``.
        dtype (monoflow.dtype, optional): the dtype to convert ``input`` to
            before summing, and of the result. Default: see above.

    Returns:
        Tensor: a 0-D tensor when all dims are reduced, else ``input``'s shape
        without (or with size 1 at, if ``keepdim``) the reduced dims.

    Example::

        >>> x = flow.tensor([[1., 2., 3.], [4., 5., 6.]])
        >>> flow.sum(x)
        tensor(21.)
        >>> x.sum(1)
        tensor([ 6., 15.])
        >>> flow.sum(x, 0, keepdim=True)
        tensor([[5., 7., 9.]])
        >>> flow.tensor([True, True, False]).sum()
        tensor(2)
    """)

add_doc("mean", "mean(input, dim=None, keepdim=False, *, dtype=None) -> Tensor", r"""
    The arithmetic mean of the elements of ``input``, over all of them or over ``dim``.

    ``input`` must be floating point, unless ``dtype`` names a floating dtype
    to compute in (an integer input otherwise raises ``RuntimeError``, as in
    PyTorch).

    Args:
        input (Tensor): the tensor to reduce.
        dim (int or tuple of ints, optional): the dims to reduce. Default: all.
        keepdim (bool): keep the reduced dims, with size 1. Default: ``False``.
        dtype (monoflow.dtype, optional): the dtype to compute in and return.
            Default: ``input``'s dtype.

    Example::

        >>> x = flow.tensor([[1., 2., 3.], [4., 5., 6.]])
        >>> flow.mean(x)
        tensor(3.5000)
        >>> x.mean(1)
        tensor([2., 5.])
        >>> flow.mean(flow.tensor([1, 2]), dtype=flow.float64)
        tensor(1.5000, dtype=monoflow.float64)
    """)

add_doc("nansum", "nansum(input, dim=None, keepdim=False, *, dtype=None) -> Tensor", r"""
    Sums the elements of ``input`` like :func:`monoflow.sum`, counting NaNs as zero.

    Args:
        input (Tensor): the tensor to reduce.
        dim (int or tuple of ints, optional): the dims to reduce. Default: all.
        keepdim (bool): keep the reduced dims, with size 1. Default: ``False``.
        dtype (monoflow.dtype, optional): the dtype of the result. Default: as
            :func:`monoflow.sum`.

    Example::

        >>> x = flow.tensor([1., float("nan"), 3.])
        >>> flow.nansum(x)
        tensor(4.)
        >>> x.sum()
        tensor(nan)
    """)

add_doc("nanmean", "nanmean(input, dim=None, keepdim=False, *, dtype=None) -> Tensor", r"""
    The mean of the non-NaN elements of ``input``, over all of them or over ``dim``.

    A reduced slice that holds only NaNs gives NaN. ``input`` must be floating
    point.

    Args:
        input (Tensor): the floating-point tensor to reduce.
        dim (int or tuple of ints, optional): the dims to reduce. Default: all.
        keepdim (bool): keep the reduced dims, with size 1. Default: ``False``.
        dtype (monoflow.dtype, optional): the dtype of the result. Default:
            ``input``'s dtype.

    Example::

        >>> x = flow.tensor([[1., float("nan")], [3., 4.]])
        >>> flow.nanmean(x)
        tensor(2.6667)
        >>> x.nanmean(1)
        tensor([1.0000, 3.5000])
    """)

add_doc("prod", "prod(input, dim=None, keepdim=False, *, dtype=None) -> Tensor", r"""
    The product of the elements of ``input``, over all of them or over ``dim``.

    Integer and bool inputs multiply in ``int64``, as :func:`monoflow.sum` adds.

    Args:
        input (Tensor): the tensor to reduce.
        dim (int or tuple of ints, optional): the dims to reduce. Default: all.
        keepdim (bool): keep the reduced dims, with size 1. Default: ``False``.
        dtype (monoflow.dtype, optional): the dtype to compute in and return.

    Example::

        >>> x = flow.tensor([[1., 2., 3.], [4., 5., 6.]])
        >>> flow.prod(x, 1)
        tensor([  6., 120.])
        >>> flow.tensor([1, 2, 3]).prod()
        tensor(6)
    """)

add_doc("count_nonzero", "count_nonzero(input, dim=None) -> Tensor", r"""
    Counts the non-zero elements of ``input``, over all of them or over ``dim``.

    Args:
        input (Tensor): the tensor to count in.
        dim (int or tuple of ints, optional): the dims to count over. Default: all.

    Returns:
        Tensor: an ``int64`` tensor.

    Example::

        >>> x = flow.tensor([[0, 1, 2], [3, 0, 0]])
        >>> flow.count_nonzero(x)
        tensor(3)
        >>> x.count_nonzero(1)
        tensor([2, 1])
    """)

# ---------------------------------------------------------------- min and max

add_doc("max", "max(input, dim=None, keepdim=False) -> Tensor or (Tensor, Tensor)", r"""
    The largest element of ``input``, or the largest along ``dim`` with its index.

    Three forms:

    - ``max(input)``: the largest element, as a 0-D tensor.
    - ``max(input, dim, keepdim=False)``: a named tuple ``(values, indices)``
      of the maxima along ``dim`` and where they are (``int64``).
    - ``max(input, other)`` with a tensor ``other``: the element-wise
      :func:`monoflow.maximum`.

    NaN propagates: a slice holding a NaN has the maximum NaN.

    Args:
        input (Tensor): the tensor to reduce.
        dim (int or Tensor, optional): the dim to reduce, or the tensor to
            compare with. Default: all elements.
        keepdim (bool): keep the reduced dim, with size 1 (only with ``dim``).
            Default: ``False``.

    Example::

        >>> x = flow.tensor([[1., 5., 3.], [4., 2., 6.]])
        >>> flow.max(x)
        tensor(6.)
        >>> values, indices = x.max(1)
        >>> values, indices
        (tensor([5., 6.]), tensor([1, 2]))
        >>> flow.max(x, flow.tensor(3.5))
        tensor([[3.5000, 5.0000, 3.5000],
                [4.0000, 3.5000, 6.0000]])
    """)

add_doc("min", "min(input, dim=None, keepdim=False) -> Tensor or (Tensor, Tensor)", r"""
    The smallest element of ``input``, or the smallest along ``dim`` with its index.

    The forms are those of :func:`monoflow.max`: ``min(input)`` (a 0-D tensor),
    ``min(input, dim, keepdim=False)`` (a named tuple ``(values, indices)``)
    and ``min(input, other)`` (the element-wise :func:`monoflow.minimum`).

    Args:
        input (Tensor): the tensor to reduce.
        dim (int or Tensor, optional): the dim to reduce, or the tensor to
            compare with. Default: all elements.
        keepdim (bool): keep the reduced dim, with size 1 (only with ``dim``).
            Default: ``False``.

    Example::

        >>> x = flow.tensor([[1., 5., 3.], [4., 2., 6.]])
        >>> flow.min(x)
        tensor(1.)
        >>> x.min(0)
        monoflow.return_types.min(
        values=tensor([1., 2., 3.]),
        indices=tensor([0, 1, 0]))
    """)

add_doc("amax", "amax(input, dim=(), keepdim=False) -> Tensor", r"""
    The largest values of ``input`` over one or more dims (values only, no indices).

    Unlike :func:`monoflow.max` with ``dim``, it reduces several dims at once
    and returns no indices; its gradient is shared evenly between equal maxima.

    Args:
        input (Tensor): the tensor to reduce.
        dim (int or tuple of ints): the dims to reduce; ``()`` reduces all.
            Default: ``()``.
        keepdim (bool): keep the reduced dims, with size 1. Default: ``False``.

    Example::

        >>> x = flow.tensor([[1., 5., 3.], [4., 2., 6.]])
        >>> flow.amax(x)
        tensor(6.)
        >>> x.amax(0)
        tensor([4., 5., 6.])
        >>> flow.amax(x, (0, 1), keepdim=True)
        tensor([[6.]])
    """)

add_doc("amin", "amin(input, dim=(), keepdim=False) -> Tensor", r"""
    The smallest values of ``input`` over one or more dims (values only, no indices).

    See :func:`monoflow.amax`.

    Args:
        input (Tensor): the tensor to reduce.
        dim (int or tuple of ints): the dims to reduce; ``()`` reduces all.
            Default: ``()``.
        keepdim (bool): keep the reduced dims, with size 1. Default: ``False``.

    Example::

        >>> x = flow.tensor([[1., 5., 3.], [4., 2., 6.]])
        >>> flow.amin(x)
        tensor(1.)
        >>> x.amin(1)
        tensor([1., 2.])
    """)

add_doc("aminmax", "aminmax(input, *, dim=None, keepdim=False) -> (Tensor, Tensor)", r"""
    The smallest and the largest values of ``input`` in one call, as a named tuple ``(min, max)``.

    Args:
        input (Tensor): the tensor to reduce.
        dim (int, optional): the dim to reduce. Default: all elements.
        keepdim (bool): keep the reduced dim(s), with size 1. Default: ``False``.

    Example::

        >>> x = flow.tensor([[1., 5., 3.], [4., 2., 6.]])
        >>> lo, hi = flow.aminmax(x)
        >>> lo, hi
        (tensor(1.), tensor(6.))
        >>> x.aminmax(dim=1).max
        tensor([5., 6.])
    """)

add_doc("argmax", "argmax(input, dim=None, keepdim=False) -> Tensor", r"""
    The index of the largest element of ``input``, of the flattened tensor or along ``dim``.

    On ties the first index is returned.

    Args:
        input (Tensor): the tensor to search.
        dim (int, optional): the dim to reduce. Default: ``None``, the index
            into the flattened tensor.
        keepdim (bool): keep the reduced dim, with size 1. Default: ``False``.

    Returns:
        Tensor: an ``int64`` tensor.

    Example::

        >>> x = flow.tensor([[1., 5., 3.], [4., 2., 6.]])
        >>> flow.argmax(x)
        tensor(5)
        >>> x.argmax(1)
        tensor([1, 2])
        >>> x.argmax(0, keepdim=True)
        tensor([[1, 0, 1]])
    """)

add_doc("argmin", "argmin(input, dim=None, keepdim=False) -> Tensor", r"""
    The index of the smallest element of ``input``, of the flattened tensor or along ``dim``.

    On ties the first index is returned.

    Args:
        input (Tensor): the tensor to search.
        dim (int, optional): the dim to reduce. Default: ``None``, the index
            into the flattened tensor.
        keepdim (bool): keep the reduced dim, with size 1. Default: ``False``.

    Returns:
        Tensor: an ``int64`` tensor.

    Example::

        >>> x = flow.tensor([[1., 5., 3.], [4., 2., 6.]])
        >>> flow.argmin(x)
        tensor(0)
        >>> x.argmin(1)
        tensor([0, 1])
    """)

# ---------------------------------------------------------------- logical reductions

add_doc("all", "all(input, dim=None, keepdim=False) -> Tensor", r"""
    Tests whether every element of ``input`` is non-zero (``True``), over all elements or over ``dim``.

    Args:
        input (Tensor): the tensor to test (any dtype; non-zero counts as ``True``).
        dim (int or tuple of ints, optional): the dims to reduce. Default: all.
        keepdim (bool): keep the reduced dims, with size 1. Default: ``False``.

    Returns:
        Tensor: a ``bool`` tensor.

    Example::

        >>> x = flow.tensor([[1, 2], [0, 3]])
        >>> flow.all(x)
        tensor(False)
        >>> x.all(1)
        tensor([ True, False])
    """)

add_doc("any", "any(input, dim=None, keepdim=False) -> Tensor", r"""
    Tests whether some element of ``input`` is non-zero (``True``), over all elements or over ``dim``.

    Args:
        input (Tensor): the tensor to test (any dtype; non-zero counts as ``True``).
        dim (int or tuple of ints, optional): the dims to reduce. Default: all.
        keepdim (bool): keep the reduced dims, with size 1. Default: ``False``.

    Returns:
        Tensor: a ``bool`` tensor.

    Example::

        >>> x = flow.tensor([[1, 0], [0, 0]])
        >>> flow.any(x)
        tensor(True)
        >>> x.any(1)
        tensor([ True, False])
    """)

# ---------------------------------------------------------------- spread

add_doc("var", "var(input, dim=None, unbiased=None, keepdim=False, *, correction=None) -> Tensor", r"""
    The variance of the elements of ``input``, over all of them or over ``dim``.

    .. math:: \text{var} = \frac{1}{N - \text{correction}} \sum_i (x_i - \bar{x})^2

    The default is the unbiased (sample) variance, ``correction=1``. The
    legacy form ``var(input, unbiased)`` with a bool second argument is accepted.

    Args:
        input (Tensor): the floating-point tensor to reduce.
        dim (int or tuple of ints, optional): the dims to reduce. Default: all.
        unbiased (bool, optional): ``True`` means ``correction=1``, ``False``
            means ``correction=0``. Give ``unbiased`` or ``correction``, not both.
        keepdim (bool): keep the reduced dims, with size 1. Default: ``False``.
        correction (int, optional): the difference between the number of
            elements and the divisor. Default: 1.

    Example::

        >>> x = flow.tensor([[1., 2., 3.], [4., 5., 6.]])
        >>> flow.var(x)
        tensor(3.5000)
        >>> x.var(1, correction=0)
        tensor([0.6667, 0.6667])
        >>> flow.var(x, unbiased=False)
        tensor(2.9167)
    """)

add_doc("std", "std(input, dim=None, unbiased=None, keepdim=False, *, correction=None) -> Tensor", r"""
    The standard deviation of the elements of ``input``: the square root of :func:`monoflow.var`.

    Args:
        input (Tensor): the floating-point tensor to reduce.
        dim (int or tuple of ints, optional): the dims to reduce. Default: all.
        unbiased (bool, optional): ``True`` means ``correction=1``, ``False``
            means ``correction=0``. Give ``unbiased`` or ``correction``, not both.
        keepdim (bool): keep the reduced dims, with size 1. Default: ``False``.
        correction (int, optional): the difference between the number of
            elements and the divisor. Default: 1.

    Example::

        >>> x = flow.tensor([[1., 2., 3.], [4., 5., 6.]])
        >>> flow.std(x, 1)
        tensor([1., 1.])
        >>> x.std(correction=0)
        tensor(1.7078)
    """)

add_doc("var_mean", "var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None) -> (Tensor, Tensor)", r"""
    The variance and the mean of ``input`` over the same dims, as a tuple ``(var, mean)``.

    The arguments are those of :func:`monoflow.var`; both results are
    differentiable.

    Args:
        input (Tensor): the floating-point tensor to reduce.
        dim (int or tuple of ints, optional): the dims to reduce. Default: all.
        unbiased (bool, optional): ``True`` means ``correction=1``, ``False``
            means ``correction=0``.
        keepdim (bool): keep the reduced dims, with size 1. Default: ``False``.
        correction (int, optional): the difference between the number of
            elements and the divisor. Default: 1.

    Example::

        >>> x = flow.tensor([[1., 2., 3.], [4., 5., 6.]])
        >>> flow.var_mean(x, 1)
        (tensor([1., 1.]), tensor([2., 5.]))
    """)

add_doc("std_mean", "std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None) -> (Tensor, Tensor)", r"""
    The standard deviation and the mean of ``input`` over the same dims, as a tuple ``(std, mean)``.

    The arguments are those of :func:`monoflow.std`; both results are
    differentiable.

    Args:
        input (Tensor): the floating-point tensor to reduce.
        dim (int or tuple of ints, optional): the dims to reduce. Default: all.
        unbiased (bool, optional): ``True`` means ``correction=1``, ``False``
            means ``correction=0``.
        keepdim (bool): keep the reduced dims, with size 1. Default: ``False``.
        correction (int, optional): the difference between the number of
            elements and the divisor. Default: 1.

    Example::

        >>> x = flow.tensor([[1., 2., 3.], [4., 5., 6.]])
        >>> std, mean = flow.std_mean(x, 0, correction=0)
        >>> std, mean
        (tensor([1.5000, 1.5000, 1.5000]), tensor([2.5000, 3.5000, 4.5000]))
    """)

add_doc("norm", "norm(input, p='fro', dim=None, keepdim=False, dtype=None) -> Tensor", r"""
    The vector p-norm of ``input``, over all elements or over ``dim``.

    .. math:: \|x\|_p = \Big(\sum_i |x_i|^p\Big)^{1/p}

    ``p='fro'`` (the Frobenius norm) is the 2-norm of the reduced elements;
    ``p=float('inf')`` is the largest absolute value, ``p=0`` the count of
    non-zeros. The nuclear norm (``p='nuc'``) raises ``NotImplementedError``;
    matrix norms are in :func:`monoflow.linalg.matrix_norm`.

    Args:
        input (Tensor): the floating-point tensor to reduce.
        p (float or str): the order of the norm, a number or ``'fro'``.
            Default: ``'fro'``.
        dim (int or tuple of ints, optional): the dims to reduce (at most 2 for
            ``'fro'``). Default: all.
        keepdim (bool): keep the reduced dims, with size 1. Default: ``False``.
        dtype (monoflow.dtype, optional): the dtype to compute in and return.

    Example::

        >>> x = flow.tensor([[3., 4.], [0., -12.]])
        >>> flow.norm(x)
        tensor(13.)
        >>> x.norm(1, dim=1)
        tensor([ 7., 12.])
        >>> flow.norm(x, float("inf"))
        tensor(12.)
    """)

add_doc("logsumexp", "logsumexp(input, dim, keepdim=False) -> Tensor", r"""
    The log of the sum of exponentials of ``input`` over ``dim``, computed stably.

    .. math:: \text{logsumexp}(x) = \log \sum_i e^{x_i}

    The largest element is subtracted before exponentiating, so large inputs
    do not overflow.

    Args:
        input (Tensor): the floating-point tensor to reduce.
        dim (int or tuple of ints): the dims to reduce.
        keepdim (bool): keep the reduced dims, with size 1. Default: ``False``.

    Example::

        >>> x = flow.tensor([[1., 2., 3.], [1000., 1000., 1000.]])
        >>> flow.logsumexp(x, 1)
        tensor([   3.4076, 1001.0986])
    """)

# ---------------------------------------------------------------- scans

add_doc("cumsum", "cumsum(input, dim, *, dtype=None) -> Tensor", r"""
    The running sum of ``input`` along ``dim``: ``out[i] = input[0] + ... + input[i]``.

    Integer and bool inputs accumulate in ``int64``.

    Args:
        input (Tensor): the tensor to scan.
        dim (int): the dim to scan along.
        dtype (monoflow.dtype, optional): the dtype to compute in and return.

    Returns:
        Tensor: a tensor of ``input``'s shape.

    Example::

        >>> flow.cumsum(flow.tensor([1, 2, 3]), 0)
        tensor([1, 3, 6])
        >>> flow.tensor([[1., 2.], [3., 4.]]).cumsum(1)
        tensor([[1., 3.],
                [3., 7.]])
    """)

add_doc("cumprod", "cumprod(input, dim, *, dtype=None) -> Tensor", r"""
    The running product of ``input`` along ``dim``: ``out[i] = input[0] * ... * input[i]``.

    Args:
        input (Tensor): the tensor to scan.
        dim (int): the dim to scan along.
        dtype (monoflow.dtype, optional): the dtype to compute in and return.

    Returns:
        Tensor: a tensor of ``input``'s shape.

    Example::

        >>> flow.cumprod(flow.tensor([1., 2., 3., 4.]), 0)
        tensor([ 1.,  2.,  6., 24.])
    """)

add_doc("cummax", "cummax(input, dim) -> (Tensor, Tensor)", r"""
    The running maximum of ``input`` along ``dim``, and where each running maximum is.

    On ties the later index is reported; a NaN, once seen, stays the maximum.
    The gradient flows to the chosen elements.

    Args:
        input (Tensor): the tensor to scan.
        dim (int): the dim to scan along.

    Returns:
        (Tensor, Tensor): the named tuple ``(values, indices)``, indices ``int64``.

    Example::

        >>> values, indices = flow.cummax(flow.tensor([1., 3., 2., 5.]), 0)
        >>> values, indices
        (tensor([1., 3., 3., 5.]), tensor([0, 1, 1, 3]))
    """)

add_doc("cummin", "cummin(input, dim) -> (Tensor, Tensor)", r"""
    The running minimum of ``input`` along ``dim``, and where each running minimum is.

    See :func:`monoflow.cummax`.

    Args:
        input (Tensor): the tensor to scan.
        dim (int): the dim to scan along.

    Returns:
        (Tensor, Tensor): the named tuple ``(values, indices)``, indices ``int64``.

    Example::

        >>> flow.tensor([3., 1., 2., 0.]).cummin(0).values
        tensor([3., 1., 1., 0.])
    """)

add_doc("logcumsumexp", "logcumsumexp(input, dim) -> Tensor", r"""
    The running :func:`monoflow.logsumexp` of ``input`` along ``dim``: ``log(cumsum(exp(input)))``, computed stably.

    Integer inputs are computed in the default floating dtype.

    Args:
        input (Tensor): the tensor to scan.
        dim (int): the dim to scan along.

    Example::

        >>> flow.logcumsumexp(flow.tensor([0., 0., 0.]), 0)
        tensor([0.0000, 0.6931, 1.0986])
    """)

add_inplace_docs("cumsum_", "cumprod_", "logcumsumexp_")
