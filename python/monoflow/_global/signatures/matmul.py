"""matmul, addmm and linear."""
from monoflow._global.sbp import broadcast as B
from monoflow._global.sbp import partial_sum as P
from monoflow._global.sbp import split as S
from monoflow._global.signatures.base import Signature, rule


# ---------------------------------------------------------------- matmul

def _matmul_signatures(a, b):
    """(..., n, k) @ (..., k, m) with broadcast batch dims, and the 1-D forms
    (a vector is a row for the left operand, a column for the right one)."""
    a2 = (1,) + tuple(a) if len(a) == 1 else tuple(a)
    b2 = tuple(b) + (1,) if len(b) == 1 else tuple(b)
    batch = []
    na, nb = len(a2) - 2, len(b2) - 2
    nbatch = max(na, nb)
    for i in range(nbatch):
        da = a2[i - (nbatch - na)] if i >= nbatch - na else 1
        db = b2[i - (nbatch - nb)] if i >= nbatch - nb else 1
        if da != db and 1 not in (da, db):
            return None
        batch.append(max(da, db) if 1 not in (da, db) else da * db)
    if a2[-1] != b2[-2]:
        return None
    out_full = tuple(batch) + (a2[-2], b2[-1])
    # the output's dims after the vector forms drop theirs
    drop_n, drop_m = len(a) == 1, len(b) == 1
    out = tuple(batch) + (() if drop_n else (a2[-2],)) + (() if drop_m else (b2[-1],))

    def out_dim(full_dim):
        od = full_dim
        if drop_n and full_dim > nbatch:
            od -= 1
        return od

    sigs = []
    for i in range(nbatch):  # batch dims: operands holding the dim split it
        if out_full[i] == 1:
            continue
        ins = []
        for shape, nx, real in ((a2, na, a), (b2, nb, b)):
            j = i - (nbatch - nx)
            ins.append(S(j) if j >= 0 and shape[j] == out_full[i] else B)
        sigs.append(Signature(ins, [S(out_dim(i))]))
    if not drop_n and a2[-2] > 1:  # rows of a
        sigs.append(Signature([S(len(a) - 2), B], [S(out_dim(nbatch))]))
    if not drop_m and b2[-1] > 1:  # columns of b
        sigs.append(Signature([B, S(len(b) - 1)], [S(out_dim(nbatch + 1))]))
    if a2[-1] > 1:  # the contracted dim: each rank's product is a partial sum
        sigs.append(Signature([S(len(a) - 1), S(len(b) - 2 if len(b) > 1 else 0)], [P]))
    sigs += [Signature([P, B], [P]), Signature([B, P], [P]), Signature([B, B], [B])]
    return sigs, out


@rule("matmul", "mm", "bmm", "mv", "dot", "__matmul__", "__rmatmul__")
def matmul(op):
    a, b = op.shapes
    if op.name == "__rmatmul__":  # other @ self, found as (self, other)
        sigs, out = _matmul_or_fail(op, b, a)
        return [Signature(s.inputs[::-1], s.outputs) for s in sigs], [out]
    sigs, out = _matmul_or_fail(op, a, b)
    return sigs, [out]


def _matmul_or_fail(op, a, b):
    if not a or not b:
        op.fail("both arguments need at least 1 dimension")
    found = _matmul_signatures(a, b)
    if found is None:
        op.fail(f"shapes {list(a)} and {list(b)} cannot be multiplied")
    return found


@rule("addmm")
def addmm(op):
    # beta input + alpha m1 @ m2: linear in (input, m1) and in (input, m2)
    inp, m1, m2 = op.shapes
    sigs, out = _matmul_or_fail(op, m1, m2)
    full = []
    for s in sigs:
        o = s.outputs[0]
        if o.is_split():
            j = o.dim - (len(out) - len(inp))
            first = S(j) if j >= 0 and inp[j] == out[o.dim] else B
        else:
            first = o  # P with P, B with B
        full.append(Signature([first, *s.inputs], s.outputs))
    return full, [out]


@rule("linear")
def linear(op):
    x, w = op.shapes[0], op.shapes[1]
    has_bias = len(op.shapes) > 2
    if not x or len(w) not in (1, 2):
        op.fail(f"input {list(x)} and weight {list(w)} cannot be multiplied")
    out = tuple(x[:-1]) + ((w[0],) if len(w) == 2 else ())
    bias = (lambda s: [s]) if has_bias else (lambda s: [])  # noqa: E731
    sigs = [Signature([S(d), B] + bias(B), [S(d)]) for d in range(len(x) - 1) if x[d] > 1]
    if len(w) == 2:
        sigs.append(Signature([B, S(0)] + bias(S(0)), [S(len(out) - 1)]))  # column parallel
        sigs.append(Signature([S(len(x) - 1), S(1)] + bias(P), [P]))       # row parallel
    else:
        sigs.append(Signature([S(len(x) - 1), S(0)] + bias(P), [P]))
    sigs.append(Signature([P, B] + bias(P), [P]))
    sigs.append(Signature([B, P] + bias(P), [P]))
    sigs.append(Signature([B, B] + bias(B), [B]))
    return sigs, [out]
