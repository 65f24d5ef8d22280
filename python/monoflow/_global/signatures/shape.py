"""Shape ops: reshape/flatten/squeeze/unsqueeze/expand/repeat, permutes,
cat/stack, narrow/select/split."""
import math

from monoflow._global.sbp import broadcast as B
from monoflow._global.sbp import partial_sum as P
from monoflow._global.sbp import split as S
from monoflow._global.signatures.base import Signature, _broadcast_shape, _wrap_dim, rule
from monoflow._global.signatures.reductions import _along


# ---------------------------------------------------------------- shape ops

def _shape_args(op, start=1):
    rest = op.args[start:]
    for key in ("shape", "size", "sizes", "dims"):
        if key in op.kwargs:
            rest = (op.kwargs[key],)
    if len(rest) == 1 and not isinstance(rest[0], int):
        rest = tuple(rest[0])
    if any(isinstance(d, bool) or not isinstance(d, int) for d in rest):
        op.fail(f"sizes must be ints, got {list(rest)}", TypeError)
    return [int(d) for d in rest]


def _infer_reshape(op, shape, target):
    numel = math.prod(shape)
    if target.count(-1) > 1:
        op.fail("only one dimension can be inferred")
    if target.count(-1) == 1:
        known = math.prod(d for d in target if d != -1)
        if known == 0 or numel % known:
            op.fail(f"shape '{list(target)}' is invalid for input of size {numel}")
        target = [numel // known if d == -1 else d for d in target]
    if math.prod(target) != numel or any(d < 0 for d in target):
        op.fail(f"shape '{list(target)}' is invalid for input of size {numel}")
    return tuple(target)


def reshape_signatures(shape, out):
    """A split survives a reshape when its dimension keeps its size and what
    lies before it keeps its element count (so each piece stays one block)."""
    sigs = []
    for d in range(len(shape)):
        before = math.prod(shape[:d])
        for od in range(len(out)):
            if out[od] == shape[d] and math.prod(out[:od]) == before and shape[d] > 1:
                sigs.append(Signature([S(d)], [S(od)]))
                break
    return sigs + [Signature([B], [B]), Signature([P], [P])]


def _localize_sizes(fn, args, kwargs, local_out):
    # the local call gets this rank's output shape instead of the logical one
    # (where the call passed it, so that a bad keyword fails as it would locally)
    for key in ("shape", "size", "sizes"):
        if key in kwargs:
            return fn, [args[0]], dict(kwargs, **{key: tuple(local_out[0])})
    return fn, [args[0], tuple(local_out[0])], kwargs


@rule("reshape", "view")
def reshape(op):
    out = _infer_reshape(op, op.shapes[0], _shape_args(op))
    return reshape_signatures(op.shapes[0], out), [out], _localize_sizes


@rule("flatten")
def flatten(op):
    shape = op.shapes[0]
    n = len(shape)
    if n == 0:
        return [Signature([B], [B]), Signature([P], [P])], [(1,)]
    start = _wrap_dim(op, op.arg("start_dim", 1, 0), n)
    end = _wrap_dim(op, op.arg("end_dim", 2, -1), n)
    out = tuple(shape[:start]) + (math.prod(shape[start:end + 1]),) + tuple(shape[end + 1:])
    return reshape_signatures(shape, out), [out]


@rule("squeeze")
def squeeze(op):
    shape = op.shapes[0]
    dim = op.arg("dim", 1)
    n = len(shape)
    if dim is None:
        cand = list(range(n))
    else:
        cand = [_wrap_dim(op, d, n) for d in ([dim] if isinstance(dim, int) else dim)] if n else []
    gone = sorted(d for d in cand if shape[d] == 1)
    out = tuple(s for d, s in enumerate(shape) if d not in gone)
    sigs = [Signature([S(d)], [S(d - sum(1 for g in gone if g < d))]) for d in range(n)
            if d not in gone and shape[d] > 1]

    def localize(fn, args, kwargs, local_out):
        # squeeze exactly the logical size-1 dims: a shard may hold one
        # element of a longer split dim, which must stay
        def squeeze_logical(x):
            for d in reversed(gone):
                x = x.squeeze(d)
            return x if gone else x.view(tuple(x.shape))
        return squeeze_logical, [args[0]], {}

    return sigs + [Signature([B], [B]), Signature([P], [P])], [out], localize


@rule("unsqueeze")
def unsqueeze(op):
    shape = op.shapes[0]
    dim = _wrap_dim(op, op.arg("dim", 1), len(shape) + 1)
    out = tuple(shape[:dim]) + (1,) + tuple(shape[dim:])
    sigs = [Signature([S(d)], [S(d if d < dim else d + 1)]) for d in range(len(shape)) if shape[d] > 1]
    return sigs + [Signature([B], [B]), Signature([P], [P])], [out]


@rule("expand")
def expand(op):
    shape = op.shapes[0]
    sizes = _shape_args(op)
    lead = len(sizes) - len(shape)
    if lead < 0:
        op.fail(f"the number of sizes provided ({len(sizes)}) must be greater or equal to the number of dimensions "
                f"in the tensor ({len(shape)})")
    out = []
    for i, s in enumerate(sizes):
        if i < lead:
            out.append(s)
        else:
            d = shape[i - lead]
            if s == -1:
                s = d
            elif d != 1 and s != d:
                op.fail(f"the expanded size of the tensor ({s}) must match the existing size ({d}) at non-singleton "
                        f"dimension {i}.  Target sizes: {sizes}.  Tensor sizes: {list(shape)}")
            out.append(s)
    out = tuple(out)
    # an expanded dim is a repetition of one value: only an unexpanded one may be split
    sigs = [Signature([S(d)], [S(d + lead)]) for d in range(len(shape)) if shape[d] > 1]
    return sigs + [Signature([B], [B]), Signature([P], [P])], [out], _localize_sizes


@rule("expand_as")
def expand_as(op):
    x, other = op.shapes
    out = _broadcast_shape(op, [x, other])
    if out != tuple(other):
        op.fail(f"cannot expand {list(x)} to {list(other)}")
    lead = len(other) - len(x)
    sigs = []
    for d in range(len(other)):
        if other[d] == 1:
            continue
        j = d - lead
        sigs.append(Signature([S(j) if j >= 0 and x[j] == other[d] else B, S(d)], [S(d)]))
    return sigs + [Signature([B, B], [B]), Signature([P, B], [P])], [tuple(other)]


@rule("repeat", "tile")
def repeat(op):
    shape = op.shapes[0]
    reps = _shape_args(op)
    if op.name == "tile" and len(reps) < len(shape):
        reps = [1] * (len(shape) - len(reps)) + reps
    lead = len(reps) - len(shape)
    if lead < 0:
        op.fail("number of dimensions of repeat dims can not be smaller than number of dimensions of tensor")
    out = tuple(reps[:lead]) + tuple(s * r for s, r in zip(shape, reps[lead:]))
    # a dim repeated once keeps its pieces
    sigs = [Signature([S(d)], [S(d + lead)]) for d in range(len(shape)) if reps[d + lead] == 1 and shape[d] > 1]
    return sigs + [Signature([B], [B]), Signature([P], [P])], [out]


def _permutation(op, n):
    name = op.name
    if name in ("t", "T"):
        if name == "t" and n > 2:
            op.fail(f"expects a tensor with <= 2 dimensions, but self is {n}D")
        return list(range(n))[::-1]
    if name == "mT":
        if n < 2:
            op.fail("tensor.mT is only supported on matrices or batches of matrices. Got 1-D tensor.")
        return list(range(n - 2)) + [n - 1, n - 2]
    if name in ("transpose", "swapaxes", "swapdims"):
        keys = ("dim0", "dim1") if name == "transpose" else ("axis0", "axis1") if name == "swapaxes" else \
            ("dim0", "dim1")
        a = _wrap_dim(op, op.arg(keys[0], 1), n)
        b = _wrap_dim(op, op.arg(keys[1], 2), n)
        perm = list(range(n))
        perm[a], perm[b] = perm[b], perm[a]
        return perm
    if name in ("movedim", "moveaxis"):
        src, dst = op.arg("source", 1), op.arg("destination", 2)
        src = [src] if isinstance(src, int) else list(src)
        dst = [dst] if isinstance(dst, int) else list(dst)
        src = [_wrap_dim(op, d, n) for d in src]
        dst = [_wrap_dim(op, d, n) for d in dst]
        perm = [None] * n
        for s, d in zip(src, dst):
            perm[d] = s
        rest = iter(d for d in range(n) if d not in src)
        return [p if p is not None else next(rest) for p in perm]
    perm = [_wrap_dim(op, p, n) for p in _shape_args(op)]
    if sorted(perm) != list(range(n)):
        op.fail(f"dims {perm} is not a permutation of {n} dims")
    return perm


@rule("transpose", "swapaxes", "swapdims", "permute", "t", "T", "mT", "movedim", "moveaxis")
def permute(op):
    shape = op.shapes[0]
    perm = _permutation(op, len(shape))
    out = tuple(shape[p] for p in perm)
    sigs = [Signature([S(perm[od])], [S(od)]) for od in range(len(perm)) if out[od] > 1]
    return sigs + [Signature([B], [B]), Signature([P], [P])], [out]


@rule("cat", "concat", "concatenate")
def cat(op):
    shapes = [s for s in op.shapes]
    for i, s in enumerate(shapes):
        if not s:
            op.fail(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
    dim = op.arg("dim", 1, 0)
    n = max(len(s) for s in shapes)
    dim = _wrap_dim(op, dim, n)
    # torch skips 1-D empty tensors in cat
    out = list(next(s for s in shapes if len(s) == n))
    out[dim] = sum(s[dim] for s in shapes if len(s) == n)
    k = len(shapes)
    sigs = [Signature([S(d)] * k, [S(d)]) for d in range(n) if d != dim and out[d] > 1 and
            all(len(s) == n for s in shapes)]
    return sigs + [Signature([B] * k, [B]), Signature([P] * k, [P])], [tuple(out)]


@rule("stack")
def stack(op):
    shapes = op.shapes
    dim = _wrap_dim(op, op.arg("dim", 1, 0), len(shapes[0]) + 1)
    if any(s != shapes[0] for s in shapes):
        op.fail(f"stack expects each tensor to be equal size, but got {[list(s) for s in shapes]}")
    shape = shapes[0]
    out = tuple(shape[:dim]) + (len(shapes),) + tuple(shape[dim:])
    k = len(shapes)
    sigs = [Signature([S(d)] * k, [S(d if d < dim else d + 1)]) for d in range(len(shape)) if shape[d] > 1]
    return sigs + [Signature([B] * k, [B]), Signature([P] * k, [P])], [out]


@rule("narrow")
def narrow(op):
    shape = op.shapes[0]
    if not shape:
        op.fail("cannot be applied to a 0-dim tensor.")
    dim = _wrap_dim(op, op.arg("dim", 1), len(shape))
    start, length = op.arg("start", 2), op.arg("length", 3)
    if start < 0:
        start += shape[dim]
    if not (0 <= start and length >= 0 and start + length <= shape[dim]):
        op.fail(f"start ({start}) + length ({length}) exceeds dimension size ({shape[dim]}).", IndexError)
    out = list(shape)
    out[dim] = length
    sigs, out = _along(op, shape, [dim], tuple(out), linear=True)
    return sigs, [out]


@rule("select")
def select(op):
    shape = op.shapes[0]
    dim = _wrap_dim(op, op.arg("dim", 1), len(shape))
    index = op.arg("index", 2)
    if not -shape[dim] <= index < shape[dim]:
        op.fail(f"index {index} out of range for tensor of size {list(shape)} at dimension {dim}", IndexError)
    out = tuple(s for d, s in enumerate(shape) if d != dim)
    sigs = [Signature([S(d)], [S(d if d < dim else d - 1)]) for d in range(len(shape)) if d != dim and shape[d] > 1]
    return sigs + [Signature([B], [B]), Signature([P], [P])], [out]


def _pieces(op, size, how, dim_name):
    if op.name == "chunk":
        chunks = int(how)
        if chunks <= 0:
            op.fail("chunk expects `chunks` to be greater than 0")
        each = -(-size // chunks) if size else 0
        if each == 0:
            return [0] * (1 if size == 0 else chunks)
        return [min(each, size - i) for i in range(0, size, each)]
    if isinstance(how, int):
        if how <= 0 and size:
            op.fail("split_size can only be 0 if dimension size is 0")
        if how == 0:
            return [0]
        return [min(how, size - i) for i in range(0, size, how)] or [0]
    how = list(how)
    if sum(how) != size:
        op.fail(f"split_with_sizes expects split_sizes to sum exactly to {size} (input tensor's size at dimension "
                f"{dim_name}), but got split_sizes={how}")
    return how


@rule("split", "chunk", "unbind")
def split(op):
    shape = op.shapes[0]
    if not shape:  # (the local ops' wording)
        if op.name == "unbind":
            op.fail("Dimension specified as 0 but tensor has no dimensions", IndexError)
        op.fail("expects at least a 1-dimensional tensor")
    if op.name == "unbind":
        dim = _wrap_dim(op, op.arg("dim", 1, 0), len(shape))
        out = tuple(s for d, s in enumerate(shape) if d != dim)
        sigs = [Signature([S(d)], [S(d if d < dim else d - 1)]) for d in range(len(shape)) if d != dim and shape[d] > 1]
        return sigs + [Signature([B], [B]), Signature([P], [P])], [out] * shape[dim]
    how = op.arg("chunks" if op.name == "chunk" else "split_size_or_sections", 1)
    if how is None:
        how = op.arg("split_size", 1)
    dim = _wrap_dim(op, op.arg("dim", 2, 0), len(shape))
    outs = []
    for n in _pieces(op, shape[dim], how, dim):
        o = list(shape)
        o[dim] = n
        outs.append(tuple(o))
    sigs, _ = _along(op, shape, [dim], linear=True)
    return sigs, outs
