"""Indexing: gather, scatter, index_select, index_add, masked_fill, take, nonzero, one_hot, the *_scatter ops."""
from monoflow._docs import add_doc, add_inplace_docs  # noqa: F401

add_doc("gather", "gather(input, dim, index, *, sparse_grad=False) -> Tensor", """
    Gathers values of ``input`` along ``dim`` at the positions in ``index``.

    For a 2-D input and ``dim=1``: ``out[i][j] = input[i][index[i][j]]``.
    ``index`` has the same number of dimensions as ``input``, a size no
    larger in the other dimensions, and the result has its shape.

    Args:
        input (Tensor): the source tensor.
        dim (int): the dimension to index along.
        index (Tensor): the int64 (or int32) indices.
        sparse_grad (bool): accepted for torch compatibility; the gradient is
            always dense. Default: ``False``.

    Example::

        >>> x = flow.tensor([[1, 2], [3, 4]])
        >>> flow.gather(x, 1, flow.tensor([[0, 0], [1, 0]]))
        tensor([[1, 1],
                [4, 3]])
    """)

add_doc("take_along_dim", "take_along_dim(input, indices, dim=None) -> Tensor", """
    Picks values of ``input`` at ``indices`` along ``dim``, as
    :func:`monoflow.gather` but with ``indices`` broadcast against ``input``
    (NumPy's ``take_along_axis``); with ``dim=None`` both are flattened.
    Handy with the result of :func:`monoflow.argsort` or :func:`monoflow.argmax`.

    Args:
        input (Tensor): the source tensor.
        indices (Tensor): the int64 indices.
        dim (int, optional): the dimension to index along. Default: ``None``.

    Example::

        >>> x = flow.tensor([[1, 2], [3, 4]])
        >>> flow.take_along_dim(x, flow.tensor([[1], [0]]), dim=1)
        tensor([[2],
                [3]])
        >>> flow.take_along_dim(x, flow.tensor([3, 0]))
        tensor([4, 1])
    """)

add_doc("take", "take(input, index) -> Tensor", """
    Returns the elements of ``input``, read as flattened, at the positions in
    ``index``; the result has the shape of ``index``.

    Args:
        input (Tensor): the source tensor.
        index (Tensor): int64 indices into ``input.flatten()`` (negative count
            from the end).

    Example::

        >>> x = flow.tensor([[1, 2], [3, 4]])
        >>> flow.take(x, flow.tensor([0, 3]))
        tensor([1, 4])
    """)

add_doc("scatter", "scatter(input, dim, index, src=None, value=None, *, reduce=None) -> Tensor", """
    Returns a copy of ``input`` with values written along ``dim`` at the
    positions in ``index``; the inverse of :func:`monoflow.gather`.

    For a 2-D input and ``dim=1``: ``out[i][index[i][j]] = src[i][j]``. Give
    either ``src`` (a tensor, at least as large as ``index``) or ``value``
    (one number for all). When an index repeats, which write wins is
    unspecified unless ``reduce`` combines them.

    Args:
        input (Tensor): the tensor written into (not modified; see
            :meth:`Tensor.scatter_`).
        dim (int): the dimension to index along.
        index (Tensor): the int64 indices, with as many dimensions as ``input``.
        src (Tensor or float, optional): the values to write.
        value (float, optional): one value to write everywhere ``index`` points.
        reduce (str, optional): ``"add"`` or ``"multiply"``: combine with the
            existing value instead of overwriting. Default: ``None``.

    Example::

        >>> idx = flow.tensor([[0, 2], [1, 0]])
        >>> flow.zeros(2, 3).scatter(1, idx, flow.tensor([[1., 2.], [3., 4.]]))
        tensor([[1., 0., 2.],
                [4., 3., 0.]])
        >>> flow.zeros(2, 3).scatter(1, flow.tensor([[0], [2]]), value=5.0)
        tensor([[5., 0., 0.],
                [0., 0., 5.]])
    """)

add_doc("scatter_add", "scatter_add(input, dim, index, src) -> Tensor", """
    Returns a copy of ``input`` with the values of ``src`` added along ``dim``
    at the positions in ``index``; repeated indices accumulate.

    Args:
        input (Tensor): the tensor added to (not modified).
        dim (int): the dimension to index along.
        index (Tensor): the int64 indices, with as many dimensions as ``input``.
        src (Tensor): the values to add.

    Example::

        >>> flow.zeros(3).scatter_add(0, flow.tensor([0, 0, 2]), flow.tensor([1., 2., 3.]))
        tensor([3., 0., 3.])
    """)

add_doc("scatter_reduce", "scatter_reduce(input, dim, index, src, reduce, *, include_self=True) -> Tensor", """
    Returns a copy of ``input`` where the values of ``src`` are reduced into
    the positions ``index`` points to, along ``dim``.

    Args:
        input (Tensor): the tensor reduced into (not modified).
        dim (int): the dimension to index along.
        index (Tensor): the int64 indices, with as many dimensions as ``input``.
        src (Tensor): the values to reduce.
        reduce (str): ``"sum"``, ``"prod"``, ``"mean"``, ``"amax"`` or ``"amin"``.
        include_self (bool): whether the existing values of ``input`` at the
            scattered positions take part in the reduction. Default: ``True``.

    Example::

        >>> idx, src = flow.tensor([0, 0, 2]), flow.tensor([1., 2., 3.])
        >>> flow.ones(3).scatter_reduce(0, idx, src, "prod")
        tensor([2., 1., 3.])
        >>> flow.zeros(3).scatter_reduce(0, idx, src, "amax", include_self=False)
        tensor([2., 0., 3.])
    """)

add_doc("index_select", "index_select(input, dim, index) -> Tensor", """
    Returns the slices of ``input`` along ``dim`` at the positions in the 1-D
    ``index`` (a copy; repeats allowed).

    Args:
        input (Tensor): the source tensor.
        dim (int): the dimension to index.
        index (Tensor): 1-D int64 (or int32) indices.

    Example::

        >>> x = flow.tensor([[1, 2], [3, 4]])
        >>> flow.index_select(x, 0, flow.tensor([1, 1, 0]))
        tensor([[3, 4],
                [3, 4],
                [1, 2]])
    """)

add_doc("index_add", "index_add(input, dim, index, source, *, alpha=1) -> Tensor", """
    Returns a copy of ``input`` with ``alpha * source`` added to the slices
    along ``dim`` listed in ``index``: ``out[index[i]] += alpha * source[i]``
    for ``dim=0``. Repeated indices accumulate.

    Args:
        input (Tensor): the tensor added to (not modified).
        dim (int): the dimension to index.
        index (Tensor): 1-D int64 indices, one per slice of ``source``.
        source (Tensor): the values to add; its size in ``dim`` is ``len(index)``.
        alpha (Number): the multiplier of ``source``. Default: 1.

    Example::

        >>> flow.zeros(3, 2).index_add(0, flow.tensor([0, 2]), flow.ones(2, 2), alpha=2)
        tensor([[2., 2.],
                [0., 0.],
                [2., 2.]])
    """)

add_doc("index_copy", "index_copy(input, dim, index, source) -> Tensor", """
    Returns a copy of ``input`` whose slices along ``dim`` listed in ``index``
    are replaced by the slices of ``source``: ``out[index[i]] = source[i]``
    for ``dim=0``.

    Args:
        input (Tensor): the tensor written into (not modified).
        dim (int): the dimension to index.
        index (Tensor): 1-D int64 indices, one per slice of ``source``.
        source (Tensor): the slices to copy in.

    Example::

        >>> flow.zeros(3, 2).index_copy(0, flow.tensor([2, 0]), flow.tensor([[1., 2.], [3., 4.]]))
        tensor([[3., 4.],
                [0., 0.],
                [1., 2.]])
    """)

add_doc("index_fill", "index_fill(input, dim, index, value) -> Tensor", """
    Returns a copy of ``input`` with the slices along ``dim`` listed in
    ``index`` filled with ``value``.

    Args:
        input (Tensor): the tensor written into (not modified).
        dim (int): the dimension to index.
        index (Tensor): 1-D int64 indices.
        value (Number or 0-D Tensor): the fill value.

    Example::

        >>> flow.zeros(2, 3).index_fill(1, flow.tensor([0, 2]), -1.0)
        tensor([[-1.,  0., -1.],
                [-1.,  0., -1.]])
    """)

add_doc("index_put", "index_put(input, indices, values, accumulate=False) -> Tensor", """
    Returns a copy of ``input`` with ``values`` written at the positions
    given by the tuple of index tensors ``indices``: the functional form of
    ``out[indices] = values`` (or ``+=`` with ``accumulate``).

    Args:
        input (Tensor): the tensor written into (not modified).
        indices (tuple of Tensor): one int64 (or bool) index tensor per
            leading dimension indexed; they broadcast together.
        values (Tensor): the values, broadcast to the indexed shape.
        accumulate (bool): add to the existing values (repeated positions
            accumulate) instead of overwriting. Default: ``False``.

    Example::

        >>> flow.zeros(3).index_put((flow.tensor([0, 0]),), flow.tensor([1., 2.]), accumulate=True)
        tensor([3., 0., 0.])
    """)

add_doc("masked_fill", "masked_fill(input, mask, value) -> Tensor", """
    Returns a copy of ``input`` with ``value`` where the boolean ``mask`` is
    ``True``; ``mask`` broadcasts to the shape of ``input``.

    Args:
        input (Tensor): the source tensor.
        mask (Tensor): a bool tensor.
        value (Number or 0-D Tensor): the fill value (cast to ``input.dtype``).

    Example::

        >>> x = flow.tensor([[1, 2], [3, 4]])
        >>> x.masked_fill(x > 2, 0)
        tensor([[1, 2],
                [0, 0]])
    """)

add_doc("masked_select", "masked_select(input, mask) -> Tensor", """
    Returns a new 1-D tensor of the elements of ``input`` where the boolean
    ``mask`` is ``True`` (in row-major order); ``mask`` and ``input`` broadcast.

    Args:
        input (Tensor): the source tensor.
        mask (Tensor): a bool tensor.

    Example::

        >>> x = flow.tensor([[1, 2], [3, 4]])
        >>> flow.masked_select(x, x % 2 == 0)
        tensor([2, 4])
    """)

add_doc("masked_scatter", "masked_scatter(input, mask, source) -> Tensor", """
    Returns a copy of ``input`` where the positions at which ``mask`` is
    ``True`` take, in row-major order, consecutive elements of ``source``.

    Args:
        input (Tensor): the tensor written into (not modified).
        mask (Tensor): a bool tensor, broadcast to ``input``.
        source (Tensor): the values; it needs at least as many elements as
            ``mask`` has ``True`` entries.

    Example::

        >>> mask = flow.tensor([[True, False], [False, True]])
        >>> flow.zeros(2, 2).masked_scatter(mask, flow.tensor([5., 6., 7.]))
        tensor([[5., 0.],
                [0., 6.]])
    """)

add_inplace_docs("scatter_", "scatter_add_", "scatter_reduce_", "index_add_", "index_copy_",
                 "index_fill_", "index_put_", "masked_fill_", "masked_scatter_")

add_doc("nonzero", "nonzero(input, *, as_tuple=False) -> Tensor or tuple of Tensor", """
    Returns the indices of the non-zero elements of ``input``.

    Args:
        input (Tensor): the input tensor.
        as_tuple (bool): if ``False``, an int64 tensor of shape
            ``(count, input.dim())``, one row per element; if ``True``, a tuple
            of ``input.dim()`` 1-D tensors, one per dimension (usable as an
            index: ``x[x.nonzero(as_tuple=True)]``). Default: ``False``.

    Example::

        >>> flow.nonzero(flow.tensor([[0, 1], [2, 0]]))
        tensor([[0, 1],
                [1, 0]])
        >>> flow.tensor([0, 1, 2]).nonzero(as_tuple=True)
        (tensor([1, 2]),)
    """)

add_doc("one_hot", "one_hot(tensor, num_classes=-1, on_value=1, off_value=0) -> Tensor", """
    Encodes int64 class indices as one-hot int64 vectors: the result has a new
    last dimension of size ``num_classes``, 1 at the index and 0 elsewhere.

    Args:
        tensor (Tensor): int64 class indices, of any shape.
        num_classes (int): the number of classes; ``-1`` uses
            ``tensor.max() + 1``. Default: -1.
        on_value (int or float): OneFlow's value at the index. Default: 1.
        off_value (int or float): OneFlow's value elsewhere. Default: 0. With
            a float ``on_value`` or ``off_value`` the result has the default
            float dtype.

    Example::

        >>> flow.one_hot(flow.tensor([0, 2]), 3)
        tensor([[1, 0, 0],
                [0, 0, 1]])
        >>> flow.one_hot(flow.tensor([1, 0])).shape
        monoflow.Size([2, 2])
        >>> flow.one_hot(flow.tensor([1]), 3, on_value=0.9, off_value=0.05)
        tensor([[0.0500, 0.9000, 0.0500]])
    """)

add_doc("diagonal_scatter", "diagonal_scatter(input, src, offset=0, dim1=0, dim2=1) -> Tensor", """
    Returns a copy of ``input`` with ``src`` written into the diagonal that
    :func:`monoflow.diagonal` with the same arguments would return.

    Args:
        input (Tensor): a tensor of at least 2 dimensions.
        src (Tensor): the values, of the shape of that diagonal.
        offset (int): which diagonal: 0 the main one, positive above it,
            negative below. Default: 0.
        dim1 (int): the first dimension of the matrices. Default: 0.
        dim2 (int): the second dimension of the matrices. Default: 1.

    Example::

        >>> flow.diagonal_scatter(flow.zeros(2, 2), flow.tensor([1., 2.]))
        tensor([[1., 0.],
                [0., 2.]])
    """)

add_doc("select_scatter", "select_scatter(input, src, dim, index) -> Tensor", """
    Returns a copy of ``input`` with ``src`` written into the slice
    ``select(input, dim, index)``.

    Args:
        input (Tensor): the tensor written into (not modified).
        src (Tensor): the values, of the shape of that slice.
        dim (int): the dimension to index.
        index (int): the index in that dimension.

    Example::

        >>> flow.select_scatter(flow.zeros(2, 2), flow.ones(2), 0, 1)
        tensor([[0., 0.],
                [1., 1.]])
    """)

add_doc("slice_scatter", "slice_scatter(input, src, dim=0, start=None, end=None, step=1) -> Tensor", """
    Returns a copy of ``input`` with ``src`` written into the slice
    ``start:end:step`` of dimension ``dim``.

    Args:
        input (Tensor): the tensor written into (not modified).
        src (Tensor): the values, of the shape of that slice.
        dim (int): the dimension to slice. Default: 0.
        start (int, optional): the first index of the slice. Default: ``None`` (0).
        end (int, optional): the end of the slice, exclusive. Default: ``None``
            (the size of ``dim``).
        step (int): the step of the slice. Default: 1.

    Example::

        >>> flow.slice_scatter(flow.zeros(4), flow.ones(2), start=1, end=3)
        tensor([0., 1., 1., 0.])
        >>> flow.slice_scatter(flow.zeros(2, 4), flow.ones(2, 2), 1, step=2)
        tensor([[1., 0., 1., 0.],
                [1., 0., 1., 0.]])
    """)

add_doc("tril_indices", "tril_indices(row, col, offset=0, *, dtype=None, device=None, layout=None) -> Tensor", """
    Returns the coordinates of the lower triangle of a ``row`` x ``col``
    matrix, as a ``(2, N)`` tensor: row indices, then column indices, in
    row-major order.

    Args:
        row (int): the number of rows.
        col (int): the number of columns.
        offset (int): which diagonal bounds the triangle: 0 the main one,
            positive above it, negative below. Default: 0.
        dtype (monoflow.dtype, optional): the integer dtype of the result.
            Default: ``monoflow.int64``.
        device (monoflow.device, optional): the device of the result.
        layout: accepted for torch compatibility (only strided tensors exist).

    Example::

        >>> flow.tril_indices(3, 3)
        tensor([[0, 1, 1, 2, 2, 2],
                [0, 0, 1, 0, 1, 2]])
    """)

add_doc("triu_indices", "triu_indices(row, col, offset=0, *, dtype=None, device=None, layout=None) -> Tensor", """
    Returns the coordinates of the upper triangle of a ``row`` x ``col``
    matrix, as a ``(2, N)`` tensor: row indices, then column indices, in
    row-major order.

    Args:
        row (int): the number of rows.
        col (int): the number of columns.
        offset (int): which diagonal bounds the triangle: 0 the main one,
            positive above it, negative below. Default: 0.
        dtype (monoflow.dtype, optional): the integer dtype of the result.
            Default: ``monoflow.int64``.
        device (monoflow.device, optional): the device of the result.
        layout: accepted for torch compatibility (only strided tensors exist).

    Example::

        >>> flow.triu_indices(2, 3, 1)
        tensor([[0, 0, 1],
                [1, 2, 2]])
    """)
