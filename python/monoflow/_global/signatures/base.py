"""The pieces every rule uses: Signature, Op, the registry, and the
elementwise signature builder."""
import numbers

from monoflow._global.sbp import broadcast as B
from monoflow._global.sbp import partial_sum as P
from monoflow._global.sbp import split as S


class Signature:
    __slots__ = ("inputs", "outputs")

    def __init__(self, inputs, outputs):
        self.inputs, self.outputs = tuple(inputs), tuple(outputs)

    def __repr__(self):
        return f"({', '.join(s.short() for s in self.inputs)}) -> ({', '.join(s.short() for s in self.outputs)})"


class Op:
    """One call of an op on global operands, as a rule sees it."""

    __slots__ = ("name", "args", "kwargs", "tensors", "method", "nonempty")

    def __init__(self, name, args, kwargs, tensors, method=False):
        self.name, self.args, self.kwargs, self.tensors, self.method = name, args, kwargs, tensors, method
        # set by rules whose local kernels refuse empty inputs (pooling):
        # dispatch then avoids splits that leave a rank an empty piece
        self.nonempty = False

    @property
    def shapes(self):
        return [tuple(t._shape) for t in self.tensors]

    def arg(self, key, pos, default=None):
        """The argument named `key`, or at position `pos` (self/input is 0)."""
        if key in self.kwargs:
            return self.kwargs[key]
        if pos is not None and len(self.args) > pos:
            return self.args[pos]
        return default

    def fail(self, message, kind=RuntimeError):
        raise kind(f"{self.name}: {message}")


RULES = {}


def rule(*names):
    def register(fn):
        for n in names:
            RULES[n] = fn
        return fn
    return register


def with_inplace(*names):
    """The names and their in-place forms (add -> add, add_)."""
    return tuple(names) + tuple(n + "_" for n in names)


def _broadcast_shape(op, shapes):
    nd = max((len(s) for s in shapes), default=0)
    out = [1] * nd
    for s in shapes:
        for i, d in enumerate(s):
            j = nd - len(s) + i
            if d != 1:
                if out[j] not in (1, d):
                    op.fail(f"the shapes {[list(x) for x in shapes]} cannot be broadcast together")
                out[j] = d
    return tuple(out)


def _wrap_dim(op, dim, ndim):
    n = max(ndim, 1)
    if isinstance(dim, bool) or not isinstance(dim, int):
        op.fail(f"dim must be an int, got {type(dim).__name__}", TypeError)
    if not -n <= dim < n:
        op.fail(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})", IndexError)
    return dim % n


def _is_number(v):
    # Python and numpy scalars (np.float32 is not a float)
    return isinstance(v, numbers.Number)


def _is_tensor(v):
    from monoflow._tensor import Tensor

    return isinstance(v, Tensor)


def elementwise_signatures(shapes, out_shape, linear=()):
    """Split on any output dim (operands that broadcast along it stay whole),
    all broadcast, and one P form per set in `linear`: the operand positions
    the op is jointly linear in (they are P, the others B)."""
    sigs = []
    nd = len(out_shape)
    for d in range(nd):
        if out_shape[d] == 1:
            continue
        ins = []
        for s in shapes:
            j = d - (nd - len(s))
            ins.append(S(j) if j >= 0 and s[j] == out_shape[d] else B)
        sigs.append(Signature(ins, [S(d)]))
    sigs.append(Signature([B] * len(shapes), [B]))
    for group in linear:
        sigs.append(Signature([P if i in group else B for i in range(len(shapes))], [P]))
    return sigs
