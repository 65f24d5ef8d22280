"""Comparisons and logical ops: eq/ne/lt/..., isnan/isinf/..., isin, logical ops, where."""
from monoflow._docs import add_doc, add_inplace_docs

# ---------------------------------------------------------------- element-wise comparisons

add_doc("eq", "eq(input, other) -> Tensor", r"""
    Tests ``input == other``, element-wise.

    ``other`` is a tensor or a number; the shapes broadcast and the operands
    are compared in their promoted dtype. ``nan`` equals nothing, not even
    itself. The in-place form ``x.eq_(other)`` writes 1 and 0 in ``x``'s
    dtype. For one bool telling whether two tensors are equal, see
    :func:`monoflow.equal`.

    Args:
        input (Tensor): the tensor to compare.
        other (Tensor or Number): what to compare it with.

    Returns:
        Tensor: a new bool tensor of the broadcast shape.

    Example::

        >>> flow.eq(flow.tensor([1, 2, 3]), 2)
        tensor([False,  True, False])
        >>> flow.tensor([1.0, float("nan")]).eq(flow.tensor([1.0, float("nan")]))
        tensor([ True, False])
    """)

add_doc("ne", "ne(input, other) -> Tensor", r"""
    Tests ``input != other``, element-wise.

    ``other`` is a tensor or a number; the shapes broadcast and the operands
    are compared in their promoted dtype. ``nan`` differs from everything,
    itself included. The in-place form ``x.ne_(other)`` writes 1 and 0 in
    ``x``'s dtype. ``not_equal`` is another name for it.

    Args:
        input (Tensor): the tensor to compare.
        other (Tensor or Number): what to compare it with.

    Returns:
        Tensor: a new bool tensor of the broadcast shape.

    Example::

        >>> flow.ne(flow.tensor([1, 2, 3]), 2)
        tensor([ True, False,  True])
        >>> flow.tensor([[1.0], [2.0]]).ne(flow.tensor([1.0, 2.0]))
        tensor([[False,  True],
                [ True, False]])
    """, aliases=("not_equal",))

add_doc("lt", "lt(input, other) -> Tensor", r"""
    Tests ``input < other``, element-wise.

    ``other`` is a tensor or a number; the shapes broadcast and the operands
    are compared in their promoted dtype; any comparison with ``nan`` is
    ``False``. The in-place form ``x.lt_(other)`` writes 1 and 0 in ``x``'s
    dtype. ``less`` is another name for it.

    Args:
        input (Tensor): the tensor to compare.
        other (Tensor or Number): what to compare it with.

    Returns:
        Tensor: a new bool tensor of the broadcast shape.

    Example::

        >>> flow.lt(flow.tensor([1, 2, 3]), 2)
        tensor([ True, False, False])
        >>> flow.tensor([1.0, 2.0]).lt_(2)
        tensor([1., 0.])
    """, aliases=("less",))

add_doc("le", "le(input, other) -> Tensor", r"""
    Tests ``input <= other``, element-wise.

    ``other`` is a tensor or a number; the shapes broadcast and the operands
    are compared in their promoted dtype; any comparison with ``nan`` is
    ``False``. The in-place form ``x.le_(other)`` writes 1 and 0 in ``x``'s
    dtype. ``less_equal`` is another name for it.

    Args:
        input (Tensor): the tensor to compare.
        other (Tensor or Number): what to compare it with.

    Returns:
        Tensor: a new bool tensor of the broadcast shape.

    Example::

        >>> flow.le(flow.tensor([1, 2, 3]), 2)
        tensor([ True,  True, False])
        >>> flow.tensor([1.5, 2.5]).le(flow.tensor([2, 2]))
        tensor([ True, False])
    """, aliases=("less_equal",))

add_doc("gt", "gt(input, other) -> Tensor", r"""
    Tests ``input > other``, element-wise.

    ``other`` is a tensor or a number; the shapes broadcast and the operands
    are compared in their promoted dtype; any comparison with ``nan`` is
    ``False``. The in-place form ``x.gt_(other)`` writes 1 and 0 in ``x``'s
    dtype. ``greater`` is another name for it.

    Args:
        input (Tensor): the tensor to compare.
        other (Tensor or Number): what to compare it with.

    Returns:
        Tensor: a new bool tensor of the broadcast shape.

    Example::

        >>> flow.gt(flow.tensor([1, 2, 3]), 2)
        tensor([False, False,  True])
        >>> flow.tensor([0.5, float("nan")]).gt(0)
        tensor([ True, False])
    """, aliases=("greater",))

add_doc("ge", "ge(input, other) -> Tensor", r"""
    Tests ``input >= other``, element-wise.

    ``other`` is a tensor or a number; the shapes broadcast and the operands
    are compared in their promoted dtype; any comparison with ``nan`` is
    ``False``. The in-place form ``x.ge_(other)`` writes 1 and 0 in ``x``'s
    dtype. ``greater_equal`` is another name for it.

    Args:
        input (Tensor): the tensor to compare.
        other (Tensor or Number): what to compare it with.

    Returns:
        Tensor: a new bool tensor of the broadcast shape.

    Example::

        >>> flow.ge(flow.tensor([1, 2, 3]), 2)
        tensor([False,  True,  True])
        >>> flow.tensor([[1], [3]]).ge(flow.tensor([2, 3]))
        tensor([[False, False],
                [ True,  True]])
    """, aliases=("greater_equal",))

# ---------------------------------------------------------------- tests of values and dtypes

add_doc("isnan", "isnan(input) -> Tensor", r"""
    Tests each element of ``input`` for NaN.

    Integer and bool tensors have no NaN: the result is all ``False``.

    Args:
        input (Tensor): the input tensor.

    Returns:
        Tensor: a new bool tensor of the same shape as ``input``.

    Example::

        >>> flow.isnan(flow.tensor([1.0, float("nan"), float("inf")]))
        tensor([False,  True, False])
        >>> flow.tensor([0.0, 1.0]).log().isnan().any()
        tensor(False)
    """)

add_doc("isinf", "isinf(input) -> Tensor", r"""
    Tests each element of ``input`` for positive or negative infinity.

    Args:
        input (Tensor): the input tensor.

    Returns:
        Tensor: a new bool tensor of the same shape as ``input``.

    Example::

        >>> flow.isinf(flow.tensor([1.0, float("inf"), -float("inf"), float("nan")]))
        tensor([False,  True,  True, False])
    """)

add_doc("isfinite", "isfinite(input) -> Tensor", r"""
    Tests whether each element of ``input`` is finite: neither infinite nor NaN.

    Integer and bool elements are always finite.

    Args:
        input (Tensor): the input tensor.

    Returns:
        Tensor: a new bool tensor of the same shape as ``input``.

    Example::

        >>> flow.isfinite(flow.tensor([1.0, float("inf"), float("nan")]))
        tensor([ True, False, False])
        >>> flow.tensor([1, 2]).isfinite()
        tensor([True, True])
    """)

add_doc("isposinf", "isposinf(input) -> Tensor", r"""
    Tests each element of ``input`` for positive infinity.

    Args:
        input (Tensor): the input tensor.

    Returns:
        Tensor: a new bool tensor of the same shape as ``input``.

    Example::

        >>> flow.isposinf(flow.tensor([1.0, float("inf"), -float("inf")]))
        tensor([False,  True, False])
    """)

add_doc("isneginf", "isneginf(input) -> Tensor", r"""
    Tests each element of ``input`` for negative infinity.

    Args:
        input (Tensor): the input tensor.

    Returns:
        Tensor: a new bool tensor of the same shape as ``input``.

    Example::

        >>> flow.isneginf(flow.tensor([1.0, float("inf"), -float("inf")]))
        tensor([False, False,  True])
    """)

add_doc("isreal", "isreal(input) -> Tensor", r"""
    Tests whether each element of ``input`` is a real number.

    monoflow's dtypes are all real, so the result is ``True`` everywhere (the
    function is there for programs written for torch's complex dtypes).

    Args:
        input (Tensor): the input tensor.

    Returns:
        Tensor: a new bool tensor of the same shape as ``input``.

    Example::

        >>> flow.isreal(flow.tensor([1.0, float("nan")]))
        tensor([True, True])
    """)

add_doc("is_floating_point", "is_floating_point(input) -> bool", r"""
    Tells whether the dtype of ``input`` is a floating-point dtype
    (``float16``, ``bfloat16``, ``float32`` or ``float64``).

    Args:
        input (Tensor): the tensor to inspect.

    Returns:
        bool: ``True`` for a floating dtype.

    Raises:
        TypeError: when ``input`` is not a tensor.

    Example::

        >>> flow.is_floating_point(flow.tensor([1.0]))
        True
        >>> flow.tensor([1]).is_floating_point()
        False
    """)

add_doc("is_nonzero", "is_nonzero(input) -> bool", r"""
    Tells whether the single element of ``input`` is not zero.

    Args:
        input (Tensor): a tensor with exactly one element (of any shape).

    Returns:
        bool: ``True`` when the element is non-zero.

    Raises:
        RuntimeError: when ``input`` has no element or more than one.

    Example::

        >>> flow.is_nonzero(flow.tensor([0.5]))
        True
        >>> flow.tensor([[0]]).is_nonzero()
        False
    """)

add_doc("isin", "isin(elements, test_elements, *, assume_unique=False, invert=False) -> Tensor", r"""
    Tests whether each element of ``elements`` is one of ``test_elements``.

    Either argument may be a number (not both). The result has the shape of
    ``elements``.

    Args:
        elements (Tensor or Number): the values to look up.
        test_elements (Tensor or Number): the values to look for, of any shape.
        assume_unique (bool): accepted for torch compatibility (a hint that
            both inputs hold no duplicates); the result is the same either way.
            Default: ``False``.
        invert (bool): return ``True`` where an element is *not* found.
            Default: ``False``.

    Returns:
        Tensor: a new bool tensor of the shape of ``elements``.

    Example::

        >>> flow.isin(flow.tensor([[1, 2], [3, 4]]), flow.tensor([2, 3]))
        tensor([[False,  True],
                [ True, False]])
        >>> flow.isin(flow.tensor([1, 2, 3]), 2, invert=True)
        tensor([ True, False,  True])
    """)

# ---------------------------------------------------------------- logical ops

add_doc("logical_and", "logical_and(input, other) -> Tensor", r"""
    Computes the logical AND of ``input`` and ``other``, element-wise.

    Non-zero elements count as ``True``, zeros as ``False``, whatever the
    dtypes; the shapes broadcast. The in-place form ``x.logical_and_(other)``
    writes 1 and 0 in ``x``'s dtype.

    Args:
        input (Tensor): the first operand.
        other (Tensor): the second operand.

    Returns:
        Tensor: a new bool tensor of the broadcast shape.

    Example::

        >>> flow.logical_and(flow.tensor([True, True, False]), flow.tensor([True, False, False]))
        tensor([ True, False, False])
        >>> flow.tensor([2, 0, 3]).logical_and(flow.tensor([1.0, 1.0, 0.0]))
        tensor([ True, False, False])
    """)

add_doc("logical_or", "logical_or(input, other) -> Tensor", r"""
    Computes the logical OR of ``input`` and ``other``, element-wise.

    Non-zero elements count as ``True``, zeros as ``False``, whatever the
    dtypes; the shapes broadcast. The in-place form ``x.logical_or_(other)``
    writes 1 and 0 in ``x``'s dtype.

    Args:
        input (Tensor): the first operand.
        other (Tensor): the second operand.

    Returns:
        Tensor: a new bool tensor of the broadcast shape.

    Example::

        >>> flow.logical_or(flow.tensor([True, True, False]), flow.tensor([True, False, False]))
        tensor([ True,  True, False])
        >>> flow.tensor([2, 0, 0]).logical_or(flow.tensor([0.0, 1.0, 0.0]))
        tensor([ True,  True, False])
    """)

add_doc("logical_xor", "logical_xor(input, other) -> Tensor", r"""
    Computes the logical XOR of ``input`` and ``other``, element-wise: ``True``
    where exactly one of them is non-zero.

    Non-zero elements count as ``True``, zeros as ``False``, whatever the
    dtypes; the shapes broadcast. The in-place form ``x.logical_xor_(other)``
    writes 1 and 0 in ``x``'s dtype.

    Args:
        input (Tensor): the first operand.
        other (Tensor): the second operand.

    Returns:
        Tensor: a new bool tensor of the broadcast shape.

    Example::

        >>> flow.logical_xor(flow.tensor([True, True, False]), flow.tensor([True, False, False]))
        tensor([False,  True, False])
        >>> flow.tensor([2, 0, 3]).logical_xor(flow.tensor([1.0, 1.0, 0.0]))
        tensor([False,  True,  True])
    """)

add_doc("logical_not", "logical_not(input) -> Tensor", r"""
    Computes the logical NOT of each element of ``input``: ``True`` where it is zero.

    Works on any dtype. The in-place form ``x.logical_not_()`` writes 1 and 0
    in ``x``'s dtype.

    Args:
        input (Tensor): the input tensor.

    Returns:
        Tensor: a new bool tensor of the same shape as ``input``.

    Example::

        >>> flow.logical_not(flow.tensor([True, False]))
        tensor([False,  True])
        >>> flow.tensor([0.0, 1.5, -2.0]).logical_not()
        tensor([ True, False, False])
    """)

# ---------------------------------------------------------------- selection

add_doc("where", "where(condition, input=None, other=None) -> Tensor", r"""
    Selects, element-wise, from ``input`` where ``condition`` is ``True`` and
    from ``other`` where it is ``False``. With ``condition`` alone, returns
    the indices of its nonzero elements, ``condition.nonzero(as_tuple=True)``.

    .. math:: \text{out}_i = \begin{cases} \text{input}_i & \text{if } \text{condition}_i \\
        \text{other}_i & \text{otherwise} \end{cases}

    The three shapes broadcast. ``input`` and ``other`` may be numbers; the
    result has their promoted dtype (two Python floats give the default
    floating dtype). The gradient flows to ``input`` and ``other`` only
    through the elements each of them supplies.

    Args:
        condition (Tensor): a bool tensor: where to take ``input``.
        input (Tensor or Number): the values where ``condition`` is ``True``.
        other (Tensor or Number): the values where ``condition`` is ``False``.

    Returns:
        Tensor: a new tensor of the broadcast shape.

    Example::

        >>> x = flow.tensor([-1.0, 2.0, -3.0])
        >>> flow.where(x > 0, x, 0.0)
        tensor([0., 2., 0.])
        >>> flow.where(flow.tensor([[True], [False]]), flow.tensor([1, 2]), flow.tensor([10, 20]))
        tensor([[ 1,  2],
                [10, 20]])
        >>> flow.where(flow.tensor([0, 3, 0, 5]))
        (tensor([1, 3]),)
    """, method=False)

add_doc("where", "Tensor.where(condition, other) -> Tensor", r"""
    Keeps this tensor's elements where ``condition`` is ``True`` and takes
    ``other`` elsewhere: ``monoflow.where(condition, self, other)``.

    The shapes broadcast; ``other`` may be a number.

    OneFlow's form is taken too: when this tensor is a bool or integer
    condition and the first argument is not a bool tensor (a call torch
    refuses), ``cond.where(x, y)`` is ``monoflow.where(cond, x, y)``, and
    ``cond.where()`` gives the indices of its nonzeros.

    Args:
        condition (Tensor): a bool tensor: where to keep this tensor's elements
            (in OneFlow's form, the values where this tensor is nonzero).
        other (Tensor or Number): the values where ``condition`` is ``False``.

    Returns:
        Tensor: a new tensor of the broadcast shape.

    Example::

        >>> x = flow.tensor([1.0, -2.0, 3.0])
        >>> x.where(x > 0, flow.zeros(3))
        tensor([1., 0., 3.])
        >>> flow.tensor([1, 0, 2]).where(x, 0.0)  # OneFlow's form: this tensor is the condition
        tensor([1., 0., 3.])

    See :func:`monoflow.where`.
    """)

add_inplace_docs(
    "eq_", "ne_", "not_equal_", "lt_", "less_", "le_", "less_equal_", "gt_", "greater_", "ge_", "greater_equal_",
    "logical_and_", "logical_or_", "logical_xor_", "logical_not_",
)
