"""Random numbers: seeds and generator state, rand, randn, randint, normal, bernoulli, multinomial, randperm, in-place samplers."""
from monoflow._docs import add_doc, add_inplace_docs  # noqa: F401

_GEN = """
        generator (monoflow.Generator, optional): the source of randomness.
            Default: ``None``: the default generator of the device (seeded by
            :func:`monoflow.manual_seed`)."""

_SAMPLE_ARGS = """
        size (int or tuple of int): the shape, as separate ints or one
            sequence.""" + _GEN + """
        dtype (monoflow.dtype, optional): a floating dtype. Default: ``None``:
            the default dtype.
        device (monoflow.device or str, optional): where the result lives.
            Default: ``None``: the default device.
        requires_grad (bool): whether autograd records operations on the
            result. Default: ``False``.
        layout (monoflow.layout, optional): only ``monoflow.strided``
            (others raise NotImplementedError). Default: ``None``.
        pin_memory (bool): accepted for torch and OneFlow; host memory is
            already pinned for every device. Default: ``False``."""

_LIKE_ARGS = """
        t (Tensor): the tensor whose size (and, by default, dtype and device)
            the result takes.
        dtype (monoflow.dtype, optional): the dtype of the result. Default:
            ``None``: ``t.dtype``.
        device (monoflow.device or str, optional): where the result lives.
            Default: ``None``: ``t.device``.""" + _GEN + """
        requires_grad (bool): whether autograd records operations on the
            result. Default: ``False``.
        memory_format (monoflow.memory_format, optional): the layout of the
            result. Default: ``None``, as ``preserve_format``: the one
            ``t`` is in (``channels_last`` stays so)."""

add_doc("manual_seed", "manual_seed(seed) -> Generator", """
    Seeds the default random generators of every device, so that random ops
    repeat the same values.

    Args:
        seed (int): the seed; any int (reduced modulo ``2**64``).

    Returns:
        Generator: the default CPU generator.

    Example::

        >>> _ = flow.manual_seed(0)
        >>> a = flow.rand(3)
        >>> _ = flow.manual_seed(0)
        >>> flow.equal(a, flow.rand(3))
        True
    """)

add_doc("seed", "seed() -> int", """
    Seeds the default generators with a non-deterministic random number and
    returns it (it is then :func:`monoflow.initial_seed`).

    Example::

        >>> s = flow.seed()
        >>> s == flow.initial_seed()
        True
    """)

add_doc("initial_seed", "initial_seed() -> int", """
    Returns the seed of the default CPU generator: the last value given to
    :func:`monoflow.manual_seed` or drawn by :func:`monoflow.seed`; before
    either, the non-deterministic seed the process started with (as in torch,
    each process draws its own).

    Example::

        >>> _ = flow.manual_seed(7)
        >>> flow.initial_seed()
        7
    """)

add_doc("get_rng_state", "get_rng_state() -> Tensor", """
    Returns the state of the default CPU generator as a uint8 tensor, to be
    given back to :func:`monoflow.set_rng_state`.

    Example::

        >>> state = flow.get_rng_state()
        >>> state.dtype
        monoflow.uint8
        >>> a = flow.rand(2)
        >>> flow.set_rng_state(state)
        >>> flow.equal(a, flow.rand(2))
        True
    """)

add_doc("set_rng_state", "set_rng_state(new_state) -> None", """
    Restores the default CPU generator to a state saved by
    :func:`monoflow.get_rng_state`: the next random values repeat those that
    followed the save.

    Args:
        new_state (Tensor): a uint8 tensor from :func:`monoflow.get_rng_state`.

    Example::

        >>> state = flow.get_rng_state()
        >>> a = flow.randn(2)
        >>> flow.set_rng_state(state)
        >>> flow.equal(a, flow.randn(2))
        True
    """)

add_doc("rand", "rand(*size, generator=None, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False) -> Tensor", """
    Returns a tensor of values drawn uniformly from ``[0, 1)``.

    The size may also be given as ``size=`` (a sequence). An integer or bool
    ``dtype`` raises NotImplementedError, as in torch and OneFlow.

    Args:""" + _SAMPLE_ARGS + """

    Example::

        >>> x = flow.rand(2, 3)
        >>> x.shape, bool(((x >= 0) & (x < 1)).all())
        (monoflow.Size([2, 3]), True)
        >>> g = flow.Generator().manual_seed(42)
        >>> flow.rand(2, generator=g, dtype=flow.float64).dtype
        monoflow.float64
    """)

add_doc("randn", "randn(*size, generator=None, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False) -> Tensor", """
    Returns a tensor of values drawn from the standard normal distribution
    (mean 0, variance 1).

    The size may also be given as ``size=`` (a sequence). An integer or bool
    ``dtype`` raises NotImplementedError, as in torch and OneFlow.

    Args:""" + _SAMPLE_ARGS + """

    Example::

        >>> flow.randn(2, 3).shape
        monoflow.Size([2, 3])
        >>> flow.randn((4,), dtype=flow.float64).dtype
        monoflow.float64
    """)

add_doc("randint", "randint(low=0, high=None, size=None, *, generator=None, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False) -> Tensor", """
    Returns a tensor of integers drawn uniformly from ``[low, high)``.

    As in torch, ``randint(high, size)`` (two positional arguments) draws
    from ``[0, high)``.

    Args:
        low (int): the lowest value. Default: 0.
        high (int): one above the highest value.
        size (tuple of int): the shape.""" + _GEN + """
        dtype (monoflow.dtype, optional): the dtype. Default: ``None``: int64.
        device (monoflow.device or str, optional): where the result lives.
        requires_grad (bool): must stay ``False`` for an integer dtype
            (integer tensors cannot require grad: ``True`` raises
            RuntimeError). Default: ``False``.
        layout (monoflow.layout, optional): only ``monoflow.strided``.
            Default: ``None``.
        pin_memory (bool): accepted; changes nothing. Default: ``False``.

    Example::

        >>> x = flow.randint(3, 5, (2, 2))
        >>> x.shape, x.dtype, bool(((x >= 3) & (x < 5)).all())
        (monoflow.Size([2, 2]), monoflow.int64, True)
        >>> flow.randint(10, (3,)).shape
        monoflow.Size([3])
    """)

add_doc("rand_like", "rand_like(t, *, dtype=None, device=None, generator=None, requires_grad=False, memory_format=None) -> Tensor", """
    Returns a tensor with the size of ``t`` of values drawn uniformly from ``[0, 1)``.

    Args:""" + _LIKE_ARGS + """

    Example::

        >>> flow.rand_like(flow.zeros(2, dtype=flow.float64)).dtype
        monoflow.float64
    """)

add_doc("randn_like", "randn_like(t, *, dtype=None, device=None, generator=None, requires_grad=False, memory_format=None) -> Tensor", """
    Returns a tensor with the size of ``t`` of standard normal values.

    Args:""" + _LIKE_ARGS + """

    Example::

        >>> flow.randn_like(flow.zeros(2, 3)).shape
        monoflow.Size([2, 3])
    """)

add_doc("randint_like", "randint_like(t, low=0, high=None, *, dtype=None, device=None, generator=None, requires_grad=False, memory_format=None) -> Tensor", """
    Returns a tensor with the size of ``t`` of integers drawn uniformly from
    ``[low, high)``; ``randint_like(t, high)`` draws from ``[0, high)``.

    Args:""" + _LIKE_ARGS + """
        low (int): the lowest value. Default: 0.
        high (int): one above the highest value.

    Example::

        >>> x = flow.randint_like(flow.zeros(4), 2, 5)
        >>> x.dtype, bool(((x >= 2) & (x < 5)).all())
        (monoflow.float32, True)
    """)

add_doc("normal", "normal(mean=0.0, std=1.0, size=None, *, generator=None, dtype=None, device=None, out=None, "
        "requires_grad=False) -> Tensor", """
    Returns values drawn from normal distributions of the given means and
    standard deviations.

    ``mean`` and ``std`` may each be a tensor (one distribution per element,
    the shapes broadcast) or a number; with two numbers, ``size`` gives the
    shape.

    Args:
        mean (float or Tensor): the mean(s). Default: 0.0.
        std (float or Tensor): the standard deviation(s), non-negative.
            Default: 1.0.
        size (tuple of int, optional): the shape, when ``mean`` and ``std``
            are numbers.""" + _GEN + """
        dtype (monoflow.dtype, optional): the dtype with number arguments.
            Default: ``None``: the default dtype.
        device (monoflow.device or str, optional): where the result lives.
        out (Tensor, optional): receives the samples; its dtype and device
            are used.
        requires_grad (bool): whether the new tensor records operations for
            autograd. Default: ``False``.

    Example::

        >>> flow.normal(0.0, 1.0, (2, 3)).shape
        monoflow.Size([2, 3])
        >>> flow.normal(flow.zeros(3), flow.ones(3)).shape
        monoflow.Size([3])
        >>> flow.normal(flow.tensor([5.0]), 0.0)
        tensor([5.])
    """)

add_doc("bernoulli", "bernoulli(input, p=None, *, generator=None, dtype=None) -> Tensor", """
    Draws 0 or 1 for each element: 1 with probability ``input[i]`` (or ``p``).

    Args:
        input (Tensor): the probabilities, in ``[0, 1]``; the result has its
            shape and (unless ``dtype`` is given) its dtype.
        p (float, optional): one probability for all elements, used instead of
            the values of ``input``. Default: ``None``.""" + _GEN + """
        dtype (flow.dtype, optional): the result's dtype (OneFlow's keyword),
            e.g. ``flow.int64``. Default: ``None`` (input's dtype).

    Example::

        >>> flow.bernoulli(flow.tensor([0.0, 1.0, 1.0]))
        tensor([0., 1., 1.])
        >>> flow.zeros(3).bernoulli(p=1.0)
        tensor([1., 1., 1.])
        >>> flow.bernoulli(flow.ones(2), dtype=flow.int64)
        tensor([1, 1])
    """)

add_doc("multinomial", "multinomial(input, num_samples, replacement=False, *, generator=None) -> Tensor", """
    Draws ``num_samples`` category indices from the distribution(s) in ``input``.

    Each row of ``input`` holds non-negative weights (they need not sum to
    1). Without replacement, an index is drawn at most once per row, so
    ``num_samples`` cannot exceed the number of non-zero weights.

    Args:
        input (Tensor): 1-D or 2-D weights.
        num_samples (int): how many indices to draw per row.
        replacement (bool): whether an index may be drawn again.
            Default: ``False``.""" + _GEN + """

    Returns:
        Tensor: int64 indices, of shape ``(num_samples,)`` or
        ``(rows, num_samples)``.

    Example::

        >>> flow.multinomial(flow.tensor([0.0, 0.0, 1.0]), 2, replacement=True)
        tensor([2, 2])
        >>> flow.multinomial(flow.tensor([1.0, 1.0, 1.0]), 3).sort().values
        tensor([0, 1, 2])
    """)

add_doc("randperm", "randperm(n, *, generator=None, dtype=None, device=None, requires_grad=False, pin_memory=False) -> Tensor", """
    Returns a random permutation of ``0 .. n - 1``.

    Args:
        n (int): the number of values.""" + _GEN + """
        dtype (monoflow.dtype, optional): the dtype. Default: ``None``: int64.
        device (monoflow.device or str, optional): where the result lives.
        requires_grad (bool): whether autograd records operations on the
            result; only for a floating ``dtype`` (``True`` with int64 raises
            RuntimeError). Default: ``False``.
        pin_memory (bool): accepted for torch compatibility. Default: ``False``.

    Example::

        >>> p = flow.randperm(5)
        >>> p.dtype, p.sort().values
        (monoflow.int64, tensor([0, 1, 2, 3, 4]))
    """)

add_doc("uniform_", "Tensor.uniform_(a=0.0, b=1.0, *, generator=None) -> Tensor", """
    Fills this tensor, in place, with values drawn uniformly from ``[a, b)``.

    Args:
        a (float): the lower bound. Default: 0.0.
        b (float): the upper bound. Default: 1.0.""" + _GEN + """

    Example::

        >>> x = flow.empty(3).uniform_(2.0, 3.0)
        >>> bool(((x >= 2) & (x < 3)).all())
        True
    """)

add_doc("normal_", "Tensor.normal_(mean=0.0, std=1.0, *, generator=None) -> Tensor", """
    Fills this tensor, in place, with values drawn from a normal distribution.

    Args:
        mean (float): the mean. Default: 0.0.
        std (float): the standard deviation. Default: 1.0.""" + _GEN + """

    Example::

        >>> flow.empty(2, 3).normal_(0.0, 0.02).shape
        monoflow.Size([2, 3])
        >>> flow.empty(2).normal_(5.0, 0.0)
        tensor([5., 5.])
    """)

add_doc("random_", "Tensor.random_(from_=0, to=None, *, generator=None) -> Tensor", """
    Fills this tensor, in place, with integers drawn uniformly from
    ``[from_, to)``; ``x.random_(n)`` draws from ``[0, n)``. Unlike torch,
    a bound is needed: ``x.random_()`` with none raises ``ValueError``.

    Args:
        ``from_`` (int): the lowest value (or ``to`` when given alone). Default: 0.
        to (int, optional): one above the highest value.""" + _GEN + """

    Example::

        >>> x = flow.empty(4, dtype=flow.int64).random_(5)
        >>> bool(((x >= 0) & (x < 5)).all())
        True
        >>> flow.empty(3).random_(2, 3)
        tensor([2., 2., 2.])
    """)

add_doc("bernoulli_", "Tensor.bernoulli_(p=0.5, *, generator=None) -> Tensor", """
    Fills this tensor, in place, with 0 or 1: 1 with probability ``p``.

    Args:
        p (float): the probability of a 1. Default: 0.5.""" + _GEN + """

    Example::

        >>> flow.empty(3).bernoulli_(1.0)
        tensor([1., 1., 1.])
    """)
