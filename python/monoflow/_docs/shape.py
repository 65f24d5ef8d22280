"""Shapes and layout: view, reshape, permute, transpose, squeeze, cat, stack, split, flip, roll, expand."""
from monoflow import ops_shape as _ops_shape
from monoflow._docs import _method_signature, add_doc, add_inplace_docs  # noqa: F401


def _add_op_or_method(name, signature, text):
    """t, expand and repeat become functions of monoflow (ops_shape) in work not
    yet committed when this was written: documents the function (and its method)
    when it is there, the Tensor method alone otherwise, so that a checkout
    without it still imports. Once it is in, these calls can become add_doc."""
    if hasattr(_ops_shape, name):
        add_doc(name, signature, text)
    else:
        add_doc(name, "Tensor." + _method_signature(name, signature), text)

add_doc("reshape", "reshape(input, shape) -> Tensor", """
    Returns a tensor with the same elements as ``input`` and the given shape.

    The result is a view of ``input`` when its strides allow it (as
    :meth:`Tensor.view`), and a copy otherwise. One dimension of ``shape``
    may be ``-1``: it is inferred from the number of elements. The method
    form also takes the sizes as separate ints: ``x.reshape(3, 2)``.

    Args:
        input (Tensor): the tensor to reshape.
        shape (tuple of int): the new shape; its product must equal
            ``input.numel()``.

    Returns:
        Tensor: a tensor of shape ``shape`` and the dtype of ``input``.

    Example::

        >>> x = flow.arange(6)
        >>> flow.reshape(x, (2, 3))
        tensor([[0, 1, 2],
                [3, 4, 5]])
        >>> x.reshape(-1, 2).shape
        monoflow.Size([3, 2])
    """)

add_doc("permute", "permute(input, dims) -> Tensor", """
    Returns a view of ``input`` with its dimensions reordered.

    Dimension ``i`` of the result is dimension ``dims[i]`` of ``input``; no
    data is copied. The method form also takes the dims as separate ints:
    ``x.permute(2, 0, 1)``.

    Args:
        input (Tensor): the tensor to permute.
        dims (tuple of int): a permutation of ``0 .. input.dim() - 1``
            (negative dims count from the end).

    Example::

        >>> x = flow.zeros(2, 3, 4)
        >>> flow.permute(x, (2, 0, 1)).shape
        monoflow.Size([4, 2, 3])
        >>> flow.arange(6).reshape(2, 3).permute(1, 0)
        tensor([[0, 3],
                [1, 4],
                [2, 5]])
    """)

add_doc("transpose", "transpose(input, dim0, dim1) -> Tensor", """
    Returns a view of ``input`` with dimensions ``dim0`` and ``dim1`` swapped.

    No data is copied: the result shares storage with ``input``.
    :func:`monoflow.swapaxes` and :func:`monoflow.swapdims` are the same
    operation.

    Args:
        input (Tensor): the tensor to transpose.
        dim0 (int): the first dimension to swap.
        dim1 (int): the second dimension to swap.

    Example::

        >>> x = flow.arange(6).reshape(2, 3)
        >>> flow.transpose(x, 0, 1)
        tensor([[0, 3],
                [1, 4],
                [2, 5]])
        >>> flow.zeros(2, 3, 4).transpose(-1, 0).shape
        monoflow.Size([4, 3, 2])
    """)

add_doc("swapaxes", "swapaxes(input, axis0, axis1) -> Tensor", """
    Returns a view of ``input`` with dimensions ``axis0`` and ``axis1``
    swapped; the NumPy name of :func:`monoflow.transpose`.

    Args:
        input (Tensor): the tensor to transpose.
        axis0 (int): the first dimension to swap.
        axis1 (int): the second dimension to swap.

    Example::

        >>> flow.swapaxes(flow.zeros(2, 3, 4), 0, 2).shape
        monoflow.Size([4, 3, 2])
    """, aliases=("swapdims",))

_add_op_or_method("t", "t(input) -> Tensor", """
    Transposes a tensor of at most 2 dimensions: a matrix's dims 0 and 1 are
    swapped, a 0-D or 1-D tensor is returned as it is (a view).

    Args:
        input (Tensor): a tensor with ``input.dim() <= 2``.

    Raises:
        RuntimeError: if ``input`` has more than 2 dimensions.

    Example::

        >>> flow.arange(6).reshape(2, 3).t()
        tensor([[0, 3],
                [1, 4],
                [2, 5]])
        >>> flow.tensor([1, 2]).t()
        tensor([1, 2])
    """)

add_doc("squeeze", "squeeze(input, dim=None) -> Tensor", """
    Returns a view of ``input`` with dimensions of size 1 removed.

    With ``dim=None`` every size-1 dimension goes; otherwise only the given
    ones, and those whose size is not 1 are left as they are.

    Args:
        input (Tensor): the input tensor.
        dim (int or tuple of int, optional): the dimension(s) to remove.
            Default: ``None`` (all size-1 dimensions).

    Example::

        >>> x = flow.zeros(1, 2, 1)
        >>> flow.squeeze(x).shape
        monoflow.Size([2])
        >>> x.squeeze(0).shape
        monoflow.Size([2, 1])
        >>> x.squeeze(1).shape
        monoflow.Size([1, 2, 1])
    """)

add_doc("unsqueeze", "unsqueeze(input, dim) -> Tensor", """
    Returns a view of ``input`` with a dimension of size 1 inserted at ``dim``.

    Args:
        input (Tensor): the input tensor.
        dim (int): where the new dimension goes, in
            ``[-input.dim() - 1, input.dim()]``; ``-1`` appends it.

    Example::

        >>> x = flow.tensor([1, 2, 3])
        >>> flow.unsqueeze(x, 0)
        tensor([[1, 2, 3]])
        >>> x.unsqueeze(-1).shape
        monoflow.Size([3, 1])
    """)

add_doc("flatten", "flatten(input, start_dim=0, end_dim=-1) -> Tensor", """
    Flattens dimensions ``start_dim`` to ``end_dim`` of ``input`` into one.

    Returns a view when the strides allow it, a copy otherwise; a 0-D
    tensor becomes 1-D.

    Args:
        input (Tensor): the input tensor.
        start_dim (int): the first dimension to flatten. Default: 0.
        end_dim (int): the last dimension to flatten. Default: -1.

    Example::

        >>> x = flow.zeros(2, 3, 4)
        >>> flow.flatten(x).shape
        monoflow.Size([24])
        >>> x.flatten(1).shape
        monoflow.Size([2, 12])
    """)

add_doc("ravel", "ravel(input) -> Tensor", """
    Returns ``input`` flattened to one dimension (a view when ``input`` is
    contiguous, a copy otherwise).

    Args:
        input (Tensor): the input tensor.

    Example::

        >>> flow.ravel(flow.tensor([[1, 2], [3, 4]]))
        tensor([1, 2, 3, 4])
    """)

add_doc("unflatten", "unflatten(input, dim, sizes) -> Tensor", """
    Expands dimension ``dim`` of ``input`` into several dimensions of the
    given ``sizes`` (the reverse of :func:`monoflow.flatten`).

    Args:
        input (Tensor): the input tensor.
        dim (int): the dimension to split.
        sizes (tuple of int): the new sizes; their product must equal
            ``input.size(dim)``; one of them may be ``-1``.

    Example::

        >>> flow.unflatten(flow.zeros(2, 12), 1, (3, 4)).shape
        monoflow.Size([2, 3, 4])
        >>> flow.arange(6).unflatten(0, (2, -1))
        tensor([[0, 1, 2],
                [3, 4, 5]])
    """)

add_doc("narrow", "narrow(input, dim, start, length) -> Tensor", """
    Returns a view of ``input`` restricted to ``length`` elements of
    dimension ``dim``, from index ``start``: ``input[..., start:start+length, ...]``.

    Args:
        input (Tensor): the tensor to narrow.
        dim (int): the dimension to narrow.
        start (int): the first index kept (negative counts from the end).
        length (int): how many indices are kept.

    Example::

        >>> x = flow.arange(6).reshape(2, 3)
        >>> flow.narrow(x, 1, 1, 2)
        tensor([[1, 2],
                [4, 5]])
        >>> x.narrow(0, 1, 1)
        tensor([[3, 4, 5]])
    """)

add_doc("narrow_copy", "narrow_copy(input, dim, start, length) -> Tensor", """
    Same as :func:`monoflow.narrow`, but returns a new tensor (a copy) rather
    than a view.

    Args:
        input (Tensor): the tensor to narrow.
        dim (int): the dimension to narrow.
        start (int): the first index kept.
        length (int): how many indices are kept.

    Example::

        >>> x = flow.arange(6).reshape(2, 3)
        >>> flow.narrow_copy(x, 1, 0, 2)
        tensor([[0, 1],
                [3, 4]])
    """)

add_doc("select", "select(input, dim, index) -> Tensor", """
    Returns the slice of ``input`` at ``index`` along ``dim``, a view with that
    dimension removed: ``select(x, 1, 2)`` is ``x[:, 2]``.

    Args:
        input (Tensor): the input tensor.
        dim (int): the dimension to index.
        index (int): the index in that dimension (negative counts from the end).

    Example::

        >>> x = flow.arange(6).reshape(2, 3)
        >>> flow.select(x, 1, 0)
        tensor([0, 3])
        >>> x.select(0, -1)
        tensor([3, 4, 5])
    """)

add_doc("clone", "clone(input, *, memory_format=None) -> Tensor", """
    Returns a copy of ``input`` with its own storage.

    The copy is recorded by autograd: gradients flow back to ``input``.

    Args:
        input (Tensor): the tensor to copy.
        memory_format (monoflow.memory_format, optional): the layout of the
            copy. Default: ``None``, as ``preserve_format``: the one ``input``
            is in (a ``channels_last`` tensor stays so, others are made
            row-major).

    Example::

        >>> x = flow.tensor([1.0, 2.0])
        >>> y = flow.clone(x)
        >>> y[0] = 5.0
        >>> x, y
        (tensor([1., 2.]), tensor([5., 2.]))
    """)

_add_op_or_method("expand", "expand(input, *sizes) -> Tensor", """
    Returns a view of ``input`` broadcast to a larger shape, without copying.

    Size-1 dimensions can be expanded to any size (their stride becomes 0,
    so the elements alias); ``-1`` keeps a dimension's size; new leading
    dimensions may be added. Write to the result only after a
    :meth:`Tensor.clone`.

    Args:
        input (Tensor): the tensor to expand.
        sizes (int or tuple of int): the new shape, as separate ints or one
            tuple.

    Example::

        >>> x = flow.tensor([[1], [2]])
        >>> x.expand(2, 3)
        tensor([[1, 1, 1],
                [2, 2, 2]])
        >>> x.expand(4, -1, 2).shape
        monoflow.Size([4, 2, 2])
    """)

add_doc("broadcast_to", "broadcast_to(input, size) -> Tensor", """
    Returns a view of ``input`` broadcast to ``size``; the function form of
    :meth:`Tensor.expand`.

    Args:
        input (Tensor): the tensor to broadcast.
        size (tuple of int): the target shape (``-1`` keeps a dimension).

    Example::

        >>> flow.broadcast_to(flow.tensor([1, 2, 3]), (2, 3))
        tensor([[1, 2, 3],
                [1, 2, 3]])
    """)

add_doc("broadcast_tensors", "broadcast_tensors(*tensors) -> tuple of Tensor", """
    Broadcasts tensors to their common shape; each result is a view.

    Args:
        tensors (Tensor): the tensors to broadcast, as separate arguments.

    Returns:
        tuple of Tensor: one expanded view per input.

    Example::

        >>> a, b = flow.broadcast_tensors(flow.zeros(2, 1), flow.zeros(3))
        >>> a.shape, b.shape
        (monoflow.Size([2, 3]), monoflow.Size([2, 3]))
    """)

add_doc("movedim", "movedim(input, source, destination) -> Tensor", """
    Returns a view of ``input`` with dimension(s) ``source`` moved to
    position(s) ``destination``; the other dimensions keep their order.

    Args:
        input (Tensor): the input tensor.
        source (int or tuple of int): the dimension(s) to move.
        destination (int or tuple of int): where they go (as many as ``source``).

    Example::

        >>> x = flow.zeros(2, 3, 4)
        >>> flow.movedim(x, 0, -1).shape
        monoflow.Size([3, 4, 2])
        >>> x.movedim((0, 1), (2, 0)).shape
        monoflow.Size([3, 4, 2])
    """, aliases=("moveaxis",))

add_doc("cat", "cat(tensors, dim=0) -> Tensor", """
    Concatenates tensors along an existing dimension.

    All tensors must have the same shape except in ``dim``; their dtypes are
    promoted to a common one. :func:`monoflow.concat` and
    :func:`monoflow.concatenate` are the same operation.

    Args:
        tensors (sequence of Tensor): the tensors to join (at least one).
        dim (int): the dimension along which to join. Default: 0.

    Example::

        >>> x = flow.tensor([[1, 2], [3, 4]])
        >>> flow.cat([x, x]).shape
        monoflow.Size([4, 2])
        >>> flow.cat((x, x), dim=1)
        tensor([[1, 2, 1, 2],
                [3, 4, 3, 4]])
    """, aliases=("concat", "concatenate"))

add_doc("stack", "stack(tensors, dim=0) -> Tensor", """
    Stacks tensors of the same shape along a new dimension ``dim``.

    Args:
        tensors (sequence of Tensor): the tensors to stack (at least one, all
            of the same shape).
        dim (int): the index of the new dimension, in
            ``[-ndim - 1, ndim]``. Default: 0.

    Example::

        >>> a, b = flow.tensor([1, 2]), flow.tensor([3, 4])
        >>> flow.stack([a, b])
        tensor([[1, 2],
                [3, 4]])
        >>> flow.stack([a, b], dim=1)
        tensor([[1, 3],
                [2, 4]])
    """)

add_doc("hstack", "hstack(tensors) -> Tensor", """
    Concatenates tensors column-wise: along dim 0 for 1-D tensors, along
    dim 1 otherwise.

    Args:
        tensors (sequence of Tensor): the tensors to join.

    Example::

        >>> flow.hstack([flow.tensor([1, 2]), flow.tensor([3])])
        tensor([1, 2, 3])
        >>> flow.hstack([flow.zeros(2, 1), flow.ones(2, 2)]).shape
        monoflow.Size([2, 3])
    """)

add_doc("vstack", "vstack(tensors) -> Tensor", """
    Concatenates tensors row-wise (along dim 0), 1-D tensors first made rows
    of shape ``(1, n)``. :func:`monoflow.row_stack` is the same operation.

    Args:
        tensors (sequence of Tensor): the tensors to join.

    Example::

        >>> flow.vstack([flow.tensor([1, 2]), flow.tensor([3, 4])])
        tensor([[1, 2],
                [3, 4]])
    """, aliases=("row_stack",))

add_doc("dstack", "dstack(tensors) -> Tensor", """
    Concatenates tensors depth-wise (along dim 2), each first made at least
    3-D (see :func:`monoflow.atleast_3d`).

    Args:
        tensors (sequence of Tensor): the tensors to join.

    Example::

        >>> flow.dstack([flow.tensor([1, 2]), flow.tensor([3, 4])])
        tensor([[[1, 3],
                 [2, 4]]])
    """)

add_doc("column_stack", "column_stack(tensors) -> Tensor", """
    Stacks tensors as the columns of a matrix: 0-D and 1-D tensors become
    columns of shape ``(n, 1)``, then all are concatenated along dim 1.

    Args:
        tensors (sequence of Tensor): the tensors to join.

    Example::

        >>> flow.column_stack([flow.tensor([1, 2]), flow.tensor([3, 4])])
        tensor([[1, 3],
                [2, 4]])
    """)

add_doc("atleast_1d", "atleast_1d(*tensors) -> Tensor or tuple of Tensor", """
    Returns each input viewed with at least 1 dimension (0-D becomes shape ``(1,)``).

    Args:
        tensors (Tensor or sequence of Tensor): one or more tensors.

    Returns:
        Tensor for one input, a tuple of Tensor for several.

    Example::

        >>> flow.atleast_1d(flow.tensor(3))
        tensor([3])
        >>> [t.shape for t in flow.atleast_1d(flow.tensor(1), flow.zeros(2, 2))]
        [monoflow.Size([1]), monoflow.Size([2, 2])]
    """)

add_doc("atleast_2d", "atleast_2d(*tensors) -> Tensor or tuple of Tensor", """
    Returns each input viewed with at least 2 dimensions: 0-D becomes
    ``(1, 1)``, 1-D of size n becomes ``(1, n)``.

    Args:
        tensors (Tensor or sequence of Tensor): one or more tensors.

    Example::

        >>> flow.atleast_2d(flow.tensor([1, 2]))
        tensor([[1, 2]])
    """)

add_doc("atleast_3d", "atleast_3d(*tensors) -> Tensor or tuple of Tensor", """
    Returns each input viewed with at least 3 dimensions: 0-D becomes
    ``(1, 1, 1)``, ``(n,)`` becomes ``(1, n, 1)``, ``(m, n)`` becomes ``(m, n, 1)``.

    Args:
        tensors (Tensor or sequence of Tensor): one or more tensors.

    Example::

        >>> flow.atleast_3d(flow.zeros(2, 3)).shape
        monoflow.Size([2, 3, 1])
        >>> flow.atleast_3d(flow.zeros(4)).shape
        monoflow.Size([1, 4, 1])
    """)

add_doc("split", "split(tensor, split_size_or_sections, dim=0) -> tuple of Tensor", """
    Splits a tensor into views along ``dim``.

    An int ``split_size_or_sections`` gives chunks of that size (the last one
    may be smaller); a list gives the size of each chunk (their sum must be
    the size of ``dim``). The method form names the argument ``split_size``:
    ``x.split(split_size, dim=0)``.

    Args:
        tensor (Tensor): the tensor to split.
        split_size_or_sections (int or list of int): the chunk size, or the
            sizes of the chunks.
        dim (int): the dimension to split. Default: 0.

    Example::

        >>> x = flow.arange(5)
        >>> flow.split(x, 2)
        (tensor([0, 1]), tensor([2, 3]), tensor([4]))
        >>> x.split([1, 4])
        (tensor([0]), tensor([1, 2, 3, 4]))
    """)

add_doc("split_with_sizes", "split_with_sizes(input, split_sizes, dim=0) -> tuple of Tensor", """
    Splits ``input`` into views along ``dim`` of the given sizes (which must
    sum to ``input.size(dim)``).

    Args:
        input (Tensor): the tensor to split.
        split_sizes (list of int): the size of each chunk.
        dim (int): the dimension to split. Default: 0.

    Example::

        >>> flow.split_with_sizes(flow.arange(5), [2, 3])
        (tensor([0, 1]), tensor([2, 3, 4]))
    """)

add_doc("chunk", "chunk(input, chunks, dim=0) -> tuple of Tensor", """
    Splits ``input`` into ``chunks`` views of equal size along ``dim`` (the
    last one smaller when the size does not divide; there may be fewer than
    ``chunks`` pieces).

    Args:
        input (Tensor): the tensor to split.
        chunks (int): the number of chunks wanted.
        dim (int): the dimension to split. Default: 0.

    Example::

        >>> flow.chunk(flow.arange(5), 2)
        (tensor([0, 1, 2]), tensor([3, 4]))
        >>> [c.shape for c in flow.zeros(2, 6).chunk(3, dim=1)]
        [monoflow.Size([2, 2]), monoflow.Size([2, 2]), monoflow.Size([2, 2])]
    """)

add_doc("tensor_split", "tensor_split(input, indices_or_sections, dim=0, *, sections=None, indices=None, "
        "tensor_indices_or_sections=None) -> tuple of Tensor", """
    Splits ``input`` into views along ``dim``, NumPy's ``array_split`` way.

    An int ``n`` gives ``n`` pieces whose sizes differ by at most one (the
    first ones larger); a list of indices gives the split points.

    Args:
        input (Tensor): the tensor to split.
        indices_or_sections (int or list of int): the number of pieces, or the
            indices where to split.
        dim (int): the dimension to split. Default: 0.
        sections, indices, tensor_indices_or_sections (keyword only): torch's
            names for the same argument (give one of the four).

    Example::

        >>> flow.tensor_split(flow.arange(7), 3)
        (tensor([0, 1, 2]), tensor([3, 4]), tensor([5, 6]))
        >>> flow.arange(7).tensor_split([1, 5])
        (tensor([0]), tensor([1, 2, 3, 4]), tensor([5, 6]))
    """)

add_doc("hsplit", "hsplit(input, indices_or_sections) -> tuple of Tensor", """
    Splits ``input`` horizontally: :func:`monoflow.tensor_split` along dim 1
    (dim 0 for a 1-D tensor). An int must divide the size exactly.

    Args:
        input (Tensor): a tensor of at least 1 dimension.
        indices_or_sections (int or list of int): the number of equal pieces,
            or the indices where to split.

    Example::

        >>> [t.shape for t in flow.hsplit(flow.zeros(2, 4), 2)]
        [monoflow.Size([2, 2]), monoflow.Size([2, 2])]
    """)

add_doc("vsplit", "vsplit(input, indices_or_sections) -> tuple of Tensor", """
    Splits ``input`` vertically: :func:`monoflow.tensor_split` along dim 0 of a
    tensor of at least 2 dimensions. An int must divide the size exactly.

    Args:
        input (Tensor): a tensor of at least 2 dimensions.
        indices_or_sections (int or list of int): the number of equal pieces,
            or the indices where to split.

    Example::

        >>> flow.vsplit(flow.arange(4).reshape(2, 2), 2)
        (tensor([[0, 1]]), tensor([[2, 3]]))
    """)

add_doc("dsplit", "dsplit(input, indices_or_sections) -> tuple of Tensor", """
    Splits ``input`` depth-wise: :func:`monoflow.tensor_split` along dim 2 of a
    tensor of at least 3 dimensions. An int must divide the size exactly.

    Args:
        input (Tensor): a tensor of at least 3 dimensions.
        indices_or_sections (int or list of int): the number of equal pieces,
            or the indices where to split.

    Example::

        >>> [t.shape for t in flow.dsplit(flow.zeros(2, 2, 6), [1, 4])]
        [monoflow.Size([2, 2, 1]), monoflow.Size([2, 2, 3]), monoflow.Size([2, 2, 2])]
    """)

add_doc("unbind", "unbind(input, dim=0) -> tuple of Tensor", """
    Removes dimension ``dim`` and returns the slices along it, as views.

    Args:
        input (Tensor): the tensor to unbind.
        dim (int): the dimension to remove. Default: 0.

    Example::

        >>> flow.unbind(flow.tensor([[1, 2], [3, 4]]))
        (tensor([1, 2]), tensor([3, 4]))
        >>> flow.tensor([[1, 2], [3, 4]]).unbind(1)
        (tensor([1, 3]), tensor([2, 4]))
    """)

add_doc("flip", "flip(input, dims) -> Tensor", """
    Reverses the order of elements along the given dimensions (a copy).

    The method form also takes the dims as separate ints: ``x.flip(0, 1)``.

    Args:
        input (Tensor): the input tensor.
        dims (int or tuple of int): the dimensions to reverse.

    Example::

        >>> x = flow.arange(6).reshape(2, 3)
        >>> flow.flip(x, [1])
        tensor([[2, 1, 0],
                [5, 4, 3]])
        >>> x.flip(0, 1)
        tensor([[5, 4, 3],
                [2, 1, 0]])
    """)

add_doc("fliplr", "fliplr(input) -> Tensor", """
    Reverses the columns of ``input`` (dim 1), which needs at least 2
    dimensions: ``flip(input, [1])``.

    Args:
        input (Tensor): a tensor of at least 2 dimensions.

    Example::

        >>> flow.fliplr(flow.arange(6).reshape(2, 3))
        tensor([[2, 1, 0],
                [5, 4, 3]])
    """)

add_doc("flipud", "flipud(input) -> Tensor", """
    Reverses the rows of ``input`` (dim 0): ``flip(input, [0])``.

    Args:
        input (Tensor): a tensor of at least 1 dimension.

    Example::

        >>> flow.flipud(flow.arange(6).reshape(2, 3))
        tensor([[3, 4, 5],
                [0, 1, 2]])
    """)

add_doc("rot90", "rot90(input, k=1, dims=(0, 1)) -> Tensor", """
    Rotates ``input`` by 90 degrees ``k`` times in the plane of ``dims``, from
    the first toward the second dimension (counter-clockwise for a matrix).

    Args:
        input (Tensor): a tensor of at least 2 dimensions.
        k (int): the number of quarter turns; negative turns the other way.
            Default: 1.
        dims (tuple of int): the two dimensions of the plane. Default: ``(0, 1)``.

    Example::

        >>> x = flow.tensor([[1, 2], [3, 4]])
        >>> flow.rot90(x)
        tensor([[2, 4],
                [1, 3]])
        >>> x.rot90(2)
        tensor([[4, 3],
                [2, 1]])
    """)

add_doc("roll", "roll(input, shifts, dims=None) -> Tensor", """
    Shifts the elements of ``input`` circularly along dimensions: the
    elements pushed past the end come back at the start.

    Args:
        input (Tensor): the input tensor.
        shifts (int or tuple of int): how many places to shift (one per dim).
        dims (int or tuple of int, optional): the dimensions to shift.
            Default: ``None``: the tensor is flattened, shifted and reshaped back.

    Example::

        >>> flow.roll(flow.arange(5), 2)
        tensor([3, 4, 0, 1, 2])
        >>> flow.arange(6).reshape(2, 3).roll(1, 1)
        tensor([[2, 0, 1],
                [5, 3, 4]])
    """)

_add_op_or_method("repeat", "repeat(input, *sizes) -> Tensor", """
    Repeats the whole tensor ``sizes[i]`` times along each dimension ``i`` (a
    copy). When ``sizes`` has more entries than ``input`` has dimensions,
    leading size-1 dimensions are added first. Called as the method
    ``x.repeat(2, 3)`` (or with one tuple).

    Args:
        input (Tensor): the tensor to repeat.
        sizes (int or tuple of int): the number of repeats of each dimension.

    Example::

        >>> x = flow.tensor([1, 2])
        >>> x.repeat(2, 2)
        tensor([[1, 2, 1, 2],
                [1, 2, 1, 2]])
        >>> x.repeat(3).shape
        monoflow.Size([6])
    """)

add_doc("tile", "tile(input, dims) -> Tensor", """
    Repeats ``input`` along each dimension, like :meth:`Tensor.repeat`; when
    ``dims`` has fewer entries than ``input`` has dimensions, it is padded
    with leading ones. The method form also takes the dims as separate ints.

    Args:
        input (Tensor): the tensor to repeat.
        dims (tuple of int): the number of repeats of each dimension.

    Example::

        >>> flow.tile(flow.tensor([1, 2]), (2, 2))
        tensor([[1, 2, 1, 2],
                [1, 2, 1, 2]])
        >>> flow.zeros(2, 3).tile(2).shape
        monoflow.Size([2, 6])
    """)

add_doc("repeat_interleave", "repeat_interleave(input, repeats=None, dim=None, *, output_size=None) -> Tensor", """
    Repeats each element of ``input`` (each slice along ``dim``) ``repeats``
    times, consecutively.

    Args:
        input (Tensor): the input tensor (with ``repeats=None``: a 1-D int
            tensor of repeat counts, whose indices are repeated).
        repeats (int or Tensor): the number of repeats, one for all or one per
            element of ``dim``.
        dim (int, optional): the dimension to repeat along. Default: ``None``:
            ``input`` is flattened first.
        output_size (int, optional): the total size of the result along
            ``dim``, when known (spares a sum of ``repeats``).

    Example::

        >>> x = flow.tensor([[1, 2], [3, 4]])
        >>> flow.repeat_interleave(x, 2)
        tensor([1, 1, 2, 2, 3, 3, 4, 4])
        >>> x.repeat_interleave(flow.tensor([1, 2]), dim=0)
        tensor([[1, 2],
                [3, 4],
                [3, 4]])
    """)

add_doc("tril", "tril(input, diagonal=0) -> Tensor", """
    Returns the lower triangle of the matrix (or batch of matrices) ``input``:
    the elements above the ``diagonal``-th diagonal are set to zero.

    Args:
        input (Tensor): a tensor of at least 2 dimensions.
        diagonal (int): which diagonal bounds the triangle: 0 the main one,
            positive above it, negative below. Default: 0.

    Example::

        >>> flow.tril(flow.ones(3, 3))
        tensor([[1., 0., 0.],
                [1., 1., 0.],
                [1., 1., 1.]])
        >>> flow.ones(2, 3).tril(-1)
        tensor([[0., 0., 0.],
                [1., 0., 0.]])
    """)

add_doc("triu", "triu(input, diagonal=0) -> Tensor", """
    Returns the upper triangle of the matrix (or batch of matrices) ``input``:
    the elements below the ``diagonal``-th diagonal are set to zero.

    Args:
        input (Tensor): a tensor of at least 2 dimensions.
        diagonal (int): which diagonal bounds the triangle: 0 the main one,
            positive above it, negative below. Default: 0.

    Example::

        >>> flow.triu(flow.ones(3, 3), 1)
        tensor([[0., 1., 1.],
                [0., 0., 1.],
                [0., 0., 0.]])
    """)

add_inplace_docs("tril_", "triu_")

add_doc("diagonal", "diagonal(input, offset=0, dim1=0, dim2=1) -> Tensor", """
    Returns a view of a diagonal of ``input``, taken over dimensions ``dim1``
    and ``dim2``; it becomes the last dimension of the result.

    Args:
        input (Tensor): a tensor of at least 2 dimensions.
        offset (int): which diagonal: 0 the main one, positive above it,
            negative below. Default: 0.
        dim1 (int): the first dimension of the matrices. Default: 0.
        dim2 (int): the second dimension of the matrices. Default: 1.

    Example::

        >>> x = flow.arange(9).reshape(3, 3)
        >>> flow.diagonal(x)
        tensor([0, 4, 8])
        >>> x.diagonal(1)
        tensor([1, 5])
        >>> flow.zeros(2, 3, 3).diagonal(dim1=1, dim2=2).shape
        monoflow.Size([2, 3])
    """)

add_doc("diag", "diag(input, diagonal=0) -> Tensor", """
    Builds a diagonal matrix from a vector, or takes a diagonal of a matrix.

    A 1-D ``input`` of size n gives an ``(n + |diagonal|)`` square matrix with
    ``input`` on the ``diagonal``-th diagonal; a 2-D ``input`` gives that
    diagonal as a 1-D tensor (a copy).

    Args:
        input (Tensor): a 1-D or 2-D tensor.
        diagonal (int): which diagonal: 0 the main one, positive above it,
            negative below. Default: 0.

    Example::

        >>> flow.diag(flow.tensor([1, 2]))
        tensor([[1, 0],
                [0, 2]])
        >>> flow.diag(flow.arange(9).reshape(3, 3), -1)
        tensor([3, 7])
    """)

add_doc("diagflat", "diagflat(input, offset=0) -> Tensor", """
    Returns a square matrix with the flattened ``input`` on its
    ``offset``-th diagonal and zeros elsewhere.

    Args:
        input (Tensor): the values of the diagonal (any shape; flattened).
        offset (int): which diagonal: 0 the main one, positive above it,
            negative below. Default: 0.

    Example::

        >>> flow.diagflat(flow.tensor([[1, 2]]), 1)
        tensor([[0, 1, 0],
                [0, 0, 2],
                [0, 0, 0]])
    """)

add_doc("diag_embed", "diag_embed(input, offset=0, dim1=-2, dim2=-1) -> Tensor", """
    Places the last dimension of ``input`` on a diagonal of new matrices
    spanned by dimensions ``dim1`` and ``dim2`` of the result (the batched
    :func:`monoflow.diag`).

    Args:
        input (Tensor): the diagonals, in the last dimension.
        offset (int): which diagonal: 0 the main one, positive above it,
            negative below. Default: 0.
        dim1 (int): the first matrix dimension of the result. Default: -2.
        dim2 (int): the second matrix dimension of the result. Default: -1.

    Example::

        >>> flow.diag_embed(flow.tensor([[1, 2], [3, 4]]))
        tensor([[[1, 0],
                 [0, 2]],
        <BLANKLINE>
                [[3, 0],
                 [0, 4]]])
    """)

add_doc("trace", "trace(input) -> Tensor", """
    Returns the sum of the main diagonal of the matrix ``input``, as a 0-D
    tensor (integer inputs sum to int64).

    Args:
        input (Tensor): a 2-D tensor.

    Example::

        >>> flow.trace(flow.arange(9).reshape(3, 3))
        tensor(12)
    """)

add_doc("block_diag", "block_diag(*tensors) -> Tensor", """
    Builds a block-diagonal matrix: the inputs are placed along the diagonal,
    zeros elsewhere. 0-D and 1-D inputs count as ``(1, n)`` blocks.

    Args:
        tensors (Tensor): the blocks, as separate arguments.

    Example::

        >>> flow.block_diag(flow.tensor([[1, 2]]), flow.tensor([[3], [4]]))
        tensor([[1, 2, 0],
                [0, 0, 3],
                [0, 0, 4]])
    """)

add_doc("kron", "kron(input, other) -> Tensor", """
    Returns the Kronecker product of ``input`` and ``other``: each element of
    ``input`` multiplies a whole copy of ``other``.

    Args:
        input (Tensor): the first tensor.
        other (Tensor): the second tensor.

    Example::

        >>> flow.kron(flow.tensor([[1, 2]]), flow.tensor([[1], [10]]))
        tensor([[ 1,  2],
                [10, 20]])
    """)

add_doc("cartesian_prod", "cartesian_prod(*tensors) -> Tensor", """
    Returns the Cartesian product of 1-D tensors: one row per combination,
    the last tensor varying fastest.

    Args:
        tensors (Tensor): 1-D tensors, as separate arguments.

    Returns:
        Tensor: of shape ``(N, len(tensors))`` (1-D for a single input).

    Example::

        >>> flow.cartesian_prod(flow.tensor([1, 2]), flow.tensor([3, 4]))
        tensor([[1, 3],
                [1, 4],
                [2, 3],
                [2, 4]])
    """)

add_doc("meshgrid", "meshgrid(*tensors, indexing=None) -> tuple of Tensor", """
    Builds coordinate grids from 1-D tensors: the i-th result holds
    ``tensors[i]`` broadcast over the grid.

    Args:
        tensors (Tensor or list of Tensor): 1-D tensors, as separate arguments
            or one list.
        indexing (str, optional): ``"ij"`` (matrix indexing: the result's shape
            is ``(len(t0), len(t1), ...)``) or ``"xy"`` (the first two
            dimensions swapped, as in NumPy). Default: ``None``, read as ``"ij"``.

    Example::

        >>> x, y = flow.meshgrid(flow.tensor([1, 2]), flow.tensor([3, 4, 5]), indexing="ij")
        >>> x
        tensor([[1, 1, 1],
                [2, 2, 2]])
        >>> y.shape
        monoflow.Size([2, 3])
    """)

add_doc("pad", "pad(input, pad, mode='constant', value=None) -> Tensor", """
    Pads ``input``; the same function as :func:`monoflow.nn.functional.pad`.

    ``pad`` lists the padding of the last dimensions, last first:
    ``(left, right)`` pads the last dimension, ``(left, right, top, bottom)``
    the last two, and so on; negative values crop.

    Args:
        input (Tensor): the tensor to pad.
        pad (tuple of int): the padding sizes, two per padded dimension.
        mode (str): ``"constant"``, ``"reflect"``, ``"replicate"`` or
            ``"circular"``. Default: ``"constant"``.
        value (float, optional): the fill of ``"constant"`` padding.
            Default: ``None`` (zero).

    Example::

        >>> flow.pad(flow.tensor([[1, 2]]), (1, 1), value=9)
        tensor([[9, 1, 2, 9]])
        >>> flow.pad(flow.tensor([[1., 2., 3.]]), (2, 0), mode="reflect")
        tensor([[3., 2., 1., 2., 3.]])
    """)

add_doc("numel", "numel(input) -> int", """
    Returns the number of elements of ``input`` (the product of its sizes;
    1 for a 0-D tensor).

    Args:
        input (Tensor): the tensor.

    Example::

        >>> flow.numel(flow.zeros(2, 3))
        6
        >>> flow.tensor(5).numel()
        1
    """)

add_doc("is_tensor", "is_tensor(obj) -> bool", """
    Returns whether ``obj`` is a monoflow Tensor (of any dtype, local or
    global; parameters included).

    Args:
        obj (object): the object to test.

    Example::

        >>> flow.is_tensor(flow.zeros(2))
        True
        >>> flow.is_tensor([1, 2])
        False
    """, method=False)
