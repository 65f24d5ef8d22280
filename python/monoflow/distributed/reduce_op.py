"""ReduceOp: the reductions of all_reduce, reduce and reduce_scatter."""
import enum


class ReduceOp(enum.IntEnum):
    """The reductions of ``all_reduce``, ``reduce`` and ``reduce_scatter``: ``SUM``,
    ``PRODUCT`` (also spelled ``PROD``), ``MIN``, ``MAX`` and ``AVG``.

    An int enum: ``ReduceOp(value)`` looks one up by value; the other parameters
    of the signature (names, module, qualname, type, start, boundary) are those
    of Python's enum functional API and are not used here.

    Example::

        >>> import monoflow.distributed as dist
        >>> dist.ReduceOp.SUM, dist.ReduceOp.PROD is dist.ReduceOp.PRODUCT
        (<ReduceOp.SUM: 0>, True)
        >>> dist.ReduceOp(3)
        <ReduceOp.MAX: 3>
    """

    # Values match monoflow::collective::ReduceOp (collective/include/.../types.h).
    SUM = 0
    PRODUCT = 1
    MIN = 2
    MAX = 3
    AVG = 4


ReduceOp.PROD = ReduceOp.PRODUCT  # torch spells it both ways in user code
