"""Names OneFlow (and torch) give to ops monoflow already has: ``argwhere``,
``as_strided``, ``cast``, ``gather_nd``, ``in_top_k``, ``new_ones``, the
activations ``mish``/``softsign``/``quick_gelu`` at the top level, and the
matching Tensor methods. Each is a thin composition of existing ops, so values,
gradients and errors are those ops'."""
import itertools
import math
import numbers

from monoflow import _C
from monoflow import _dtypes
from monoflow import _composite as _c

__all__ = ["_assert", "argwhere", "as_strided", "batch_gather", "broadcast_like", "cast", "combinations", "empty_strided", "gather_nd", "in_top_k", "mish",
           "new_empty", "new_ones", "new_zeros", "nms", "quick_gelu", "result_type", "scalar_tensor", "scatter_nd", "slice", "slice_update", "softshrink", "softsign",
           "tensor_scatter_nd_update", "unravel_index", "vander", "view"]


# combinations/vander build their result from Python-side index lists or
# column by column: past this many elements they refuse rather than run for hours.
_MAX_ELEMENTS = 1 << 27


def _F():
    from monoflow.nn import functional  # the functional layer sits above the Tensor class
    return functional


def argwhere(input):
    """The indices of the nonzero elements, one row per element (torch.argwhere).

    Args:
        input (Tensor): any tensor.

    Returns:
        Tensor: int64, shape ``(number of nonzeros, input.dim())``.

    Example::

        >>> import monoflow as flow
        >>> flow.argwhere(flow.tensor([[0, 1], [2, 0]]))
        tensor([[0, 1],
                [1, 0]])
    """
    return _C.check_tensor(input, "argwhere", "input").nonzero()


def as_strided(input, size, stride, storage_offset=None):
    """A view of `input`'s storage with the given sizes and strides (torch.as_strided).

    Args:
        input (Tensor): whose storage the view reads.
        size (sequence of int): the view's shape.
        stride (sequence of int): elements between neighbours along each dim.
        storage_offset (int, optional): the first element (default: `input`'s own offset).

    Example::

        >>> import monoflow as flow
        >>> flow.as_strided(flow.arange(6.0), (2, 2), (1, 2))
        tensor([[0., 2.],
                [1., 3.]])
    """
    return _C.check_tensor(input, "as_strided", "input").as_strided(size, stride, storage_offset)


def cast(input, dtype):
    """OneFlow's ``oneflow.cast``: `input` converted to `dtype` (``input.to(dtype)``).

    Args:
        input (Tensor): the tensor to convert.
        dtype (monoflow.dtype): the element type of the result.

    Example::

        >>> import monoflow as flow
        >>> flow.cast(flow.tensor([1.7, -1.2]), flow.int32)
        tensor([ 1, -1], dtype=monoflow.int32)
    """
    if not isinstance(dtype, _C.dtype):
        raise TypeError(f"cast(): argument 'dtype' must be monoflow.dtype, not {type(dtype).__name__}")
    return _C.check_tensor(input, "cast", "input").to(dtype)


def gather_nd(params, indices):
    """OneFlow's ``oneflow.gather_nd``: the slices of `params` at the index tuples in `indices`' last dim.

    Args:
        params (Tensor): the source, ``(d0, ..., dn)``.
        indices (Tensor): integer, ``(..., k)`` with k <= params.dim(); each row indexes the first k dims.

    Returns:
        Tensor: ``indices.shape[:-1] + params.shape[k:]``, differentiable in `params`.

    Example::

        >>> import monoflow as flow
        >>> flow.gather_nd(flow.tensor([[1, 2], [3, 4]]), flow.tensor([[1, 0], [0, 1]]))
        tensor([3, 2])
    """
    params = _C.check_tensor(params, "gather_nd", "params")
    indices = _C.check_tensor(indices, "gather_nd", "indices")
    if indices.dtype.is_floating_point or indices.dim() == 0:
        raise TypeError("gather_nd(): argument 'indices' must be an integer tensor with at least 1 dim")
    k = indices.shape[-1]
    if k > params.dim():
        raise IndexError(f"gather_nd(): indices.shape[-1] ({k}) exceeds params.dim() ({params.dim()})")
    return params[tuple(indices[..., i] for i in range(k))]


def in_top_k(targets, predictions, k):
    """OneFlow's ``oneflow.in_top_k``: whether each target class is among the row's `k` largest predictions.

    Args:
        targets (Tensor): integer, ``(N,)``, a class per row.
        predictions (Tensor): ``(N, C)`` scores.
        k (int): how many of the top scores count.

    Returns:
        Tensor: bool, ``(N,)``.

    Example::

        >>> import monoflow as flow
        >>> flow.in_top_k(flow.tensor([2, 0]), flow.tensor([[0.1, 0.2, 0.7], [0.5, 0.3, 0.2]]), 1)
        tensor([True, True])
    """
    targets = _C.check_tensor(targets, "in_top_k", "targets")
    predictions = _C.check_tensor(predictions, "in_top_k", "predictions")
    # OneFlow's checks and wording, raised as RuntimeError (OneFlow's) that is also the ValueError monoflow
    # raised before (Note [Errors OneFlow raises as RuntimeError] in core/include/monoflow/error.h)
    if targets.dtype not in (_dtypes.int32, _dtypes.int64):
        raise _C.ValueRuntimeError(f"in_top_k(): targets data type must be index type, but got {targets.dtype}")
    if targets.dim() >= 1 and predictions.dim() >= 1 and targets.shape[0] != predictions.shape[0]:  # (OneFlow's order)
        raise _C.ValueRuntimeError(f"in_top_k(): The num of targets must equal the num of predictions, but got "
                                   f"{targets.shape[0]} and {predictions.shape[0]}")
    if targets.dim() != 1:
        raise _C.ValueRuntimeError(f"in_top_k(): The dimension of targets must be 1, but got {targets.dim()}")
    if predictions.dim() != 2:
        raise _C.ValueRuntimeError(f"in_top_k(): The dimension of predictions must be 2, but got {predictions.dim()}")
    if targets.shape[0] != predictions.shape[0]:
        raise _C.ValueRuntimeError(f"in_top_k(): The num of targets must equal the num of predictions, but got "
                                   f"{targets.shape[0]} and {predictions.shape[0]}")
    top = predictions.topk(min(int(k), predictions.shape[1]), dim=1).indices
    return (top == targets.reshape(-1, 1)).any(dim=1)


def new_ones(x, size=None, dtype=None, device=None, requires_grad=False):
    """OneFlow's ``oneflow.new_ones``: ones of `size` with `x`'s dtype and device unless given.

    Args:
        x (Tensor): the tensor whose dtype and device are the defaults.
        size (int or sequence of int, optional): the shape (default: `x`'s).
        dtype, device: override `x`'s.
        requires_grad (bool): whether autograd records operations on the result.

    Example::

        >>> import monoflow as flow
        >>> flow.new_ones(flow.zeros(2, dtype=flow.int32), (3,))
        tensor([1, 1, 1], dtype=monoflow.int32)
    """
    x = _C.check_tensor(x, "new_ones", "x")
    return x.new_ones(tuple(x.shape) if size is None else size, dtype=dtype, device=device,
                      requires_grad=requires_grad)


def new_zeros(x, size=None, dtype=None, device=None, requires_grad=False):
    """OneFlow's ``oneflow.new_zeros``: zeros of `size` with `x`'s dtype and device (a global `x`: its placement
    and SBP) unless given.

    Args:
        x (Tensor): the tensor whose dtype and device are the defaults.
        size (int or sequence of int, optional): the shape (default: `x`'s).
        dtype, device: override `x`'s.
        requires_grad (bool): whether autograd records operations on the result.

    Example::

        >>> import monoflow as flow
        >>> flow.new_zeros(flow.ones(2, dtype=flow.int32))
        tensor([0, 0], dtype=monoflow.int32)
    """
    x = _C.check_tensor(x, "new_zeros", "x")
    return x.new_zeros(tuple(x.shape) if size is None else size, dtype=dtype, device=device,
                       requires_grad=requires_grad)


def new_empty(x, size=None, dtype=None, device=None, requires_grad=False):
    """OneFlow's ``oneflow.new_empty``: an uninitialized tensor of `size` with `x`'s dtype and device (a global `x`:
    its placement and SBP) unless given.

    Args:
        x (Tensor): the tensor whose dtype and device are the defaults.
        size (int or sequence of int, optional): the shape (default: `x`'s).
        dtype, device: override `x`'s.
        requires_grad (bool): whether autograd records operations on the result.

    Example::

        >>> import monoflow as flow
        >>> flow.new_empty(flow.ones(2, dtype=flow.int32), size=(2, 3)).shape
        monoflow.Size([2, 3])
    """
    x = _C.check_tensor(x, "new_empty", "x")
    return x.new_empty(tuple(x.shape) if size is None else size, dtype=dtype, device=device,
                       requires_grad=requires_grad)


def mish(input):
    """``input * tanh(softplus(input))`` (``nn.functional.mish``).

    Example::

        >>> import monoflow as flow
        >>> flow.mish(flow.tensor([0.0, 1.0]))
        tensor([0.0000, 0.8651])
    """
    return _F().mish(input)


def softshrink(input, lambd=0.5):
    """OneFlow's ``flow.softshrink`` (``nn.functional.softshrink``): ``x - lambd`` above ``lambd``,
    ``x + lambd`` below ``-lambd``, 0 between.

    Args:
        input (Tensor): a floating-point tensor.
        lambd (float): the threshold, at least 0. Default: 0.5.

    Example::

        >>> import monoflow as flow
        >>> flow.softshrink(flow.tensor([-1.0, 0.2, 2.0]))
        tensor([-0.5000,  0.0000,  1.5000])
    """
    return _F().softshrink(input, lambd)


def softsign(input):
    """``input / (1 + |input|)`` (``nn.functional.softsign``).

    Example::

        >>> import monoflow as flow
        >>> flow.softsign(flow.tensor([1.0, -3.0]))
        tensor([ 0.5000, -0.7500])
    """
    return _F().softsign(input)


def quick_gelu(input):
    """OneFlow's ``oneflow.quick_gelu``: ``input * sigmoid(1.702 * input)``, GELU's fast approximation.

    Example::

        >>> import monoflow as flow
        >>> flow.quick_gelu(flow.tensor([0.0, 1.0]))
        tensor([0.0000, 0.8458])
    """
    input = _C.check_tensor(input, "quick_gelu", "input")
    return input * (input * 1.702).sigmoid()


def _creation():
    from monoflow import _creation as creation  # defines the Tensor-returning factories
    return creation


def scalar_tensor(s, *, dtype=None, layout=None, device=None, pin_memory=False, requires_grad=False):
    """A 0-dim tensor holding the number `s`, of the default float dtype unless `dtype` says.

    Args:
        s (number): the value.
        dtype, device: of the result (default: the default dtype, the default device).
        layout, pin_memory: accepted for torch's signature.
        requires_grad (bool): whether autograd records operations on the result.

    Example::

        >>> import monoflow as flow
        >>> flow.scalar_tensor(3)
        tensor(3.)
    """
    if not isinstance(s, (numbers.Number, _C.TensorBase)):
        raise TypeError(f"scalar_tensor(): argument 's' (position 1) must be Number, not {type(s).__name__}")
    if isinstance(s, _C.TensorBase) and s.dim() != 0:  # (torch takes a 0-dim tensor as a Number, no other)
        raise TypeError("scalar_tensor(): argument 's' (position 1) must be Number, not Tensor")
    if dtype is not None and not isinstance(dtype, _C.dtype):  # (an array's truth value would be asked)
        raise TypeError(f"scalar_tensor(): argument 'dtype' must be monoflow.dtype, not {type(dtype).__name__}")
    if device is not None and not isinstance(device, (str, _C.device)):  # (an array's truth value would be asked)
        raise TypeError(f"scalar_tensor(): argument 'device' must be monoflow.device or str, not {type(device).__name__}")
    return _creation().tensor(s, dtype=dtype or _C.get_default_dtype(), device=device, requires_grad=requires_grad)


def _probe(x, op, name):
    if isinstance(x, _C.TensorBase):
        return x
    if isinstance(x, (bool, numbers.Number)):
        return x
    raise TypeError(f"{op}(): argument '{name}' must be Tensor or Number, not {type(x).__name__}")


def result_type(tensor1, tensor2):
    """The dtype an arithmetic op of `tensor1` and `tensor2` gives, by torch's promotion rules
    (dimensioned tensors over 0-dim ones over Python numbers, within each category).

    Args:
        tensor1, tensor2 (Tensor or number): the operands.

    Returns:
        monoflow.dtype: the result's dtype.

    Example::

        >>> import monoflow as flow
        >>> flow.result_type(flow.tensor([1, 2], dtype=flow.int8), 5.0)
        monoflow.float32
        >>> flow.result_type(flow.tensor([1, 2], dtype=flow.int8), flow.tensor(5))
        monoflow.int8
    """
    a, b = _probe(tensor1, "result_type", "tensor1"), _probe(tensor2, "result_type", "tensor2")
    if not isinstance(a, _C.TensorBase) and not isinstance(b, _C.TensorBase):
        a = _creation().tensor(a)  # two numbers: the first as a 0-dim tensor, as torch ranks them
    # Ask the op itself on one-element stand-ins, so the answer is monoflow's promotion.
    a = a.new_zeros([1] * a.dim()) if isinstance(a, _C.TensorBase) else a
    b = b.new_zeros([1] * b.dim()) if isinstance(b, _C.TensorBase) else b
    return (a + b).dtype


def empty_strided(size, stride, *, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False):
    """An uninitialised tensor of `size` laid out with `stride` (torch.empty_strided).

    Args:
        size (sequence of int): the shape.
        stride (sequence of int): elements between neighbours along each dim (non-negative).
        dtype, device: of the result.
        layout, pin_memory: accepted for torch's signature.
        requires_grad (bool): whether autograd records operations on the result.

    Example::

        >>> import monoflow as flow
        >>> flow.empty_strided((2, 3), (1, 2)).stride()
        (1, 2)
    """
    size = list(_c.int_tuple("empty_strided", "size", size))
    stride = list(_c.int_tuple("empty_strided", "stride", stride))
    if len(size) != len(stride):
        raise RuntimeError(f"empty_strided(): mismatch in length of strides and shape ({len(stride)} vs {len(size)})")
    if any(v < 0 for v in size + stride):
        raise RuntimeError("empty_strided(): sizes and strides must be non-negative")
    storage = 0 if 0 in size else 1 + sum((n - 1) * st for n, st in zip(size, stride))
    out = _creation().empty(storage, dtype=dtype, device=device).as_strided(size, stride, 0)
    return out.requires_grad_(requires_grad) if requires_grad else out


def unravel_index(indices, shape):
    """The coordinates, in a tensor of `shape`, of the flat (row-major) `indices`.

    Args:
        indices (Tensor or int): integer flat indices, each in ``[-numel, numel)``.
        shape (int or sequence of int): the tensor shape they index.

    Returns:
        tuple of Tensor: one int64 tensor per dim of `shape`, each shaped as `indices`.

    Example::

        >>> import monoflow as flow
        >>> flow.unravel_index(flow.tensor([5, 7]), (2, 4))
        (tensor([1, 1]), tensor([1, 3]))
    """
    if isinstance(indices, numbers.Integral) and not isinstance(indices, bool):
        if not -2 ** 63 <= indices < 2 ** 63:
            raise OverflowError(f"unravel_index(): 'indices' {indices} is out of the int64 range")
        indices = _creation().tensor(indices)
    indices = _C.check_tensor(indices, "unravel_index", "indices")
    if indices.dtype.is_floating_point or indices.dtype.name == "bool":
        raise TypeError(f"unravel_index(): expected 'indices' to be an integer tensor, got {indices.dtype!r}")
    shape = _c.int_tuple("unravel_index", "shape", shape)
    if any(n < 0 for n in shape):
        raise ValueError("unravel_index(): 'shape' cannot have negative values")
    numel = 1
    for n in shape:
        numel *= n
    flat = indices.long()
    if flat.numel() and (int(flat.min()) < -numel or int(flat.max()) >= numel):
        raise ValueError(f"unravel_index(): 'indices' must be in range [-{numel}, {numel - 1}]")
    flat = flat % numel if numel else flat
    coords = []
    for n in reversed(shape):
        coords.append(flat % n)
        flat = flat // n
    return tuple(reversed(coords))


def combinations(input, r=2, with_replacement=False):
    """The length-`r` combinations of the elements of the 1-D `input`, as rows (itertools' order).

    Args:
        input (Tensor): 1-D.
        r (int): elements per combination.
        with_replacement (bool): allow an element to repeat.

    Returns:
        Tensor: ``(number of combinations, r)``, differentiable in `input`.

    Example::

        >>> import monoflow as flow
        >>> flow.combinations(flow.tensor([1, 2, 3]))
        tensor([[1, 2],
                [1, 3],
                [2, 3]])
    """
    input = _C.check_tensor(input, "combinations", "input")
    if input.dim() != 1:
        raise RuntimeError(f"combinations(): expect a 1D vector, but got shape {list(input.shape)}")
    r = _C.check_int(r, "combinations", "r", 2)
    if r < 0:
        raise RuntimeError(f"combinations(): r must be non-negative, got {r}")
    n = input.shape[0]
    count = math.comb(n + r - 1, r) if with_replacement else math.comb(n, r)
    if count * max(r, 1) > _MAX_ELEMENTS:
        raise RuntimeError(f"combinations(): {count} combinations of {r} elements are too many to build")
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    rows = list(pick(range(input.shape[0]), r))
    if not rows or r == 0:
        return input.new_empty([0] if r == 0 else [0, r])
    index = _creation().tensor(rows).reshape(-1)
    return input.index_select(0, index).reshape(len(rows), r)


def vander(x, N=None, increasing=False):
    """The Vandermonde matrix of the 1-D `x`: columns ``x ** (N-1), ..., x ** 0`` (reversed when `increasing`).

    Args:
        x (Tensor): 1-D.
        N (int, optional): columns (default ``len(x)``).
        increasing (bool): powers left to right ascending.

    Example::

        >>> import monoflow as flow
        >>> flow.vander(flow.tensor([1, 2, 3]), 3)
        tensor([[1, 1, 1],
                [4, 2, 1],
                [9, 3, 1]])
    """
    x = _C.check_tensor(x, "vander", "x")
    if x.dim() != 1:
        raise RuntimeError("vander(): x must be a one-dimensional tensor")
    n = x.shape[0] if N is None else _C.check_int(N, "vander", "N", 2)
    if n < 0:
        raise RuntimeError("vander(): N must be non-negative")
    if n * x.shape[0] > _MAX_ELEMENTS:
        raise RuntimeError(f"vander(): a {x.shape[0]} x {n} matrix is too large to build")
    if x.dtype.name == "bool" or (not x.dtype.is_floating_point and x.dtype.name != "int64"):
        x = x.long()  # torch computes integer and bool inputs in int64
    if n == 0:
        return x.new_empty([x.shape[0], 0])
    columns = [x.new_ones(x.shape)]
    for _ in range(1, n):
        columns.append(columns[-1] * x)  # products, so gradients flow through every power
    if not increasing:
        columns.reverse()
    from monoflow.ops_shape import stack
    return stack(columns, 1)


def _nd_index(indices, op, rank):
    indices = _C.check_tensor(indices, op, "indices")
    if indices.dtype.is_floating_point or indices.dtype.name == "bool" or indices.dim() == 0:
        raise TypeError(f"{op}(): argument 'indices' must be an integer tensor with at least 1 dim")
    k = indices.shape[-1]
    if k > rank:
        raise IndexError(f"{op}(): indices.shape[-1] ({k}) exceeds the indexed tensor's {rank} dims")
    return tuple(indices[..., i] for i in range(k))


def tensor_scatter_nd_update(tensor, indices, updates):
    """OneFlow's ``oneflow.tensor_scatter_nd_update``: a copy of `tensor` with the slices at the
    index tuples of `indices` replaced by `updates` (the inverse of ``gather_nd``).

    Args:
        tensor (Tensor): the values kept elsewhere.
        indices (Tensor): integer, ``(..., k)``; each row indexes the first k dims.
        updates (Tensor): ``indices.shape[:-1] + tensor.shape[k:]``.

    Returns:
        Tensor: differentiable in `tensor` (where not replaced) and `updates`.

    Example::

        >>> import monoflow as flow
        >>> flow.tensor_scatter_nd_update(flow.zeros(4), flow.tensor([[1], [3]]), flow.tensor([5.0, 6.0]))
        tensor([0., 5., 0., 6.])
    """
    tensor = _C.check_tensor(tensor, "tensor_scatter_nd_update", "tensor")
    index = _nd_index(indices, "tensor_scatter_nd_update", tensor.dim())
    updates = _C.check_tensor(updates, "tensor_scatter_nd_update", "updates")
    if updates.dtype != tensor.dtype:  # (OneFlow's wording)
        raise RuntimeError(f"tensor_scatter_nd_update(): The dtype of tensor and updates must be same. Got "
                           f"{tensor.dtype} and {updates.dtype}")
    from monoflow.ops_shape import index_put
    return index_put(tensor, index, updates)


def scatter_nd(index, update, shape):
    """OneFlow's ``oneflow.scatter_nd``: zeros of `shape` with `update` written at the index tuples of `index`.

    Args:
        index (Tensor): integer, ``(..., k)``.
        update (Tensor): ``index.shape[:-1] + shape[k:]``; its dtype is the result's.
        shape (sequence of int): the result's shape.

    Example::

        >>> import monoflow as flow
        >>> flow.scatter_nd(flow.tensor([[1], [6], [4]]), flow.tensor([10.2, 5.1, 12.7]), [8])
        tensor([ 0.0000, 10.2000,  0.0000,  0.0000, 12.7000,  0.0000,  5.1000,  0.0000])
    """
    index = _C.check_tensor(index, "scatter_nd", "index", 1)
    if index.dtype.is_floating_point or index.dtype.name == "bool" or index.dim() == 0:
        raise TypeError("scatter_nd(): argument 'index' must be an integer tensor with at least 1 dim")
    update = _C.check_tensor(update, "scatter_nd", "update", 2)
    if not isinstance(shape, (list, tuple)) or not all(isinstance(v, numbers.Integral) for v in shape):
        raise TypeError(f"scatter_nd(): argument 'shape' (position 3) must be tuple of ints, not {type(shape).__name__}")
    zeros = update.new_zeros(tuple(int(v) for v in shape))
    return tensor_scatter_nd_update(zeros, index, update)


_builtin_slice = slice


def slice(input, slice_tup_list):
    """OneFlow's ``oneflow.slice``: ``input[start:stop:step, ...]`` from one ``(start, stop, step)`` per dim.

    Args:
        input (Tensor): the tensor to slice.
        slice_tup_list (sequence of (start, stop, step)): leading dims; None entries mean the whole range.

    Returns:
        Tensor: a view of `input`.

    Example::

        >>> import monoflow as flow
        >>> flow.slice(flow.arange(10), [[1, 8, 3]])
        tensor([1, 4, 7])
    """
    input = _C.check_tensor(input, "slice", "input")
    if not isinstance(slice_tup_list, (list, tuple)):
        raise TypeError(f"slice(): argument 'slice_tup_list' (position 2) must be a sequence of (start, stop, step), "
                        f"not {type(slice_tup_list).__name__}")
    if len(slice_tup_list) > input.dim():
        raise IndexError(f"slice(): {len(slice_tup_list)} slices for a tensor of {input.dim()} dims")
    parts = []
    for t in slice_tup_list:
        if not isinstance(t, (list, tuple)) or len(t) != 3:
            raise ValueError(f"slice(): each entry of slice_tup_list must be (start, stop, step), got {t!r}")
        parts.append(_builtin_slice(*t))
    return input[tuple(parts)]


def broadcast_like(input, like, broadcast_axes=None):
    """OneFlow's ``oneflow.broadcast_like``: ``input`` expanded to ``like``'s shape.

    Args:
        input (Tensor): the tensor to broadcast.
        like (Tensor): the tensor whose shape the result takes (its values are not read).
        broadcast_axes (sequence of int, optional): the dims of ``like`` along which ``input``
            is repeated. When ``input`` has fewer dims than ``like``, its dims fill the other
            positions in order; with as many dims, ``input`` must have size 1 there.
            Default: ``None``: broadcasting's usual rule (aligned at the last dim).

    Returns:
        Tensor: a view of ``input`` of ``like``'s shape (the gradient sums over the broadcast).

    Example::

        >>> import monoflow as flow
        >>> flow.broadcast_like(flow.ones(3, 1), flow.zeros(3, 4), broadcast_axes=(1,)).shape
        monoflow.Size([3, 4])
        >>> flow.broadcast_like(flow.tensor([1.0, 2.0]), flow.zeros(2, 1, 2)).shape
        monoflow.Size([2, 1, 2])
    """
    input = _C.check_tensor(input, "broadcast_like", "input", 1)
    like = _C.check_tensor(like, "broadcast_like", "like", 2)
    shape = tuple(like.shape)
    if broadcast_axes is not None:
        if isinstance(broadcast_axes, numbers.Integral):
            broadcast_axes = (broadcast_axes,)
        axes = sorted({int(a) % len(shape) if len(shape) else int(a) for a in broadcast_axes})
        if any(a < 0 or a >= len(shape) for a in axes):
            raise IndexError(f"broadcast_like(): broadcast_axes {tuple(broadcast_axes)} out of range for "
                             f"like's {len(shape)} dims")
        if input.dim() < len(shape):
            kept = [d for d in range(len(shape)) if d not in axes]
            if len(kept) != input.dim():
                raise RuntimeError(f"broadcast_like(): input of shape {list(input.shape)} does not fill the "
                                   f"{len(kept)} dims of like (shape {list(shape)}) outside broadcast_axes "
                                   f"{tuple(broadcast_axes)}")
            view = [1] * len(shape)
            for d, n in zip(kept, input.shape):
                view[d] = n
            input = input.reshape(view)
    if input.dim() > len(shape):  # (OneFlow's wording)
        raise RuntimeError(f"broadcast_like(): The number of sizes provided ({len(shape)}) must be greater or equal to "
                           f"the number of dimensions in the tensor ({input.dim()}): input of shape "
                           f"{list(input.shape)}, like of shape {list(shape)}")
    try:
        return input.expand(shape)
    except RuntimeError as exc:
        raise RuntimeError(f"broadcast_like(): cannot broadcast input of shape {list(input.shape)} to like's "
                           f"shape {list(shape)}: {exc}") from None


def batch_gather(input, indices):
    """OneFlow's ``oneflow.batch_gather``: gathers along the dim after the batch dims of ``indices``.

    With ``indices`` of shape ``(B..., K)`` and ``input`` of shape ``(B..., N, rest...)``,
    ``out[b..., k, rest...] = input[b..., indices[b..., k], rest...]``; a 1-D ``indices`` picks rows.

    Args:
        input (Tensor): the tensor to gather from.
        indices (Tensor): int32/int64 indices; its leading dims must match ``input``'s.

    Returns:
        Tensor: of shape ``(B..., K, rest...)``, differentiable with respect to ``input``.

    Example::

        >>> import monoflow as flow
        >>> x = flow.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
        >>> flow.batch_gather(x, flow.tensor([1, 0]))
        tensor([[4., 5., 6.],
                [1., 2., 3.]])
    """
    input = _C.check_tensor(input, "batch_gather", "in", 1)
    indices = _C.check_tensor(indices, "batch_gather", "indices", 2)
    if indices.dtype.is_floating_point or indices.dtype.is_complex or indices.dtype.name == "bool":
        raise TypeError(f"batch_gather(): The dtype of the indices tensor must be int32 or int64, but got "
                        f"{indices.dtype}")
    # (OneFlow's checks and wording)
    if input.dim() < 1:
        raise RuntimeError(f"batch_gather(): The dimension of the input tensor should be greater than zero, but got "
                           f"{input.dim()}")
    if indices.dim() < 1:
        raise RuntimeError(f"batch_gather(): The dimension of the indices tensor should be greater than zero, but "
                           f"got {indices.dim()}")
    if input.dim() < indices.dim():
        raise RuntimeError(f"batch_gather(): The dimension of the input tensor should be greater than or equal to the "
                           f"dimension of the indices tensor, but got {input.dim()} and {indices.dim()}")
    axis = indices.dim() - 1
    for i in range(axis):
        if input.shape[i] != indices.shape[i]:
            raise RuntimeError(f"batch_gather(): The size of bias tensor must match the size of input tensor at "
                               f"dimension {i}: indices of shape {list(indices.shape)} do not match the leading dims "
                               f"of input (shape {list(input.shape)})")
    rest = tuple(input.shape[axis + 1:])
    from monoflow import _dtypes

    index = indices.to(_dtypes.int64).reshape(tuple(indices.shape) + (1,) * len(rest))
    index = index.expand(tuple(indices.shape) + rest)
    return input.gather(axis, index)


def nms(boxes, scores, iou_threshold):
    """OneFlow's ``oneflow.nms``: non-maximum suppression of ``(x1, y1, x2, y2)`` boxes.

    Boxes are visited by decreasing score; a box is kept unless its IoU with an already kept box
    is above ``iou_threshold``.

    Args:
        boxes (Tensor): ``(N, 4)`` floating boxes, ``x1 <= x2`` and ``y1 <= y2``.
        scores (Tensor): ``(N,)`` scores.
        iou_threshold (float): boxes overlapping a kept one by more than this are dropped.

    Returns:
        Tensor: the int64 indices of the kept boxes, by decreasing score.

    Example::

        >>> import monoflow as flow
        >>> boxes = flow.tensor([[0.0, 0.0, 2.0, 2.0], [0.1, 0.0, 2.1, 2.0], [5.0, 5.0, 6.0, 6.0]])
        >>> flow.nms(boxes, flow.tensor([0.9, 0.8, 0.7]), 0.5)
        tensor([0, 2])
    """
    import numpy as np

    boxes = _C.check_tensor(boxes, "nms", "boxes", 1)
    scores = _C.check_tensor(scores, "nms", "scores", 2)
    if boxes.dim() != 2 or boxes.shape[-1] != 4 or scores.dim() != 1 or scores.shape[0] != boxes.shape[0]:
        raise RuntimeError(f"nms(): expected boxes of shape (N, 4) and scores of shape (N,), got "
                           f"{list(boxes.shape)} and {list(scores.shape)}")
    b = boxes.detach().cpu().numpy().astype(np.float64)
    order = list(np.argsort(-scores.detach().cpu().numpy(), kind="stable"))
    area = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    keep = []
    while order:
        i = order.pop(0)
        keep.append(i)
        if not order:
            break
        rest = np.asarray(order)
        w = np.clip(np.minimum(b[rest, 2], b[i, 2]) - np.maximum(b[rest, 0], b[i, 0]), 0, None)
        h = np.clip(np.minimum(b[rest, 3], b[i, 3]) - np.maximum(b[rest, 1], b[i, 1]), 0, None)
        inter = w * h
        iou = inter / (area[rest] + area[i] - inter)
        order = [j for j, v in zip(order, iou) if not v > iou_threshold]
    from monoflow import _creation, _dtypes

    return _creation.tensor(np.asarray(keep, dtype=np.int64), dtype=_dtypes.int64, device=boxes.device)


def _slices(op, spec, ndim):
    if not isinstance(spec, (list, tuple)):
        raise TypeError(f"{op}(): argument 'slice_tup_list' must be a sequence of (start, stop, step), "
                        f"not {type(spec).__name__}")
    if len(spec) > ndim:
        raise IndexError(f"{op}(): {len(spec)} slices for a tensor of {ndim} dims")
    parts = []
    for t in spec:
        if not isinstance(t, (list, tuple)) or len(t) != 3:
            raise ValueError(f"{op}(): each entry of slice_tup_list must be (start, stop, step), got {t!r}")
        parts.append(_builtin_slice(*t))
    return tuple(parts)


def check_slice_elements(op, start, stop, step):
    """OneFlow's checks and wording for the (start, stop, step) lists of oneflow._C.slice and slice_update."""
    for i, (a, b, s) in enumerate(zip(start, stop, step)):
        if a < 0:
            raise RuntimeError(f"{op}(): The start list elements must be greater than or equal to 0, but got {a} "
                               f"at index {i}")
        if b < 0:
            raise RuntimeError(f"{op}(): The stop list elements must be greater than or equal to 0, but got {b} "
                               f"at index {i}")
        if s <= 0:
            raise RuntimeError(f"{op}(): The step list elements must be greater than 0, but got {s} at index {i}")
        if a > b:
            raise RuntimeError(f"{op}(): The element in start list must be less than or equal to the element in stop "
                               f"list at index {i}, but got {a} and {b}")


def _check_slice_lists(op, ref, value, start, stop, step):
    # OneFlow's checks and wording for oneflow._C.slice_update(ref, value, start, stop, step)
    if len(start) > ref.dim():
        raise _C.IndexRuntimeError(f"{op}(): {len(start)} slices for a tensor of {ref.dim()} dims (The size of slice "
                                   f"tuple must be equal to the size of value tensor at dimension {ref.dim()})")
    check_slice_elements(op, start, stop, step)
    if isinstance(value, _C.TensorBase) and value.dtype != ref.dtype:
        raise TypeError(f"{op}(): Tensors ref and value must have same type, but got {ref.dtype} and {value.dtype}")


def slice_update(input, update, slice_tup_list, stop=None, step=None, *, inplace=None):
    """OneFlow's ``oneflow.slice_update``: writes ``update`` into ``input[start:stop:step, ...]``.

    Two forms, as in OneFlow:

    - ``slice_update(input, update, slice_tup_list)``, one ``(start, stop, step)`` per leading dim:
      updates ``input`` in place and returns it (``oneflow.slice_update``).
    - ``slice_update(ref, value, start, stop, step)`` with three lists of ints: returns a new tensor,
      differentiable with respect to both ``ref`` and ``value`` (``oneflow._C.slice_update``).

    ``update`` is cast to ``input``'s dtype and broadcast to the slice's shape.

    Args:
        input (Tensor): the tensor written (in place in the first form).
        update (Tensor or number): the values written into the slice.
        slice_tup_list (sequence): ``(start, stop, step)`` per leading dim (None: the whole range);
            in the second form, the list of starts.
        stop (list of int, optional): the second form's stops. Default: ``None``.
        step (list of int, optional): the second form's steps. Default: ``None``.
        inplace (bool, optional): overrides the form's default (in place for the first form,
            a new tensor for the second). Default: ``None``.

    Example::

        >>> import monoflow as flow
        >>> x = flow.ones(5)
        >>> flow.slice_update(x, flow.tensor([2.0, 3.0, 4.0]), [[1, 4, 1]])
        tensor([1., 2., 3., 4., 1.])
        >>> flow.slice_update(flow.zeros(4), flow.ones(2), [0], [4], [2])
        tensor([1., 0., 1., 0.])
    """
    input = _C.check_tensor(input, "slice_update", "input")
    if stop is None and step is None:
        index = _slices("slice_update", slice_tup_list, input.dim())
        inplace = True if inplace is None else inplace
    else:
        start = slice_tup_list
        if not all(isinstance(v, (list, tuple)) for v in (start, stop, step)) or not len(start) == len(stop) == len(step):
            raise TypeError("slice_update(): start, stop and step must be lists of ints of the same length")
        _check_slice_lists("slice_update", input, update, start, stop, step)
        index = _slices("slice_update", [tuple(t) for t in zip(start, stop, step)], input.dim())
        inplace = False if inplace is None else inplace
    out = input if inplace else input.clone()
    out[index] = update
    return out


class TensorMethods:
    """Mixed into monoflow.Tensor."""

    def argwhere(self):
        """Tensor.argwhere() -> Tensor: ``monoflow.argwhere`` of this tensor.

        Example::

            >>> import monoflow as flow
            >>> flow.tensor([0, 3]).argwhere()
            tensor([[1]])
        """
        return argwhere(self)

    def zeros_(self):
        """Tensor.zeros_() -> Tensor: fills this tensor with zeros in place (OneFlow's name for ``zero_``).

        Example::

            >>> import monoflow as flow
            >>> flow.ones(2).zeros_()
            tensor([0., 0.])
        """
        try:
            return self.zero_()
        except RuntimeError as e:  # (the refusal names the method called)
            raise type(e)(f"zeros_: {e}") from None

    def cast(self, dtype):
        """Tensor.cast(dtype) -> Tensor: ``monoflow.cast`` of this tensor (OneFlow's name).

        Example::

            >>> import monoflow as flow
            >>> flow.tensor([1.5]).cast(flow.int64)
            tensor([1])
        """
        return cast(self, dtype)

    def mish(self):
        """Tensor.mish() -> Tensor: ``nn.functional.mish`` of this tensor.

        Example::

            >>> import monoflow as flow
            >>> flow.tensor([1.0]).mish()
            tensor([0.8651])
        """
        return _F().mish(self)

    def softsign(self):
        """Tensor.softsign() -> Tensor: ``nn.functional.softsign`` of this tensor.

        Example::

            >>> import monoflow as flow
            >>> flow.tensor([1.0]).softsign()
            tensor([0.5000])
        """
        return _F().softsign(self)

    def selu(self):
        """Tensor.selu() -> Tensor: ``nn.functional.selu`` of this tensor.

        Example::

            >>> import monoflow as flow
            >>> flow.tensor([1.0]).selu()
            tensor([1.0507])
        """
        return _F().selu(self)

    def silu(self):
        """Tensor.silu() -> Tensor: ``nn.functional.silu`` of this tensor.

        Example::

            >>> import monoflow as flow
            >>> flow.tensor([1.0]).silu()
            tensor([0.7311])
        """
        return _F().silu(self)

    def softplus(self, beta=1.0, threshold=20.0):
        """Tensor.softplus(beta=1.0, threshold=20.0) -> Tensor: ``nn.functional.softplus`` of this tensor.

        Args:
            beta (float): the sharpness.
            threshold (float): above ``beta * x`` the identity is returned.

        Example::

            >>> import monoflow as flow
            >>> flow.tensor([0.0]).softplus()
            tensor([0.6931])
        """
        return _F().softplus(self, beta, threshold)

    def sum_to_size(self, *size):
        """Tensor.sum_to_size(*size) -> Tensor: this tensor summed down to `size`, to which it must broadcast.

        Args:
            size (int or sequence of int): the target shape.

        Example::

            >>> import monoflow as flow
            >>> flow.ones(2, 3).sum_to_size(1, 3)
            tensor([[2., 2., 2.]])
        """
        size = size[0] if len(size) == 1 and isinstance(size[0], (tuple, list)) else size
        size = tuple(_C.check_int(v, "sum_to_size", "size") for v in size)
        shape = tuple(self.shape)
        lead = len(shape) - len(size)
        if lead < 0 or any(t != 1 and t != s for t, s in zip(size, shape[lead:])):
            raise RuntimeError(f"sum_to_size(): size {{{list(size)}}} is not expandable to size {{{list(shape)}}}.")
        out = self.sum(dim=tuple(range(lead))) if lead else self
        dims = tuple(d for d, (t, s) in enumerate(zip(size, shape[lead:])) if t == 1 and s != 1)
        return out.sum(dim=dims, keepdim=True) if dims else out

    def in_top_k(self, predictions, k):
        """Tensor.in_top_k(predictions, k) -> Tensor: ``monoflow.in_top_k`` with this tensor as the targets.

        Args:
            predictions (Tensor): ``(N, C)`` scores.
            k (int): how many of the top scores count.

        Example::

            >>> import monoflow as flow
            >>> flow.tensor([1]).in_top_k(flow.tensor([[0.9, 0.1]]), 1)
            tensor([False])
        """
        return in_top_k(self, predictions, k)


def _assert(condition, message):
    """torch._assert: ``assert condition, message`` written as a call (model code such as
    torchvision's ViT checks input sizes with it); a tensor condition is read as a bool."""
    assert condition, message


def view(input, *shape):
    """OneFlow's ``oneflow.view(input, *shape)``: ``input.view(*shape)``, a view of the same memory
    with the given shape (the strides must allow it; ``reshape`` copies where they do not).

    Example::

        >>> import monoflow as flow
        >>> flow.view(flow.arange(6), 2, 3)
        tensor([[0, 1, 2],
                [3, 4, 5]])
    """
    return _C.check_tensor(input, "view", "input", 1).view(*shape)
