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

add_doc(
    "var_mean",
    "var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None) -> (Tensor, Tensor)", r"""
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

add_doc(
    "std_mean",
    "std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None) -> (Tensor, Tensor)", r"""
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

# ---------------------------------------------------------------- softmax

add_doc("softmax", "softmax(input, dim, dtype=None) -> Tensor", r"""
    Rescales the slices of ``input`` along ``dim`` to probabilities that sum to 1.

    .. math:: \text{softmax}(x)_i = \frac{e^{x_i}}{\sum_j e^{x_j}}

    Computed stably (the slice's maximum is subtracted first). Integer inputs
    need a floating ``dtype`` to compute in; without one they raise
    ``NotImplementedError``, as in PyTorch.

    Args:
        input (Tensor): the tensor of scores.
        dim (int): the dim along which the result sums to 1.
        dtype (monoflow.dtype, optional): the dtype to convert ``input`` to
            before computing, and of the result.

    Returns:
        Tensor: a tensor of ``input``'s shape.

    Example::

        >>> x = flow.tensor([[1., 2.], [3., 5.]])
        >>> flow.softmax(x, 1)
        tensor([[0.2689, 0.7311],
                [0.1192, 0.8808]])
        >>> flow.tensor([1, 2]).softmax(0, dtype=flow.float64)
        tensor([0.2689, 0.7311], dtype=monoflow.float64)
    """)

add_doc("log_softmax", "log_softmax(input, dim, dtype=None) -> Tensor", r"""
    The log of :func:`monoflow.softmax` along ``dim``, computed in one stable step: ``x - logsumexp(x, dim)``.

    Prefer it to ``softmax(x).log()``, which loses precision for small
    probabilities (and gives ``-inf`` where they underflow).

    Args:
        input (Tensor): the tensor of scores.
        dim (int): the dim to normalise along.
        dtype (monoflow.dtype, optional): the dtype to convert ``input`` to
            before computing, and of the result.

    Example::

        >>> flow.log_softmax(flow.tensor([1., 2., 3.]), 0)
        tensor([-2.4076, -1.4076, -0.4076])
    """)

# ---------------------------------------------------------------- sorting and selection

add_doc("sort", "sort(input, dim=-1, descending=False, stable=False) -> (Tensor, Tensor)", r"""
    Sorts the elements of ``input`` along ``dim``, returning the sorted values and their original indices.

    NaNs sort as larger than every number (last in ascending order, first in
    descending order). In the Tensor method ``stable`` is keyword-only, as in
    PyTorch.

    Args:
        input (Tensor): the tensor to sort.
        dim (int): the dim to sort along. Default: -1.
        descending (bool): sort from the largest down. Default: ``False``.
        stable (bool): keep the order of equal elements. Default: ``False``.

    Returns:
        (Tensor, Tensor): the named tuple ``(values, indices)``, indices ``int64``.

    Example::

        >>> x = flow.tensor([[3., 1., 2.], [0., 5., 4.]])
        >>> flow.sort(x)
        monoflow.return_types.sort(
        values=tensor([[1., 2., 3.],
                [0., 4., 5.]]),
        indices=tensor([[1, 2, 0],
                [0, 2, 1]]))
        >>> x.sort(0, descending=True).values
        tensor([[3., 5., 4.],
                [0., 1., 2.]])
    """)

add_doc("argsort", "argsort(input, dim=-1, descending=False, stable=False) -> Tensor", r"""
    The indices that sort ``input`` along ``dim``: the ``indices`` of :func:`monoflow.sort`.

    Args:
        input (Tensor): the tensor to sort.
        dim (int): the dim to sort along. Default: -1.
        descending (bool): sort from the largest down. Default: ``False``.
        stable (bool): keep the order of equal elements (keyword-only in the
            Tensor method). Default: ``False``.

    Returns:
        Tensor: an ``int64`` tensor of ``input``'s shape.

    Example::

        >>> x = flow.tensor([3, 1, 2])
        >>> flow.argsort(x)
        tensor([1, 2, 0])
        >>> x.argsort(descending=True)
        tensor([0, 2, 1])
    """)

add_doc("msort", "msort(input) -> Tensor", r"""
    Sorts ``input`` along its first dim, ascending: ``sort(input, 0).values``.

    Args:
        input (Tensor): the tensor to sort.

    Example::

        >>> flow.msort(flow.tensor([[3., 1.], [1., 2.]]))
        tensor([[1., 1.],
                [3., 2.]])
    """)

add_doc("topk", "topk(input, k, dim=-1, largest=True, sorted=True) -> (Tensor, Tensor)", r"""
    The ``k`` largest (or smallest) elements of ``input`` along ``dim``, and their indices.

    Args:
        input (Tensor): the tensor to select from.
        k (int): how many elements to keep, at most the size of ``dim``.
        dim (int): the dim to select along. Default: -1.
        largest (bool): the largest elements if ``True``, else the smallest.
            Default: ``True``.
        sorted (bool): return them in order (largest first, or smallest first).
            Default: ``True``.

    Returns:
        (Tensor, Tensor): the named tuple ``(values, indices)``, indices ``int64``;
        ``dim`` has size ``k``.

    Example::

        >>> x = flow.tensor([1., 5., 3., 4.])
        >>> flow.topk(x, 2)
        monoflow.return_types.topk(
        values=tensor([5., 4.]),
        indices=tensor([1, 3]))
        >>> x.topk(2, largest=False).values
        tensor([1., 3.])
    """)

add_doc("kthvalue", "kthvalue(input, k, dim=-1, keepdim=False) -> (Tensor, Tensor)", r"""
    The ``k``-th smallest element of ``input`` along ``dim`` (``k`` counts from 1), and its index.

    Args:
        input (Tensor): the tensor to select from.
        k (int): the rank of the element, ``1 <= k <= input.shape[dim]``.
        dim (int): the dim to select along. Default: -1.
        keepdim (bool): keep the reduced dim, with size 1. Default: ``False``.

    Returns:
        (Tensor, Tensor): the named tuple ``(values, indices)``.

    Example::

        >>> values, indices = flow.kthvalue(flow.tensor([3., 1., 2., 5.]), 2)
        >>> values, indices
        (tensor(2.), tensor(2))
    """)

# ---------------------------------------------------------------- order statistics

add_doc("median", "median(input, dim=None, keepdim=False) -> Tensor or (Tensor, Tensor)", r"""
    The median of ``input``: of all elements, or along ``dim`` with its index.

    For an even count this is the lower of the two middle values (not their
    mean; use :func:`monoflow.quantile` for that). A NaN in the slice makes the
    median NaN; :func:`monoflow.nanmedian` ignores NaNs.

    Args:
        input (Tensor): the tensor to reduce.
        dim (int, optional): the dim to reduce. Default: all elements, and the
            result is the value alone (a 0-D tensor).
        keepdim (bool): keep the reduced dim, with size 1 (only with ``dim``).
            Default: ``False``.

    Returns:
        Tensor, or the named tuple ``(values, indices)`` when ``dim`` is given.

    Example::

        >>> flow.median(flow.tensor([3., 1., 2., 5.]))
        tensor(2.)
        >>> x = flow.tensor([[3., 1., 2.], [0., 5., 4.]])
        >>> x.median(1).values
        tensor([2., 4.])
    """)

add_doc("nanmedian", "nanmedian(input, dim=None, keepdim=False) -> Tensor or (Tensor, Tensor)", r"""
    The median of the non-NaN elements of ``input``, as :func:`monoflow.median` computes it.

    A slice that holds only NaNs gives NaN.

    Args:
        input (Tensor): the tensor to reduce.
        dim (int, optional): the dim to reduce. Default: all elements.
        keepdim (bool): keep the reduced dim, with size 1 (only with ``dim``).
            Default: ``False``.

    Returns:
        Tensor, or the named tuple ``(values, indices)`` when ``dim`` is given.

    Example::

        >>> x = flow.tensor([3., float("nan"), 2.])
        >>> flow.nanmedian(x), flow.median(x)
        (tensor(2.), tensor(nan))
    """)

add_doc("mode", "mode(input, dim=-1, keepdim=False) -> (Tensor, Tensor)", r"""
    The most frequent value of ``input`` along ``dim`` (the smallest one on ties) and an index where it occurs.

    As in PyTorch, the index is the last position of that value.

    Args:
        input (Tensor): the tensor to reduce.
        dim (int): the dim to reduce. Default: -1.
        keepdim (bool): keep the reduced dim, with size 1. Default: ``False``.

    Returns:
        (Tensor, Tensor): the named tuple ``(values, indices)``.

    Example::

        >>> values, indices = flow.mode(flow.tensor([1, 2, 2, 3, 3]))
        >>> values, indices
        (tensor(2), tensor(2))
    """)

add_doc("quantile", "quantile(input, q, dim=None, keepdim=False, *, interpolation='linear') -> Tensor", r"""
    The ``q``-th quantiles of ``input``, over all elements or along ``dim``.

    A quantile that falls between two sorted values ``a <= b`` is chosen by
    ``interpolation``: ``'linear'`` (``a + (b - a) * fraction``), ``'lower'``
    (``a``), ``'higher'`` (``b``), ``'midpoint'`` (``(a + b) / 2``) or
    ``'nearest'``. A NaN in the data makes the result NaN (see
    :func:`monoflow.nanquantile`). ``input`` must be float32 or float64.

    Args:
        input (Tensor): the floating-point tensor to reduce.
        q (float or Tensor): the quantile(s), in [0, 1]: a number or a 1-D tensor.
        dim (int, optional): the dim to reduce. Default: all elements (flattened).
        keepdim (bool): keep the reduced dim, with size 1. Default: ``False``.
        interpolation (str): how to pick between two values. Default: ``'linear'``.

    Returns:
        Tensor: for a 1-D ``q``, the quantiles are stacked along a new first dim.

    Example::

        >>> x = flow.tensor([0., 1., 2., 3.])
        >>> flow.quantile(x, 0.5)
        tensor(1.5000)
        >>> x.quantile(flow.tensor([0.25, 0.75]))
        tensor([0.7500, 2.2500])
        >>> flow.quantile(x, 0.5, interpolation="lower")
        tensor(1.)
    """)

add_doc("nanquantile", "nanquantile(input, q, dim=None, keepdim=False, *, interpolation='linear') -> Tensor", r"""
    The ``q``-th quantiles of the non-NaN elements of ``input``, as :func:`monoflow.quantile` computes them.

    A slice that holds only NaNs gives NaN.

    Args:
        input (Tensor): the floating-point tensor to reduce.
        q (float or Tensor): the quantile(s), in [0, 1]: a number or a 1-D tensor.
        dim (int, optional): the dim to reduce. Default: all elements (flattened).
        keepdim (bool): keep the reduced dim, with size 1. Default: ``False``.
        interpolation (str): ``'linear'``, ``'lower'``, ``'higher'``,
            ``'midpoint'`` or ``'nearest'``. Default: ``'linear'``.

    Example::

        >>> flow.nanquantile(flow.tensor([0., float("nan"), 2.]), 0.5)
        tensor(1.)
    """)

# ---------------------------------------------------------------- differences and integrals

add_doc("diff", "diff(input, n=1, dim=-1, prepend=None, append=None) -> Tensor", r"""
    The ``n``-th forward difference of ``input`` along ``dim``: ``out[i] = input[i + 1] - input[i]``.

    The difference is taken ``n`` times; each pass shortens ``dim`` by one.
    For bool tensors the difference is
    ``!=`` (exclusive or).

    Args:
        input (Tensor): the tensor, at least 1-D.
        n (int): how many times to take the difference. Default: 1.
        dim (int): the dim to take it along. Default: -1.
        prepend (Tensor or Number, optional): values put before ``input``
            along ``dim`` first (a tensor of ``input``'s shape except in ``dim``).
        append (Tensor or Number, optional): values put after ``input`` along
            ``dim`` first.

    Example::

        >>> x = flow.tensor([1, 4, 9, 16])
        >>> flow.diff(x)
        tensor([3, 5, 7])
        >>> x.diff(n=2)
        tensor([2, 2])
        >>> flow.diff(flow.tensor([1, 2]), prepend=flow.tensor([0]))
        tensor([1, 1])
    """)

add_doc("trapezoid", "trapezoid(y, x=None, *, dx=None, dim=-1) -> Tensor", r"""
    Integrates ``y`` along ``dim`` by the trapezoid rule.

    .. math:: \int y \approx \sum_i \frac{(x_{i+1} - x_i)(y_{i+1} + y_i)}{2}

    The sample points are ``x`` (a tensor), or evenly spaced by ``dx`` (default 1).
    :func:`monoflow.trapz` is the same operation under its older name.

    Args:
        y (Tensor): the values to integrate.
        x (Tensor or Number, optional): the sample points (1-D along ``dim``,
            or of ``y``'s shape), or a number used as the spacing.
        dx (float, optional): the constant spacing of the samples when ``x``
            is not given. Default: 1.
        dim (int): the dim to integrate along. Default: -1.

    Returns:
        Tensor: ``y``'s shape without ``dim``.

    Example::

        >>> y = flow.tensor([1., 2., 3.])
        >>> flow.trapezoid(y)
        tensor(4.)
        >>> flow.trapezoid(y, dx=0.5)
        tensor(2.)
        >>> flow.trapezoid(y, flow.tensor([0., 1., 3.]))
        tensor(6.5000)
    """)

add_doc("trapz", "trapz(y, x=None, *, dx=None, dim=-1) -> Tensor", r"""
    Integrates ``y`` along ``dim`` by the trapezoid rule: the older name of :func:`monoflow.trapezoid`.

    Args:
        y (Tensor): the values to integrate.
        x (Tensor or Number, optional): the sample points, or a number used as
            the spacing.
        dx (float, optional): the constant spacing of the samples when ``x``
            is not given. Default: 1.
        dim (int): the dim to integrate along. Default: -1.

    Example::

        >>> flow.trapz(flow.tensor([[1., 2., 3.], [0., 0., 1.]]))
        tensor([4.0000, 0.5000])
    """)

add_doc("cumulative_trapezoid", "cumulative_trapezoid(y, x=None, *, dx=None, dim=-1) -> Tensor", r"""
    The running trapezoid-rule integral of ``y`` along ``dim`` (one element fewer than ``y``).

    The last element equals :func:`monoflow.trapezoid` of the same arguments.

    Args:
        y (Tensor): the values to integrate.
        x (Tensor or Number, optional): the sample points, or a number used as
            the spacing.
        dx (float, optional): the constant spacing of the samples when ``x``
            is not given. Default: 1.
        dim (int): the dim to integrate along. Default: -1.

    Example::

        >>> flow.cumulative_trapezoid(flow.tensor([1., 2., 3.]))
        tensor([1.5000, 4.0000])
    """)

# ---------------------------------------------------------------- covariance

add_doc("cov", "cov(input, *, correction=1, fweights=None, aweights=None) -> Tensor", r"""
    The covariance matrix of the variables in the rows of ``input``, observed in its columns.

    A 1-D ``input`` is one variable, and the result is its variance (0-D).
    Integer inputs are computed in the default floating dtype.

    Args:
        input (Tensor): a ``(variables, observations)`` matrix, or a 1-D tensor.
        correction (int): the difference between the (weighted) number of
            observations and the divisor; 1 is the unbiased estimate, 0 the
            population one. Default: 1.
        fweights (Tensor, optional): integer frequency weights, one per
            observation (how often each was seen).
        aweights (Tensor, optional): importance weights, one per observation.

    Returns:
        Tensor: a ``(variables, variables)`` matrix.

    Example::

        >>> x = flow.tensor([[0., 1., 2.], [2., 1., 0.]])
        >>> flow.cov(x)
        tensor([[ 1., -1.],
                [-1.,  1.]])
        >>> x.cov(correction=0)
        tensor([[ 0.6667, -0.6667],
                [-0.6667,  0.6667]])
    """)

add_doc("corrcoef", "corrcoef(input) -> Tensor", r"""
    The Pearson correlation coefficients of the variables in the rows of ``input``.

    The covariance matrix of :func:`monoflow.cov` normalised by the standard
    deviations, clipped to [-1, 1].

    Args:
        input (Tensor): a ``(variables, observations)`` matrix, or a 1-D tensor.

    Example::

        >>> flow.corrcoef(flow.tensor([[0., 1., 2.], [2., 1., 0.5]]))
        tensor([[ 1.0000, -0.9820],
                [-0.9820,  1.0000]])
    """)

# ---------------------------------------------------------------- sets and counting

add_doc(
    "unique",
    "unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None) -> Tensor or tuple", r"""
    The distinct elements of ``input`` (or its distinct slices along ``dim``), in ascending order.

    The result is sorted also for ``sorted=False`` (which PyTorch allows too).
    Not differentiable.

    Args:
        input (Tensor): the tensor to scan (flattened when ``dim`` is None).
        sorted (bool): accepted for compatibility; the values are always
            sorted. Default: ``True``.
        return_inverse (bool): also return, for each element of ``input``, the
            index of its value in the result (of ``input``'s shape). Default: ``False``.
        return_counts (bool): also return how often each value occurs. Default: ``False``.
        dim (int, optional): find the distinct slices along this dim instead
            of the distinct elements.

    Returns:
        Tensor, or a tuple ``(values, inverse?, counts?)`` with the outputs asked for.

    Example::

        >>> x = flow.tensor([3, 1, 3, 2])
        >>> flow.unique(x)
        tensor([1, 2, 3])
        >>> x.unique(return_inverse=True, return_counts=True)
        (tensor([1, 2, 3]), tensor([2, 0, 2, 1]), tensor([1, 1, 2]))
        >>> flow.unique(flow.tensor([[1, 2], [1, 2], [0, 5]]), dim=0)
        tensor([[0, 5],
                [1, 2]])
    """)

add_doc(
    "unique_consecutive",
    "unique_consecutive(input, return_inverse=False, return_counts=False, dim=None) -> Tensor or tuple", r"""
    Collapses each run of equal consecutive elements of ``input`` (or slices along ``dim``) to one.

    Unlike :func:`monoflow.unique`, values are not sorted, and a value that
    comes back after another one is kept again.

    Args:
        input (Tensor): the tensor to scan (flattened when ``dim`` is None).
        return_inverse (bool): also return, for each element of ``input``, the
            index of its run in the result. Default: ``False``.
        return_counts (bool): also return the length of each run. Default: ``False``.
        dim (int, optional): collapse runs of equal slices along this dim.

    Returns:
        Tensor, or a tuple ``(values, inverse?, counts?)`` with the outputs asked for.

    Example::

        >>> x = flow.tensor([1, 1, 2, 2, 3, 1, 1])
        >>> flow.unique_consecutive(x)
        tensor([1, 2, 3, 1])
        >>> x.unique_consecutive(return_counts=True)
        (tensor([1, 2, 3, 1]), tensor([2, 2, 1, 2]))
    """)

add_doc("bincount", "bincount(input, weights=None, minlength=0) -> Tensor", r"""
    Counts how often each value ``0, 1, ..., max(input)`` occurs in a 1-D tensor of non-negative integers.

    With ``weights``, each occurrence adds its weight instead of 1 (float32
    weights give float32 sums, other weights float64, as in PyTorch).

    Args:
        input (Tensor): 1-D, non-negative integers.
        weights (Tensor, optional): one weight per element of ``input``.
        minlength (int): the least number of bins. Default: 0.

    Returns:
        Tensor: ``max(max(input) + 1, minlength)`` bins; ``int64`` without weights.

    Example::

        >>> flow.bincount(flow.tensor([0, 1, 1, 3]))
        tensor([1, 2, 0, 1])
        >>> flow.tensor([0, 1, 1]).bincount(weights=flow.tensor([0.5, 1., 2.]))
        tensor([0.5000, 3.0000])
        >>> flow.bincount(flow.tensor([1]), minlength=4)
        tensor([0, 1, 0, 0])
    """)

add_doc("histc", "histc(input, bins=100, min=0, max=0) -> Tensor", r"""
    A histogram of the elements of ``input`` in ``bins`` equal-width bins over ``[min, max]``.

    With ``min == max`` (the default) the range is the data's own smallest and
    largest elements. Elements outside the range are ignored; ``max`` itself
    falls in the last bin. ``input`` must be floating point; not differentiable.

    Args:
        input (Tensor): the floating-point values (flattened).
        bins (int): the number of bins. Default: 100.
        min (float): the lower end of the range. Default: 0.
        max (float): the upper end of the range. Default: 0.

    Returns:
        Tensor: the counts, of ``input``'s dtype, shape ``(bins,)``.

    Example::

        >>> flow.histc(flow.tensor([1., 2., 1.]), bins=4, min=0, max=3)
        tensor([0., 2., 1., 0.])
    """)

add_doc(
    "searchsorted",
    "searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None, sorter=None) -> Tensor", r"""
    For each value of ``input``, the index at which it would be inserted into ``sorted_sequence`` to keep it sorted.

    The search runs along the last dim of ``sorted_sequence``; if that is not
    1-D, its leading dims must match ``input``'s. By default the index is
    before any equal elements (``side='left'``); ``right=True`` or
    ``side='right'`` puts it after them.

    Args:
        sorted_sequence (Tensor): ascending along its last dim (or sorted by ``sorter``).
        input (Tensor or Number): the values to look up.
        out_int32 (bool): return ``int32`` indices instead of ``int64``. Default: ``False``.
        right (bool): insert after equal elements. Default: ``False``.
        side (str, optional): ``'left'`` or ``'right'``, the same as ``right``
            (they must not contradict each other).
        sorter (Tensor, optional): the indices that sort an unsorted
            ``sorted_sequence`` (as :func:`monoflow.argsort` gives).

    Example::

        >>> seq = flow.tensor([1, 3, 5, 7])
        >>> flow.searchsorted(seq, flow.tensor([3, 6, 9]))
        tensor([1, 3, 4])
        >>> flow.searchsorted(seq, flow.tensor([3, 6, 9]), right=True)
        tensor([2, 3, 4])
        >>> flow.searchsorted(seq, 4)
        tensor(2)
    """)

add_doc("bucketize", "bucketize(input, boundaries, *, out_int32=False, right=False) -> Tensor", r"""
    The bucket index of each value of ``input``, given the ascending 1-D ``boundaries``.

    The same as ``searchsorted(boundaries, input)``: with ``right=False``
    value ``v`` goes to bucket ``i`` where ``boundaries[i-1] < v <= boundaries[i]``.

    Args:
        input (Tensor or Number): the values to place.
        boundaries (Tensor): 1-D, ascending.
        out_int32 (bool): return ``int32`` indices instead of ``int64``. Default: ``False``.
        right (bool): use ``boundaries[i-1] <= v < boundaries[i]`` instead.
            Default: ``False``.

    Example::

        >>> flow.bucketize(flow.tensor([3, 6, 9]), flow.tensor([1, 3, 5, 7]))
        tensor([1, 3, 4])
    """)

# ---------------------------------------------------------------- closeness (statistics of a comparison)

add_doc("isclose", "isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False) -> Tensor", r"""
    Tests, element-wise, whether ``input`` and ``other`` are close: ``|input - other| <= atol + rtol * |other|``.

    Equal elements (infinities of the same sign included) are always close;
    NaN is close to NaN only with ``equal_nan=True``. The test is not
    symmetric: the tolerance scales with ``other``. Both tensors must have
    the same dtype (``RuntimeError`` otherwise); ``other`` may be a number.

    Args:
        input (Tensor): the first tensor.
        other (Tensor or Number): the second one, broadcastable with ``input``.
        rtol (float): the relative tolerance, ``>= 0``. Default: ``1e-05``.
        atol (float): the absolute tolerance, ``>= 0``. Default: ``1e-08``.
        equal_nan (bool): count two NaNs as close. Default: ``False``.

    Returns:
        Tensor: a bool tensor of the broadcast shape.

    Example::

        >>> a = flow.tensor([1., 2., float("nan")])
        >>> b = flow.tensor([1., 2.000001, float("nan")])
        >>> flow.isclose(a, b)
        tensor([ True,  True, False])
        >>> a.isclose(b, equal_nan=True)
        tensor([True, True, True])
        >>> flow.isclose(flow.tensor([1.]), flow.tensor([1.1]), rtol=0, atol=0.2)
        tensor([True])
    """)

add_doc("allclose", "allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False) -> bool", r"""
    Whether every element of ``input`` is close to ``other``, as :func:`monoflow.isclose` tests it (a Python bool).

    Args:
        input (Tensor): the first tensor.
        other (Tensor or Number): the second one, broadcastable with ``input``.
        rtol (float): the relative tolerance. Default: ``1e-05``.
        atol (float): the absolute tolerance. Default: ``1e-08``.
        equal_nan (bool): count two NaNs as close. Default: ``False``.

    Example::

        >>> a = flow.tensor([1., 2., float("nan")])
        >>> b = flow.tensor([1., 2.000001, float("nan")])
        >>> flow.allclose(a, b)
        False
        >>> a.allclose(b, equal_nan=True)
        True
    """)

add_doc("equal", "equal(input, other) -> bool", r"""
    Whether ``input`` and ``other`` have the same shape and the same elements (a Python bool).

    Different shapes give ``False`` (no broadcasting); NaN is never equal to NaN.

    Args:
        input (Tensor): the first tensor.
        other (Tensor): the second tensor.

    Example::

        >>> flow.equal(flow.tensor([1, 2]), flow.tensor([1, 2]))
        True
        >>> flow.tensor([1, 2]).equal(flow.tensor([1, 2, 3]))
        False
    """)
