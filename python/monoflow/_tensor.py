"""monoflow.Tensor: the C++ handle plus the Python-level conveniences."""
import copy
import numbers
import operator
import warnings
import weakref

import numpy as np

from monoflow import _C, _complex, _dtypes, ops_linalg, ops_math, ops_random, ops_reduce, ops_shape
from monoflow import ops_index_reduce
from monoflow import ops_join, ops_layout, ops_matrix, ops_pointwise, ops_sampling, ops_set, ops_special, ops_stats
from monoflow import ops_extra_names, ops_shape_inplace, ops_sparse, ops_torch_names3
from monoflow import _composite, _memory_format, _shared_memory
from monoflow._tensor_str import tensor_repr
from monoflow._tensor_type import TensorType


def _named(op, run):
    """run(), its argument errors prefixed with `op` (a method that forwards to a function saying less)."""
    try:
        return run()
    except (TypeError, ValueError) as e:
        if str(e).startswith(op):
            raise
        raise type(e)(f"{op}(): {e}") from None
    except AttributeError as e:  # an argument of the wrong type met a method it lacks
        raise TypeError(f"{op}(): an argument has the wrong type ({e})") from None


class Size(tuple):
    """A tensor's shape, as a tuple of ints."""

    def __new__(cls, sizes=()):
        # checked here, for users' calls (tensors' own shapes skip it: _C builds them with tuple.__new__)
        try:
            items = tuple(sizes)
        except TypeError:
            raise TypeError(f"Size(): argument must be an iterable of ints, not {type(sizes).__name__}") from None
        ints = []
        for i, v in enumerate(items):
            try:
                ints.append(operator.index(v))
            except (TypeError, ValueError, RuntimeError):
                raise TypeError(f"Size() takes an iterable of 'int' (item {i} is '{type(v).__name__}')") from None
        return tuple.__new__(cls, ints)

    def __repr__(self):
        return f"{_C.api_name()}.Size([{', '.join(str(s) for s in self)}])"

    def __getitem__(self, i):
        out = tuple.__getitem__(self, i)
        return Size(out) if isinstance(i, slice) else out  # a slice of a Size is a Size, as torch

    def __add__(self, other):
        return Size(tuple.__add__(self, other))

    def __radd__(self, other):
        return Size(tuple.__add__(tuple(other), self))

    def __mul__(self, n):
        return Size(tuple.__mul__(self, n))

    __rmul__ = __mul__

    def numel(self):
        n = 1
        for s in self:
            n *= s
        return n


_C._set_size_class(Size)

# Tensor.type()'s names, as torch's and OneFlow's legacy tensor types
_TYPE_DTYPES = {name + "Tensor": dt for dt, name in _dtypes.TORCH_NAMES.items()}


def _tensor_type_name(t):
    name = _dtypes.torch_name(t.dtype) + "Tensor"
    where = "" if t.device.type == "cpu" else t.device.type + "."
    return f"{_C.api_name()}.{where}{name}"


def _parse_tensor_type(spec):
    """(device or None, dtype) from a dtype, a type name or a legacy tensor type."""
    if isinstance(spec, _C.dtype):
        return None, spec
    name = spec if isinstance(spec, str) else getattr(spec, "__name__", None)
    if not isinstance(name, str) or (not isinstance(spec, str) and not isinstance(getattr(spec, "dtype", None),
                                                                                   _C.dtype)):
        raise TypeError(f"type(): argument 'dtype' must be a dtype, a tensor type or its name, not "
                        f"{type(spec).__name__}")
    if not isinstance(spec, str):
        return "cpu", spec.dtype
    parts = name.split(".")
    if len(parts) < 2 or parts[0] not in ("torch", "monoflow", "oneflow") or parts[-1] not in _TYPE_DTYPES:
        raise ValueError(f"type(): invalid type: {name!r}")
    device = ".".join(parts[1:-1]) or "cpu"
    return device, _TYPE_DTYPES[parts[-1]]


_base_reshape = _C.TensorBase.reshape
_base_permute = _C.TensorBase.permute
_base_view = _C.TensorBase.view
_base_expand = _C.TensorBase.expand


def _shape_keyword(op, name, shape, kwargs):
    # Tensor.reshape(shape=...) / Tensor.permute(dims=...): the shape given by keyword instead
    if shape or set(kwargs) != {name}:
        extra = sorted(set(kwargs) - {name})
        raise TypeError(f"{op}() got an unexpected keyword argument '{extra[0]}'" if extra else
                        f"{op}() takes the {name} either positionally or as {name}=, not both")
    return (kwargs[name],)


class _LocalTensorHasNo(RuntimeError, AttributeError):
    """A local tensor's refusal of a global-only attribute (``sbp``, ``placement``): a RuntimeError as
    in OneFlow, and an AttributeError too, so that ``hasattr(t, "sbp")`` stays False for it."""


class _LayoutFlag:
    """A read-only flag with a docstring: ``Tensor.is_global`` / ``is_local``.
    The class reads it too (``getattr(Parameter, "is_global")`` is False);
    GlobalTensor overrides both with properties."""

    def __init__(self, value, doc):
        self._value = value
        self.__doc__ = doc

    def __get__(self, obj, owner=None):
        if obj is not None and not isinstance(obj, _C.TensorBase):  # a foreign self, as the methods refuse it
            raise TypeError(f"descriptor '{'is_local' if self._value else 'is_global'}' for 'monoflow.Tensor' "
                            f"objects doesn't apply to a '{type(obj).__name__}' object")
        return self._value

    def __set__(self, obj, value):
        raise AttributeError("is_global and is_local are read-only")


def _parse_to_args(args, kwargs):
    device = kwargs.pop("device", None)
    dtype = kwargs.pop("dtype", None)
    copy = kwargs.pop("copy", False)
    kwargs.pop("non_blocking", None)
    if kwargs:
        raise TypeError(f"to() got unexpected keyword arguments {sorted(kwargs)}")
    for a in args:
        if isinstance(a, _C.dtype):
            dtype = a
        elif isinstance(a, (str, _C.device)):
            device = a
        elif isinstance(a, _C.TensorBase):
            device, dtype = a.device, a.dtype
        elif isinstance(a, bool):
            copy = a
        else:
            raise TypeError(f"to() received an invalid argument of type {type(a).__name__}")
    return device, dtype, copy


class Tensor(_C.TensorBase, ops_math.TensorMethods, ops_reduce.TensorMethods, ops_shape.TensorMethods,
             ops_random.TensorMethods, ops_linalg.TensorMethods, ops_pointwise.TensorMethods, ops_join.TensorMethods,
             ops_layout.TensorMethods, ops_stats.TensorMethods, ops_set.TensorMethods, ops_sampling.TensorMethods,
             ops_matrix.TensorMethods, ops_special.TensorMethods, ops_extra_names.TensorMethods,
             ops_index_reduce.TensorMethods, _complex.TensorMethods, ops_shape_inplace.TensorMethods,
             ops_sparse.TensorMethods, ops_torch_names3.TensorMethods, metaclass=TensorType):
    __module__ = "monoflow"
    # numpy scalars defer to the tensor's operators (np.float32(2) * t is a
    # Tensor, as in torch) instead of turning it into an array via __array__
    __array_priority__ = 1000

    def __init__(self, *args, device=None, **kwargs):
        # flow.Tensor(...) follows the legacy constructor rules (_legacy_tensor.py).
        # Tensors the ops return never come through here.
        if type(self).__new__ is not Tensor.__new__ and not (
                self.shape == (0,) and self.dtype == _C.get_default_dtype()):
            # a subclass whose __new__ built the instance (as_subclass / _make_subclass, torchvision's
            # tv_tensors): Python passes __new__'s arguments here too, and torch's __init__ ignores them.
            # (A bare TensorBase placeholder, from super().__new__(cls, data), is still built from them.)
            return
        from monoflow._legacy_tensor import legacy_new

        self._set_handle(legacy_new("Tensor", None, args, device, kwargs))

    def __repr__(self):
        if getattr(self, "_sparse_coo", None) is not None:
            return ops_sparse.sparse_repr(self)
        return tensor_repr(self)

    # -- global tensors (monoflow/_global)
    is_global = _LayoutFlag(False, """Whether this is a global tensor (one laid out over the ranks
        of a placement, see :meth:`Tensor.to_global`): ``False`` for local tensors.""")
    is_local = _LayoutFlag(True, """Whether this is a local tensor (held whole by this process):
        ``True`` except for global tensors (see :meth:`Tensor.to_global`).""")

    def to_global(self, placement=None, sbp=None, *, check_meta=True, copy=False, grad_sbp=None):
        from monoflow._global.tensor import local_to_global

        if placement is None or sbp is None:
            raise ValueError("to_global: a local tensor needs both placement= and sbp=")
        return local_to_global(self, placement, sbp, copy=copy)

    def to_local(self):
        raise RuntimeError("to_local: Expected global tensor for to_local but got local tensor! (to_local() is for global tensors)")

    @property
    def sbp(self):
        """The SBP of a global tensor; a local tensor has none (RuntimeError, as in OneFlow)."""
        raise _LocalTensorHasNo("Local tensor has no sbp property. sbp is only valid in global tensor.")

    @property
    def placement(self):
        """The placement of a global tensor; a local tensor has none (RuntimeError, as in OneFlow)."""
        raise _LocalTensorHasNo("Local tensor has no placement property. placement is only valid in global "
                                "tensor.")

    def local_to_global(self, placement=None, sbp=None, *, check_meta=True, copy=False):
        """OneFlow's name of :meth:`to_global` for a local tensor (a global one is refused).

        Args:
            placement (monoflow.placement): where the global tensor lives.
            sbp (monoflow.sbp.sbp or sequence of them): how it is laid out over the placement.
            check_meta (bool): accepted for OneFlow's signature. Default: ``True``.
            copy (bool): copy this tensor's data instead of sharing it where possible. Default: ``False``.

        Example::

            >>> import monoflow as flow
            >>> g = flow.ones(2).local_to_global(flow.placement("cpu", ranks=[0]), flow.sbp.broadcast)
            >>> g.is_global
            True
        """
        if self.is_global:
            raise RuntimeError("local_to_global(): the tensor is already global; use global_to_global() or "
                               "to_global()")
        return _named("local_to_global", lambda: self.to_global(placement, sbp, check_meta=check_meta, copy=copy))

    def global_to_global(self, placement=None, sbp=None, *, grad_sbp=None, check_meta=False, copy=False):
        """OneFlow's name of :meth:`to_global` for a global tensor (a local one is refused).

        Args:
            placement (monoflow.placement, optional): the new placement. Default: the current one.
            sbp (monoflow.sbp.sbp or sequence of them, optional): the new layout. Default: the current one.
            grad_sbp (optional): accepted for OneFlow's signature.
            check_meta (bool): accepted for OneFlow's signature. Default: ``False``.
            copy (bool): always copy the data. Default: ``False``.

        Example::

            >>> import monoflow as flow
            >>> flow.ones(2).global_to_global()
            Traceback (most recent call last):
                ...
            RuntimeError: global_to_global(): the tensor is local; use local_to_global() or to_global()
        """
        if not self.is_global:
            raise RuntimeError("global_to_global(): the tensor is local; use local_to_global() or to_global()")
        return self.to_global(placement, sbp, grad_sbp=grad_sbp, check_meta=check_meta, copy=copy)

    @property
    def is_lazy(self):
        """OneFlow's flag of a lazy (graph-building) tensor: ``False``, monoflow's tensors are eager
        (an ``nn.Graph`` traces by running them)."""
        return False

    def is_consistent(self):
        """Removed in OneFlow (``.is_global`` replaces it): raises RuntimeError saying so.

        Example::

            >>> import monoflow as flow
            >>> flow.ones(1).is_consistent()
            Traceback (most recent call last):
                ...
            RuntimeError: .is_consistent has been removed, please use .is_global instead
        """
        raise RuntimeError(".is_consistent has been removed, please use .is_global instead")

    def to_consistent(self, *args, **kwargs):
        """Removed in OneFlow (``.to_global`` replaces it): raises RuntimeError saying so.

        Example::

            >>> import monoflow as flow
            >>> flow.ones(1).to_consistent()
            Traceback (most recent call last):
                ...
            RuntimeError: .to_consistent has been removed, please use .to_global instead
        """
        raise RuntimeError(".to_consistent has been removed, please use .to_global instead")

    # -- OneFlow's initializers as methods: x.kaiming_uniform_() is nn.init.kaiming_uniform_(x)
    def kaiming_uniform_(self, a=0, mode="fan_in", nonlinearity="leaky_relu", *, data_format="NCHW"):
        """In-place version of :func:`monoflow.nn.init.kaiming_uniform_` on this tensor (OneFlow's
        method; ``data_format`` is accepted, NCHW weights assumed)."""
        from monoflow.nn import init

        return _named("kaiming_uniform_", lambda: init.kaiming_uniform_(self, a, mode, nonlinearity))

    def kaiming_normal_(self, a=0, mode="fan_in", nonlinearity="leaky_relu", *, data_format="NCHW"):
        """In-place version of :func:`monoflow.nn.init.kaiming_normal_` on this tensor (OneFlow's
        method; ``data_format`` is accepted, NCHW weights assumed)."""
        from monoflow.nn import init

        return _named("kaiming_normal_", lambda: init.kaiming_normal_(self, a, mode, nonlinearity))

    def xavier_uniform_(self, gain=1.0, *, data_format="NCHW"):
        """In-place version of :func:`monoflow.nn.init.xavier_uniform_` on this tensor (OneFlow's method)."""
        from monoflow.nn import init

        return _named("xavier_uniform_", lambda: init.xavier_uniform_(self, gain))

    def xavier_normal_(self, gain=1.0, *, data_format="NCHW"):
        """In-place version of :func:`monoflow.nn.init.xavier_normal_` on this tensor (OneFlow's method)."""
        from monoflow.nn import init

        return _named("xavier_normal_", lambda: init.xavier_normal_(self, gain))

    def trunc_normal_(self, mean=0.0, std=1.0, a=-2.0, b=2.0):
        """In-place version of :func:`monoflow.nn.init.trunc_normal_` on this tensor (OneFlow's method)."""
        from monoflow.nn import init

        return _named("trunc_normal_", lambda: init.trunc_normal_(self, mean, std, a, b))

    def orthogonal_(self, gain=1.0):
        """In-place version of :func:`monoflow.nn.init.orthogonal_` on this tensor (OneFlow's method)."""
        from monoflow.nn import init

        return _named("orthogonal_", lambda: init.orthogonal_(self, gain))

    def gelu(self, approximate="none"):
        """``monoflow.nn.functional.gelu(self, approximate)`` (OneFlow's method).

        Args:
            approximate (str): ``"none"`` (the erf form) or ``"tanh"``. Default: ``"none"``.

        Example::

            >>> import monoflow as flow
            >>> flow.tensor([0.0, 1.0]).gelu()
            tensor([0.0000, 0.8413])
        """
        from monoflow.nn import functional as F

        return F.gelu(self, approximate=approximate)

    def nms(self, scores, iou_threshold):
        """``monoflow.nms(self, scores, iou_threshold)``: this tensor holds the ``(N, 4)`` boxes (OneFlow's
        method).

        Args:
            scores (Tensor): the ``N`` boxes' scores.
            iou_threshold (float): boxes overlapping a kept one by more than this are dropped.

        Example::

            >>> import monoflow as flow
            >>> boxes = flow.tensor([[0.0, 0.0, 1.0, 1.0], [0.0, 0.0, 1.0, 1.1], [2.0, 2.0, 3.0, 3.0]])
            >>> boxes.nms(flow.tensor([0.9, 0.8, 0.7]), 0.5)
            tensor([0, 2])
        """
        from monoflow import nms

        return nms(self, scores, iou_threshold)

    def global_id(self):
        """OneFlow's id of a global tensor; a local tensor has none (RuntimeError, as in OneFlow).

        Example::

            >>> import monoflow as flow
            >>> flow.ones(2).global_id()
            Traceback (most recent call last):
                ...
            RuntimeError: global_id(): only global tensors have a global id; this tensor is local
        """
        if self.is_global:
            raise NotImplementedError("global_id(): monoflow's global tensors have no global id")
        raise RuntimeError("global_id(): only global tensors have a global id; this tensor is local")

    def copy_(self, src, non_blocking=False):
        # (its text: _docs/tensor.py)
        if isinstance(src, np.ndarray):  # OneFlow's data write from NumPy: not recorded by autograd
            from monoflow._creation import tensor
            from monoflow.autograd.grad_mode import no_grad

            src = tensor(src, dtype=self.dtype, device=self.device)
            with no_grad():
                return _C.TensorBase.copy_(self, src)
        try:
            return _C.TensorBase.copy_(self, src)
        except RuntimeError as e:  # (named after this frame, the autograd check's node name is left in)
            msg = str(e)
            if not msg.startswith("copy_(): CopyBackwards: ") or e.args != (msg,):
                raise
            raise RuntimeError("copy_(): " + msg[len("copy_(): CopyBackwards: "):]) from None

    # -- conversions
    def _to(self, device, dtype, copy):
        if dtype is not None and self.dtype.is_complex and not dtype.is_complex:
            import warnings

            warnings.warn("Casting complex values to real discards the imaginary part", UserWarning, stacklevel=3)
        order = _memory_format.stride_order(self)
        if order is None:
            out = _C.TensorBase._to(self, device, dtype, copy)
        else:
            # torch's (and OneFlow's) preserve_format: a new tensor keeps the input's
            # stride order (a permuted input gives a permuted result, as its strides)
            src = self.permute(*order)
            out = _C.TensorBase._to(src, device, dtype, copy)
            if out is src:
                return self
            out = out.permute(*sorted(range(len(order)), key=order.__getitem__))
        if out.requires_grad and not (out.dtype.is_floating_point or out.dtype.is_complex):
            return out.detach()  # as in torch: a bool or integer result is not differentiable
        return out

    def to(self, *args, memory_format=None, **kwargs):
        if len(args) == 1 and not kwargs and memory_format is None and args[0] is Tensor:
            # OneFlow's x.to(flow.Tensor): a graph module's tensor as the eager tensor (here it already is one)
            return self
        other = args[0] if args else kwargs.get("other")
        if isinstance(other, _C.TensorBase) and other.is_global and not self.is_global:
            # (OneFlow's check and wording: a local tensor takes no placement from a global one)
            raise RuntimeError("to(): tensor.to(other) can only be called when tensor and other are local tensors "
                               "(other is global; use to_global(placement, sbp))")
        device, dtype, copy = _parse_to_args(args, kwargs)
        out = self._to(device, dtype, copy)
        return out if memory_format is None else _memory_format.laid_out(out, memory_format, "to")

    # -- memory formats (monoflow/_memory_format.py)
    def contiguous(self, memory_format=None):
        if memory_format is None:
            return _C.TensorBase.contiguous(self)
        if memory_format is _memory_format.preserve_format and not _C.TensorBase.is_contiguous(self):
            raise RuntimeError("contiguous(): preserve memory format is unsupported by the contiguous operator")
        return _memory_format.laid_out(self, memory_format, "contiguous")

    def clone(self, *, memory_format=None):
        if memory_format is None:
            if _C.TensorBase.is_contiguous(self):
                return _C.TensorBase.clone(self)
            memory_format = _memory_format.preserve_format  # torch's default: a channels-last input stays so
        return _memory_format.laid_out(self, memory_format, "clone", copy=True)

    def is_contiguous(self, memory_format=None):
        if memory_format is None:
            return _C.TensorBase.is_contiguous(self)
        return _memory_format.is_contiguous(self, memory_format)

    def cpu(self):
        return self._to("cpu", None, False)

    def cuda(self, device=None, non_blocking=False, memory_format=None):
        """A copy on a CUDA device (the current one by default); raises when none is loaded."""
        from monoflow._device_face import face

        return self._to(face("cuda").require("Tensor.cuda()", device), None, False)

    @property
    def is_cuda(self):
        return self.device.type == "cuda"

    # -- shared memory (monoflow/_shared_memory.py)
    def share_memory_(self):
        """Moves the storage into shared memory, in place (this tensor and its
        views keep their identity); a no-op when it is there already or the
        tensor is not in host memory. Processes that receive it through
        monoflow.multiprocessing then work on the same memory."""
        if _C.device_info(self.device.type)["host_memory"]:
            _shared_memory.share_in_place(self)
        return self

    def is_shared(self):
        return _shared_memory.segment_of(self) is not None

    # -- OneFlow's offload: the memory moves to the host and back in place (_offload.pxi)
    def offload(self):
        """Moves this tensor's memory (shared with its views) to host memory, in place: the object
        stays the same, and ``load()`` moves it back. Warns when it is in host memory already.
        A global tensor offloads its local shard.

        Example (on a device with its own memory, here OpenCL)::

            >>> x = flow.arange(4.0, device="opencl")  # doctest: +SKIP
            >>> x.offload(); x.device, x.is_offloaded()  # doctest: +SKIP
            (device(type='cpu', index=0), True)
            >>> x.load(); x.device  # doctest: +SKIP
            device(type='opencl', index=0)
        """
        if not _C.offload_storage(self):
            warnings.warn(f"offload(): the tensor is in host memory already ({self.device}); nothing to do",
                          stacklevel=2)

    def load(self):
        """Moves an offloaded tensor's memory back to its device; warns when it is not offloaded.

        Example::

            >>> x = flow.ones(2)
            >>> x.is_offloaded()  # host memory: offload() would only warn
            False
        """
        if not _C.load_storage(self):
            warnings.warn("load(): the tensor is not offloaded; nothing to do", stacklevel=2)

    def is_offloaded(self):
        """Whether ``offload()`` moved this tensor's memory to the host and ``load()`` has not
        moved it back.

        Example::

            >>> flow.zeros(3).is_offloaded()
            False
        """
        return _C.storage_offloaded(self)

    # -- pinned memory: monoflow has no page-locked host allocator (no plugin
    # ABI entry asks for one), and host tensors are memory every plugin copies
    # from, so pin_memory() makes the copy torch makes, in ordinary memory.
    def is_pinned(self, device=None):
        """False: monoflow never allocates page-locked host memory."""
        return False

    def pin_memory(self, device=None):
        """A copy of this CPU tensor (ordinary host memory; see ``is_pinned``), as torch copies
        a tensor that is not pinned yet. Raises RuntimeError for a tensor on another device."""
        if self.device.type != "cpu":
            raise RuntimeError(f"pin_memory(): cannot pin a tensor on '{self.device}': "
                               "only dense CPU tensors can be pinned")
        return self.clone()

    def get_device(self):
        """The device index: -1 for a CPU tensor, as torch."""
        return -1 if self.device.type == "cpu" else self.device.index

    def ndimension(self):
        """The old name of ``dim()``."""
        return self.dim()

    def nelement(self):
        """The old name of ``numel()``."""
        return self.numel()

    def is_same_size(self, other):
        """True when `other` has this tensor's shape."""
        return self.shape == _C.check_tensor(other, "is_same_size", "other").shape

    def type(self, dtype=None, non_blocking=False, **kwargs):  # (documented in _docs/tensor.py)
        if dtype is None:
            return _tensor_type_name(self)
        device, dt = _parse_tensor_type(dtype)
        return self._to(device, dt, False)

    def float(self):
        return self._to(None, _dtypes.float32, False)

    def double(self):
        return self._to(None, _dtypes.float64, False)

    def half(self):
        return self._to(None, _dtypes.float16, False)

    def bfloat16(self):
        return self._to(None, _dtypes.bfloat16, False)

    def int(self):
        return self._to(None, _dtypes.int32, False)

    def long(self):
        return self._to(None, _dtypes.int64, False)

    def short(self):
        return self._to(None, _dtypes.int16, False)

    def byte(self):
        return self._to(None, _dtypes.uint8, False)

    def char(self):
        return self._to(None, _dtypes.int8, False)

    def bool(self):
        return self._to(None, _dtypes.bool_, False)

    def type_as(self, other):
        return self._to(None, _C.check_tensor(other, "type_as", "other").dtype, False)

    def is_floating_point(self):
        return self.dtype.is_floating_point

    # -- autograd
    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        """Accumulates the gradient of this tensor w.r.t. the graph leaves into their ``.grad``."""
        from monoflow import autograd

        autograd.backward(self, gradient, retain_graph, create_graph, inputs)

    def register_hook(self, hook):
        """``hook(grad)`` runs when this tensor's gradient is computed; it may
        return a replacement. Returns a handle whose ``remove()`` undoes it."""
        return _RemovableHandle(self, self._register_hook(hook))

    def _register_post_grad_accumulation_hook(self, hook):
        """OneFlow's hook on a leaf's *accumulated* gradient: after a backward pass adds into
        ``.grad``, ``hook(grad)`` sees the sum and may return a replacement (or change it in place
        and return None); the result becomes ``.grad``.

        Args:
            hook (callable): ``hook(grad) -> Tensor or None``.

        Example::

            >>> import monoflow as flow
            >>> x = flow.ones(2, requires_grad=True)
            >>> _ = x._register_post_grad_accumulation_hook(lambda g: g * 2 + 1)
            >>> (x * 3).sum().backward()
            >>> x.grad
            tensor([7., 7.])
        """
        if not callable(hook):
            raise TypeError(f"_register_post_grad_accumulation_hook(): hook must be callable, not "
                            f"{type(hook).__name__}")
        if not self.is_leaf:
            raise RuntimeError("_register_post_grad_accumulation_hook(): only leaf tensors accumulate gradients")

        leaf = weakref.ref(self)  # (the core holds the hook: a strong reference would keep the leaf alive)

        def replace_grad(_):
            t = leaf()
            if t is not None and t.grad is not None:
                out = hook(t.grad)
                if out is not None:
                    t.grad = out

        return _RemovableHandle(self, self._register_post_accumulate_hook(replace_grad))

    def register_post_accumulate_grad_hook(self, hook):
        """torch's hook on a leaf after its gradient has been accumulated: ``hook(tensor)`` runs once
        per backward pass with ``.grad`` holding the sum (the "optimizer step in backward" pattern:
        ``optimizer.step(); optimizer.zero_grad()`` inside the hook). Returns a removable handle.

        The hook may set ``.grad`` to None (``optimizer.zero_grad()``); the next pass then starts
        a new gradient.

        Example::

            >>> import monoflow as flow
            >>> x = flow.ones(2, requires_grad=True)
            >>> seen = []
            >>> _ = x.register_post_accumulate_grad_hook(lambda t: seen.append(t.grad.tolist()))
            >>> (x * 3).sum().backward()
            >>> seen
            [[3.0, 3.0]]
        """
        if not callable(hook):
            raise TypeError(f"register_post_accumulate_grad_hook(): hook must be callable, not {type(hook).__name__}")
        if not self.is_leaf:
            raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
        leaf = weakref.ref(self)  # (the core holds the hook: a strong reference would keep the leaf alive)

        def call(_):
            t = leaf()
            if t is not None and hook(t) is not None:
                raise RuntimeError("register_post_accumulate_grad_hook(): the hook must return None")

        return _RemovableHandle(self, self._register_post_accumulate_hook(call))

    def numpy(self, *, force=False):
        """A numpy array sharing memory with this tensor on the CPU (a copy elsewhere).
        Waits for pending work on the tensor's device. As in OneFlow (unlike
        torch, which refuses), a tensor that requires grad gives its values: a
        copy, so that a parameter's array saved before an optimizer step keeps
        that step's values (OneFlow's optimizer tests save them step by step).
        numpy has no bfloat16: a bfloat16 tensor gives its float32 values, as in
        OneFlow (torch refuses)."""
        if self.requires_grad:
            return self.detach().numpy().copy()
        if self.dtype == _dtypes.bfloat16:
            return self.float().numpy()
        npdt = _dtypes.to_numpy(self.dtype)
        view = self._host_view_interface()
        if view is not None:
            ptr, shape, strides, keeper = view
            return np.asarray(_HostArray(keeper, ptr, shape, strides, np.dtype(npdt)))
        out = np.empty(tuple(self.shape), dtype=npdt)
        self._copy_to_host(out)
        return out

    def __array__(self, dtype=None, copy=None):
        a = self.numpy()
        if dtype is None:
            return a
        if isinstance(dtype, _C.dtype):  # np.asarray(t, flow.float64): the numpy twin
            return a.astype(_dtypes.to_numpy(dtype))
        try:
            dtype = np.dtype(dtype)
        except TypeError:
            raise TypeError(f"__array__(): argument 'dtype' must be a numpy or monoflow dtype, not "
                            f"{type(dtype).__name__}") from None
        return a.astype(dtype)

    # Note [NumPy operands]: `t + ndarray`, `ndarray * t`, `t == ndarray`, `np.exp(t)`: torch takes the array
    # as a tensor operand (dtype promotion as between tensors) and gives a Tensor. The core's operators answer
    # NotImplemented for an array; NumPy then calls its ufunc, which comes here: the ufuncs with a monoflow
    # twin run as monoflow ops (autograd included); any other ufunc runs in NumPy and its array result is
    # wrapped as a tensor, as torch's __array_wrap__ does. `out=` and the ufunc methods (reduce, at, ...)
    # stay NumPy's, on the tensors' arrays.
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        from monoflow._numpy_ufuncs import array_ufunc

        if not isinstance(ufunc, np.ufunc) or not isinstance(method, str):
            raise TypeError(f"__array_ufunc__(): expected a NumPy ufunc and a method name, got "
                            f"{type(ufunc).__name__} and {type(method).__name__}")
        return array_ufunc(ufunc, method, inputs, kwargs)

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        """DLPack export (host-memory devices): consumers share this tensor's memory."""
        if max_version is not None and not (isinstance(max_version, tuple) and len(max_version) == 2
                                            and all(type(v) is int for v in max_version)):
            raise TypeError(f"__dlpack__(): argument 'max_version' must be a (major, minor) tuple of ints, not "
                            f"{type(max_version).__name__}")
        versioned = max_version is not None and max_version >= (1, 0)
        copy = copy is not None and _composite.flag("__dlpack__", "copy", copy)
        return _C.to_dlpack(self.clone() if copy else self, versioned)

    def __dlpack_device__(self):
        if not _C.device_info(self.device.type)["host_memory"]:
            return (0, self.device.index)  # not host memory: no DLPack device we can export to
        return (1, 0)  # kDLCPU

    def tolist(self):
        t = self.detach()
        t = t.float() if t.dtype == _dtypes.bfloat16 else t
        return t.numpy().tolist()

    def __deepcopy__(self, memo):
        # A detached copy of the values with the same requires_grad, a deep copy of
        # .grad and of attributes set on the tensor, as torch copies them. An op's
        # result copies as a new leaf, as in OneFlow (torch refuses it): a copy cannot
        # carry the result's place in the autograd graph. OneFlow's autotests deepcopy
        # such results to replay an op in nn.Graph.
        if not isinstance(memo, dict):
            raise TypeError(f"__deepcopy__(): argument 'memo' must be a dict, not {type(memo).__name__}")
        if id(self) in memo:
            return memo[id(self)]
        out = self.detach().clone()
        if self.requires_grad:
            out.requires_grad_(True)
        memo[id(self)] = out
        if self.grad is not None:
            out.grad = copy.deepcopy(self.grad, memo)
        for name, value in self.__dict__.items():
            setattr(out, name, copy.deepcopy(value, memo))
        return out

    def __reduce__(self):
        # By value (dtype name, shape, C-order bytes, device), so tensors cross
        # process boundaries (DataLoader workers) and survive pickle. bfloat16
        # travels as its raw 16-bit patterns: numpy has no bfloat16.
        src = self if _C.device_info(self.device.type)["host_memory"] else self._to("cpu", None, False)
        ptr, shape, strides, keeper = src._host_view_interface()
        data = np.asarray(_HostArray(keeper, ptr, shape, strides, _pickle_numpy_dtype(self.dtype))).tobytes()
        return _rebuild_tensor, (self.dtype.name, tuple(self.shape), data, str(self.device),
                                 bool(getattr(self, "requires_grad", False)))

    def __setstate__(self, state):
        # __reduce__ hands pickle no state: only a direct call reaches here
        raise TypeError(f"__setstate__(): a monoflow Tensor is restored by __reduce__, not from a state "
                        f"(got {type(state).__name__})")

    def __bool__(self):
        if self.numel() != 1:
            raise RuntimeError(_C.name_op_in_progress(
                f"Boolean value of Tensor with {self.numel()} elements is ambiguous"))
        return bool(self.item())

    def __float__(self):
        if self.numel() != 1:
            raise ValueError(_C.name_op_in_progress(  # (torch's type; its item() raises RuntimeError)
                f"float(): only one element tensors can be converted to Python scalars, got {self.numel()}"))
        return float(self.item())

    def __int__(self):
        if self.numel() != 1:
            raise ValueError(_C.name_op_in_progress(
                f"int(): only one element tensors can be converted to Python scalars, got {self.numel()}"))
        return int(self.item())

    def __index__(self):
        if self.dtype.is_floating_point or self.dtype == _dtypes.bool_ or self.numel() != 1:
            raise TypeError(_C.name_op_in_progress(
                "only integer tensors of a single element can be converted to an index"))
        return int(self.item())

    def __iter__(self):
        if self.dim() == 0:
            raise TypeError(_C.name_op_in_progress("iteration over a 0-d tensor"))
        return (self[i] for i in range(len(self)))

    def __contains__(self, element):
        # `x in t`: whether any element equals x (Python's fallback, iterating, would ask the truth
        # value of each row of a matrix)
        if not isinstance(element, (_C.TensorBase, numbers.Number)):
            raise RuntimeError(f"Tensor.__contains__ only supports Tensor or scalar, but you passed in a "
                               f"{type(element)}.")
        try:
            return bool((self == element).any().item())
        except (RuntimeError, OverflowError) as e:  # (eq's words: named after the op the user wrote)
            raise type(e)(f"Tensor.__contains__: {e}") from None

    def __format__(self, spec):
        if self.dim() == 0:
            return self.item().__format__(spec)
        return object.__format__(self, spec)

    @property
    def itemsize(self):
        """The size of one element in bytes (``element_size()``), as torch's property."""
        return self.element_size()

    @property
    def nbytes(self):
        """The bytes the elements take: ``numel() * itemsize`` (a view counts its own elements only, as torch)."""
        return self.numel() * self.element_size()

    # -- shape helpers that are pure compositions of core views
    @property
    def T(self):
        return self.permute(*reversed(range(self.dim())))

    @property
    def mT(self):
        return self.transpose(-2, -1)

    @property
    def mH(self):
        """The conjugate transpose of the last two dimensions (``mT`` for real tensors)."""
        if self.dim() < 2:
            raise RuntimeError("tensor.mH is only supported on matrices or batches of matrices. Got 1-D tensor."
                               if self.dim() == 1 else
                               "tensor.mH is only supported on matrices or batches of matrices. Got 0-D tensor.")
        out = self.transpose(-2, -1)
        return out.conj() if self.is_complex() else out

    @property
    def H(self):
        """The conjugate transpose of a matrix (``T`` for a real one); 0-D and 1-D tensors are refused as
        in torch."""
        if self.dim() != 2:
            raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got {self.dim()}-D tensor.")
        out = self.transpose(0, 1)
        return out.conj() if self.is_complex() else out

    def t(self):
        if self.dim() > 2:
            raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {self.dim()}D")
        return self.transpose(0, -1)  # a new view also for 0-D and 1-D tensors, as in torch

    def reshape(self, *shape, **kwargs):
        # (its text: _docs) torch and OneFlow also take the shape by keyword: x.reshape(shape=[-1])
        if kwargs:
            shape = _shape_keyword("reshape", "shape", shape, kwargs)
        return _base_reshape(self, *shape)

    def view(self, *shape, **kwargs):
        # (its text: _docs) the shape by keyword too: x.view(size=[4, 3]), as torch and OneFlow
        if kwargs:
            shape = _shape_keyword("view", "size", shape, kwargs)
        return _base_view(self, *shape)

    def permute(self, *dims, **kwargs):
        # (its text: _docs) the dims by keyword too: x.permute(dims=[1, 0]), as torch and OneFlow
        if kwargs:
            dims = _shape_keyword("permute", "dims", dims, kwargs)
        return _base_permute(self, *dims)

    def expand(self, *sizes, **kwargs):
        # (its text: _docs) the sizes by keyword too: x.expand(size=[2, 3]), as torch
        if kwargs:
            sizes = _shape_keyword("expand", "size", sizes, kwargs)
        return _base_expand(self, *sizes)

    def view_as(self, other):
        return self.view(_C.check_tensor(other, "view_as", "other").shape)

    def reshape_as(self, other):
        return self.reshape(_C.check_tensor(other, "reshape_as", "other").shape)

    def new_zeros(self, *size, dtype=None, device=None, requires_grad=False, pin_memory=False, **kwargs):
        from monoflow._creation import zeros

        return zeros(*size, **kwargs, dtype=self.dtype if dtype is None else dtype,
                     device=self.device if device is None else device, requires_grad=requires_grad)

    def new_ones(self, *size, dtype=None, device=None, requires_grad=False, pin_memory=False, **kwargs):
        from monoflow._creation import ones

        return ones(*size, **kwargs, dtype=self.dtype if dtype is None else dtype,
                    device=self.device if device is None else device, requires_grad=requires_grad)

    def new_empty(self, *size, dtype=None, device=None, requires_grad=False, pin_memory=False, **kwargs):
        from monoflow._creation import empty

        return empty(*size, **kwargs, dtype=self.dtype if dtype is None else dtype,
                     device=self.device if device is None else device, requires_grad=requires_grad)

    def new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
        from monoflow._creation import full

        try:
            return full(size, fill_value, dtype=self.dtype if dtype is None else dtype,
                        device=self.device if device is None else device, requires_grad=requires_grad)
        except (TypeError, ValueError, RuntimeError, OverflowError) as e:  # full's words would name full
            if not str(e).startswith("full(): ") or e.args != (str(e),):
                raise
            raise type(e)("new_full(): " + str(e)[len("full(): "):]) from None

    def new(self, *args, device=None, size=None):
        """OneFlow's (and torch's legacy) constructor: a tensor of this tensor's dtype and device.

        ``x.new()`` is empty (shape ``(0,)``); ``x.new(2, 3)``, ``x.new(flow.Size([2, 3]))`` or
        ``x.new(size=(2, 3))`` is uninitialized of that size; ``x.new([1, 2])`` or ``x.new(ndarray)``
        copies the data, converted to this dtype (a plain tuple is data, as in torch); ``x.new(t)``
        for a tensor ``t`` of the same dtype gives ``t``'s data (shared, detached).

        Example::

            >>> import monoflow as flow
            >>> x = flow.ones(2, dtype=flow.int32)
            >>> x.new([1.5, 2]), x.new(2, 3).shape, x.new().shape
            (tensor([1, 2], dtype=monoflow.int32), monoflow.Size([2, 3]), monoflow.Size([0]))
        """
        from monoflow._creation import empty, tensor

        dev = self.device if device is None else device
        if size is not None:
            if args:
                raise TypeError("new(): give the size either positionally or as size=, not both")
            return empty(tuple(size), dtype=self.dtype, device=dev)
        if not args:
            return empty(0, dtype=self.dtype, device=dev)
        if len(args) == 1 and isinstance(args[0], _C.TensorBase):
            other = args[0]
            if other.dtype != self.dtype:
                raise TypeError(f"new(): expected a tensor of dtype {self.dtype}, got {other.dtype}")
            return other.detach() if device is None else other.detach().to(dev)
        if len(args) == 1 and isinstance(args[0], Size):
            return empty(tuple(args[0]), dtype=self.dtype, device=dev)
        if all(isinstance(a, (int, np.integer)) and not isinstance(a, bool) for a in args):
            return empty(tuple(int(a) for a in args), dtype=self.dtype, device=dev)
        if len(args) == 1:
            return tensor(args[0], dtype=self.dtype, device=dev)
        raise TypeError(f"new(): takes sizes (ints), a Size, data or a tensor, got {args!r}")

    def new_tensor(self, data, dtype=None, device=None, requires_grad=False, pin_memory=False):
        """A new tensor copying `data`, with this tensor's dtype and device unless given."""
        from monoflow._creation import tensor

        try:
            return tensor(data, dtype=self.dtype if dtype is None else dtype,
                          device=self.device if device is None else device, requires_grad=requires_grad)
        except (TypeError, ValueError) as e:  # tensor()'s refusal of the data, named after this op
            msg = str(e)
            if not msg.startswith("tensor: ") or e.args != (msg,):
                raise
            raise type(e)(f"new_tensor(): {msg[len('tensor: '):]}") from None

    def squeeze(self, dim=None):
        """Removes size-1 dims: all of them, `dim`, or each dim of a tuple/list."""
        if dim is None or not isinstance(dim, (tuple, list)):
            return _C.TensorBase.squeeze(self, dim)
        nd = self.dim()
        wrapped = set()
        for d in dim:
            if not -max(nd, 1) <= d < max(nd, 1):
                raise IndexError(f"squeeze(): Dimension out of range (expected to be in range of "
                                 f"[{-max(nd, 1)}, {max(nd, 1) - 1}], but got {d})")
            if d % max(nd, 1) in wrapped:
                raise RuntimeError(f"squeeze(): dim {d % max(nd, 1)} appears multiple times in the list of dims")
            wrapped.add(d % max(nd, 1))
        out = self
        for d in sorted(wrapped, reverse=True):  # from the back: the earlier dims keep their positions
            out = _C.TensorBase.squeeze(out, d)
        return out if out is not self else self.view(self.shape)


class _RemovableHandle:
    __slots__ = ("_tensor", "_id")

    def __init__(self, tensor, hook_id):
        self._tensor, self._id = tensor, hook_id

    def remove(self):
        if self._tensor is not None:
            self._tensor._remove_hook(self._id)
            self._tensor = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def _pickle_numpy_dtype(dt):
    return np.dtype("<u2") if dt == _dtypes.bfloat16 else np.dtype(_dtypes.to_numpy(dt)).newbyteorder("<")


def _rebuild_tensor(dtype_name, shape, data, device, requires_grad=False):
    """Inverse of Tensor.__reduce__."""
    dt = _dtypes.ALIASES[dtype_name]
    npdt = _pickle_numpy_dtype(dt)
    host = np.frombuffer(data, dtype=npdt).astype(npdt.newbyteorder("="), copy=False)
    out = _C._from_host_array(host, shape, dt, device)
    if requires_grad:
        out.requires_grad_(True)
    return out


class _HostArray:
    """Exposes a tensor's host memory to numpy and keeps that memory alive (Note [Exported
    memory] in storage.h: the tensor itself may take other memory meanwhile)."""

    __slots__ = ("keeper", "__array_interface__")

    def __init__(self, keeper, ptr, shape, strides, npdt):
        self.keeper = keeper
        self.__array_interface__ = {"version": 3, "shape": shape, "strides": strides,
                                    "typestr": npdt.str, "data": (ptr, False)}


_C._set_tensor_class(Tensor)
