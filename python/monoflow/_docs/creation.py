"""Creation: tensor, as_tensor, from_numpy, zeros, ones, empty, full, the *_like ops, arange, linspace, logspace, eye."""
from monoflow._docs import add_doc, add_inplace_docs  # noqa: F401

_COMMON_ARGS = """
        dtype (monoflow.dtype, optional): the dtype of the result. Default:
            ``None``: {dtype}.
        device (monoflow.device or str, optional): where the result lives.
            Default: ``None``: the default device (see
            :func:`monoflow.set_default_device`).
        requires_grad (bool): whether autograd records operations on the
            result. Default: ``False``.
        pin_memory (bool): accepted for torch compatibility; monoflow does not
            allocate page-locked memory. Default: ``False``."""


def _args(dtype="the default dtype (see :func:`monoflow.get_default_dtype`)"):
    return _COMMON_ARGS.format(dtype=dtype)


add_doc("tensor", "tensor(data, dtype=None, device=None, requires_grad=False, pin_memory=False) -> Tensor", """
    Builds a new tensor by copying ``data``.

    The dtype is inferred from ``data`` when not given: Python floats give the
    default dtype (float32), ints give int64, bools give bool; NumPy arrays
    keep their dtype. ``data`` is always copied; use
    :func:`monoflow.as_tensor` or :func:`monoflow.from_numpy` to share memory.

    Args:
        data (array_like): a number, a (nested) list or tuple, a NumPy array or
            a Tensor.""" + _args("inferred from ``data``") + """

    Example::

        >>> flow.tensor([[1, 2], [3, 4]])
        tensor([[1, 2],
                [3, 4]])
        >>> flow.tensor([1.0, 2.0], dtype=flow.float64, requires_grad=True)
        tensor([1., 2.], dtype=monoflow.float64, requires_grad=True)
        >>> flow.tensor(3.5).shape
        monoflow.Size([])
    """)

add_doc("as_tensor", "as_tensor(data, dtype=None, device=None) -> Tensor", """
    Converts ``data`` to a tensor, sharing memory when it can.

    A Tensor of the asked dtype and device, or a NumPy array with a supported
    dtype on the CPU, is used without copying; anything else is copied as by
    :func:`monoflow.tensor`.

    Args:
        data (array_like): a Tensor, a NumPy array, a number or a (nested) list.
        dtype (monoflow.dtype, optional): the dtype of the result. Default:
            ``None``: that of ``data``.
        device (monoflow.device or str, optional): where the result lives.
            Default: ``None``: that of ``data`` (the CPU for other inputs).

    Example::

        >>> a = np.array([1.0, 2.0])
        >>> t = flow.as_tensor(a)
        >>> a[0] = 9.0
        >>> t
        tensor([9., 2.], dtype=monoflow.float64)
    """)

add_doc("from_numpy", "from_numpy(arr) -> Tensor", """
    Returns a CPU tensor that shares memory with the NumPy array ``arr``:
    writes to one show in the other. The dtype is the array's.

    Args:
        arr (numpy.ndarray): the array; its dtype must be one monoflow has
            (bool, uint8, int8/16/32/64, float16/32/64).

    Example::

        >>> a = np.arange(3)
        >>> t = flow.from_numpy(a)
        >>> t.dtype
        monoflow.int64
        >>> t[0] = 7
        >>> a
        array([7, 1, 2])
    """)

add_doc("from_dlpack", "from_dlpack(ext_tensor, *, device=None, copy=None) -> Tensor", """
    Returns a CPU tensor sharing memory with a DLPack producer.

    Args:
        ext_tensor: an object with ``__dlpack__`` (a NumPy array, a PyTorch
            tensor, another monoflow tensor) or a ``"dltensor"`` capsule.
        device: moves the result to this device (a copy unless it is the CPU).
        copy: ``True`` always copies; ``False`` raises BufferError where a copy
            would be needed; ``None`` (default) shares memory where it can.

    Example::

        >>> flow.from_dlpack(np.arange(3.0))
        tensor([0., 1., 2.], dtype=monoflow.float64)
    """)

add_doc("zeros", "zeros(*size, dtype=None, device=None, requires_grad=False, pin_memory=False) -> Tensor", """
    Returns a tensor of the given size filled with 0.

    Args:
        size (int or tuple of int): the shape, as separate ints or one
            sequence.""" + _args() + """

    Example::

        >>> flow.zeros(2, 3)
        tensor([[0., 0., 0.],
                [0., 0., 0.]])
        >>> flow.zeros((2,), dtype=flow.int32)
        tensor([0, 0], dtype=monoflow.int32)
    """)

add_doc("ones", "ones(*size, dtype=None, device=None, requires_grad=False, pin_memory=False) -> Tensor", """
    Returns a tensor of the given size filled with 1.

    Args:
        size (int or tuple of int): the shape, as separate ints or one
            sequence.""" + _args() + """

    Example::

        >>> flow.ones(2, 2)
        tensor([[1., 1.],
                [1., 1.]])
        >>> flow.ones(3, dtype=flow.bool)
        tensor([True, True, True])
    """)

add_doc("empty", "empty(*size, dtype=None, device=None, requires_grad=False, pin_memory=False) -> Tensor", """
    Returns a tensor of the given size whose values are not initialized
    (whatever the memory held): fill it before reading it.

    Args:
        size (int or tuple of int): the shape, as separate ints or one
            sequence.""" + _args() + """

    Example::

        >>> x = flow.empty(2, 3)
        >>> x.shape, x.dtype
        (monoflow.Size([2, 3]), monoflow.float32)
    """)

add_doc("full", "full(size, fill_value, dtype=None, device=None, requires_grad=False, pin_memory=False) -> Tensor", """
    Returns a tensor of shape ``size`` filled with ``fill_value``.

    Args:
        size (tuple of int): the shape.
        fill_value (Number): the value of every element.""" + _args(
            "inferred from ``fill_value`` (int64 for an int, bool for a bool, "
            "the default dtype for a float)") + """

    Example::

        >>> flow.full((2, 2), 7)
        tensor([[7, 7],
                [7, 7]])
        >>> flow.full((3,), 1.5)
        tensor([1.5000, 1.5000, 1.5000])
    """)

_LIKE_ARGS = """
        input (Tensor): the tensor whose size (and, by default, dtype and
            device) the result takes.
        dtype (monoflow.dtype, optional): the dtype of the result. Default:
            ``None``: ``input.dtype``.
        device (monoflow.device or str, optional): where the result lives.
            Default: ``None``: ``input.device``.
        requires_grad (bool): whether autograd records operations on the
            result. Default: ``False``.
        pin_memory (bool): accepted for torch compatibility. Default: ``False``.
        memory_format (monoflow.memory_format, optional): the layout of the
            result. Default: ``None``, as ``preserve_format``: the one
            ``input`` is in (``channels_last`` stays so)."""

add_doc("zeros_like", "zeros_like(input, *, dtype=None, device=None, requires_grad=False, pin_memory=False, memory_format=None) -> Tensor", """
    Returns a tensor of zeros with the size of ``input``.

    Args:""" + _LIKE_ARGS + """

    Example::

        >>> flow.zeros_like(flow.tensor([[1, 2], [3, 4]]))
        tensor([[0, 0],
                [0, 0]])
    """)

add_doc("ones_like", "ones_like(input, *, dtype=None, device=None, requires_grad=False, pin_memory=False, memory_format=None) -> Tensor", """
    Returns a tensor of ones with the size of ``input``.

    Args:""" + _LIKE_ARGS + """

    Example::

        >>> flow.ones_like(flow.zeros(2), dtype=flow.int64)
        tensor([1, 1])
    """)

add_doc("empty_like", "empty_like(input, *, dtype=None, device=None, requires_grad=False, pin_memory=False, memory_format=None) -> Tensor", """
    Returns an uninitialized tensor with the size of ``input``.

    Args:""" + _LIKE_ARGS + """

    Example::

        >>> flow.empty_like(flow.zeros(2, 3)).shape
        monoflow.Size([2, 3])
    """)

add_doc("full_like", "full_like(input, fill_value, *, dtype=None, device=None, requires_grad=False, pin_memory=False, memory_format=None) -> Tensor", """
    Returns a tensor with the size of ``input`` filled with ``fill_value``.

    Args:""" + _LIKE_ARGS + """
        fill_value (Number): the value of every element (cast to the dtype).

    Example::

        >>> flow.full_like(flow.zeros(2), 3)
        tensor([3., 3.])
    """)

add_doc("arange", "arange(start, end=None, step=1, dtype=None, device=None, requires_grad=False, pin_memory=False) -> Tensor", """
    Returns a 1-D tensor of the values from ``start`` to ``end`` (excluded),
    ``step`` apart. With a single argument, it is ``end`` and ``start`` is 0.

    The dtype, when not given, is int64 if all of ``start``, ``end`` and
    ``step`` are ints, the default dtype otherwise. The length is
    ``ceil((end - start) / step)``.

    Args:
        start (Number): the first value (or ``end`` when given alone).
        end (Number, optional): the bound, not included.
        step (Number): the difference between neighbours. Default: 1.""" + _args(
            "int64 for int arguments, else the default dtype") + """

    Example::

        >>> flow.arange(5)
        tensor([0, 1, 2, 3, 4])
        >>> flow.arange(1, 4)
        tensor([1, 2, 3])
        >>> flow.arange(0, 1, 0.25)
        tensor([0.0000, 0.2500, 0.5000, 0.7500])
    """)

add_doc("linspace", "linspace(start, end, steps, *, dtype=None, device=None, requires_grad=False, pin_memory=False) -> Tensor", """
    Returns a 1-D tensor of ``steps`` values evenly spaced from ``start`` to
    ``end``, both included.

    ``start`` and ``end`` may be one-element tensors, inside an ``nn.Graph``
    too; ``placement=`` and ``sbp=`` (OneFlow's) make a global tensor.

    Args:
        start (Number or Tensor): the first value.
        end (Number or Tensor): the last value.
        steps (int): how many values (at least 0).""" + _args() + """

    Example::

        >>> flow.linspace(0, 1, 5)
        tensor([0.0000, 0.2500, 0.5000, 0.7500, 1.0000])
    """)

add_doc("logspace", "logspace(start, end, steps, base=10.0, *, dtype=None, device=None, requires_grad=False, pin_memory=False) -> Tensor", """
    Returns a 1-D tensor of ``steps`` values ``base ** x``, for ``x`` evenly
    spaced from ``start`` to ``end`` (both included).

    Args:
        start (Number): the first exponent.
        end (Number): the last exponent.
        steps (int): how many values.
        base (float): the base. Default: 10.0.""" + _args() + """

    Example::

        >>> flow.logspace(0, 2, 3)
        tensor([  1.,  10., 100.])
        >>> flow.logspace(0, 3, 4, base=2)
        tensor([1., 2., 4., 8.])
    """)

add_doc("eye", "eye(n, m=None, *, dtype=None, device=None, requires_grad=False) -> Tensor", """
    Returns a 2-D tensor with ones on the main diagonal and zeros elsewhere.

    Args:
        n (int): the number of rows.
        m (int, optional): the number of columns. Default: ``None`` (``n``).
        dtype (monoflow.dtype, optional): the dtype of the result. Default:
            ``None``: the default dtype.
        device (monoflow.device or str, optional): where the result lives.
        requires_grad (bool): whether autograd records operations on the
            result. Default: ``False``.

    Example::

        >>> flow.eye(2)
        tensor([[1., 0.],
                [0., 1.]])
        >>> flow.eye(2, 3, dtype=flow.int64)
        tensor([[1, 0, 0],
                [0, 1, 0]])
    """)
