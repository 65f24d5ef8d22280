"""SBP: how a global tensor's logical value is laid out over one axis of its
placement's rank hierarchy.

- ``split(dim)``: each rank holds a contiguous piece of dimension ``dim``
  (balanced: the first ``size % n`` ranks hold one element more);
- ``broadcast``: each rank holds the whole value;
- ``partial_sum``: each rank holds a tensor of the whole shape, and the value
  is their sum.
A global tensor has one SBP per hierarchy axis (its nd-SBP, a tuple).
"""


class sbp:
    """One SBP, the layout of a global tensor over one axis of its placement: split, broadcast or partial sum.

    Make them with ``flow.sbp.split(dim)``, ``flow.sbp.broadcast`` and
    ``flow.sbp.partial_sum``; they compare, hash, pickle and print.
    ``is_split()``, ``is_broadcast()``, ``is_partial_sum()`` and ``dim`` describe one.
    Calling one hands it back (``flow.sbp.broadcast()`` is ``flow.sbp.broadcast``,
    OneFlow's spelling of the same symbol).

    Args:
        kind (str): ``"S"`` (split), ``"B"`` (broadcast) or ``"P"`` (partial sum).
        dim (int, optional): the split dimension, for ``"S"``. Default: ``None``.

    Example::

        >>> flow.sbp.split(0), flow.sbp.broadcast, flow.sbp.partial_sum
        (monoflow.sbp.split(dim=0), monoflow.sbp.broadcast, monoflow.sbp.partial_sum)
        >>> flow.sbp.split(1).is_split(), flow.sbp.split(1).dim
        (True, 1)
        >>> flow.sbp.broadcast() == flow.sbp.broadcast, flow.sbp.split(0)() == flow.sbp.split(0)
        (True, True)
    """

    __slots__ = ("_kind", "_dim")
    __module__ = "monoflow.sbp"

    def __init__(self, kind, dim=None):
        self._kind = kind
        self._dim = dim

    def __call__(self):
        """The SBP itself: OneFlow's symbols may be written called (``flow.sbp.partial_sum()``)."""
        return self

    def is_split(self):
        return self._kind == "S"

    def is_broadcast(self):
        return self._kind == "B"

    def is_partial_sum(self):
        return self._kind == "P"

    @property
    def dim(self):
        return self._dim

    def __eq__(self, other):
        return isinstance(other, sbp) and self._kind == other._kind and self._dim == other._dim

    def __hash__(self):
        return hash((self._kind, self._dim))

    def __repr__(self):
        if self._kind == "S":
            return f"monoflow.sbp.split(dim={self._dim})"
        return "monoflow.sbp.broadcast" if self._kind == "B" else "monoflow.sbp.partial_sum"

    def short(self):
        """S(0), B or P: the compact spelling used in messages and debug output."""
        return f"S({self._dim})" if self._kind == "S" else self._kind

    def __reduce__(self):
        return (sbp, (self._kind, self._dim))


def split(dim):
    """Returns the SBP that splits a global tensor along dimension ``dim`` over the ranks of one placement axis.

    The pieces are balanced: with ``n`` ranks, the first ``size % n`` ranks
    hold one element more.

    Args:
        dim (int): the dimension to split, non-negative (``TypeError`` for a
            non-int, ``ValueError`` for a negative one).

    Example::

        >>> flow.sbp.split(0)
        monoflow.sbp.split(dim=0)
        >>> flow.sbp.split(0) == flow.sbp.split(0), flow.sbp.split(0) == flow.sbp.broadcast
        (True, False)
    """
    if isinstance(dim, bool) or not isinstance(dim, int):
        raise TypeError(f"sbp.split: dim must be an int, got {type(dim).__name__}")
    if dim < 0:
        from monoflow._C import ValueRuntimeError  # ValueError (PyTorch's kind), RuntimeError (OneFlow's)
        raise ValueRuntimeError(f"sbp.split: dim must be non-negative, got {dim} (Split axis must not be negative, "
                                f"but got {dim}!)")
    return sbp("S", dim)


broadcast = sbp("B")
partial_sum = sbp("P")


def dual(s):
    """The SBP of the gradient of a tensor laid out as `s`: a broadcast value's
    gradient arrives as partial sums from each rank, and the other way round."""
    if s.is_broadcast():
        return partial_sum
    if s.is_partial_sum():
        return broadcast
    return s


def as_nd_sbp(value, ndim_hierarchy, what):
    """Normalises an SBP or a sequence of them to a tuple, one per hierarchy axis."""
    items = (value,) if isinstance(value, sbp) else value
    try:
        items = tuple(items)
    except TypeError:
        raise TypeError(f"{what}: sbp must be a monoflow.sbp.sbp or a tuple of them, got {type(value).__name__}") \
            from None
    for s in items:
        if not isinstance(s, sbp):
            raise TypeError(f"{what}: sbp must be a monoflow.sbp.sbp or a tuple of them, got an element of type "
                            f"{type(s).__name__}")
    if len(items) != ndim_hierarchy:
        raise ValueError(f"{what}: got {len(items)} SBP(s) for a placement with a {ndim_hierarchy}-D rank hierarchy "
                         f"(one SBP per hierarchy axis)")
    return items


def check_dims(nd_sbp, ndim, what):
    for s in nd_sbp:
        if s.is_split() and s.dim >= ndim:
            from monoflow._C import ValueRuntimeError  # ValueError (PyTorch's kind), RuntimeError (OneFlow's)
            raise ValueRuntimeError(f"{what}: {s!r} is out of range for a tensor with {ndim} dimension(s) (Split axis "
                                    f"out of range (expected to be in range of [0, {ndim}), but got {s.dim}!)")
