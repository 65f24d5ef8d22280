"""Linear algebra: mm, bmm, mv, addmm, dot, outer, einsum. All compose the
core's matmul (BLAS on the CPU) with views, so they need no kernels of their own."""
import operator

from monoflow import _C, _autocast, _dtypes

__all__ = ["mm", "bmm", "mv", "addmm", "dot", "vdot", "outer", "ger", "einsum"]


def _check_dims(op, **tensors):
    for pos, (name, (t, nd)) in enumerate(tensors.items(), 1):
        _C.check_tensor(t, op, name, pos)
        if t.dim() != nd:
            raise RuntimeError(f"{op}: {name} must be a {nd}D tensor, got {t.dim()}D")


@_autocast.lower
def mm(input, mat2):
    _C.check_tensor(input, "mm", "input", 1)
    _C.check_tensor(mat2, "mm", "mat2", 2)
    for name, t in (("self", input), ("mat2", mat2)):  # (PyTorch's and OneFlow's wording)
        if t.dim() != 2:
            raise RuntimeError(f"mm: {name} must be a matrix, got {t.dim()}D")
    if input.shape[1] != mat2.shape[0]:
        raise RuntimeError(f"mm: mat1 and mat2 shapes cannot be multiplied ({input.shape[0]}x{input.shape[1]} and "
                           f"{mat2.shape[0]}x{mat2.shape[1]})")
    return input.matmul(mat2)


@_autocast.lower
def bmm(input, mat2):
    _C.check_tensor(input, "bmm", "input", 1)
    _C.check_tensor(mat2, "bmm", "mat2", 2)
    for pos, (name, t) in enumerate((("batch1", input), ("batch2", mat2)), 1):  # (OneFlow's wording)
        if t.dim() != 3:
            raise RuntimeError(f"bmm: Expected 3-dimensional tensor, but got {t.dim()}-dimensional tensor for "
                               f"argument #{pos} '{name}'")
    if input.shape[0] != mat2.shape[0]:
        raise RuntimeError(f"bmm: batch sizes differ ({input.shape[0]} and {mat2.shape[0]})")
    return input.matmul(mat2)


@_autocast.native
def mv(input, vec):
    _C.check_tensor(input, "mv", "input", 1)
    _C.check_tensor(vec, "mv", "vec", 2)
    if input.dim() != 2 or vec.dim() != 1:  # (PyTorch's and OneFlow's wording: the result's, mat's and vec's dims)
        raise RuntimeError(f"mv: vector + matrix @ vector expected, got 1, {input.dim()}, {vec.dim()}")
    if input.shape[1] != vec.shape[0]:
        raise RuntimeError(f"mv: size mismatch, got input ({input.shape[0]}), mat ({input.shape[0]}x{input.shape[1]}), "
                           f"vec ({vec.shape[0]})")
    return input.matmul(vec)


@_autocast.lower
def addmm(input, mat1, mat2, alpha=1, beta=1):
    """beta * input + alpha * (mat1 @ mat2), input broadcast to the product's shape.

    ``alpha`` and ``beta`` by keyword as torch's; OneFlow's positional order (alpha, then beta)
    also works (torch refuses them positionally, so no torch call changes meaning)."""
    _C.check_tensor(input, "addmm", "input", 1)
    _check_dims("addmm", mat1=(mat1, 2), mat2=(mat2, 2))
    if mat1.shape[1] != mat2.shape[0]:
        raise RuntimeError(f"addmm: mat1 and mat2 shapes cannot be multiplied ({mat1.shape[0]}x{mat1.shape[1]} and "
                           f"{mat2.shape[0]}x{mat2.shape[1]})")
    out_shape = (mat1.shape[0], mat2.shape[1])
    try:
        fits = tuple(_C.broadcast_shapes(input.shape, out_shape)) == out_shape
    except (RuntimeError, ValueError):
        fits = False
    if not fits:
        raise RuntimeError(f"addmm: input of shape {list(input.shape)} cannot be broadcast to the product's shape "
                           f"{list(out_shape)}")
    low = input.dtype
    if low in (_dtypes.float16, _dtypes.bfloat16) and mat1.dtype == mat2.dtype == low:
        # one rounding of the float32 result, as torch's half-precision addmm (not one per step)
        return addmm(input.float(), mat1.float(), mat2.float(), alpha=alpha, beta=beta).to(low)
    prod = mat1.matmul(mat2)
    if alpha != 1:
        prod = prod * alpha
    if beta == 0:  # input is ignored, as in PyTorch (even NaNs in it)
        return prod
    return prod + (input if beta == 1 else input * beta)


@_autocast.native
def dot(input, other):
    _C.check_tensor(input, "dot", "input", 1)
    _C.check_tensor(other, "dot", "tensor", 2)
    if input.dim() != 1 or other.dim() != 1:  # (PyTorch's and OneFlow's wording)
        raise RuntimeError(_C.name_op_in_progress(f"dot: 1D tensors expected, but got {input.dim()}D and "
                                                  f"{other.dim()}D tensors"))
    if input.dtype != other.dtype:
        raise RuntimeError(_C.name_op_in_progress(f"dot: expected both vectors to have same dtype, but found "
                                                  f"{input.dtype} and {other.dtype}"))
    if input.shape[0] != other.shape[0]:
        raise RuntimeError(_C.name_op_in_progress(  # (vdot reaches it: named after it)
            f"dot: inconsistent tensor size, expected tensor [{input.shape[0]}] and src [{other.shape[0]}] to have "
            f"the same number of elements"))
    return input.matmul(other)


def vdot(input, other):
    """sum(conj(input) * other): dot with the first vector conjugated (the same for real tensors)."""
    _check_dims("vdot", input=(input, 1), other=(other, 1))
    return dot(input.conj(), other)


@_autocast.native
def outer(input, vec2):
    _check_dims("outer", input=(input, 1), vec2=(vec2, 1))
    return input.unsqueeze(1) * vec2.unsqueeze(0)


ger = outer


# ---------------------------------------------------------------- einsum

def _parse(equation, operands):
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(operands):
        raise RuntimeError(f"einsum: the equation has {len(terms)} operand(s) but {len(operands)} were given")
    # '...' becomes fresh letters, right-aligned across operands: Greek ones, which no equation
    # (ASCII letters) uses, so they cannot clash with upper-case subscripts.
    n_ell = 0
    for term, t in zip(terms, operands):
        if "..." in term:
            n_ell = max(n_ell, t.dim() - (len(term) - 3))
    ell = "".join(chr(0x3B1 + i) for i in range(n_ell))
    subs = []
    for term, t in zip(terms, operands):
        if "..." in term:
            k = t.dim() - (len(term) - 3)
            term = term.replace("...", ell[n_ell - k:])
        if not term.isalpha() and term:
            raise RuntimeError(f"einsum: invalid subscripts '{term}' (letters and '...' only)")
        if len(term) != t.dim():
            raise RuntimeError(f"einsum: subscripts '{term}' do not match an operand of dimension {t.dim()}")
        subs.append(term)
    if arrow:
        out = rhs.replace("...", ell)
        for c in out:
            if not any(c in s for s in subs):
                raise RuntimeError(f"einsum: output subscript '{c}' does not appear in the inputs")
    else:
        counts = {}
        for s in subs:
            for c in s:
                counts[c] = counts.get(c, 0) + 1
        out = ell + "".join(sorted(c for c, n in counts.items() if n == 1 and c not in ell))
    return subs, out


def _diagonalize(t, sub):
    # Repeated letters in one operand ('ii') select the diagonal: one dim
    # whose stride is the sum of the repeated dims' strides.
    while len(set(sub)) != len(sub):
        c = next(c for c in sub if sub.count(c) > 1)
        dims = [i for i, x in enumerate(sub) if x == c]
        keep = [i for i in range(len(sub)) if i not in dims]
        sizes = {t.shape[i] for i in dims}
        if len(sizes) != 1:
            raise RuntimeError(f"einsum: subscript '{c}' is repeated with different sizes {sorted(sizes)}")
        shape = [t.shape[i] for i in keep] + [t.shape[dims[0]]]
        strides = [t.stride(i) for i in keep] + [sum(t.stride(i) for i in dims)]
        t = t.as_strided(shape, strides, t.storage_offset())
        sub = "".join(sub[i] for i in keep) + c
    return t, sub


def _sum_out(t, sub, keep):
    dims = [i for i, c in enumerate(sub) if c not in keep]
    if dims:
        t = t.sum(dims)
        sub = "".join(c for c in sub if c in keep)
    return t, sub


def _contract(a, sa, b, sb, keep):
    """Contracts two operands, keeping the letters in `keep`."""
    sizes = {}
    for t, s in ((a, sa), (b, sb)):
        for c, n in zip(s, t.shape):
            if sizes.get(c, 1) == 1:
                sizes[c] = n
    batch = [c for c in sa if c in sb and c in keep]
    contract = [c for c in sa if c in sb and c not in keep]
    left = [c for c in sa if c not in sb]
    right = [c for c in sb if c not in sa]

    def arrange(t, s, order):
        t = t.permute([s.index(c) for c in order])
        return t.expand([sizes[c] for c in order])

    def numel(letters):
        n = 1
        for c in letters:
            n *= sizes[c]
        return n

    a3 = arrange(a, sa, batch + left + contract).reshape(numel(batch), numel(left), numel(contract))
    b3 = arrange(b, sb, batch + contract + right).reshape(numel(batch), numel(contract), numel(right))
    out = a3.matmul(b3).reshape([sizes[c] for c in batch + left + right])
    return out, "".join(batch + left + right)


def _sublist_letters(sublist):
    # torch's mapping of sublist subscripts: 0-25 -> 'A'-'Z', 26-51 -> 'a'-'z', Ellipsis -> '...'
    if isinstance(sublist, _C.TensorBase) or not isinstance(sublist, (list, tuple)):
        raise TypeError(f"einsum(): a subscript list must be a list of ints, not {type(sublist).__name__}")
    letters = []
    for n in sublist:
        if n is Ellipsis:
            letters.append("...")
            continue
        n = operator.index(n)
        if not 0 <= n < 52:
            raise ValueError("einsum(): subscript in subscript list is not within the valid range [0, 52)")
        letters.append(chr(ord("A") + n) if n < 26 else chr(ord("a") + n - 26))
    return "".join(letters)


def _sublist_equation(args):
    """einsum(op1, sublist1, op2, sublist2, ..., [sublist_out]) as (equation, operands)."""
    operands, sublists = args[0::2], args[1::2]
    output = None
    if len(args) % 2:
        operands, output = operands[:-1], operands[-1]
        if isinstance(output, _C.TensorBase):
            raise ValueError("einsum(): in the sublist form each operand must be followed by its subscript list")
    for t in operands:
        _C.check_tensor(t, "einsum", "operand")
    equation = ",".join(_sublist_letters(s) for s in sublists)
    if output is not None:
        equation += "->" + _sublist_letters(output)
    return equation, operands


def einsum(equation, *operands):
    """Einstein summation for any number of operands (pairwise left to right,
    each contraction a batched matmul), with '...', implicit output and
    repeated subscripts (diagonals)."""
    if isinstance(equation, _C.TensorBase):
        if not operands:
            raise ValueError("einsum(): must specify the equation string and at least one operand, or at least "
                             "one operand and its subscripts list")
        equation, operands = _sublist_equation((equation,) + operands)
    if not isinstance(equation, str):
        raise TypeError(f"einsum(): argument 'equation' (position 1) must be str, not {type(equation).__name__}")
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    if not operands:
        raise ValueError("einsum: at least one operand is required")
    subs, out = _parse(equation, operands)
    terms = [_diagonalize(t, s) for t, s in zip(operands, subs)]
    t, s = terms[0]
    for i, (u, su) in enumerate(terms[1:], start=1):
        later = set(out).union(*[set(x) for _, x in terms[i + 1:]])
        t, s = _sum_out(t, s, later | set(su))
        u, su = _sum_out(u, su, later | set(s))
        t, s = _contract(t, s, u, su, later)
    t, s = _sum_out(t, s, set(out))
    return t.permute([s.index(c) for c in out]) if s != out else t


class TensorMethods:
    """Mixed into monoflow.Tensor."""

    def mm(self, mat2):
        return mm(self, mat2)

    def bmm(self, mat2):
        return bmm(self, mat2)

    def mv(self, vec):
        return mv(self, vec)

    def dot(self, other):
        return dot(self, other)

    def outer(self, vec2):
        return outer(self, vec2)

    def addmm(self, mat1, mat2, alpha=1, beta=1):  # OneFlow's positional order; keywords as torch
        return addmm(self, mat1, mat2, beta=beta, alpha=alpha)
