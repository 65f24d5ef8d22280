"""Pointwise math: arithmetic, powers and logs, trigonometry, rounding, activations on tensors."""
import textwrap

from monoflow._docs import add_doc, add_inplace_docs

# What the unary functions do with the dtype of their input.
_FLOATING = ("Integer and bool inputs are computed in the default floating dtype "
             "(:func:`monoflow.get_default_dtype`, ``float32`` unless changed); floating inputs keep their dtype.")
_KEEPING = "The result has the dtype of ``input``."


def _unary_doc(name, summary, example, *, formula=None, notes="", floating=True, aliases=()):
    """Records the text of a one-argument elementwise op, ``name(input) -> Tensor``."""
    parts = [summary]
    if formula:
        parts.append(f".. math:: {formula}")
    if notes:
        parts.append(textwrap.dedent(notes).strip())
    parts.append(_FLOATING if floating else _KEEPING)
    if aliases:
        parts.append(" ".join(f"``{a}`` is another name for it." for a in aliases))
    parts.append("Args:\n    input (Tensor): the input tensor.")
    parts.append("Returns:\n    Tensor: a new tensor of the same shape as ``input``.")
    parts.append("Example::\n\n" + textwrap.indent(textwrap.dedent(example).strip(), "    "))
    add_doc(name, f"{name}(input) -> Tensor", "\n\n".join(parts), aliases=aliases)


# ---------------------------------------------------------------- arithmetic

add_doc("add", "add(input, other, *, alpha=1) -> Tensor", r"""
    Adds ``other``, scaled by ``alpha``, to ``input``, element-wise.

    .. math:: \text{out}_i = \text{input}_i + \text{alpha} \times \text{other}_i

    The shapes of ``input`` and ``other`` broadcast; the result's dtype is
    their promoted dtype (see :func:`monoflow.promote_types`). As in OneFlow,
    ``input`` may be a number when ``other`` is a tensor.

    Args:
        input (Tensor or Number): the tensor to add to.
        other (Tensor or Number): the tensor or number to add.
        *deprecated: torch's deprecated form ``add(input, alpha, other)``, still accepted
            (with a one-time warning) for the programs written in it.
        alpha (Number): the multiplier of ``other``. Default: 1.
        inplace (bool): the function form only (OneFlow's): write the result into ``input`` and
            return it, as the ``_`` method does. Default: ``False``.

    Returns:
        Tensor: a new tensor of the broadcast shape.

    Example::

        >>> x = flow.tensor([1.0, 2.0, 3.0])
        >>> flow.add(x, 10)
        tensor([11., 12., 13.])
        >>> x.add(flow.ones(3), alpha=2)
        tensor([3., 4., 5.])
    """)

add_doc("sub", "sub(input, other, *, alpha=1) -> Tensor", r"""
    Subtracts ``other``, scaled by ``alpha``, from ``input``, element-wise.

    .. math:: \text{out}_i = \text{input}_i - \text{alpha} \times \text{other}_i

    The shapes broadcast and the dtypes promote as for :func:`monoflow.add`;
    ``input`` may be a number when ``other`` is a tensor. ``subtract`` is
    another name for it.

    Args:
        input (Tensor or Number): the tensor to subtract from.
        other (Tensor or Number): the tensor or number to subtract.
        *deprecated: torch's deprecated form ``sub(input, alpha, other)``, still accepted
            (with a one-time warning).
        alpha (Number): the multiplier of ``other``. Default: 1.
        inplace (bool): the function form only (OneFlow's): write the result into ``input`` and
            return it, as the ``_`` method does. Default: ``False``.

    Returns:
        Tensor: a new tensor of the broadcast shape.

    Example::

        >>> x = flow.tensor([5.0, 6.0, 7.0])
        >>> flow.sub(x, 1)
        tensor([4., 5., 6.])
        >>> x.sub(flow.ones(3), alpha=3)
        tensor([2., 3., 4.])
        >>> flow.sub(10, x)
        tensor([5., 4., 3.])
    """, aliases=("subtract",))

add_doc("rsub", "rsub(input, other, *, alpha=1) -> Tensor", r"""
    Subtracts ``input``, scaled by ``alpha``, from ``other``: the reversed
    :func:`monoflow.sub`.

    .. math:: \text{out}_i = \text{other}_i - \text{alpha} \times \text{input}_i

    Shapes broadcast and dtypes promote as for :func:`monoflow.sub`.

    Args:
        input (Tensor): the tensor that is subtracted.
        other (Tensor or Number): the tensor or number to subtract from.
        alpha (Number): the multiplier of ``input``. Default: 1.

    Returns:
        Tensor: a new tensor of the broadcast shape.

    Example::

        >>> flow.rsub(flow.tensor([1.0, 2.0]), 10)
        tensor([9., 8.])
        >>> flow.rsub(flow.tensor([1.0, 2.0]), flow.tensor([5.0, 5.0]), alpha=2)
        tensor([3., 1.])
    """)

add_doc("mul", "mul(input, other) -> Tensor", r"""
    Multiplies ``input`` by ``other``, element-wise.

    .. math:: \text{out}_i = \text{input}_i \times \text{other}_i

    The shapes broadcast; the result's dtype is the promoted dtype of the two
    (a Python float times an integer tensor gives the default floating dtype).
    ``input`` may be a number when ``other`` is a tensor. ``multiply`` is
    another name for it.

    Args:
        input (Tensor or Number): the first factor.
        other (Tensor or Number): the second factor.
        inplace (bool): the function form only (OneFlow's): write the result into ``input`` and
            return it, as the ``_`` method does. Default: ``False``.

    Returns:
        Tensor: a new tensor of the broadcast shape.

    Example::

        >>> x = flow.tensor([1, 2, 3])
        >>> flow.mul(x, 2)
        tensor([2, 4, 6])
        >>> x.mul(0.5)
        tensor([0.5000, 1.0000, 1.5000])
        >>> flow.mul(flow.ones(2, 1), flow.tensor([1.0, 2.0, 3.0])).shape
        monoflow.Size([2, 3])
    """, aliases=("multiply",))

add_doc("div", "div(input, other, *, rounding_mode=None) -> Tensor", r"""
    Divides ``input`` by ``other``, element-wise (true division).

    .. math:: \text{out}_i = \frac{\text{input}_i}{\text{other}_i}

    The shapes broadcast. Without ``rounding_mode`` the result is always
    floating: integer and bool operands give the default floating dtype.
    Division by zero gives ``inf`` or ``nan`` as in IEEE arithmetic.
    ``input`` may be a number when ``other`` is a tensor. ``"trunc"`` rounds
    the quotient towards zero, ``"floor"`` rounds it down; with these two,
    integer operands keep their integer dtype (see :func:`monoflow.divide`).

    Args:
        input (Tensor or Number): the dividend.
        other (Tensor or Number): the divisor.
        rounding_mode (str, optional): ``None``, ``"trunc"`` or ``"floor"``.
            Default: ``None``.
        inplace (bool): the function form only (OneFlow's): write the result into ``input`` and
            return it, as the ``_`` method does. Default: ``False``.

    Returns:
        Tensor: a new floating tensor of the broadcast shape.

    Example::

        >>> flow.div(flow.tensor([1, 2, 3]), 2)
        tensor([0.5000, 1.0000, 1.5000])
        >>> flow.tensor([1.0, -1.0, 0.0]).div(0)
        tensor([inf, -inf, nan])
        >>> flow.tensor([7, -7]).div(2, rounding_mode="trunc")
        tensor([ 3, -3])
    """)

add_doc("divide", "divide(input, other, *, rounding_mode=None) -> Tensor", r"""
    Divides ``input`` by ``other``, element-wise, optionally rounding the
    quotient.

    The same operation as :func:`monoflow.div`: with ``rounding_mode=None``,
    true division (a floating result). ``"trunc"`` rounds the quotient towards zero (C
    division), ``"floor"`` rounds it down (Python's ``//``); with these two,
    integer operands keep their integer dtype. The shapes broadcast.
    ``true_divide`` is another name for it.

    Args:
        input (Tensor or Number): the dividend.
        other (Tensor or Number): the divisor.
        rounding_mode (str, optional): ``None``, ``"trunc"`` or ``"floor"``.
            Default: ``None``.

    Returns:
        Tensor: a new tensor of the broadcast shape.

    Raises:
        RuntimeError: for another ``rounding_mode``.

    Example::

        >>> a = flow.tensor([7, -7])
        >>> flow.divide(a, 2)
        tensor([ 3.5000, -3.5000])
        >>> flow.divide(a, flow.tensor([2, 2]), rounding_mode="trunc")
        tensor([ 3, -3])
        >>> a.divide(2, rounding_mode="floor")
        tensor([ 3, -4])
    """, aliases=("true_divide",))

add_doc("floor_divide", "floor_divide(input, other, *, inplace=False) -> Tensor", r"""
    Divides ``input`` by ``other`` and rounds the quotient down, element-wise
    (Python's ``//``).

    .. math:: \text{out}_i = \left\lfloor \frac{\text{input}_i}{\text{other}_i} \right\rfloor

    The shapes broadcast and the dtypes promote; integer operands give an
    integer result. Same as ``divide(input, other, rounding_mode="floor")``.

    Args:
        input (Tensor): the dividend.
        other (Tensor or Number): the divisor.
        inplace (bool): OneFlow's: write the result into ``input`` and return it
            (``input.floor_divide_(...)``). Default: ``False``.

    Returns:
        Tensor: a new tensor of the broadcast shape.

    Example::

        >>> flow.floor_divide(flow.tensor([7, -7]), 2)
        tensor([ 3, -4])
        >>> flow.tensor([7.5, -7.5]).floor_divide(2)
        tensor([ 3., -4.])
    """)

add_doc("neg", "neg(input) -> Tensor", r"""
    Negates each element of ``input``: ``-input``.

    The result has the dtype of ``input`` (a bool tensor is refused, as in
    torch). ``negative`` is another name for it.

    Args:
        input (Tensor): the input tensor.

    Returns:
        Tensor: a new tensor of the same shape as ``input``.

    Example::

        >>> flow.neg(flow.tensor([1.0, -2.0, 0.0]))
        tensor([-1.,  2., -0.])
        >>> flow.tensor([3, -4]).neg()
        tensor([-3,  4])
    """, aliases=("negative",))

add_doc("positive", "positive(input) -> Tensor", r"""
    Returns ``input`` itself (unary ``+``); a bool tensor is refused.

    Args:
        input (Tensor): the input tensor.

    Returns:
        Tensor: ``input``, not a copy.

    Raises:
        RuntimeError: when ``input`` is a bool tensor.

    Example::

        >>> x = flow.tensor([1.0, -2.0])
        >>> flow.positive(x) is x
        True
    """)

add_doc("reciprocal", "reciprocal(input) -> Tensor", r"""
    Computes ``1 / input``, element-wise.

    Integer and bool inputs are computed in the default floating dtype;
    floating inputs keep their dtype. The reciprocal of zero is ``inf``.

    Args:
        input (Tensor): the input tensor.

    Returns:
        Tensor: a new tensor of the same shape as ``input``.

    Example::

        >>> flow.reciprocal(flow.tensor([2.0, -4.0, 0.0]))
        tensor([ 0.5000, -0.2500,     inf])
        >>> flow.tensor([1, 2]).reciprocal()
        tensor([1.0000, 0.5000])
    """)

add_doc("remainder", "remainder(input, other) -> Tensor", r"""
    Computes the remainder of dividing ``input`` by ``other``, element-wise,
    with the sign of the divisor (Python's ``%``).

    .. math::
        \text{out}_i = \text{input}_i - \left\lfloor \frac{\text{input}_i}{\text{other}_i} \right\rfloor
        \times \text{other}_i

    The shapes broadcast and the dtypes promote; either operand may be a
    Python number. See :func:`monoflow.fmod` for the remainder with the sign
    of the dividend.

    Args:
        input (Tensor or Number): the dividend.
        other (Tensor or Number): the divisor.

    Returns:
        Tensor: a new tensor of the broadcast shape.

    Example::

        >>> flow.remainder(flow.tensor([5, -5]), 3)
        tensor([2, 1])
        >>> flow.tensor([5.5, -5.5]).remainder(2)
        tensor([1.5000, 0.5000])
    """)

add_doc("fmod", "fmod(input, other, *, inplace=False) -> Tensor", r"""
    Computes the remainder of dividing ``input`` by ``other``, element-wise,
    with the sign of the dividend (C's ``fmod``).

    .. math::
        \text{out}_i = \text{input}_i - \text{trunc}\left(\frac{\text{input}_i}{\text{other}_i}\right)
        \times \text{other}_i

    The shapes broadcast and the dtypes promote; either operand may be a
    Python number. See :func:`monoflow.remainder` for Python's ``%``.

    Args:
        input (Tensor or Number): the dividend.
        other (Tensor or Number): the divisor.
        inplace (bool): OneFlow's: write the result into ``input`` and return it
            (``input.fmod_(...)``). Default: ``False``.

    Returns:
        Tensor: a new tensor of the broadcast shape.

    Example::

        >>> flow.fmod(flow.tensor([5, -5]), 3)
        tensor([ 2, -2])
        >>> flow.tensor([5.5, -5.5]).fmod(2)
        tensor([ 1.5000, -1.5000])
    """)

add_doc("addcmul", "addcmul(input, tensor1, tensor2, *, value=1) -> Tensor", r"""
    Adds ``value * tensor1 * tensor2`` to ``input``, element-wise, in one pass.

    .. math:: \text{out}_i = \text{input}_i + \text{value} \times \text{tensor1}_i \times \text{tensor2}_i

    The three shapes broadcast and the dtypes promote.

    Args:
        input (Tensor): the tensor to add to.
        tensor1 (Tensor): the first factor.
        tensor2 (Tensor): the second factor.
        *deprecated: torch's deprecated form ``addcmul(input, value, tensor1, tensor2)``,
            still accepted (with a one-time warning).
        value (Number): the multiplier of the product. Default: 1.

    Returns:
        Tensor: a new tensor of the broadcast shape.

    Example::

        >>> x = flow.zeros(3)
        >>> flow.addcmul(x, flow.tensor([1.0, 2.0, 3.0]), flow.tensor([2.0, 2.0, 2.0]), value=0.5)
        tensor([1., 2., 3.])
    """)

add_doc("addcdiv", "addcdiv(input, tensor1, tensor2, *, value=1) -> Tensor", r"""
    Adds ``value * tensor1 / tensor2`` to ``input``, element-wise, in one pass.

    .. math:: \text{out}_i = \text{input}_i + \text{value} \times \frac{\text{tensor1}_i}{\text{tensor2}_i}

    The three shapes broadcast and the dtypes promote (this is the update of
    Adam-style optimizers).

    Args:
        input (Tensor): the tensor to add to.
        tensor1 (Tensor): the numerator.
        tensor2 (Tensor): the denominator.
        *deprecated: torch's deprecated form ``addcdiv(input, value, tensor1, tensor2)``,
            still accepted (with a one-time warning).
        value (Number): the multiplier of the quotient. Default: 1.

    Returns:
        Tensor: a new tensor of the broadcast shape.

    Example::

        >>> x = flow.ones(3)
        >>> x.addcdiv(flow.tensor([1.0, 2.0, 3.0]), flow.tensor([2.0, 4.0, 6.0]), value=2)
        tensor([2., 2., 2.])
    """)

add_doc("lerp", "lerp(input, end, weight) -> Tensor", r"""
    Interpolates linearly from ``input`` to ``end`` by ``weight``, element-wise.

    .. math:: \text{out}_i = \text{input}_i + \text{weight}_i \times (\text{end}_i - \text{input}_i)

    ``weight`` is a number or a tensor; the shapes broadcast.

    Args:
        input (Tensor): the start points.
        end (Tensor): the end points.
        weight (float or Tensor): the weight of ``end``: 0 gives ``input``,
            1 gives ``end``.

    Returns:
        Tensor: a new tensor of the broadcast shape.

    Example::

        >>> start, end = flow.tensor([0.0, 10.0]), flow.tensor([10.0, 20.0])
        >>> flow.lerp(start, end, 0.25)
        tensor([ 2.5000, 12.5000])
        >>> start.lerp(end, flow.tensor([0.0, 1.0]))
        tensor([ 0., 20.])
    """)

# ---------------------------------------------------------------- powers, exponentials, logarithms

add_doc("pow", "pow(input, exponent, *, inplace=False) -> Tensor", r"""
    Raises ``input`` to the power ``exponent``, element-wise.

    .. math:: \text{out}_i = \text{input}_i^{\text{exponent}_i}

    Either argument may be a Python number (not both); the shapes broadcast
    and the dtypes promote as for :func:`monoflow.add`, so an integer tensor
    to a float power is floating, and an integer tensor to an integer power
    stays integer. ``x ** y`` calls it.

    Args:
        input (Tensor or Number): the base.
        exponent (Tensor or Number): the exponent.
        inplace (bool): OneFlow's: write the result into ``input`` and return it
            (``input.pow_(...)``). Default: ``False``.

    Returns:
        Tensor: a new tensor of the broadcast shape.

    Example::

        >>> flow.pow(flow.tensor([1, 2, 3]), 2)
        tensor([1, 4, 9])
        >>> flow.pow(2, flow.tensor([0.0, 0.5, 1.0]))
        tensor([1.0000, 1.4142, 2.0000])
        >>> flow.tensor([4.0, 9.0]).pow(0.5)
        tensor([2., 3.])
    """)

add_doc("float_power", "float_power(input, exponent) -> Tensor", r"""
    Raises ``input`` to the power ``exponent``, element-wise, in ``float64``.

    Like :func:`monoflow.pow`, but both operands are converted to ``float64``
    first, so the result is always ``float64``.

    Args:
        input (Tensor or Number): the base.
        exponent (Tensor or Number): the exponent.

    Returns:
        Tensor: a new ``float64`` tensor of the broadcast shape.

    Example::

        >>> flow.float_power(flow.tensor([1, 2, 3]), 2)
        tensor([1., 4., 9.], dtype=monoflow.float64)
    """)

_unary_doc("square", "Squares each element of ``input``: ``input * input``.", """
    >>> flow.square(flow.tensor([1, -2, 3]))
    tensor([1, 4, 9])
    >>> flow.tensor([0.5, -1.5]).square()
    tensor([0.2500, 2.2500])
""", floating=False)

_unary_doc("sqrt", "Computes the square root of each element of ``input``.", """
    >>> flow.sqrt(flow.tensor([4.0, 2.0, 0.0]))
    tensor([2.0000, 1.4142, 0.0000])
    >>> flow.tensor([-1.0]).sqrt()
    tensor([nan])
""", formula=r"\text{out}_i = \sqrt{\text{input}_i}", notes="Negative elements give ``nan``.")

_unary_doc("rsqrt", "Computes the reciprocal of the square root of each element of ``input``.", """
    >>> flow.rsqrt(flow.tensor([4.0, 0.25, 0.0]))
    tensor([0.5000, 2.0000,    inf])
""", formula=r"\text{out}_i = \frac{1}{\sqrt{\text{input}_i}}", notes="Zero gives ``inf``, negative elements ``nan``.")

_unary_doc("exp", "Computes the exponential of each element of ``input``.", """
    >>> flow.exp(flow.tensor([0.0, 1.0, -1.0]))
    tensor([1.0000, 2.7183, 0.3679])
    >>> flow.tensor([0, 2]).exp()
    tensor([1.0000, 7.3891])
""", formula=r"\text{out}_i = e^{\text{input}_i}")

_unary_doc("exp2", "Computes 2 to the power of each element of ``input``.", """
    >>> flow.exp2(flow.tensor([0.0, 1.0, 3.0, -1.0]))
    tensor([1.0000, 2.0000, 8.0000, 0.5000])
""", formula=r"\text{out}_i = 2^{\text{input}_i}")

_unary_doc("expm1", "Computes ``exp(input) - 1`` for each element, accurately for small inputs.", """
    >>> flow.expm1(flow.tensor([0.0, 1e-10, 1.0]))
    tensor([0.0000e+00, 1.0000e-10, 1.7183e+00])
""", formula=r"\text{out}_i = e^{\text{input}_i} - 1")

_unary_doc("log", "Computes the natural logarithm of each element of ``input``.", """
    >>> flow.log(flow.tensor([1.0, 2.718281828, 0.0]))
    tensor([0.0000, 1.0000,   -inf])
    >>> flow.tensor([-1.0]).log()
    tensor([nan])
""", formula=r"\text{out}_i = \ln(\text{input}_i)", notes="Zero gives ``-inf``, negative elements ``nan``.")

_unary_doc("log2", "Computes the base-2 logarithm of each element of ``input``.", """
    >>> flow.log2(flow.tensor([1.0, 2.0, 8.0, 0.5]))
    tensor([ 0.,  1.,  3., -1.])
""", formula=r"\text{out}_i = \log_2(\text{input}_i)", notes="Zero gives ``-inf``, negative elements ``nan``.")

_unary_doc("log10", "Computes the base-10 logarithm of each element of ``input``.", """
    >>> flow.log10(flow.tensor([1.0, 10.0, 1000.0]))
    tensor([0., 1., 3.])
""", formula=r"\text{out}_i = \log_{10}(\text{input}_i)", notes="Zero gives ``-inf``, negative elements ``nan``.")

_unary_doc("log1p", "Computes ``log(1 + input)`` for each element, accurately for small inputs.", """
    >>> flow.log1p(flow.tensor([0.0, 1e-10, 1.0]))
    tensor([0.0000e+00, 1.0000e-10, 6.9315e-01])
""", formula=r"\text{out}_i = \ln(1 + \text{input}_i)", notes="``-1`` gives ``-inf``, smaller elements ``nan``.")

add_doc("logaddexp", "logaddexp(input, other) -> Tensor", r"""
    Computes ``log(exp(input) + exp(other))``, element-wise, without overflow.

    .. math:: \text{out}_i = \ln\left(e^{\text{input}_i} + e^{\text{other}_i}\right)

    Useful to add probabilities kept as logarithms. The shapes broadcast;
    integer inputs are computed in the default floating dtype.

    Args:
        input (Tensor): the first operand.
        other (Tensor): the second operand.

    Returns:
        Tensor: a new floating tensor of the broadcast shape.

    Example::

        >>> flow.logaddexp(flow.tensor([0.0, 1000.0]), flow.tensor([0.0, 1000.0]))
        tensor([6.9315e-01, 1.0007e+03])
    """)

add_doc("logaddexp2", "logaddexp2(input, other) -> Tensor", r"""
    Computes ``log2(2**input + 2**other)``, element-wise, without overflow.

    .. math:: \text{out}_i = \log_2\left(2^{\text{input}_i} + 2^{\text{other}_i}\right)

    The base-2 form of :func:`monoflow.logaddexp`. The shapes broadcast;
    integer inputs are computed in the default floating dtype.

    Args:
        input (Tensor): the first operand.
        other (Tensor): the second operand.

    Returns:
        Tensor: a new floating tensor of the broadcast shape.

    Example::

        >>> flow.logaddexp2(flow.tensor([1.0, 3.0]), flow.tensor([1.0, 3.0]))
        tensor([2., 4.])
    """)

add_doc("xlogy", "xlogy(input, other) -> Tensor", r"""
    Computes ``input * log(other)``, element-wise, with 0 where ``input`` is 0.

    .. math::
        \text{out}_i = \begin{cases} 0 & \text{if } \text{input}_i = 0 \text{ and } \text{other}_i \text{ is not NaN} \\
        \text{input}_i \times \ln(\text{other}_i) & \text{otherwise} \end{cases}

    Either operand may be a Python number (not both); the shapes broadcast,
    and integer operands are computed in the default floating dtype. This is
    the term of entropies and KL divergences, where ``0 * log(0)`` counts as 0.

    Args:
        input (Tensor or Number): the multiplier.
        other (Tensor or Number): the argument of the logarithm.

    Returns:
        Tensor: a new floating tensor of the broadcast shape.

    Example::

        >>> flow.xlogy(flow.tensor([0.0, 1.0, 2.0]), flow.tensor([0.0, 2.718281828, 1.0]))
        tensor([0.0000, 1.0000, 0.0000])
    """)

add_doc("logit", "logit(input, eps=None) -> Tensor", r"""
    Computes the log-odds ``log(p / (1 - p))`` of each element ``p`` of ``input``.

    .. math:: \text{out}_i = \ln\left(\frac{z_i}{1 - z_i}\right), \quad
        z_i = \begin{cases} \text{input}_i & \text{if eps is None} \\
        \min(\max(\text{input}_i, \text{eps}), 1 - \text{eps}) & \text{otherwise} \end{cases}

    The inverse of :func:`monoflow.sigmoid`. Integer inputs are computed in
    the default floating dtype.

    Args:
        input (Tensor): probabilities, in ``[0, 1]``.
        eps (float, optional): when given, ``input`` is clamped to
            ``[eps, 1 - eps]`` first (the gradient is zero outside). Default:
            ``None`` (no clamping: 0 and 1 give ``-inf`` and ``inf``).

    Returns:
        Tensor: a new tensor of the same shape as ``input``.

    Example::

        >>> p = flow.tensor([0.5, 0.75, 1.0])
        >>> flow.logit(p)
        tensor([0.0000, 1.0986,    inf])
        >>> p.logit(eps=1e-6)
        tensor([ 0.0000,  1.0986, 13.8023])
    """)

add_doc("ldexp", "ldexp(input, other) -> Tensor", r"""
    Multiplies ``input`` by 2 to the power ``other``, element-wise.

    .. math:: \text{out}_i = \text{input}_i \times 2^{\text{other}_i}

    Integer inputs are computed in the default floating dtype; ``other`` may
    be a number. The shapes broadcast.

    Args:
        input (Tensor): the mantissas.
        other (Tensor or Number): the exponents.

    Returns:
        Tensor: a new floating tensor of the broadcast shape.

    Example::

        >>> flow.ldexp(flow.tensor([1.0, 3.0]), flow.tensor([2, 3]))
        tensor([ 4., 24.])
    """)

# ---------------------------------------------------------------- sign, rounding, magnitude

_unary_doc("abs", "Computes the absolute value of each element of ``input``.", """
    >>> flow.abs(flow.tensor([-1.5, 0.0, 2.0]))
    tensor([1.5000, 0.0000, 2.0000])
    >>> flow.tensor([-3, 4]).abs()
    tensor([3, 4])
""", formula=r"\text{out}_i = |\text{input}_i|", floating=False, aliases=("absolute",))

_unary_doc("sign", "Computes the sign of each element of ``input``: -1, 0 or 1.", """
    >>> flow.sign(flow.tensor([-2.5, 0.0, 3.0]))
    tensor([-1.,  0.,  1.])
    >>> flow.tensor([-7, 0, 7]).sign()
    tensor([-1,  0,  1])
""", floating=False, notes="``nan`` stays ``nan``.")

_unary_doc("sgn", "Computes the sign of each element of ``input``: -1, 0 or 1.", """
    >>> flow.sgn(flow.tensor([-2.5, 0.0, 3.0]))
    tensor([-1.,  0.,  1.])
""", floating=False, notes="torch's complex-aware sign; monoflow's dtypes are real, so it is "
                           ":func:`monoflow.sign`.")

add_doc("signbit", "signbit(input) -> Tensor", r"""
    Tests the sign bit of each element of ``input``: ``True`` for negative
    numbers, and for ``-0.0`` too.

    Args:
        input (Tensor): the input tensor.

    Returns:
        Tensor: a new bool tensor of the same shape as ``input``.

    Example::

        >>> flow.signbit(flow.tensor([-1.0, -0.0, 0.0, 2.0]))
        tensor([ True,  True, False, False])
    """)

add_doc("copysign", "copysign(input, other) -> Tensor", r"""
    Returns the magnitude of ``input`` with the sign of ``other``, element-wise.

    .. math:: \text{out}_i = \begin{cases} -|\text{input}_i| & \text{if } \text{other}_i \text{ has its sign bit set} \\
        |\text{input}_i| & \text{otherwise} \end{cases}

    The sign bit counts, so ``-0.0`` in ``other`` gives a negative result.
    ``other`` may be a number; the shapes broadcast; the result is floating
    (integer operands give the default floating dtype).

    Args:
        input (Tensor): the magnitudes.
        other (Tensor or Number): the signs.

    Returns:
        Tensor: a new floating tensor of the broadcast shape.

    Example::

        >>> flow.copysign(flow.tensor([1.0, -2.0, 3.0]), flow.tensor([-1.0, 1.0, -0.0]))
        tensor([-1.,  2., -3.])
        >>> flow.tensor([1, 2]).copysign(-1)
        tensor([-1., -2.])
    """)

add_doc("nextafter", "nextafter(input, other) -> Tensor", r"""
    Returns the next floating-point value after ``input`` towards ``other``,
    element-wise.

    Both tensors must be ``float32`` or both ``float64``; the result is not
    differentiable.

    Args:
        input (Tensor): the start values.
        other (Tensor): the directions, of ``input``'s dtype.

    Returns:
        Tensor: a new tensor of the broadcast shape.

    Raises:
        RuntimeError: for other dtypes.

    Example::

        >>> x = flow.tensor([1.0], dtype=flow.float64)
        >>> flow.nextafter(x, flow.tensor([2.0], dtype=flow.float64)) - x
        tensor([2.2204e-16], dtype=monoflow.float64)
    """)

_unary_doc("floor", "Rounds each element of ``input`` down to the nearest integer.", """
    >>> flow.floor(flow.tensor([1.5, -1.5, 2.0]))
    tensor([ 1., -2.,  2.])
""", formula=r"\text{out}_i = \lfloor \text{input}_i \rfloor", floating=False)

_unary_doc("ceil", "Rounds each element of ``input`` up to the nearest integer.", """
    >>> flow.ceil(flow.tensor([1.5, -1.5, 2.0]))
    tensor([ 2., -1.,  2.])
""", formula=r"\text{out}_i = \lceil \text{input}_i \rceil", floating=False)

_unary_doc("trunc", "Rounds each element of ``input`` towards zero (drops the fractional part).", """
    >>> flow.trunc(flow.tensor([1.7, -1.7, 2.0]))
    tensor([ 1., -1.,  2.])
""", floating=False, aliases=("fix",))

add_doc("frac", "frac(input) -> Tensor", r"""
    Computes the fractional part of each element of ``input``: ``input - trunc(input)``.

    The result keeps the sign of ``input`` and its dtype; integer tensors are
    refused, as in torch.

    Args:
        input (Tensor): a floating tensor.

    Returns:
        Tensor: a new tensor of the same shape as ``input``.

    Raises:
        NotImplementedError: for an integer tensor.

    Example::

        >>> flow.frac(flow.tensor([1.25, -2.75, 3.0]))
        tensor([ 0.2500, -0.7500,  0.0000])
    """)

add_doc("round", "round(input, *, decimals=None) -> Tensor", r"""
    Rounds each element of ``input`` to the nearest integer, or to
    ``decimals`` decimal places; halves round to even.

    The result has the dtype of ``input``.

    Args:
        input (Tensor): the input tensor.
        decimals (int, optional): the number of decimal places to keep;
            negative rounds to tens, hundreds, ... (floating tensors only, as
            in torch). Default: ``None`` (round to integers).

    Returns:
        Tensor: a new tensor of the same shape as ``input``.

    Example::

        >>> flow.round(flow.tensor([0.5, 1.5, 2.5, -0.7]))
        tensor([ 0.,  2.,  2., -1.])
        >>> flow.tensor([1.2345, 16.0]).round(decimals=2)
        tensor([ 1.2300, 16.0000])
        >>> flow.round(flow.tensor([1234.0]), decimals=-2)
        tensor([1200.])
    """)

add_doc("clamp", "clamp(input, min=None, max=None) -> Tensor", r"""
    Clamps each element of ``input`` into the range ``[min, max]``.

    .. math:: \text{out}_i = \min(\max(\text{input}_i, \text{min}_i), \text{max}_i)

    Each bound is a number, a tensor (broadcast against ``input``) or
    ``None`` (no bound on that side); at least one must be given. Where
    ``min > max`` the result is ``max``. The gradient passes where the element
    lies within the bounds. ``clip`` is another name for it.

    Args:
        input (Tensor): the input tensor.
        min (Number or Tensor, optional): the lower bound. Default: ``None``.
        max (Number or Tensor, optional): the upper bound. Default: ``None``.

    Returns:
        Tensor: a new tensor of the broadcast shape.

    Raises:
        RuntimeError: when both bounds are ``None``.

    Example::

        >>> x = flow.tensor([-2.0, 0.5, 3.0])
        >>> flow.clamp(x, min=-1.0, max=1.0)
        tensor([-1.0000,  0.5000,  1.0000])
        >>> x.clamp(min=0)
        tensor([0.0000, 0.5000, 3.0000])
        >>> x.clip(max=flow.tensor([0.0, 0.0, 2.0]))
        tensor([-2.,  0.,  2.])
    """, aliases=("clip",))

add_doc("clamp_min", "clamp_min(input, min) -> Tensor", r"""
    Clamps each element of ``input`` from below: ``clamp(input, min=min)``.

    Args:
        input (Tensor): the input tensor.
        min (Number or Tensor): the lower bound.

    Returns:
        Tensor: a new tensor of the broadcast shape.

    Example::

        >>> flow.clamp_min(flow.tensor([-2.0, 0.5, 3.0]), 0)
        tensor([0.0000, 0.5000, 3.0000])
    """)

add_doc("clamp_max", "clamp_max(input, max) -> Tensor", r"""
    Clamps each element of ``input`` from above: ``clamp(input, max=max)``.

    Args:
        input (Tensor): the input tensor.
        max (Number or Tensor): the upper bound.

    Returns:
        Tensor: a new tensor of the broadcast shape.

    Example::

        >>> flow.clamp_max(flow.tensor([-2.0, 0.5, 3.0]), 1)
        tensor([-2.0000,  0.5000,  1.0000])
    """)

add_doc("maximum", "maximum(input, other) -> Tensor", r"""
    Computes the larger of ``input`` and ``other``, element-wise.

    The shapes broadcast and the dtypes promote. A ``nan`` in either operand
    gives ``nan`` (see :func:`monoflow.fmax` to ignore NaNs). ``input`` may be
    a number when ``other`` is a tensor. For the largest element of one
    tensor, see :func:`monoflow.max`.

    Args:
        input (Tensor or Number): the first operand.
        other (Tensor or Number): the second operand.

    Returns:
        Tensor: a new tensor of the broadcast shape.

    Example::

        >>> flow.maximum(flow.tensor([1.0, 5.0, float("nan")]), flow.tensor([3.0, 2.0, 0.0]))
        tensor([3., 5., nan])
        >>> flow.tensor([-1, 2]).maximum(flow.tensor([0, 0]))
        tensor([0, 2])
    """)

add_doc("minimum", "minimum(input, other) -> Tensor", r"""
    Computes the smaller of ``input`` and ``other``, element-wise.

    The shapes broadcast and the dtypes promote. A ``nan`` in either operand
    gives ``nan`` (see :func:`monoflow.fmin` to ignore NaNs). ``input`` may be
    a number when ``other`` is a tensor. For the smallest element of one
    tensor, see :func:`monoflow.min`.

    Args:
        input (Tensor or Number): the first operand.
        other (Tensor or Number): the second operand.

    Returns:
        Tensor: a new tensor of the broadcast shape.

    Example::

        >>> flow.minimum(flow.tensor([1.0, 5.0, float("nan")]), flow.tensor([3.0, 2.0, 0.0]))
        tensor([1., 2., nan])
        >>> flow.tensor([-1, 2]).minimum(flow.tensor([0, 0]))
        tensor([-1,  0])
    """)

add_doc("fmax", "fmax(input, other) -> Tensor", r"""
    Computes the larger of ``input`` and ``other``, element-wise, ignoring NaNs.

    Like :func:`monoflow.maximum`, but where exactly one operand is ``nan``
    the other one is taken (``nan`` only where both are). The shapes broadcast.

    Args:
        input (Tensor): the first operand.
        other (Tensor): the second operand.

    Returns:
        Tensor: a new tensor of the broadcast shape.

    Example::

        >>> nan = float("nan")
        >>> flow.fmax(flow.tensor([1.0, nan, nan]), flow.tensor([2.0, 3.0, nan]))
        tensor([2., 3., nan])
    """)

add_doc("fmin", "fmin(input, other) -> Tensor", r"""
    Computes the smaller of ``input`` and ``other``, element-wise, ignoring NaNs.

    Like :func:`monoflow.minimum`, but where exactly one operand is ``nan``
    the other one is taken (``nan`` only where both are). The shapes broadcast.

    Args:
        input (Tensor): the first operand.
        other (Tensor): the second operand.

    Returns:
        Tensor: a new tensor of the broadcast shape.

    Example::

        >>> nan = float("nan")
        >>> flow.fmin(flow.tensor([1.0, nan, nan]), flow.tensor([2.0, 3.0, nan]))
        tensor([1., 3., nan])
    """)

add_doc("hypot", "hypot(input, other) -> Tensor", r"""
    Computes the length of the hypotenuse, ``sqrt(input**2 + other**2)``,
    element-wise.

    .. math:: \text{out}_i = \sqrt{\text{input}_i^2 + \text{other}_i^2}

    Both operands must be floating tensors; the shapes broadcast.

    Args:
        input (Tensor): the first leg.
        other (Tensor): the second leg.

    Returns:
        Tensor: a new tensor of the broadcast shape.

    Raises:
        RuntimeError: for integer or bool tensors.

    Example::

        >>> flow.hypot(flow.tensor([3.0, 5.0]), flow.tensor([4.0, 12.0]))
        tensor([ 5., 13.])
    """)

add_doc("heaviside", "heaviside(input, values) -> Tensor", r"""
    Computes the Heaviside step function of each element of ``input``.

    .. math:: \text{out}_i = \begin{cases} 0 & \text{if } \text{input}_i < 0 \\
        \text{values}_i & \text{if } \text{input}_i = 0 \\ 1 & \text{if } \text{input}_i > 0 \end{cases}

    ``input`` and ``values`` must have the same dtype; the shapes broadcast.

    Args:
        input (Tensor): the input tensor.
        values (Tensor): the values taken where ``input`` is zero.

    Returns:
        Tensor: a new tensor of the broadcast shape, of ``input``'s dtype.

    Raises:
        RuntimeError: when the dtypes differ.

    Example::

        >>> flow.heaviside(flow.tensor([-1.5, 0.0, 2.0]), flow.tensor([0.5]))
        tensor([0.0000, 0.5000, 1.0000])
    """)

add_doc("nan_to_num", "nan_to_num(input, nan=0.0, posinf=None, neginf=None) -> Tensor", r"""
    Replaces NaN, positive infinity and negative infinity in ``input`` with
    finite numbers.

    Integer and bool tensors have no such values: they are returned as a copy.
    The result has the dtype of ``input``.

    Args:
        input (Tensor): the input tensor.
        nan (Number): the value that replaces NaN. Default: ``0.0``.
        posinf (Number, optional): the value that replaces ``inf``. Default:
            ``None`` (the largest finite value of ``input``'s dtype).
        neginf (Number, optional): the value that replaces ``-inf``. Default:
            ``None`` (the lowest finite value of ``input``'s dtype).

    Returns:
        Tensor: a new tensor of the same shape as ``input``.

    Example::

        >>> x = flow.tensor([float("nan"), float("inf"), -float("inf"), 1.0])
        >>> flow.nan_to_num(x)
        tensor([ 0.0000e+00,  3.4028e+38, -3.4028e+38,  1.0000e+00])
        >>> x.nan_to_num(nan=-1.0, posinf=100.0, neginf=-100.0)
        tensor([  -1.,  100., -100.,    1.])
    """)

# ---------------------------------------------------------------- integers

add_doc("gcd", "gcd(input, other) -> Tensor", r"""
    Computes the greatest common divisor of ``input`` and ``other``, element-wise.

    Integer tensors only; the result is non-negative, and ``gcd(0, 0)`` is 0.
    The shapes broadcast.

    Args:
        input (Tensor): an integer tensor.
        other (Tensor): an integer tensor.

    Returns:
        Tensor: a new integer tensor of the broadcast shape.

    Raises:
        NotImplementedError: for floating or bool tensors.

    Example::

        >>> flow.gcd(flow.tensor([12, -18, 7, 0]), flow.tensor([8, 12, 0, 0]))
        tensor([4, 6, 7, 0])
    """)

add_doc("lcm", "lcm(input, other) -> Tensor", r"""
    Computes the least common multiple of ``input`` and ``other``, element-wise.

    Integer tensors only; the result is non-negative, and 0 where either
    operand is 0. The shapes broadcast.

    Args:
        input (Tensor): an integer tensor.
        other (Tensor): an integer tensor.

    Returns:
        Tensor: a new integer tensor of the broadcast shape.

    Raises:
        NotImplementedError: for floating or bool tensors.

    Example::

        >>> flow.lcm(flow.tensor([4, -6, 5]), flow.tensor([6, 4, 0]))
        tensor([12, 12,  0])
    """)

add_doc("bitwise_and", "bitwise_and(input, other) -> Tensor", r"""
    Computes the bitwise AND of ``input`` and ``other``, element-wise
    (``input & other``); for bool tensors, the logical AND.

    Integer and bool tensors only; either operand may be a Python int, the
    shapes broadcast and the dtypes promote.

    Args:
        input (Tensor or int): the first operand.
        other (Tensor or int): the second operand.

    Returns:
        Tensor: a new tensor of the broadcast shape.

    Example::

        >>> flow.bitwise_and(flow.tensor([12, -1, 0]), flow.tensor([10, 5, 7]))
        tensor([8, 5, 0])
        >>> flow.tensor([True, False]).bitwise_and(flow.tensor([True, True]))
        tensor([ True, False])
    """)

add_doc("bitwise_or", "bitwise_or(input, other) -> Tensor", r"""
    Computes the bitwise OR of ``input`` and ``other``, element-wise
    (``input | other``); for bool tensors, the logical OR.

    Integer and bool tensors only; either operand may be a Python int, the
    shapes broadcast and the dtypes promote.

    Args:
        input (Tensor or int): the first operand.
        other (Tensor or int): the second operand.

    Returns:
        Tensor: a new tensor of the broadcast shape.

    Example::

        >>> flow.bitwise_or(flow.tensor([12, -1, 0]), flow.tensor([10, 5, 7]))
        tensor([14, -1,  7])
        >>> flow.tensor([True, False]).bitwise_or(flow.tensor([True, True]))
        tensor([True, True])
    """)

add_doc("bitwise_xor", "bitwise_xor(input, other) -> Tensor", r"""
    Computes the bitwise XOR of ``input`` and ``other``, element-wise
    (``input ^ other``); for bool tensors, the logical XOR.

    Integer and bool tensors only; either operand may be a Python int, the
    shapes broadcast and the dtypes promote.

    Args:
        input (Tensor or int): the first operand.
        other (Tensor or int): the second operand.

    Returns:
        Tensor: a new tensor of the broadcast shape.

    Example::

        >>> flow.bitwise_xor(flow.tensor([12, -1, 0]), flow.tensor([10, 5, 7]))
        tensor([ 6, -6,  7])
        >>> flow.tensor([True, False]).bitwise_xor(flow.tensor([True, True]))
        tensor([False,  True])
    """)

_unary_doc("bitwise_not", "Computes the bitwise NOT of each element of ``input`` (``~input``); "
           "for bool tensors, the logical NOT.", """
    >>> flow.bitwise_not(flow.tensor([0, 5, -1]))
    tensor([-1, -6,  0])
    >>> flow.tensor([True, False]).bitwise_not()
    tensor([False,  True])
""", floating=False, notes="Integer and bool tensors only.")

add_doc("bitwise_left_shift", "bitwise_left_shift(input, other) -> Tensor", r"""
    Shifts the bits of ``input`` left by ``other``, element-wise (``input << other``).

    .. math:: \text{out}_i = \text{input}_i \times 2^{\text{other}_i}

    Integer tensors only; ``other`` may be a Python int. The result wraps
    like the C integer types, and a shift by a negative amount or by the
    width of the dtype or more gives 0.

    Args:
        input (Tensor): an integer tensor.
        other (Tensor or int): the shift amounts.

    Returns:
        Tensor: a new integer tensor of the broadcast shape.

    Example::

        >>> flow.bitwise_left_shift(flow.tensor([1, 3, -2]), 2)
        tensor([ 4, 12, -8])
    """)

add_doc("bitwise_right_shift", "bitwise_right_shift(input, other) -> Tensor", r"""
    Shifts the bits of ``input`` right by ``other``, element-wise (``input >> other``).

    .. math:: \text{out}_i = \left\lfloor \frac{\text{input}_i}{2^{\text{other}_i}} \right\rfloor

    Integer tensors only; ``other`` may be a Python int. The shift is
    arithmetic (the sign is kept), and a shift by a negative amount or by the
    width of the dtype or more gives 0 or -1.

    Args:
        input (Tensor): an integer tensor.
        other (Tensor or int): the shift amounts.

    Returns:
        Tensor: a new integer tensor of the broadcast shape.

    Example::

        >>> flow.bitwise_right_shift(flow.tensor([16, 7, -8]), 2)
        tensor([ 4,  1, -2])
    """)

# ---------------------------------------------------------------- trigonometric and hyperbolic

_unary_doc("sin", "Computes the sine of each element of ``input`` (in radians).", """
    >>> flow.sin(flow.tensor([0.0, 3.14159265 / 6, 3.14159265 / 2]))
    tensor([0.0000, 0.5000, 1.0000])
""", formula=r"\text{out}_i = \sin(\text{input}_i)")

_unary_doc("cos", "Computes the cosine of each element of ``input`` (in radians).", """
    >>> flow.cos(flow.tensor([0.0, 3.14159265 / 3, 3.14159265]))
    tensor([ 1.0000,  0.5000, -1.0000])
""", formula=r"\text{out}_i = \cos(\text{input}_i)")

_unary_doc("tan", "Computes the tangent of each element of ``input`` (in radians).", """
    >>> flow.tan(flow.tensor([0.0, 3.14159265 / 4, -3.14159265 / 4]))
    tensor([ 0.,  1., -1.])
""", formula=r"\text{out}_i = \tan(\text{input}_i)")

_unary_doc("asin", "Computes the arcsine of each element of ``input``, in radians.", """
    >>> flow.asin(flow.tensor([0.0, 0.5, 1.0, 2.0]))
    tensor([0.0000, 0.5236, 1.5708,    nan])
""", formula=r"\text{out}_i = \sin^{-1}(\text{input}_i)", notes="Elements outside ``[-1, 1]`` give ``nan``.",
           aliases=("arcsin",))

_unary_doc("acos", "Computes the arccosine of each element of ``input``, in radians.", """
    >>> flow.acos(flow.tensor([1.0, 0.5, -1.0, 2.0]))
    tensor([0.0000, 1.0472, 3.1416,    nan])
""", formula=r"\text{out}_i = \cos^{-1}(\text{input}_i)", notes="Elements outside ``[-1, 1]`` give ``nan``.",
           aliases=("arccos",))

_unary_doc("atan", "Computes the arctangent of each element of ``input``, in radians.", """
    >>> flow.atan(flow.tensor([0.0, 1.0, -1.0, float("inf")]))
    tensor([ 0.0000,  0.7854, -0.7854,  1.5708])
""", formula=r"\text{out}_i = \tan^{-1}(\text{input}_i)", aliases=("arctan",))

add_doc("atan2", "atan2(input, other) -> Tensor", r"""
    Computes the angle of the point ``(other, input)``, element-wise: the
    arctangent of ``input / other`` in the right quadrant, in ``[-pi, pi]``.

    .. math:: \text{out}_i = \operatorname{atan2}(\text{input}_i, \text{other}_i)

    Either operand may be a Python number; the shapes broadcast, and integer
    operands give the default floating dtype. ``arctan2`` is another name for it.

    Args:
        input (Tensor or Number): the y coordinates.
        other (Tensor or Number): the x coordinates.

    Returns:
        Tensor: a new floating tensor of the broadcast shape.

    Example::

        >>> flow.atan2(flow.tensor([1.0, 1.0, -1.0]), flow.tensor([1.0, -1.0, -1.0]))
        tensor([ 0.7854,  2.3562, -2.3562])
    """, aliases=("arctan2",))

_unary_doc("sinh", "Computes the hyperbolic sine of each element of ``input``.", """
    >>> flow.sinh(flow.tensor([0.0, 1.0, -1.0]))
    tensor([ 0.0000,  1.1752, -1.1752])
""", formula=r"\text{out}_i = \sinh(\text{input}_i)")

_unary_doc("cosh", "Computes the hyperbolic cosine of each element of ``input``.", """
    >>> flow.cosh(flow.tensor([0.0, 1.0, -1.0]))
    tensor([1.0000, 1.5431, 1.5431])
""", formula=r"\text{out}_i = \cosh(\text{input}_i)")

_unary_doc("tanh", "Computes the hyperbolic tangent of each element of ``input``.", """
    >>> flow.tanh(flow.tensor([0.0, 1.0, -20.0]))
    tensor([ 0.0000,  0.7616, -1.0000])
""", formula=r"\text{out}_i = \tanh(\text{input}_i)")

_unary_doc("asinh", "Computes the inverse hyperbolic sine of each element of ``input``.", """
    >>> flow.asinh(flow.tensor([0.0, 1.0, -1.0]))
    tensor([ 0.0000,  0.8814, -0.8814])
""", formula=r"\text{out}_i = \sinh^{-1}(\text{input}_i)", aliases=("arcsinh",))

_unary_doc("acosh", "Computes the inverse hyperbolic cosine of each element of ``input``.", """
    >>> flow.acosh(flow.tensor([1.0, 2.0, 0.5]))
    tensor([0.0000, 1.3170,    nan])
""", formula=r"\text{out}_i = \cosh^{-1}(\text{input}_i)", notes="Elements below 1 give ``nan``.",
           aliases=("arccosh",))

_unary_doc("atanh", "Computes the inverse hyperbolic tangent of each element of ``input``.", """
    >>> flow.atanh(flow.tensor([0.0, 0.5, 1.0, 2.0]))
    tensor([0.0000, 0.5493,    inf,    nan])
""", formula=r"\text{out}_i = \tanh^{-1}(\text{input}_i)",
           notes="``1`` and ``-1`` give ``inf`` and ``-inf``, elements outside ``[-1, 1]`` ``nan``.",
           aliases=("arctanh",))

_unary_doc("sinc", "Computes the normalized sinc function of each element of ``input``.", """
    >>> flow.sinc(flow.tensor([0.0, 0.5, 1.5]))
    tensor([ 1.0000,  0.6366, -0.2122])
""", formula=r"\text{out}_i = \begin{cases} 1 & \text{if } \text{input}_i = 0 \\ "
             r"\frac{\sin(\pi \, \text{input}_i)}{\pi \, \text{input}_i} & \text{otherwise} \end{cases}")

_unary_doc("deg2rad", "Converts each element of ``input`` from degrees to radians.", """
    >>> flow.deg2rad(flow.tensor([0.0, 90.0, 180.0]))
    tensor([0.0000, 1.5708, 3.1416])
""", formula=r"\text{out}_i = \text{input}_i \times \frac{\pi}{180}")

_unary_doc("rad2deg", "Converts each element of ``input`` from radians to degrees.", """
    >>> flow.rad2deg(flow.tensor([0.0, 3.14159265 / 2, 3.14159265]))
    tensor([  0.,  90., 180.])
""", formula=r"\text{out}_i = \text{input}_i \times \frac{180}{\pi}")

# ---------------------------------------------------------------- special functions and activations

_unary_doc("erf", "Computes the error function of each element of ``input``.", """
    >>> flow.erf(flow.tensor([0.0, 1.0, -3.0]))
    tensor([ 0.0000,  0.8427, -1.0000])
""", formula=r"\operatorname{erf}(x) = \frac{2}{\sqrt{\pi}} \int_0^x e^{-t^2} \, dt")

_unary_doc("erfc", "Computes the complementary error function, ``1 - erf(input)``, of each element.", """
    >>> flow.erfc(flow.tensor([0.0, 1.0, 5.0]))
    tensor([1.0000e+00, 1.5730e-01, 1.5375e-12])
""", formula=r"\operatorname{erfc}(x) = 1 - \frac{2}{\sqrt{\pi}} \int_0^x e^{-t^2} \, dt")

_unary_doc("sigmoid", "Computes the logistic sigmoid of each element of ``input``.", """
    >>> flow.sigmoid(flow.tensor([0.0, 2.0, -2.0, 100.0]))
    tensor([0.5000, 0.8808, 0.1192, 1.0000])
""", formula=r"\text{out}_i = \frac{1}{1 + e^{-\text{input}_i}}")

_unary_doc("relu", "Applies the rectified linear unit, ``max(input, 0)``, to each element.", """
    >>> flow.relu(flow.tensor([-1.0, 0.0, 2.0]))
    tensor([0., 0., 2.])
    >>> flow.tensor([-3, 3]).relu()
    tensor([0, 3])
""", formula=r"\text{out}_i = \max(\text{input}_i, 0)", floating=False,
           notes="The gradient at 0 is 0. The module form is :class:`monoflow.nn.ReLU`. OneFlow's "
                 "``relu(input, inplace=True)`` is ``input.relu_()``.")

add_doc("gelu", "gelu(input, approximate='none') -> Tensor", r"""
    Applies the Gaussian Error Linear Unit to each element of ``input``.

    .. math::
        \text{out}_i = x_i \, \Phi(x_i), \quad
        \Phi(x) = \frac{1}{2}\left(1 + \operatorname{erf}(x / \sqrt{2})\right)

    With ``approximate="tanh"``, :math:`\Phi` is approximated by
    :math:`\frac{1}{2}\left(1 + \tanh\left(\sqrt{2/\pi}\,(x + 0.044715\,x^3)\right)\right)`.
    The module form is :class:`monoflow.nn.GELU`.

    Args:
        input (Tensor): a floating tensor.
        approximate (str): ``"none"`` (exact) or ``"tanh"``. Default: ``"none"``.

    Returns:
        Tensor: a new tensor of the same shape as ``input``.

    Raises:
        ValueError: for another ``approximate``.

    Example::

        >>> x = flow.tensor([-1.0, 0.0, 1.0])
        >>> flow.gelu(x)
        tensor([-0.1587,  0.0000,  0.8413])
        >>> flow.gelu(x, approximate="tanh")
        tensor([-0.1588,  0.0000,  0.8412])
    """)

_unary_doc("silu", "Applies the Sigmoid Linear Unit (swish), ``input * sigmoid(input)``, to each element.", """
    >>> flow.silu(flow.tensor([-1.0, 0.0, 1.0]))
    tensor([-0.2689,  0.0000,  0.7311])
""", formula=r"\text{out}_i = \frac{\text{input}_i}{1 + e^{-\text{input}_i}}",
           notes="The module form is :class:`monoflow.nn.SiLU`.")

add_doc("softplus", "softplus(input, beta=1.0, threshold=20.0) -> Tensor", r"""
    Applies the softplus function, a smooth ReLU, to each element of ``input``.

    .. math:: \text{out}_i = \begin{cases} \text{input}_i & \text{if } \beta \, \text{input}_i > \text{threshold} \\
        \frac{1}{\beta} \ln\left(1 + e^{\beta \, \text{input}_i}\right) & \text{otherwise} \end{cases}

    Above the threshold the result is ``input`` itself, which keeps it exact
    and free of overflow. The module form is :class:`monoflow.nn.Softplus`.

    Args:
        input (Tensor): a floating tensor.
        beta (float): the sharpness :math:`\beta`. Default: 1.0.
        threshold (float): where the function becomes linear. Default: 20.0.

    Returns:
        Tensor: a new tensor of the same shape as ``input``.

    Example::

        >>> x = flow.tensor([-1.0, 0.0, 1.0, 30.0])
        >>> flow.softplus(x)
        tensor([ 0.3133,  0.6931,  1.3133, 30.0000])
        >>> flow.softplus(x, beta=2.0)
        tensor([ 0.0635,  0.3466,  1.0635, 30.0000])
    """)

add_doc("selu", "selu(input, inplace=False) -> Tensor", r"""
    Applies the Scaled Exponential Linear Unit to each element of ``input``.

    .. math:: \text{out}_i = \text{scale} \times \begin{cases} x_i & \text{if } x_i > 0 \\
        \alpha \left(e^{x_i} - 1\right) & \text{otherwise} \end{cases}

    with :math:`\alpha \approx 1.6733` and :math:`\text{scale} \approx 1.0507`,
    the self-normalising constants of Klambauer et al. (2017). The module form
    is :class:`monoflow.nn.SELU`.

    Args:
        input (Tensor): a floating tensor.
        inplace (bool): write the result into ``input`` (and return it).
            Default: ``False``.

    Returns:
        Tensor: a tensor of the same shape as ``input``.

    Raises:
        TypeError: for an integer or bool tensor.

    Example::

        >>> flow.selu(flow.tensor([-1.0, 0.0, 1.0]))
        tensor([-1.1113,  0.0000,  1.0507])
    """)

add_doc("celu", "celu(input, alpha=1.0, inplace=False) -> Tensor", r"""
    Applies the Continuously differentiable Exponential Linear Unit to each
    element of ``input``.

    .. math:: \text{out}_i = \begin{cases} x_i & \text{if } x_i > 0 \\
        \alpha \left(e^{x_i / \alpha} - 1\right) & \text{otherwise} \end{cases}

    The module form is :class:`monoflow.nn.CELU`.

    Args:
        input (Tensor): a floating tensor.
        alpha (float): the :math:`\alpha` of the formula; must not be 0.
            Default: 1.0.
        inplace (bool): write the result into ``input`` (and return it).
            Default: ``False``.

    Returns:
        Tensor: a tensor of the same shape as ``input``.

    Raises:
        TypeError: for an integer or bool tensor.
        ValueError: when ``alpha`` is 0.

    Example::

        >>> x = flow.tensor([-1.0, 0.0, 1.0])
        >>> flow.celu(x)
        tensor([-0.6321,  0.0000,  1.0000])
        >>> flow.celu(x, alpha=2.0)
        tensor([-0.7869,  0.0000,  1.0000])
    """)

add_inplace_docs(
    "add_", "sub_", "subtract_", "mul_", "multiply_", "div_", "divide_", "true_divide_", "floor_divide_",
    "negative_", "reciprocal_", "remainder_", "fmod_", "addcmul_", "addcdiv_", "lerp_",
    "pow_", "float_power_", "square_", "sqrt_", "rsqrt_", "exp_", "exp2_", "expm1_", "log_", "log2_", "log10_",
    "log1p_", "xlogy_", "logit_", "ldexp_",
    "absolute_", "abs_", "sign_", "sgn_", "copysign_", "nextafter_", "floor_", "ceil_", "fix_", "trunc_", "frac_",
    "round_", "clip_", "clamp_", "clamp_min_", "clamp_max_", "hypot_", "heaviside_", "nan_to_num_",
    "gcd_", "lcm_", "bitwise_and_", "bitwise_or_", "bitwise_xor_", "bitwise_not_", "bitwise_left_shift_",
    "bitwise_right_shift_",
    "sin_", "cos_", "tan_", "arcsin_", "asin_", "arccos_", "acos_", "arctan_", "atan_", "arctan2_", "atan2_",
    "sinh_", "cosh_", "tanh_", "arcsinh_", "asinh_", "arccosh_", "acosh_", "arctanh_", "atanh_", "sinc_",
    "deg2rad_", "rad2deg_", "erf_", "erfc_", "sigmoid_", "relu_",
)
