"""Storages: the memory under a tensor and its views (torch.UntypedStorage, torch.TypedStorage).

monoflow's storage lives in the C++ core; these objects are windows on it, made by
``Tensor.untyped_storage()`` and ``Tensor.storage()``: they answer what scripts and libraries ask of a
storage (its base address and size, to tell which tensors share memory; its device; its contents)
and write through to the tensors that use it. They keep the storage alive while they exist."""
from monoflow import _C, _dtypes

__all__ = ["UntypedStorage", "TypedStorage"]


class _StorageView:
    __slots__ = ("_whole",)

    def __init__(self, tensor):
        if isinstance(tensor, int) and not isinstance(tensor, bool):  # torch.UntypedStorage(nbytes): new memory
            try:
                tensor = _C._empty((tensor,), _dtypes.uint8, None).zero_()
            except (RuntimeError, OverflowError) as e:
                raise type(e)(f"{type(self).__name__}(): {e}") from None
        if not isinstance(tensor, _C.TensorBase):
            raise TypeError(f"{type(self).__name__}(): expected a tensor or a size, got {type(tensor).__name__}")
        nbytes, offset, _ = _C.storage_layout(tensor)
        itemsize = tensor.element_size()
        # the whole storage as a 1-d tensor of the tensor's dtype (a trailing partial element cannot occur:
        # every storage holds whole elements of the tensor that made it)
        self._whole = tensor.detach().as_strided((nbytes // itemsize,), (1,), 0)

    @property
    def device(self):
        """The device holding the storage."""
        return self._whole.device

    @property
    def is_cuda(self):
        """Whether the storage is on a CUDA device."""
        return self._whole.device.type == "cuda"

    def data_ptr(self):
        """The address of the storage's first byte (tensors sharing memory share it)."""
        return self._whole._data_address()

    def nbytes(self):
        """The size of the storage in bytes."""
        return self._whole.numel() * self._whole.element_size()

    def get_device(self):
        """The device index (``-1`` on the CPU)."""
        return self._whole.get_device()

    def is_shared(self):
        """Whether the storage is in shared memory (see ``Tensor.share_memory_``)."""
        return self._whole.is_shared()

    def share_memory_(self):
        """Moves the storage into shared memory, for every tensor using it; returns ``self``."""
        self._whole.share_memory_()
        return self

    def is_pinned(self, device="cuda"):
        """Whether the storage is page-locked host memory: monoflow does not pin host memory."""
        return False

    def resizable(self):
        """Whether the storage can be resized in place: not in monoflow."""
        return False

    def __repr__(self):
        return f"{type(self).__module__}.{type(self).__name__}(device={self.device}, nbytes={self.nbytes()})"


class UntypedStorage(_StorageView):
    """The bytes under a tensor (``Tensor.untyped_storage()``), as torch.UntypedStorage.

    Args:
        tensor (Tensor or int): a tensor using the storage, or a size in bytes for new zeroed memory.

    Example::

        >>> import monoflow as flow
        >>> x = flow.arange(6.0)
        >>> s = x[2:].untyped_storage()
        >>> s.nbytes(), s.data_ptr() == x.data_ptr()
        (24, True)
    """

    __slots__ = ()

    def size(self):
        """The size in bytes (as :meth:`nbytes`)."""
        return self.nbytes()

    def __len__(self):
        return self.nbytes()

    def element_size(self):
        """1: an untyped storage counts bytes."""
        return 1

    def tolist(self):
        """The storage's bytes, as a list of ints."""
        return self._whole.contiguous().view(_dtypes.uint8).tolist()


class TypedStorage(_StorageView):
    """The elements under a tensor (``Tensor.storage()``), as torch.TypedStorage: like
    :class:`UntypedStorage`, counted in elements of ``dtype``.

    Args:
        *args: a tensor using the storage, or a size in elements for new zeroed memory.
        device (optional): the device of new memory. Default: the CPU.
        dtype (monoflow.dtype, optional): the element type (new memory, or a view of ``wrap_storage``).
            Default: the default dtype.
        wrap_storage (UntypedStorage, optional): an untyped storage to view as ``dtype`` elements.
        _internal (bool): accepted for torch's signature.

    Example::

        >>> import monoflow as flow
        >>> x = flow.arange(6.0)
        >>> s = x.view(2, 3).storage()
        >>> s.size(), s.dtype, s[4]
        (6, monoflow.float32, 4.0)
    """

    __slots__ = ()

    def __init__(self, *args, device=None, dtype=None, wrap_storage=None, _internal=False):
        try:
            self._init(args, device, dtype, wrap_storage)
        except (TypeError, ValueError, RuntimeError, OverflowError, AttributeError) as e:
            if str(e).startswith("TypedStorage"):
                raise
            kind = TypeError if isinstance(e, AttributeError) else type(e)
            raise kind(f"TypedStorage(): {e}") from None

    def _init(self, args, device, dtype, wrap_storage):
        if wrap_storage is not None:
            if not isinstance(wrap_storage, _StorageView):
                raise TypeError(f"wrap_storage must be an UntypedStorage, got {type(wrap_storage).__name__}")
            whole = wrap_storage._whole
            super().__init__(whole.view(dtype) if dtype is not None else whole)
        elif len(args) == 1 and isinstance(args[0], _C.TensorBase):
            super().__init__(args[0])
        elif len(args) <= 1 and all(isinstance(a, int) and not isinstance(a, bool) for a in args):
            n = args[0] if args else 0
            super().__init__(_C._empty((n,), dtype or _C.get_default_dtype(), device).zero_())
        else:
            raise TypeError(f"TypedStorage(): expected a tensor, a size or wrap_storage=, got {args!r}")

    @property
    def dtype(self):
        """The dtype of the elements."""
        return self._whole.dtype

    def size(self):
        """The number of elements."""
        return self._whole.numel()

    def __len__(self):
        return self._whole.numel()

    def element_size(self):
        """The size of one element in bytes."""
        return self._whole.element_size()

    def __getitem__(self, index):
        return self._whole[index].item() if isinstance(index, int) else self._whole[index].tolist()

    def __setitem__(self, index, value):
        self._whole[index] = value

    def tolist(self):
        """The elements, as a list."""
        return self._whole.tolist()

    def untyped(self):
        """The same storage as an :class:`UntypedStorage`."""
        return UntypedStorage(self._whole)
