"""Where each rank's shard of a global tensor sits in the logical tensor.

Splits are balanced: dimension size D over n ranks gives the first D % n
ranks D // n + 1 elements and the others D // n (numpy's array_split). On an
n-D hierarchy the axes apply in order: axis 1 splits the piece axis 0 left.
"""


def balanced(size, parts):
    """[(start, length)] of `size` elements cut into `parts` pieces."""
    base, extra = divmod(size, parts)
    out, start = [], 0
    for i in range(parts):
        n = base + (1 if i < extra else 0)
        out.append((start, n))
        start += n
    return out


def shard_box(shape, nd_sbp, hierarchy, coords):
    """[(start, stop)] per dimension: the region of the logical tensor the rank
    at `coords` holds (its whole extent for broadcast and partial sums)."""
    box = [(0, d) for d in shape]
    for axis, s in enumerate(nd_sbp):
        if s.is_split():
            lo, hi = box[s.dim]
            start, n = balanced(hi - lo, hierarchy[axis])[coords[axis]]
            box[s.dim] = (lo + start, lo + start + n)
    return box


def local_shape(shape, nd_sbp, hierarchy, coords):
    return tuple(hi - lo for lo, hi in shard_box(shape, nd_sbp, hierarchy, coords))


def holds_value(nd_sbp, coords):
    """Whether the rank at `coords` holds the value (not zeros) when the value
    is made from a broadcast one: partial-sum axes keep it on their first rank."""
    return all(c == 0 for s, c in zip(nd_sbp, coords) if s.is_partial_sum())
