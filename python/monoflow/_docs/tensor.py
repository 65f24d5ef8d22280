"""Tensor-only methods and attributes: shape and layout queries, views, conversions, autograd, memory."""
from monoflow._docs import add_doc, add_inplace_docs  # noqa: F401
from monoflow._tensor import Tensor as _Tensor


def _add_if_defined(name, signature, text):
    """Documents a method that _tensor.py gains in work not yet committed when
    this was written (is_pinned, pin_memory, get_device, ndimension, nelement,
    is_same_size), so that a checkout without it still imports. Once those are
    in, these calls can become add_doc."""
    if hasattr(_Tensor, name):
        add_doc(name, signature, text)

# ---------------------------------------------------------------- attributes

add_doc("shape", "Tensor.shape", """
    The size of each dimension, as a :class:`monoflow.Size` (a tuple of
    ints); the same as ``Tensor.size()``.

    Example::

        >>> flow.zeros(2, 3).shape
        monoflow.Size([2, 3])
    """)

add_doc("dtype", "Tensor.dtype", """
    The element type of the tensor, a :class:`monoflow.dtype`
    (``monoflow.float32``, ``monoflow.int64``, ...).

    Example::

        >>> flow.tensor([1, 2]).dtype
        monoflow.int64
    """)

add_doc("device", "Tensor.device", """
    The :class:`monoflow.device` holding the tensor's memory, e.g.
    ``device(type='cpu', index=0)``.

    Example::

        >>> flow.zeros(1).device
        device(type='cpu', index=0)
    """)

add_doc("ndim", "Tensor.ndim", """
    The number of dimensions of the tensor, as :meth:`Tensor.dim`.

    Example::

        >>> flow.zeros(2, 3).ndim
        2
    """)

add_doc("T", "Tensor.T", """
    The tensor with its dimensions reversed (a view): the transpose of a
    matrix; a 0-D or 1-D tensor is returned as it is.

    Example::

        >>> flow.zeros(2, 3).T.shape
        monoflow.Size([3, 2])
    """)

add_doc("mT", "Tensor.mT", """
    The batch of matrices with its last two dimensions swapped (a view):
    ``x.transpose(-2, -1)``; needs at least 2 dimensions.

    Example::

        >>> flow.zeros(4, 2, 3).mT.shape
        monoflow.Size([4, 3, 2])
    """)

add_doc("is_cuda", "Tensor.is_cuda", """
    Whether the tensor lives on a CUDA device (``device.type == "cuda"``).

    Example::

        >>> flow.zeros(1).is_cuda
        False
    """)

add_doc("data", "Tensor.data", """
    The tensor's values as a tensor that autograd does not track (it shares
    memory with this one and has ``requires_grad=False``), as
    :meth:`Tensor.detach`. Assigning to it replaces this tensor's values
    (and shape) without recording anything.

    Example::

        >>> w = flow.ones(2, requires_grad=True)
        >>> w.data.requires_grad
        False
        >>> w.data = flow.zeros(3)
        >>> w
        tensor([0., 0., 0.], requires_grad=True)
    """)

add_doc("requires_grad", "Tensor.requires_grad", """
    Whether autograd records the operations on this tensor, so that its
    gradient can be computed. Settable on leaf tensors (see
    :meth:`Tensor.requires_grad_`).

    Example::

        >>> x = flow.ones(2, requires_grad=True)
        >>> x.requires_grad, (x * 2).requires_grad, flow.ones(2).requires_grad
        (True, True, False)
    """)

add_doc("grad", "Tensor.grad", """
    The gradient accumulated into this tensor by :meth:`Tensor.backward`
    (``None`` until one runs). Filled for leaf tensors that require grad,
    and for others after :meth:`Tensor.retain_grad`; set it to ``None`` (or
    zero it) between steps, since backward adds to it.

    Example::

        >>> x = flow.tensor([1.0, 2.0], requires_grad=True)
        >>> (x * x).sum().backward()
        >>> x.grad
        tensor([2., 4.])
    """)

add_doc("grad_fn", "Tensor.grad_fn", """
    The autograd node that made this tensor (its backward function), or
    ``None`` for a leaf tensor and for tensors made without autograd.

    Example::

        >>> x = flow.ones(2, requires_grad=True)
        >>> x.grad_fn is None
        True
        >>> (x * 2).grad_fn
        <MulBackward0 object at 0x...>
    """)

add_doc("is_leaf", "Tensor.is_leaf", """
    Whether the tensor is a leaf of the autograd graph: one that no recorded
    operation made (every tensor that does not require grad, and those the
    user created with ``requires_grad=True``). Only leaves get ``.grad``
    filled by default.

    Example::

        >>> x = flow.ones(2, requires_grad=True)
        >>> x.is_leaf, (x * 2).is_leaf
        (True, False)
    """)

add_doc("retains_grad", "Tensor.retains_grad", """
    Whether :meth:`Tensor.retain_grad` was called on this non-leaf tensor, so
    that backward fills its ``.grad``.

    Example::

        >>> y = flow.ones(2, requires_grad=True) * 2
        >>> y.retain_grad()
        >>> y.retains_grad
        True
    """)

# ---------------------------------------------------------------- shape and layout queries

add_doc("size", "Tensor.size(dim=None) -> Size or int", """
    Returns the shape of the tensor, or the size of one dimension.

    Args:
        dim (int, optional): the dimension (negative counts from the end).
            Default: ``None``: the whole shape, a :class:`monoflow.Size`.

    Example::

        >>> x = flow.zeros(2, 3)
        >>> x.size()
        monoflow.Size([2, 3])
        >>> x.size(-1)
        3
    """)

add_doc("dim", "Tensor.dim() -> int", """
    Returns the number of dimensions of the tensor (0 for a scalar tensor).

    Example::

        >>> flow.zeros(2, 3).dim(), flow.tensor(1.0).dim()
        (2, 0)
    """)

_add_if_defined("ndimension", "Tensor.ndimension() -> int", """
    Returns the number of dimensions: the old name of :meth:`Tensor.dim`.

    Example::

        >>> flow.zeros(2, 3).ndimension()
        2
    """)

_add_if_defined("nelement", "Tensor.nelement() -> int", """
    Returns the number of elements: the old name of :meth:`Tensor.numel`.

    Example::

        >>> flow.zeros(2, 3).nelement()
        6
    """)

_add_if_defined("is_same_size", "Tensor.is_same_size(other) -> bool", """
    Returns whether ``other`` has the same shape as this tensor.

    Args:
        other (Tensor): the tensor to compare shapes with.

    Example::

        >>> x = flow.zeros(2, 3)
        >>> x.is_same_size(flow.ones(2, 3)), x.is_same_size(flow.ones(3, 2))
        (True, False)
    """)

add_doc("stride", "Tensor.stride(dim=None) -> tuple of int or int", """
    Returns the strides of the tensor: for each dimension, how many elements
    apart in memory consecutive indices are.

    Args:
        dim (int, optional): the dimension. Default: ``None``: all of them.

    Example::

        >>> x = flow.zeros(2, 3)
        >>> x.stride()
        (3, 1)
        >>> x.t().stride(0)
        1
    """)

add_doc("storage_offset", "Tensor.storage_offset() -> int", """
    Returns where the tensor starts in its storage, in elements (non-zero for
    views such as slices).

    Example::

        >>> x = flow.arange(6).reshape(2, 3)
        >>> x.storage_offset(), x[1].storage_offset()
        (0, 3)
    """)

add_doc("element_size", "Tensor.element_size() -> int", """
    Returns the size of one element in bytes (``dtype.itemsize``).

    Example::

        >>> flow.zeros(1).element_size(), flow.zeros(1, dtype=flow.int64).element_size()
        (4, 8)
    """)

add_doc("data_ptr", "Tensor.data_ptr() -> int", """
    Returns the address of the tensor's first element (views of the same
    memory share it), for interop and for telling whether tensors alias.
    On a host-memory device the ops queued so far complete first, so code
    reading the address (ctypes, a C extension) sees their results.

    Example::

        >>> x = flow.zeros(2, 3)
        >>> x.data_ptr() == x.view(-1).data_ptr()
        True
        >>> x.data_ptr() == x.clone().data_ptr()
        False
    """)

add_doc("is_contiguous", "Tensor.is_contiguous(memory_format=None) -> bool", """
    Returns whether the elements lie in memory in row-major order without
    gaps (as :meth:`Tensor.contiguous` would lay them out).

    Args:
        memory_format (monoflow.memory_format, optional): the order to test
            for: ``channels_last`` asks whether a 4-D tensor lies as
            (N, H, W, C) would. Default: ``None``, row-major.

    Example::

        >>> x = flow.zeros(2, 3)
        >>> x.is_contiguous(), x.t().is_contiguous()
        (True, False)
    """)

add_doc("is_view", "Tensor.is_view() -> bool", """
    Returns whether this tensor is a view of another tensor's memory
    (OneFlow's name; torch's is ``_is_view()``). ``Tensor._base`` is the
    tensor the chain of views started from, ``None`` for a tensor that is no
    view.

    Example::

        >>> x = flow.zeros(2, 3)
        >>> x.is_view(), x.t().is_view(), x.t().contiguous().is_view()
        (False, True, False)
    """)

add_doc("contiguous", "Tensor.contiguous(memory_format=None) -> Tensor", """
    Returns a tensor with the same values laid out contiguously: the same
    memory when the tensor already is (see :meth:`Tensor.is_contiguous`), a
    copy otherwise.

    Args:
        memory_format (monoflow.memory_format, optional): the layout:
            ``channels_last`` (4-D) and ``channels_last_3d`` (5-D) keep the
            shape and store the channels innermost. Default: ``None``,
            row-major.

    Example::

        >>> y = flow.zeros(2, 3).t()
        >>> y.is_contiguous(), y.contiguous().is_contiguous()
        (False, True)
    """)

_add_if_defined("get_device", "Tensor.get_device() -> int", """
    Returns the index of the tensor's device, or -1 for a CPU tensor (as
    torch).

    Example::

        >>> flow.zeros(1).get_device()
        -1
    """)

add_doc("is_signed", "Tensor.is_signed() -> bool", """
    Returns whether the tensor's dtype holds negative values (every dtype
    but bool and uint8).

    Example::

        >>> flow.zeros(1).is_signed(), flow.zeros(1, dtype=flow.uint8).is_signed()
        (True, False)
    """)

# ---------------------------------------------------------------- views

add_doc("view", "Tensor.view(*shape) -> Tensor", """
    Returns a view of the tensor with another shape: the same memory, no
    copy. One dimension may be ``-1`` (inferred). The tensor's strides must
    allow it (a contiguous tensor always does); otherwise use
    :meth:`Tensor.reshape`, which copies when it must.

    Args:
        shape (int or tuple of int): the new shape, as separate ints or one
            tuple. Unlike torch, a dtype is not accepted
            (``NotImplementedError``; use :meth:`Tensor.to`).

    Example::

        >>> x = flow.arange(6)
        >>> x.view(2, 3)
        tensor([[0, 1, 2],
                [3, 4, 5]])
        >>> x.view(-1, 2).shape
        monoflow.Size([3, 2])
    """)

add_doc("view_as", "Tensor.view_as(other) -> Tensor", """
    Returns a view of the tensor with the shape of ``other``:
    ``self.view(other.size())``.

    Args:
        other (Tensor): the tensor whose shape to take.

    Example::

        >>> flow.arange(6).view_as(flow.zeros(2, 3)).shape
        monoflow.Size([2, 3])
    """)

add_doc("reshape_as", "Tensor.reshape_as(other) -> Tensor", """
    Returns the tensor reshaped to the shape of ``other``:
    ``self.reshape(other.size())`` (a view when possible).

    Args:
        other (Tensor): the tensor whose shape to take.

    Example::

        >>> flow.arange(6).reshape_as(flow.zeros(3, 2)).shape
        monoflow.Size([3, 2])
    """)

add_doc("expand_as", "Tensor.expand_as(other) -> Tensor", """
    Returns a view of the tensor broadcast to the shape of ``other``:
    ``self.expand(other.size())``.

    Args:
        other (Tensor): the tensor whose shape to take.

    Example::

        >>> flow.tensor([[1], [2]]).expand_as(flow.zeros(2, 3))
        tensor([[1, 1, 1],
                [2, 2, 2]])
    """)

add_doc("unfold", "Tensor.unfold(dimension, size, step) -> Tensor", """
    Returns a view of all the slices of length ``size`` of dimension
    ``dimension``, ``step`` apart; they form a new last dimension of size
    ``size`` (the windows overlap when ``step < size``).

    Args:
        dimension (int): the dimension to slide along.
        size (int): the length of each slice.
        step (int): the distance between the starts of consecutive slices.

    Example::

        >>> flow.arange(7.0).unfold(0, 2, 2)
        tensor([[0., 1.],
                [2., 3.],
                [4., 5.]])
        >>> flow.zeros(2, 5).unfold(1, 3, 1).shape
        monoflow.Size([2, 3, 3])
    """)

add_doc("as_strided", "Tensor.as_strided(size, stride, storage_offset=None) -> Tensor", """
    Returns a view of the tensor's storage with the given sizes, strides and
    offset. Views whose elements overlap are allowed (writing to them is not
    advised); the result must stay inside the storage.

    Args:
        size (tuple of int): the shape of the view.
        stride (tuple of int): the stride of each dimension, in elements.
        storage_offset (int, optional): where the view starts in the storage.
            Default: ``None``: the tensor's own offset.

    Example::

        >>> flow.arange(6.0).as_strided((2, 2), (1, 2))
        tensor([[0., 2.],
                [1., 3.]])
        >>> flow.arange(4.0).as_strided((2,), (2,), 1)
        tensor([1., 3.])
    """)

# ---------------------------------------------------------------- writing in place

add_doc("fill_", "Tensor.fill_(value) -> Tensor", """
    Fills the tensor with ``value``, in place, and returns it.

    Args:
        value (Number or 0-D Tensor): the value, cast to the tensor's dtype.

    Example::

        >>> flow.zeros(3).fill_(2)
        tensor([2., 2., 2.])
    """)

add_doc("zero_", "Tensor.zero_() -> Tensor", """
    Fills the tensor with zeros, in place, and returns it.

    Example::

        >>> flow.ones(2, 2).zero_()
        tensor([[0., 0.],
                [0., 0.]])
    """)

add_doc("copy_", "Tensor.copy_(src, non_blocking=False) -> Tensor", """
    Copies the values of ``src`` into this tensor, in place, and returns it.

    ``src`` broadcasts to this tensor's shape and may have another dtype
    (converted) or device (transferred). Recorded by autograd: the gradient
    flows to ``src``.

    Args:
        src (Tensor or numpy.ndarray): the values to copy; a NumPy array
            (contiguous or not) is taken as in OneFlow, as a data write that
            autograd does not record (also into a leaf that requires grad).
        non_blocking (bool): accepted for torch's signature; the copy is
            ordered on the stream either way.

    Example::

        >>> x = flow.zeros(2, 3)
        >>> x.copy_(flow.tensor([1, 2, 3]))
        tensor([[1., 2., 3.],
                [1., 2., 3.]])
    """)

add_doc("fill_diagonal_", "Tensor.fill_diagonal_(fill_value, wrap=False) -> Tensor", """
    Fills the main diagonal of the tensor with ``fill_value``, in place, and
    returns it. For more than 2 dimensions (all of the same size) the
    diagonal is ``x[i, i, ..., i]``.

    Args:
        fill_value (Number): the value.
        wrap (bool): for a tall matrix, whether the diagonal starts again
            below each square block (NumPy's ``wrap``). Default: ``False``.

    Example::

        >>> flow.zeros(3, 3).fill_diagonal_(1.0)
        tensor([[1., 0., 0.],
                [0., 1., 0.],
                [0., 0., 1.]])
        >>> flow.zeros(5, 2).fill_diagonal_(1.0, wrap=True)[:, 0]
        tensor([1., 0., 0., 1., 0.])
    """)

# ---------------------------------------------------------------- conversions

add_doc("item", "Tensor.item() -> Number", """
    Returns the value of a one-element tensor as a Python number (``float``,
    ``int`` or ``bool``).

    Raises:
        RuntimeError: if the tensor has more than one element.

    Example::

        >>> flow.tensor([2.5]).item()
        2.5
        >>> flow.tensor(7).item()
        7
    """)

add_doc("tolist", "Tensor.tolist() -> list or Number", """
    Returns the tensor's values as nested Python lists of numbers (a number
    for a 0-D tensor).

    Example::

        >>> flow.tensor([[1, 2], [3, 4]]).tolist()
        [[1, 2], [3, 4]]
        >>> flow.tensor(1.5).tolist()
        1.5
    """)

add_doc("numpy", "Tensor.numpy(*, force=False) -> numpy.ndarray", """
    Returns the tensor's values as a NumPy array.

    For a CPU tensor the array shares the tensor's memory: writes to one show
    in the other. Tensors on other devices are copied. It waits for pending
    work on the tensor. As in OneFlow (unlike torch), a tensor that requires
    grad gives its detached values instead of raising.

    Args:
        force (bool): accepted for torch compatibility (copying when needed
            is what monoflow does anyway). Default: ``False``.

    Example::

        >>> x = flow.zeros(3)
        >>> a = x.numpy()
        >>> a[0] = 5.0
        >>> x
        tensor([5., 0., 0.])
        >>> flow.ones(2, requires_grad=True).numpy()
        array([1., 1.], dtype=float32)
    """)

add_doc("to", "Tensor.to(*args, memory_format=None, **kwargs) -> Tensor", """
    Returns the tensor converted to another dtype and/or device.

    The forms are torch's: ``to(dtype)``, ``to(device)``,
    ``to(device, dtype)``, ``to(other)`` (the dtype and device of the tensor
    ``other``), each with the keywords ``dtype=``, ``device=``,
    ``non_blocking=`` (accepted) and ``copy=``. When nothing changes, the
    result shares this tensor's memory (``copy=True`` forces a copy). The
    conversion is recorded by autograd, except to a non-floating dtype.

    Args:
        args: a dtype, a device (or its string), both, or a tensor.
        memory_format (monoflow.memory_format, optional): the layout of the
            result (see :meth:`Tensor.contiguous`). Default: ``None``, as it is.
        kwargs: ``dtype``, ``device``, ``non_blocking``, ``copy``.

    Example::

        >>> x = flow.tensor([1.5, 2.5])
        >>> x.to(flow.int64)
        tensor([1, 2])
        >>> x.to("cpu", flow.float64).dtype
        monoflow.float64
        >>> x.to(flow.zeros(1, dtype=flow.int32)).dtype
        monoflow.int32
    """)

add_doc("cpu", "Tensor.cpu() -> Tensor", """
    Returns the tensor on the CPU: a copy from another device, the same
    memory for a CPU tensor.

    Example::

        >>> flow.ones(2).cpu().device
        device(type='cpu', index=0)
    """)

add_doc("cuda", "Tensor.cuda(device=None, non_blocking=False, memory_format=None) -> Tensor", """
    Returns the tensor on a CUDA device (the same memory when it is there
    already).

    Args:
        device (int or monoflow.device, optional): the CUDA device. Default:
            ``None``: the current one.
        non_blocking (bool): accepted for torch compatibility. Default: ``False``.
        memory_format: accepted for torch compatibility.

    Raises:
        DeviceUnavailableError: if no CUDA device plugin is loaded.

    Example::

        >>> x = flow.ones(2)
        >>> flow.cuda.is_available() or x.cuda is not None
        True
        >>> y = x.cuda()  # doctest: +SKIP
    """)

_CASTS = (
    ("float", "float32", "[1, 2]", "tensor([1., 2.])"),
    ("double", "float64", "[1, 2]", "tensor([1., 2.], dtype=monoflow.float64)"),
    ("half", "float16", "[1, 2]", "tensor([1., 2.], dtype=monoflow.float16)"),
    ("bfloat16", "bfloat16", "[1, 2]", "tensor([1., 2.], dtype=monoflow.bfloat16)"),
    ("int", "int32", "[1.7, -2.2]", "tensor([ 1, -2], dtype=monoflow.int32)"),
    ("long", "int64", "[1.7, -2.2]", "tensor([ 1, -2])"),
    ("short", "int16", "[1.7, -2.2]", "tensor([ 1, -2], dtype=monoflow.int16)"),
    ("char", "int8", "[1.7, -2.2]", "tensor([ 1, -2], dtype=monoflow.int8)"),
    ("byte", "uint8", "[1.7, 2.2]", "tensor([1, 2], dtype=monoflow.uint8)"),
    ("bool", "bool", "[0.0, 2.2]", "tensor([False,  True])"),
)

for _name, _dtype, _data, _shown in _CASTS:
    add_doc(_name, f"Tensor.{_name}() -> Tensor", f"""
    Returns the tensor converted to ``monoflow.{_dtype}``:
    ``self.to(monoflow.{_dtype})`` (the same tensor's memory when it has that
    dtype already); floats convert to integers by truncation toward zero.
    Note that ``monoflow.{_name}`` itself is a dtype, not this method.

    Example::

        >>> flow.tensor({_data}).{_name}()
        {_shown}
    """)

add_doc("type", "Tensor.type(dtype=None, non_blocking=False) -> str or Tensor", """
    Without an argument, returns the name of the tensor's type in OneFlow's
    form with monoflow's name: ``'monoflow.FloatTensor'``
    (``'oneflow.FloatTensor'`` in OneFlow, ``'torch.FloatTensor'`` in torch),
    ``'monoflow.cuda.FloatTensor'`` for a tensor on a CUDA device. With an
    argument, returns the tensor converted to it (as :meth:`Tensor.to`; the
    tensor itself when it already has that type).

    Args:
        dtype (monoflow.dtype, str or legacy tensor type, optional): a dtype, a
            type name (``'torch.DoubleTensor'``, ``'monoflow.DoubleTensor'``,
            ``'oneflow.cuda.FloatTensor'``) or a legacy type
            (``flow.DoubleTensor``). Default: ``None`` (return the name).
        non_blocking (bool): accepted for torch compatibility (the copy is
            ordered on the device's stream either way). Default: ``False``.

    Example::

        >>> x = flow.tensor([1.5])
        >>> x.type()
        'monoflow.FloatTensor'
        >>> x.type(flow.int32)
        tensor([1], dtype=monoflow.int32)
        >>> x.type('torch.DoubleTensor').type()
        'monoflow.DoubleTensor'
    """)

add_doc("type_as", "Tensor.type_as(other) -> Tensor", """
    Returns the tensor converted to the dtype of ``other``.

    Args:
        other (Tensor): the tensor whose dtype to take.

    Example::

        >>> flow.tensor([1.5]).type_as(flow.zeros(1, dtype=flow.int64))
        tensor([1])
    """)

# ---------------------------------------------------------------- new tensors like this one

_NEW_ARGS = """
        dtype (monoflow.dtype, optional): the dtype. Default: ``None``: this
            tensor's.
        device (monoflow.device or str, optional): the device. Default:
            ``None``: this tensor's.
        requires_grad (bool): whether autograd records operations on the
            result. Default: ``False``.
        pin_memory (bool): accepted for torch compatibility. Default: ``False``."""

add_doc("new_zeros", "Tensor.new_zeros(*size, dtype=None, device=None, requires_grad=False, pin_memory=False) -> Tensor", """
    Returns a tensor of zeros of the given size, with this tensor's dtype and
    device unless given.

    Args:
        size (int or tuple of int): the shape.""" + _NEW_ARGS + """

    Example::

        >>> flow.zeros(1, dtype=flow.int32).new_zeros(2)
        tensor([0, 0], dtype=monoflow.int32)
    """)

add_doc("new_ones", "Tensor.new_ones(*size, dtype=None, device=None, requires_grad=False, pin_memory=False) -> Tensor", """
    Returns a tensor of ones of the given size, with this tensor's dtype and
    device unless given.

    Args:
        size (int or tuple of int): the shape.""" + _NEW_ARGS + """

    Example::

        >>> flow.zeros(1).new_ones((2, 2))
        tensor([[1., 1.],
                [1., 1.]])
    """)

add_doc("new_empty", "Tensor.new_empty(*size, dtype=None, device=None, requires_grad=False, pin_memory=False) -> Tensor", """
    Returns an uninitialized tensor of the given size, with this tensor's
    dtype and device unless given.

    Args:
        size (int or tuple of int): the shape.""" + _NEW_ARGS + """

    Example::

        >>> flow.zeros(1, dtype=flow.float64).new_empty(2, 3).dtype
        monoflow.float64
    """)

add_doc("new_full", "Tensor.new_full(size, fill_value, *, dtype=None, device=None, requires_grad=False, pin_memory=False) -> Tensor", """
    Returns a tensor of shape ``size`` filled with ``fill_value``, with this
    tensor's dtype and device unless given.

    Args:
        size (tuple of int): the shape.
        fill_value (Number): the value of every element.""" + _NEW_ARGS + """

    Example::

        >>> flow.zeros(1).new_full((2,), 7)
        tensor([7., 7.])
    """)

add_doc("new_tensor", "Tensor.new_tensor(data, dtype=None, device=None, requires_grad=False, pin_memory=False) -> Tensor", """
    Returns a new tensor copying ``data``, with this tensor's dtype and
    device unless given.

    Args:
        data (array_like): a number, a (nested) list, a NumPy array or a tensor.""" + _NEW_ARGS + """

    Example::

        >>> flow.zeros(1).new_tensor([1, 2])
        tensor([1., 2.])
        >>> flow.zeros(1).new_tensor([1, 2], dtype=flow.int64)
        tensor([1, 2])
    """)

# ---------------------------------------------------------------- autograd

add_doc("backward", "Tensor.backward(gradient=None, retain_graph=None, create_graph=False, inputs=None) -> None", """
    Computes the gradient of this tensor with respect to the leaves of its
    graph, and adds it to their ``.grad``.

    Args:
        gradient (Tensor, optional): the gradient of some final value with
            respect to this tensor, of its shape. Default: ``None``, allowed
            for a one-element tensor (read as 1).
        retain_graph (bool, optional): keep the graph's saved tensors, to run
            backward through it again. Default: ``None``: ``create_graph``.
        create_graph (bool): record the backward itself, for higher-order
            gradients. Default: ``False``.
        inputs (sequence of Tensor, optional): the only tensors whose
            ``.grad`` is filled. Default: ``None``: every leaf.

    Raises:
        RuntimeError: if the tensor does not require grad, or ``gradient`` is
            missing for a tensor of several elements.

    Example::

        >>> x = flow.tensor([1.0, 2.0], requires_grad=True)
        >>> (x ** 2).sum().backward()
        >>> x.grad
        tensor([2., 4.])
        >>> (x * 3).backward(flow.ones(2))
        >>> x.grad
        tensor([5., 7.])
    """)

add_doc("detach", "Tensor.detach() -> Tensor", """
    Returns a tensor sharing this one's memory that autograd does not track
    (``requires_grad=False``, no ``grad_fn``); writes to one show in the other.

    Example::

        >>> x = flow.ones(2, requires_grad=True)
        >>> y = x.detach()
        >>> y.requires_grad, y.data_ptr() == x.data_ptr()
        (False, True)
    """)

add_doc("detach_", "Tensor.detach_() -> Tensor", """
    Detaches this tensor from the autograd graph, in place: it becomes a leaf
    that does not require grad. Returns it.

    Example::

        >>> y = flow.ones(2, requires_grad=True) * 2
        >>> _ = y.detach_()
        >>> y.requires_grad, y.grad_fn
        (False, None)
    """)

add_doc("requires_grad_", "Tensor.requires_grad_(requires_grad=True) -> Tensor", """
    Sets whether autograd records operations on this (leaf) tensor, in
    place, and returns it.

    Args:
        requires_grad (bool): the new value. Default: ``True``.

    Raises:
        RuntimeError: when turning it off on a non-leaf tensor.

    Example::

        >>> x = flow.ones(2).requires_grad_()
        >>> x.requires_grad
        True
    """)

add_doc("retain_grad", "Tensor.retain_grad() -> None", """
    Makes backward fill the ``.grad`` of this non-leaf tensor too (a no-op
    for a leaf).

    Example::

        >>> x = flow.ones(2, requires_grad=True)
        >>> y = x * 2
        >>> y.retain_grad()
        >>> y.sum().backward()
        >>> y.grad
        tensor([1., 1.])
    """)

add_doc("register_hook", "Tensor.register_hook(hook) -> RemovableHandle", """
    Registers a function that runs each time the gradient of this tensor is
    computed.

    ``hook(grad)`` may return a tensor, which replaces the gradient (for the
    rest of backward and for ``.grad``), or ``None`` to keep it.

    Args:
        hook (callable): ``hook(grad) -> Tensor or None``.

    Returns:
        a handle whose ``remove()`` unregisters the hook.

    Example::

        >>> x = flow.ones(2, requires_grad=True)
        >>> h = x.register_hook(lambda g: g * 2)
        >>> (x * 3).sum().backward()
        >>> x.grad
        tensor([6., 6.])
        >>> h.remove()
    """)

# ---------------------------------------------------------------- memory

add_doc("share_memory_", "Tensor.share_memory_() -> Tensor", """
    Moves the tensor's storage into shared memory, in place, and returns the
    tensor (it and its views keep their identity); a no-op when it is there
    already or the tensor is not in host memory. Processes that receive it
    through :mod:`monoflow.multiprocessing` then work on the same memory.

    Example::

        >>> x = flow.zeros(3).share_memory_()
        >>> x.is_shared()
        True
    """)

add_doc("is_shared", "Tensor.is_shared() -> bool", """
    Returns whether the tensor's storage is in shared memory (see
    :meth:`Tensor.share_memory_`).

    Example::

        >>> flow.zeros(1).is_shared()
        False
    """)

_add_if_defined("pin_memory", "Tensor.pin_memory(device=None) -> Tensor", """
    Returns a copy of this CPU tensor, as torch copies a tensor into pinned
    memory. monoflow has no page-locked allocator, so the copy is in
    ordinary host memory (see :meth:`Tensor.is_pinned`).

    Args:
        device (monoflow.device, optional): accepted for torch compatibility.

    Raises:
        RuntimeError: for a tensor that is not on the CPU.

    Example::

        >>> x = flow.ones(2)
        >>> y = x.pin_memory()
        >>> flow.equal(x, y), y.data_ptr() == x.data_ptr()
        (True, False)
    """)

_add_if_defined("is_pinned", "Tensor.is_pinned(device=None) -> bool", """
    Returns ``False``: monoflow never allocates page-locked host memory.

    Args:
        device (monoflow.device, optional): accepted for torch compatibility.

    Example::

        >>> flow.ones(2).pin_memory().is_pinned()
        False
    """)

# ---------------------------------------------------------------- global tensors

add_doc("to_global", "Tensor.to_global(placement=None, sbp=None, *, check_meta=True, copy=False, grad_sbp=None) -> Tensor", """
    Returns a global tensor whose piece on this rank is this tensor (sharing
    its memory unless ``copy``; differentiable). Every rank of the job makes
    the same call, each with its own local piece. Along a broadcast axis the
    first rank's piece is sent to the others, as in OneFlow: their tensor is
    overwritten with it (``copy=True`` keeps it).

    Args:
        placement (monoflow.placement): the device type and ranks of the
            global tensor.
        sbp (monoflow.sbp.sbp or tuple of them): how the pieces make the
            whole: ``flow.sbp.split(dim)`` (this tensor is the slice along
            ``dim``), ``flow.sbp.broadcast`` (every rank holds all of it),
            ``flow.sbp.partial_sum`` (the whole is the sum of the pieces); one
            per dimension of the placement's hierarchy.
        check_meta (bool): accepted for OneFlow compatibility; the ranks'
            shapes and dtypes are always checked.
        copy (bool): make the piece a copy of this tensor, which stays as it
            is. Default: ``False``.
        grad_sbp: used by global tensors only; ignored here.

    Raises:
        ValueError: if ``placement`` or ``sbp`` is missing.

    Example::

        >>> p = flow.placement("cpu", ranks=[0])
        >>> g = flow.ones(2).to_global(p, flow.sbp.broadcast)  # doctest: +SKIP
        >>> g.is_global  # doctest: +SKIP
        True
        >>> flow.ones(2).is_global
        False
    """)

add_doc("to_local", "Tensor.to_local() -> Tensor", """
    Returns the piece of a global tensor that lives on this rank, as a local
    tensor (see :meth:`Tensor.to_global`).

    Raises:
        RuntimeError: when called on a local tensor (it is local already).

    Example::

        >>> x = flow.ones(2)
        >>> x.is_local
        True
        >>> x.to_global(flow.placement("cpu", [0]), flow.sbp.broadcast).to_local()  # doctest: +SKIP
        tensor([1., 1.])
    """)
