"""Top-level helpers: dtypes and type promotion, default dtype and device, shapes, legacy tensor types, placements."""
from monoflow._docs import add_doc, add_inplace_docs  # noqa: F401

add_doc("get_default_dtype", "get_default_dtype() -> monoflow.dtype", """
    Returns the default floating dtype: the dtype of tensors built from
    Python floats and of :func:`monoflow.zeros`, :func:`monoflow.rand`, ...
    when no dtype is given. It starts as ``monoflow.float32``.

    Example::

        >>> flow.get_default_dtype()
        monoflow.float32
    """, method=False)

add_doc("set_default_dtype", "set_default_dtype(d) -> None", """
    Sets the default floating dtype (see :func:`monoflow.get_default_dtype`).

    Args:
        d (monoflow.dtype): a floating dtype (``monoflow.float32``,
            ``monoflow.float64``, ``monoflow.float16`` or ``monoflow.bfloat16``).

    Raises:
        TypeError: if ``d`` is not a floating dtype.

    Example::

        >>> flow.set_default_dtype(flow.float64)
        >>> flow.tensor([1.5]).dtype
        monoflow.float64
        >>> flow.set_default_dtype(flow.float32)
    """, method=False)

add_doc("get_default_device", "get_default_device() -> monoflow.device", """
    Returns the device where factory functions (:func:`monoflow.zeros`,
    :func:`monoflow.tensor`, ...) place tensors when no device is given; it
    starts as the CPU.

    Example::

        >>> flow.get_default_device()
        device(type='cpu', index=0)
    """, method=False)

add_doc("set_default_device", "set_default_device(device) -> None", """
    Sets the device where factory functions place tensors when no device is
    given (see :func:`monoflow.get_default_device`; ``with flow.device(d):``
    sets it for a block).

    Args:
        device (monoflow.device or str or None): the device (``"cpu"``,
            ``"cuda:1"``, ...); ``None`` resets it to the CPU.

    Example::

        >>> flow.set_default_device("cpu")
        >>> flow.zeros(2).device
        device(type='cpu', index=0)
    """, method=False)

add_doc("can_cast", "can_cast(from_, to) -> bool", """
    Returns whether a value of dtype ``from_`` may be cast to dtype ``to``
    under the promotion rules of in-place ops and ``out=`` (no cast from a
    floating to an integral dtype, nor from a non-bool to bool).

    Args:
        ``from_`` (monoflow.dtype): the source dtype.
        to (monoflow.dtype): the target dtype.

    Example::

        >>> flow.can_cast(flow.int32, flow.float32)
        True
        >>> flow.can_cast(flow.float32, flow.int32)
        False
    """, method=False)

add_doc("promote_types", "promote_types(type1, type2) -> monoflow.dtype", """
    Returns the smallest dtype to which both ``type1`` and ``type2`` can be
    cast without losing their kind (the dtype of ``a + b`` for tensors of
    these dtypes).

    Args:
        type1 (monoflow.dtype): the first dtype.
        type2 (monoflow.dtype): the second dtype.

    Example::

        >>> flow.promote_types(flow.int32, flow.float16)
        monoflow.float16
        >>> flow.promote_types(flow.int64, flow.bool)
        monoflow.int64
    """, method=False)

add_doc("broadcast_shapes", "broadcast_shapes(*shapes) -> monoflow.Size", """
    Returns the shape that tensors of the given shapes broadcast to, without
    building any tensor.

    Args:
        shapes (tuple of int): the shapes, as separate arguments.

    Raises:
        ValueError: if the shapes do not broadcast.

    Example::

        >>> flow.broadcast_shapes((2, 1), (1, 3))
        monoflow.Size([2, 3])
        >>> flow.broadcast_shapes((4,), (3, 1, 1))
        monoflow.Size([3, 1, 4])
    """, method=False)

add_doc("synchronize", "synchronize(dev=None) -> None", """
    Waits until all the work queued on a device has run, and raises the first
    error a kernel reported there (operations run asynchronously).

    Args:
        dev (monoflow.device or str, optional): the device. Default: ``None``:
            every device.

    Example::

        >>> y = flow.ones(1000) * 2
        >>> flow.synchronize()
        >>> flow.synchronize("cpu")
    """, method=False)

add_doc("is_grad_enabled", "is_grad_enabled() -> bool", """
    Returns whether autograd records operations in this thread (``False``
    inside :class:`monoflow.no_grad`).

    Example::

        >>> flow.is_grad_enabled()
        True
        >>> with flow.no_grad():
        ...     flow.is_grad_enabled()
        False
    """, method=False)

add_doc("set_default_tensor_type", "set_default_tensor_type(t) -> None", """
    Sets the default floating dtype from a legacy tensor type, as torch.

    Args:
        t (type or str): a tensor type (``monoflow.DoubleTensor``) or its name
            (``"torch.FloatTensor"``, ``"monoflow.DoubleTensor"``, ...); a CUDA
            type name (``"torch.cuda.FloatTensor"``) also makes CUDA the
            default device. Prefer :func:`monoflow.set_default_dtype`.

    Example::

        >>> flow.set_default_tensor_type("torch.DoubleTensor")
        >>> flow.get_default_dtype()
        monoflow.float64
        >>> flow.set_default_tensor_type(flow.FloatTensor)
    """, method=False)

add_doc("Size", "Size(iterable=())", """
    A tensor's shape: a tuple of ints (what ``Tensor.shape`` and
    ``Tensor.size()`` return).

    It is a ``tuple`` subclass: it indexes, unpacks and compares as one.

    Args:
        iterable (iterable of int): the sizes. Default: ``()`` (a 0-D shape).

    Example::

        >>> s = flow.Size([2, 3])
        >>> s
        monoflow.Size([2, 3])
        >>> s.numel(), s == (2, 3), s[-1]
        (6, True, 3)
    """, method=False)

add_doc("placement", "placement(type, ranks)", """
    Where a global tensor lives: a device type and the process ranks that
    hold its pieces.

    ``ranks`` is a list, or a nested list for an n-D hierarchy
    (``[[0, 1], [2, 3]]``), read together with a tuple of one ``sbp`` per
    hierarchy dimension (see :meth:`Tensor.to_global`).
    ``placement.all("cpu")`` places on all ranks of the job.

    Args:
        type (str): the device type, without an index (``"cpu"``, ``"cuda"``).
        ranks (list of int or nested list of int): distinct, non-negative ranks.

    Raises:
        TypeError: if ``type`` is not a string or ``ranks`` not integers.
        ValueError: if ``type`` has an index, or ``ranks`` is empty or repeats.

    Example::

        >>> p = flow.placement("cpu", ranks=[0, 1])
        >>> p
        monoflow.placement(type="cpu", ranks=[0, 1])
        >>> p.type, p.hierarchy
        ('cpu', (2,))
        >>> flow.placement("cpu", [[0, 1], [2, 3]]).hierarchy
        (2, 2)
    """, method=False)

add_doc("Tensor", "Tensor(*args, device=None)", """
    A multi-dimensional array of one dtype on one device, recorded by
    autograd when it requires grad.

    Build tensors with :func:`monoflow.tensor`, :func:`monoflow.zeros`,
    :func:`monoflow.arange`, ... The legacy constructor ``Tensor(...)``
    takes sizes (an uninitialized float32 tensor of that shape), data (a list
    or array, copied as float32: the default dtype), another tensor (returned
    as a new tensor sharing its data, as OneFlow), or nothing (a tensor of
    shape ``(0,)``).

    Args:
        args: sizes as ints, a ``Size``, data, or a tensor.
        device (monoflow.device or str, optional): where the result lives.
            Default: ``None``: the default device.

    Example::

        >>> flow.Tensor([1, 2])
        tensor([1., 2.])
        >>> flow.Tensor(2, 3).shape
        monoflow.Size([2, 3])
        >>> isinstance(flow.arange(3), flow.Tensor)
        True
    """, method=False)

_LEGACY = (
    ("FloatTensor", "float32", "[1, 2]", "tensor([1., 2.])"),
    ("DoubleTensor", "float64", "[1, 2]", "tensor([1., 2.], dtype=monoflow.float64)"),
    ("HalfTensor", "float16", "[1, 2]", "tensor([1., 2.], dtype=monoflow.float16)"),
    ("BFloat16Tensor", "bfloat16", "[1, 2]", "tensor([1., 2.], dtype=monoflow.bfloat16)"),
    ("ByteTensor", "uint8", "[1, 2]", "tensor([1, 2], dtype=monoflow.uint8)"),
    ("CharTensor", "int8", "[1, 2]", "tensor([1, 2], dtype=monoflow.int8)"),
    ("ShortTensor", "int16", "[1, 2]", "tensor([1, 2], dtype=monoflow.int16)"),
    ("IntTensor", "int32", "[1, 2]", "tensor([1, 2], dtype=monoflow.int32)"),
    ("LongTensor", "int64", "[1, 2]", "tensor([1, 2])"),
    ("BoolTensor", "bool", "[1, 0]", "tensor([ True, False])"),
)

for _name, _dtype, _data, _shown in _LEGACY:
    add_doc(_name, f"{_name}(*args, device=None)", f"""
    Legacy constructor of ``monoflow.{_dtype}`` tensors (torch's
    ``torch.{_name}``); ``isinstance(t, monoflow.{_name})`` tests a tensor's dtype.

    Called with ints or a ``Size`` it returns an uninitialized tensor of that
    shape; with data (a list or array), a copy of it in ``monoflow.{_dtype}``.
    New code should prefer ``monoflow.tensor(data, dtype=monoflow.{_dtype})``.

    Args:
        args: sizes as ints, a ``Size``, or data.
        device (monoflow.device or str, optional): where the result lives.
            Default: ``None``: the CPU.

    Example::

        >>> flow.{_name}({_data})
        {_shown}
        >>> flow.{_name}(2, 3).shape
        monoflow.Size([2, 3])
        >>> isinstance(flow.tensor({_data}, dtype=flow.{_dtype}), flow.{_name})
        True
    """, method=False)

for _name, _dtype, _data, _shown in _LEGACY:
    add_doc(_name, f"{_name}(*args, device=None)", f"""
    Legacy constructor of CUDA ``monoflow.{_dtype}`` tensors (torch's
    ``torch.cuda.{_name}``); ``isinstance(t, monoflow.cuda.{_name})`` tests a
    tensor's dtype and that it lives on a CUDA device, so code that asks it
    runs on any machine. Constructing one needs a CUDA device plugin.

    Args:
        args: sizes as ints, a ``Size``, or data (as :class:`monoflow.{_name}`).
        device (monoflow.device or str, optional): where the result lives.
            Default: ``None``: the current CUDA device.

    Example::

        >>> isinstance(flow.tensor({_data}, dtype=flow.{_dtype}), flow.cuda.{_name})  # a CPU tensor
        False
    """, namespace="monoflow.cuda", method=False)
