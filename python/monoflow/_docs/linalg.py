"""Matrix products and decompositions: matmul, mm, bmm, addmm, einsum, and the Tensor side of monoflow.linalg."""
from monoflow._docs import add_doc, add_inplace_docs  # noqa: F401

# ---------------------------------------------------------------- products

add_doc("matmul", "matmul(input, other) -> Tensor", r"""
    The matrix product of two tensors, with the rules of ``@`` for 1-D and batched operands.

    - 1-D and 1-D: the dot product (a 0-D tensor).
    - 2-D and 2-D: the matrix product.
    - 1-D first: it is treated as a row ``(1, n)``, and the added dim removed
      from the result; 1-D second: a column ``(n, 1)``, likewise.
    - More than 2-D: a batch of matrices in the last two dims; the batch dims
      broadcast.

    The dtypes of both operands must be the same. Runs on BLAS on the CPU.

    Args:
        input (Tensor): the first operand, shape ``(*, n, m)`` (or ``(m,)``).
        other (Tensor): the second operand, shape ``(*, m, p)`` (or ``(m,)``).

    Shape:
        - ``(*, n, m) @ (*, m, p) -> (*, n, p)``, the ``*`` dims broadcast.

    Example::

        >>> a = flow.tensor([[1., 2.], [3., 4.]])
        >>> flow.matmul(a, flow.tensor([1., 1.]))
        tensor([3., 7.])
        >>> a.matmul(flow.tensor([[0., 1.], [1., 0.]]))
        tensor([[2., 1.],
                [4., 3.]])
        >>> flow.matmul(flow.ones(5, 2, 3), flow.ones(3, 4)).shape
        monoflow.Size([5, 2, 4])
    """)

add_doc("mm", "mm(input, mat2) -> Tensor", r"""
    The matrix product of two 2-D tensors, without broadcasting (see :func:`monoflow.matmul`).

    Args:
        input (Tensor): an ``(n, m)`` matrix.
        mat2 (Tensor): an ``(m, p)`` matrix.

    Returns:
        Tensor: an ``(n, p)`` matrix.

    Example::

        >>> a = flow.tensor([[1., 2.], [3., 4.]])
        >>> flow.mm(a, flow.tensor([[0., 1.], [1., 0.]]))
        tensor([[2., 1.],
                [4., 3.]])
    """)

add_doc("bmm", "bmm(input, mat2) -> Tensor", r"""
    The matrix products of two batches of matrices, pair by pair: ``out[b] = input[b] @ mat2[b]``.

    Both operands must be 3-D with the same batch size (no broadcasting; use
    :func:`monoflow.matmul` for that).

    Args:
        input (Tensor): a ``(b, n, m)`` batch.
        mat2 (Tensor): a ``(b, m, p)`` batch.

    Returns:
        Tensor: a ``(b, n, p)`` batch.

    Example::

        >>> flow.bmm(flow.ones(4, 2, 3), flow.ones(4, 3, 5)).shape
        monoflow.Size([4, 2, 5])
    """)

add_doc("mv", "mv(input, vec) -> Tensor", r"""
    The product of a matrix and a vector.

    Args:
        input (Tensor): an ``(n, m)`` matrix.
        vec (Tensor): an ``(m,)`` vector.

    Returns:
        Tensor: an ``(n,)`` vector.

    Example::

        >>> a = flow.tensor([[1., 2.], [3., 4.]])
        >>> flow.mv(a, flow.tensor([1., -1.]))
        tensor([-1., -1.])
    """)

add_doc("dot", "dot(input, other) -> Tensor", r"""
    The dot product of two 1-D tensors of the same length: ``sum(input * other)``.

    ``vdot`` is the same for real tensors; for complex ones it conjugates
    ``input`` first: ``sum(conj(input) * other)``.

    Args:
        input (Tensor): a 1-D tensor.
        other (Tensor): a 1-D tensor of the same length and dtype.

    Returns:
        Tensor: a 0-D tensor.

    Example::

        >>> flow.dot(flow.tensor([1., 2., 3.]), flow.tensor([4., 5., 6.]))
        tensor(32.)
    """, aliases=("vdot",))

add_doc("outer", "outer(input, vec2) -> Tensor", r"""
    The outer product of two 1-D tensors: ``out[i, j] = input[i] * vec2[j]``.

    ``ger`` is the same function under its older name.

    Args:
        input (Tensor): an ``(n,)`` vector.
        vec2 (Tensor): an ``(m,)`` vector.

    Returns:
        Tensor: an ``(n, m)`` matrix.

    Example::

        >>> flow.outer(flow.tensor([1., 2.]), flow.tensor([1., 10., 100.]))
        tensor([[  1.,  10., 100.],
                [  2.,  20., 200.]])
    """, aliases=("ger",))

add_doc("inner", "inner(input, other) -> Tensor", r"""
    The inner product over the last dims: ``out[i..., j...] = sum_k input[i..., k] * other[j..., k]``.

    For 1-D operands it is :func:`monoflow.dot`; a 0-D operand multiplies
    the other one.

    Args:
        input (Tensor): shape ``(*a, k)``.
        other (Tensor): shape ``(*b, k)``.

    Returns:
        Tensor: shape ``(*a, *b)``.

    Example::

        >>> flow.inner(flow.tensor([1., 2., 3.]), flow.tensor([4., 5., 6.]))
        tensor(32.)
        >>> a = flow.tensor([[1., 2.], [3., 4.]])
        >>> a.inner(a)
        tensor([[ 5., 11.],
                [11., 25.]])
    """)

add_doc("addmm", "addmm(input, mat1, mat2, *, beta=1, alpha=1) -> Tensor", r"""
    ``beta * input + alpha * (mat1 @ mat2)``, ``input`` broadcast to the product's shape.

    With ``beta=0``, ``input`` is ignored (NaNs in it do not propagate), as in PyTorch.

    Args:
        input (Tensor): the tensor to add, broadcastable to ``(n, p)``.
        mat1 (Tensor): an ``(n, m)`` matrix.
        mat2 (Tensor): an ``(m, p)`` matrix.
        beta (Number): the multiplier of ``input``. Default: 1.
        alpha (Number): the multiplier of the product. Default: 1.

    Returns:
        Tensor: an ``(n, p)`` matrix.

    Example::

        >>> a = flow.tensor([[1., 2.], [3., 4.]])
        >>> flow.addmm(flow.ones(2), a, flow.eye(2), beta=0.5, alpha=2)
        tensor([[2.5000, 4.5000],
                [6.5000, 8.5000]])
    """)

add_doc("addmv", "addmv(input, mat, vec, *, beta=1, alpha=1) -> Tensor", r"""
    ``beta * input + alpha * (mat @ vec)``: a matrix-vector product added to a vector.

    With ``beta=0``, ``input`` is ignored. For integer tensors, ``beta`` and
    ``alpha`` must be integers.

    Args:
        input (Tensor): the vector to add, broadcastable to ``(n,)``.
        mat (Tensor): an ``(n, m)`` matrix.
        vec (Tensor): an ``(m,)`` vector.
        beta (Number): the multiplier of ``input``. Default: 1.
        alpha (Number): the multiplier of the product. Default: 1.

    Example::

        >>> a = flow.tensor([[1., 2.], [3., 4.]])
        >>> flow.addmv(flow.tensor([1., 1.]), a, flow.tensor([1., -1.]))
        tensor([0., 0.])
    """)

add_doc("addr", "addr(input, vec1, vec2, *, beta=1, alpha=1) -> Tensor", r"""
    ``beta * input + alpha * outer(vec1, vec2)``: an outer product added to a matrix.

    With ``beta=0``, ``input`` is ignored. For integer tensors, ``beta`` and
    ``alpha`` must be integers.

    Args:
        input (Tensor): the matrix to add, broadcastable to ``(n, m)``.
        vec1 (Tensor): an ``(n,)`` vector.
        vec2 (Tensor): an ``(m,)`` vector.
        beta (Number): the multiplier of ``input``. Default: 1.
        alpha (Number): the multiplier of the outer product. Default: 1.

    Example::

        >>> flow.addr(flow.ones(2, 2), flow.tensor([1., 2.]), flow.tensor([3., 4.]))
        tensor([[4., 5.],
                [7., 9.]])
    """)

add_doc("baddbmm", "baddbmm(input, batch1, batch2, *, beta=1, alpha=1) -> Tensor", r"""
    ``beta * input + alpha * (batch1 @ batch2)``, for batches of matrices.

    With ``beta=0``, ``input`` is ignored. For integer tensors, ``beta`` and
    ``alpha`` must be integers.

    Args:
        input (Tensor): the tensor to add, broadcastable to ``(b, n, p)``.
        batch1 (Tensor): a ``(b, n, m)`` batch.
        batch2 (Tensor): a ``(b, m, p)`` batch.
        beta (Number): the multiplier of ``input``. Default: 1.
        alpha (Number): the multiplier of the products. Default: 1.

    Example::

        >>> out = flow.baddbmm(flow.ones(3, 2, 2), flow.ones(3, 2, 4), flow.ones(3, 4, 2), alpha=0.5)
        >>> out.shape, out[0, 0, 0]
        (monoflow.Size([3, 2, 2]), tensor(3.))
    """)

add_doc("addbmm", "addbmm(input, batch1, batch2, *, beta=1, alpha=1) -> Tensor", r"""
    ``beta * input + alpha * sum_b(batch1[b] @ batch2[b])``: the batch of products is summed to one matrix.

    With ``beta=0``, ``input`` is ignored. For integer tensors, ``beta`` and
    ``alpha`` must be integers.

    Args:
        input (Tensor): the matrix to add, broadcastable to ``(n, p)``.
        batch1 (Tensor): a ``(b, n, m)`` batch.
        batch2 (Tensor): a ``(b, m, p)`` batch.
        beta (Number): the multiplier of ``input``. Default: 1.
        alpha (Number): the multiplier of the summed products. Default: 1.

    Example::

        >>> flow.addbmm(flow.zeros(2, 2), flow.ones(3, 2, 4), flow.ones(3, 4, 2))
        tensor([[12., 12.],
                [12., 12.]])
    """)

add_inplace_docs("addmv_", "addr_", "baddbmm_", "addbmm_")

add_doc("einsum", "einsum(equation, *operands) -> Tensor", r"""
    Einstein summation: multiplies the ``operands`` and sums over the subscripts that the output leaves out.

    ``equation`` names the dims of each operand with letters, operands
    separated by commas, optionally followed by ``->`` and the output's
    letters. Without ``->`` the output has the letters seen once, in
    alphabetical order. ``...`` stands for broadcast dims; a letter repeated
    in one operand (``'ii'``) takes its diagonal. The operands may also be
    passed as one list. Pairs are contracted left to right, each as a batched
    matmul.

    The sublist form ``einsum(op1, sublist1, op2, sublist2, ..., [sublist_out])``
    names the dims with ints in ``[0, 52)`` (and ``Ellipsis``) instead of letters.

    Args:
        equation (str): the subscripts, e.g. ``'bij,bjk->bik'``; or, in the sublist
            form, the first operand.
        operands (Tensor): the tensors, one per comma-separated term (in the
            sublist form: each operand's subscript list after it, then optionally
            the output's).

    Example::

        >>> a = flow.tensor([[1., 2.], [3., 4.]])
        >>> flow.einsum("ii", a)
        tensor(5.)
        >>> flow.einsum("i,j->ij", flow.tensor([1., 2.]), flow.tensor([3., 4.]))
        tensor([[3., 4.],
                [6., 8.]])
        >>> flow.einsum("bij,bjk->bik", flow.ones(2, 2, 3), flow.ones(2, 3, 4)).shape
        monoflow.Size([2, 2, 4])
        >>> flow.einsum(flow.ones(2, 2, 3), [0, 1, 2], flow.ones(2, 3, 4), [0, 2, 3], [0, 1, 3]).shape
        monoflow.Size([2, 2, 4])
    """)

add_doc("tensordot", "tensordot(a, b, dims=2) -> Tensor", r"""
    Contracts dims of ``a`` with dims of ``b``: a generalised matrix product.

    ``dims=k`` sums over the last ``k`` dims of ``a`` and the first ``k`` of
    ``b``; ``dims=([da...], [db...])`` sums over the listed pairs. The result
    has ``a``'s remaining dims followed by ``b``'s.

    Args:
        a (Tensor): the first operand.
        b (Tensor): the second operand.
        dims (int or (list, list)): how many trailing/leading dims to
            contract, or the two lists of dims. Default: 2.

    Example::

        >>> flow.tensordot(flow.ones(3, 4, 5), flow.ones(4, 5, 6)).shape
        monoflow.Size([3, 6])
        >>> flow.tensordot(flow.ones(3, 4, 5), flow.ones(5, 3, 2), dims=([0, 2], [1, 0])).shape
        monoflow.Size([4, 2])
    """)

add_doc("chain_matmul", "chain_matmul(*matrices) -> Tensor", r"""
    The product of two or more 2-D matrices, ``matrices[0] @ matrices[1] @ ...``.

    The same as :func:`monoflow.linalg.multi_dot` with the matrices passed
    as separate arguments.

    Args:
        matrices (Tensor): the 2-D matrices, in order, with matching inner sizes.

    Example::

        >>> a = flow.tensor([[1., 2.], [3., 4.]])
        >>> flow.chain_matmul(a, flow.eye(2), a)
        tensor([[ 7., 10.],
                [15., 22.]])
    """)

# ---------------------------------------------------------------- distances

add_doc("cdist", "cdist(x1, x2, p=2.0, compute_mode='use_mm_for_euclid_dist_if_necessary') -> Tensor", r"""
    The p-norm distance between each row of ``x1`` and each row of ``x2``.

    The leading (batch) dims broadcast. The gradient at a zero distance is 0.

    Args:
        x1 (Tensor): shape ``(*, P, M)``.
        x2 (Tensor): shape ``(*, R, M)``.
        p (float): the norm's order, ``>= 0``. Default: 2.
        compute_mode (str): accepted for PyTorch compatibility; monoflow
            always computes the distances directly (never through matmul).

    Returns:
        Tensor: shape ``(*, P, R)``.

    Example::

        >>> x1 = flow.tensor([[0., 0.], [1., 1.]])
        >>> flow.cdist(x1, flow.tensor([[3., 4.]]))
        tensor([[5.0000],
                [3.6056]])
    """)

add_doc("dist", "dist(input, other, p=2) -> Tensor", r"""
    The p-norm of ``input - other`` (broadcast), over all elements.

    Args:
        input (Tensor): the first tensor.
        other (Tensor): the second tensor, broadcastable with ``input``.
        p (float): the norm's order. Default: 2.

    Returns:
        Tensor: a 0-D tensor.

    Example::

        >>> a, b = flow.tensor([0., 0.]), flow.tensor([3., 4.])
        >>> flow.dist(a, b)
        tensor(5.)
        >>> a.dist(b, p=1)
        tensor(7.)
    """)

# ---------------------------------------------------------------- torch's top-level names of linalg functions

add_doc("det", "det(input) -> Tensor", r"""
    The determinant of each square matrix of ``input``; the same as :func:`monoflow.linalg.det`.

    Float32 and float64 only; batched over leading dims; differentiable.

    Args:
        input (Tensor): shape ``(*, n, n)``.

    Returns:
        Tensor: shape ``(*)``.

    Example::

        >>> A = flow.tensor([[4., 2.], [2., 3.]])
        >>> flow.det(A)
        tensor(8.)
    """)

add_doc("inverse", "inverse(input) -> Tensor", r"""
    The inverse of each square matrix of ``input``; the same as :func:`monoflow.linalg.inv`.

    A singular matrix raises ``RuntimeError``. Float32 and float64 only;
    batched over leading dims; differentiable.

    Args:
        input (Tensor): shape ``(*, n, n)``.

    Example::

        >>> A = flow.tensor([[4., 2.], [2., 3.]])
        >>> A.inverse()
        tensor([[ 0.3750, -0.2500],
                [-0.2500,  0.5000]])
    """)

add_doc("logdet", "logdet(input) -> Tensor", r"""
    The natural log of the determinant of each square matrix of ``input``.

    A negative determinant gives NaN and a zero one ``-inf`` (use
    :func:`monoflow.slogdet` to keep the sign).

    Args:
        input (Tensor): shape ``(*, n, n)``, float32 or float64.

    Example::

        >>> flow.logdet(flow.tensor([[4., 2.], [2., 3.]]))
        tensor(2.0794)
        >>> flow.logdet(flow.tensor([[0., 1.], [1., 0.]]))
        tensor(nan)
    """)

add_doc("slogdet", "slogdet(input) -> (Tensor, Tensor)", r"""
    The sign and the log of the absolute value of the determinant of each square matrix of ``input``.

    The same as :func:`monoflow.linalg.slogdet`. ``det = sign * exp(logabsdet)``,
    computed without overflow for large matrices.

    Args:
        input (Tensor): shape ``(*, n, n)``, float32 or float64.

    Returns:
        (Tensor, Tensor): the named tuple ``(sign, logabsdet)``.

    Example::

        >>> sign, logabsdet = flow.slogdet(flow.tensor([[0., 1.], [1., 0.]]))
        >>> sign, logabsdet
        (tensor(-1.), tensor(0.))
    """)

add_doc("cholesky", "cholesky(input, upper=False) -> Tensor", r"""
    The Cholesky factor of each symmetric positive-definite matrix of ``input``.

    ``input = L @ L.T`` with ``L`` lower triangular, or ``input = U.T @ U``
    with ``U`` upper triangular when ``upper=True``. See also
    :func:`monoflow.linalg.cholesky`.

    Args:
        input (Tensor): shape ``(*, n, n)``, float32 or float64.
        upper (bool): return the upper factor ``U``. Default: ``False``.

    Example::

        >>> A = flow.tensor([[4., 2.], [2., 3.]])
        >>> flow.cholesky(A)
        tensor([[2.0000, 0.0000],
                [1.0000, 1.4142]])
        >>> L = A.cholesky()
        >>> flow.allclose(L @ L.T, A)
        True
    """)

add_doc("cholesky_solve", "cholesky_solve(B, L, upper=False) -> Tensor", r"""
    Solves ``A X = B`` given the Cholesky factor ``L`` of ``A`` (``A = L L^T``, or ``U^T U`` with ``upper=True``).

    Args:
        B (Tensor): the right-hand sides, shape ``(*, n, k)``.
        L (Tensor): the triangular Cholesky factor of ``A``, shape ``(*, n, n)``.
        upper (bool): whether ``L`` is the upper factor. Default: ``False``.

    Returns:
        Tensor: ``X``, shape ``(*, n, k)``.

    Example::

        >>> A = flow.tensor([[4., 2.], [2., 3.]])
        >>> B = flow.tensor([[2.], [1.]])
        >>> flow.cholesky_solve(B, flow.cholesky(A))
        tensor([[0.5000],
                [0.0000]])
    """)

add_doc("cholesky_inverse", "cholesky_inverse(L, upper=False) -> Tensor", r"""
    The inverse of ``A`` given its Cholesky factor ``L`` (``A = L L^T``, or ``U^T U`` with ``upper=True``).

    Args:
        L (Tensor): the triangular Cholesky factor, shape ``(*, n, n)``.
        upper (bool): whether ``L`` is the upper factor. Default: ``False``.

    Example::

        >>> A = flow.tensor([[4., 2.], [2., 3.]])
        >>> flow.cholesky_inverse(flow.cholesky(A))
        tensor([[ 0.3750, -0.2500],
                [-0.2500,  0.5000]])
    """)

add_doc("qr", "qr(input, some=True) -> (Tensor, Tensor)", r"""
    The QR decomposition of each matrix of ``input``: ``input = Q @ R``, ``Q`` orthonormal, ``R`` upper triangular.

    For an ``(m, n)`` input with ``k = min(m, n)``: ``Q`` is ``(m, k)`` and
    ``R`` ``(k, n)`` (reduced), or ``Q`` is ``(m, m)`` and ``R`` ``(m, n)``
    with ``some=False``. See also :func:`monoflow.linalg.qr`.

    Args:
        input (Tensor): shape ``(*, m, n)``, float32 or float64.
        some (bool): the reduced decomposition if ``True``, the complete one
            if ``False``. Default: ``True``.

    Returns:
        (Tensor, Tensor): the named tuple ``(Q, R)``.

    Example::

        >>> A = flow.tensor([[1., 2.], [3., 4.], [5., 6.]])
        >>> Q, R = flow.qr(A)
        >>> Q.shape, R.shape
        (monoflow.Size([3, 2]), monoflow.Size([2, 2]))
        >>> flow.allclose(Q @ R, A, atol=1e-5)
        True
    """)

add_doc("svd", "svd(input, some=True, compute_uv=True) -> (Tensor, Tensor, Tensor)", r"""
    The singular value decomposition of each matrix of ``input``: ``input = U @ diag(S) @ V.T``.

    PyTorch's legacy form: it returns ``V``, not ``V.T`` (use
    :func:`monoflow.linalg.svd` for ``Vh``). The singular values ``S`` are in
    descending order. For an ``(m, n)`` input with ``k = min(m, n)``, ``U`` is
    ``(m, k)`` and ``V`` ``(n, k)``, or square with ``some=False``.

    Args:
        input (Tensor): shape ``(*, m, n)``, float32 or float64.
        some (bool): the reduced decomposition if ``True``, full square ``U``
            and ``V`` if ``False``. Default: ``True``.
        compute_uv (bool): if ``False``, ``U`` and ``V`` are returned zero-filled
            (as in PyTorch). Default: ``True``.

    Returns:
        (Tensor, Tensor, Tensor): ``(U, S, V)``.

    Example::

        >>> U, S, V = flow.svd(flow.tensor([[3., 0.], [0., -2.], [0., 0.]]))
        >>> S
        tensor([3., 2.])
        >>> U.shape, V.shape
        (monoflow.Size([3, 2]), monoflow.Size([2, 2]))
    """)

add_doc("pinverse", "pinverse(input, rcond=1e-15) -> Tensor", r"""
    The Moore-Penrose pseudo-inverse of each matrix of ``input``, through its SVD.

    Singular values below ``rcond`` times the largest are treated as zero.
    See also :func:`monoflow.linalg.pinv`.

    Args:
        input (Tensor): shape ``(*, m, n)``, float32 or float64.
        rcond (float): the relative cut-off for small singular values. Default: ``1e-15``.

    Returns:
        Tensor: shape ``(*, n, m)``.

    Example::

        >>> flow.pinverse(flow.tensor([[1., 2.], [2., 4.]]))
        tensor([[0.0400, 0.0800],
                [0.0800, 0.1600]])
    """)

add_doc("matrix_power", "matrix_power(input, n) -> Tensor", r"""
    The ``n``-th power of each square matrix of ``input``, by repeated squaring.

    ``n = 0`` gives the identity; a negative ``n`` the power of the inverse.
    The same as :func:`monoflow.linalg.matrix_power`.

    Args:
        input (Tensor): shape ``(*, m, m)``.
        n (int): the exponent.

    Example::

        >>> A = flow.tensor([[1., 1.], [0., 1.]])
        >>> flow.matrix_power(A, 3)
        tensor([[1., 3.],
                [0., 1.]])
        >>> A.matrix_power(-1)
        tensor([[ 1., -1.],
                [ 0.,  1.]])
    """)

add_doc("matrix_exp", "matrix_exp(input) -> Tensor", r"""
    The matrix exponential of each square matrix of ``input``: ``sum_k input^k / k!``.

    The same as :func:`monoflow.linalg.matrix_exp`.

    Args:
        input (Tensor): shape ``(*, n, n)``, float32 or float64.

    Example::

        >>> flow.matrix_exp(flow.tensor([[0., 1.], [0., 0.]]))
        tensor([[1., 1.],
                [0., 1.]])
    """)

add_doc("cross", "cross(input, other, dim=None) -> Tensor", r"""
    The cross product of 3-vectors along ``dim`` of ``input`` and ``other``.

    The shapes broadcast. Without ``dim`` the first dim of size 3 is used (as
    ``torch.cross`` does; :func:`monoflow.linalg.cross` defaults to the last dim).

    Args:
        input (Tensor): the first vectors.
        other (Tensor): the second vectors, broadcastable with ``input``.
        dim (int, optional): the dim of size 3. Default: the first one of size 3.

    Example::

        >>> flow.cross(flow.tensor([1., 0., 0.]), flow.tensor([0., 1., 0.]))
        tensor([0., 0., 1.])
        >>> flow.cross(flow.ones(3, 4), flow.ones(3, 4)).shape
        monoflow.Size([3, 4])
    """)
