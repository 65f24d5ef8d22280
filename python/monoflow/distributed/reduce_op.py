"""ReduceOp: the reductions of all_reduce, reduce and reduce_scatter."""
import enum


class ReduceOp(enum.IntEnum):
    # Values match monoflow::collective::ReduceOp (collective/include/.../types.h).
    SUM = 0
    PRODUCT = 1
    MIN = 2
    MAX = 3
    AVG = 4


ReduceOp.PROD = ReduceOp.PRODUCT  # torch spells it both ways in user code
