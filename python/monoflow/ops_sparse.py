"""Sparse COO tensors (``torch.sparse_coo_tensor``, ``Tensor.to_sparse``, ``torch.spmm``), stored densely.

A sparse COO tensor here is a dense tensor tagged with the ``sparse_coo`` layout: its values
and every op on it are exact, and ``indices()``, ``values()``, ``_nnz()``, ``coalesce()``,
``is_coalesced()``, ``to_dense()`` and the printed form answer as torch's do. What differs:

- no memory is saved (the tensor takes its full dense size);
- ops return strided (dense) tensors: ``sparse @ dense`` and ``dense + sparse`` are dense in torch
  too, but ``sparse + sparse``, ``sparse * 2`` and ``torch.sum(sparse, dim)`` stay sparse there;
- ``to_sparse(sparse_dim)`` makes no hybrids (dense trailing dims); ``sparse_coo_tensor`` with
  multi-dimensional values does;
- ``torch.save`` writes the dense values (loaded back strided).

Scripts that build graph operators this way (pytorch/examples gcn: ``to_sparse``, ``spmm``,
``sparse_coo_tensor``) therefore run with the same results, at dense cost.

The gradient of an ``Embedding(sparse=True)`` table is the one hybrid kind (one sparse dim, the
rows; one dense dim): a coalesced tensor over the rows looked up since the gradient was last
cleared, which ``optim.SparseAdam`` updates row by row (Note [Sparse row gradients]).
"""
from monoflow import _C, _dtypes
from monoflow.ops_torch_names2 import layout, strided

__all__ = ["sparse_coo", "sparse_coo_tensor", "spmm"]

sparse_coo = layout("sparse_coo")


class _CooTag:
    """What a tensor's sparse tag records: whether it is coalesced; for a tensor built from
    (possibly repeated) indices, those indices and values as given (values ``None``: read
    from the tensor at the indices); and its number of sparse dims (``None``: all)."""

    __slots__ = ("coalesced", "raw", "sparse_dim")

    def __init__(self, coalesced, raw=None, sparse_dim=None):
        self.coalesced = coalesced
        self.raw = raw
        self.sparse_dim = sparse_dim


def _tag(t, coalesced, raw=None, sparse_dim=None):
    t._sparse_coo = _CooTag(coalesced, raw, sparse_dim)
    return t


# Note [Sparse row gradients]
#   torch's Embedding(sparse=True) gives its table a sparse gradient: only the rows
#   looked up, which SparseAdam then updates (and no others, not even their moments).
#   Here the lookup's backward delivers an ordinary dense gradient through the engine
#   (so hooks, autograd.grad and DDP see what they always see) and queues, for the
#   end of the backward pass, a note of the rows it touched. note_row_gradient then
#   tags the accumulated .grad as sparse over all rows noted since it was last
#   cleared, provided the gradient is zero outside them: a dense use of the same
#   table in the same loss (tied weights) makes the gradient dense, as in torch.
def note_row_gradient(param, rows):
    """Tags ``param.grad`` as a sparse gradient over its rows ``rows`` (1-D int64) and those
    noted before (Note [Sparse row gradients]); no tag where it is nonzero elsewhere."""
    from monoflow._creation import zeros  # (creation sits above the Tensor class)

    g = param.grad
    if g is None:
        return
    tag = _coo(g)
    if tag is not None and tag.sparse_dim == 1 and tag.raw is not None:
        rows = _C.cat([tag.raw[0][0], rows])
    rows = rows.unique()
    inside = zeros(g.shape[0], dtype=_dtypes.bool_, device=g.device)
    inside[rows] = True
    if bool((g.detach()[~inside] != 0).any()):
        if tag is not None:
            del g._sparse_coo
        return
    _tag(g, True, (rows.unsqueeze(0), None), 1)


def clear_row_gradient(g):
    """``zero_grad(set_to_none=False)`` on a sparse row gradient: no rows are left (torch's zeroed
    sparse gradient has no entries)."""
    tag = _coo(g)
    if tag is not None and tag.sparse_dim == 1 and tag.raw is not None:
        tag.raw = (tag.raw[0][:, :0], None)


def _coo(t):
    return getattr(t, "_sparse_coo", None)


def sparse_coo_tensor(indices, values, size=None, *, dtype=None, device=None, pin_memory=False,
                      requires_grad=False, check_invariants=None, is_coalesced=None):
    """A sparse COO tensor with ``values[k]`` at ``indices[:, k]``; repeated indices add up (on
    ``coalesce()``, as torch). Stored densely: see :mod:`monoflow.ops_sparse`.

    Args:
        indices (array_like): integer indices, shape ``(sparse_dims, nnz)``.
        values (array_like): the values, shape ``(nnz, *dense_dims)``.
        size (tuple of int, optional): the shape; by default the smallest that holds the indices.
        dtype (monoflow.dtype, optional): the values' dtype. Default: that of `values`.
        device (monoflow.device, optional): the device. Default: that of `values`.
        pin_memory (bool): accepted for torch's signature (CPU memory is not pinned). Default: ``False``.
        requires_grad (bool): make the result a leaf that requires grad. Default: ``False``.
        check_invariants (bool, optional): accepted for torch's signature; the indices are always
            checked against `size`. Default: ``None``.
        is_coalesced (bool, optional): declare the indices unique and sorted. Default: ``None``.

    Example::

        >>> s = flow.sparse_coo_tensor([[0, 1, 1], [2, 0, 0]], [1.0, 2.0, 3.0], (2, 3))
        >>> s.to_dense()
        tensor([[0., 0., 1.],
                [5., 0., 0.]])
        >>> s.coalesce().values()
        tensor([1., 5.])
    """
    from monoflow._creation import as_tensor, zeros  # (creation sits above the Tensor class)

    if dtype is not None and not isinstance(dtype, _C.dtype):
        raise TypeError(f"sparse_coo_tensor(): argument 'dtype' must be monoflow.dtype, not {type(dtype).__name__}")
    if device is not None and (isinstance(device, bool) or not isinstance(device, (str, int, _C.device))):
        raise TypeError(f"sparse_coo_tensor(): argument 'device' must be monoflow.device, not {type(device).__name__}")
    idx = as_tensor(indices, dtype=_dtypes.int64)
    vals = values if isinstance(values, _C.TensorBase) else as_tensor(values)
    if dtype is not None:
        vals = vals.to(dtype)
    if device is not None:
        vals, idx = vals.to(device), idx.to(device)
    if idx.dim() != 2:
        raise RuntimeError(f"sparse_coo_tensor: indices must be sparse_dim x nnz, but got: {list(idx.shape)}")
    if vals.dim() < 1:
        raise RuntimeError("sparse_coo_tensor: values must have at least one dimension (nnz)")
    nnz = idx.shape[1]
    if vals.shape[0] != nnz:
        raise RuntimeError(f"sparse_coo_tensor: indices and values must have same nnz, but got nnz from indices: {nnz}, "
                           f"nnz from values: {vals.shape[0]}")
    sparse_dim = idx.shape[0]
    if size is None:
        lead = (idx.amax(1) + 1).tolist() if nnz else [0] * sparse_dim
        size = tuple(lead) + tuple(vals.shape[1:])
    size = tuple(int(s) for s in size)
    if len(size) != sparse_dim + vals.dim() - 1:
        raise RuntimeError(f"sparse_coo_tensor: number of dimensions must be sparse_dim ({sparse_dim}) + "
                           f"dense_dim ({vals.dim() - 1}), but got {len(size)}")
    if nnz:
        lo, hi = idx.amin(1).tolist(), idx.amax(1).tolist()
        for d in range(sparse_dim):
            if lo[d] < 0 or hi[d] >= size[d]:
                bad = lo[d] if lo[d] < 0 else hi[d]
                raise RuntimeError(f"sparse_coo_tensor: index {bad} is out of bounds for dimension {d} "
                                   f"with size {size[d]}")
    if requires_grad:
        vals = vals.detach()
    dense = zeros(size, dtype=vals.dtype, device=vals.device)
    if nnz:
        dense = dense.index_put(tuple(idx[d] for d in range(sparse_dim)), vals, accumulate=True)
    if requires_grad:
        dense = dense.detach().requires_grad_()
    return _tag(dense, bool(is_coalesced), (idx, vals), sparse_dim)


def spmm(input, mat2):
    """spmm(input, mat2) -> Tensor

    Matrix product of a sparse (or dense) matrix `input` and a dense matrix `mat2`: a dense
    result, as ``torch.spmm``.

    Args:
        input (Tensor): ``(n, m)``, sparse COO or strided.
        mat2 (Tensor): ``(m, p)``.

    Example::

        >>> a = flow.sparse_coo_tensor([[0, 1], [1, 0]], [2.0, 3.0], (2, 2))
        >>> flow.spmm(a, flow.tensor([[1.0], [10.0]]))
        tensor([[20.],
                [ 3.]])
    """
    for name, pos, t in (("self", 1, input), ("mat2", 2, mat2)):
        if _C.check_tensor(t, "spmm", name, pos).dim() != 2:
            raise RuntimeError(f"spmm: {name} must be a matrix, got a {t.dim()}-D tensor")
    return input.mm(mat2)


def _need_coo(t, name, what="sparse coordinate tensor"):
    tag = _coo(t)
    if tag is None:
        raise RuntimeError(f"{name} expected {what} layout but got Strided")
    return tag


def _coalesced_indices(t):
    return t.detach().nonzero().T.contiguous()


def sparse_repr(t):
    """torch's printed form of a sparse COO tensor."""
    ind, val = t._indices(), t._values()
    pad = " " * len("tensor(indices=")
    ind_s = repr(ind).replace("\n", "\n" + pad)
    extra = "" if t.dtype in (_C.get_default_dtype(),) else f", dtype={t.dtype!r}"
    return (f"tensor(indices={ind_s},\n       values={repr(val).replace(chr(10), chr(10) + ' ' * 14)},\n"
            f"       size={tuple(t.shape)}, nnz={t._nnz()}{extra}, layout={sparse_coo!r})")


class TensorMethods:
    """Mixed into monoflow.Tensor."""

    @property
    def layout(self):
        """The tensor's layout: ``monoflow.sparse_coo`` for a sparse COO tensor, else ``monoflow.strided``."""
        return strided if _coo(self) is None else sparse_coo

    @property
    def is_sparse(self):
        """Whether the tensor has the sparse COO layout (see :mod:`monoflow.ops_sparse`)."""
        return _coo(self) is not None

    def to_sparse(self, sparse_dim=None, *, layout=None, blocksize=None, dense_dim=None):
        """Tensor.to_sparse(sparse_dim=None, *, layout=None, blocksize=None, dense_dim=None) -> Tensor

        This tensor as a (coalesced) sparse COO tensor; a sparse one is returned as is.
        Differentiable. Stored densely: see :mod:`monoflow.ops_sparse`.

        Args:
            sparse_dim (int, optional): must be the number of dims (no hybrid tensors). Default: all.
            layout (monoflow.layout, optional): ``None`` or ``monoflow.sparse_coo``. Default: ``None``.
            blocksize (tuple, optional): for the block layouts monoflow lacks; must be ``None``.
            dense_dim (int, optional): must be ``None`` or 0.

        Example::

            >>> s = flow.tensor([[0.0, 2.0], [3.0, 0.0]]).to_sparse()
            >>> s.indices(), s.values(), s.layout
            (tensor([[0, 1],
                    [1, 0]]), tensor([2., 3.]), monoflow.sparse_coo)
        """
        if layout not in (None, sparse_coo) or blocksize is not None or dense_dim not in (None, 0):
            raise NotImplementedError("to_sparse: only the sparse COO layout is implemented in monoflow")
        if sparse_dim is not None and sparse_dim != self.dim():
            raise NotImplementedError(f"to_sparse(sparse_dim={sparse_dim}): hybrid sparse tensors (dense dims) "
                                      f"are not implemented in monoflow; use sparse_dim={self.dim()}")
        if _coo(self) is not None:
            return self
        return _tag(self.clone(), True)

    def to_dense(self, dtype=None, *, masked_grad=None):
        """Tensor.to_dense(dtype=None, *, masked_grad=None) -> Tensor

        A strided copy of a sparse tensor (differentiable); a strided tensor is returned as is.

        Args:
            dtype (monoflow.dtype, optional): the result's dtype. Default: this tensor's.
            masked_grad (bool, optional): accepted for torch's signature. Default: ``None``.

        Example::

            >>> flow.sparse_coo_tensor([[1]], [4.0], (3,)).to_dense()
            tensor([0., 4., 0.])
        """
        if dtype is not None and not isinstance(dtype, _C.dtype):
            raise TypeError(f"to_dense(): argument 'dtype' (position 1) must be monoflow.dtype, not "
                            f"{type(dtype).__name__}")
        if masked_grad is not None and not isinstance(masked_grad, bool):
            raise TypeError(f"to_dense(): argument 'masked_grad' must be bool, not {type(masked_grad).__name__}")
        out = self if _coo(self) is None else self.clone()
        return out if dtype is None else out.to(dtype)

    def coalesce(self):
        """Tensor.coalesce() -> Tensor

        The sparse tensor with repeated indices summed and the indices sorted (this tensor if
        it already is coalesced).

        Example::

            >>> s = flow.sparse_coo_tensor([[0, 0]], [1.0, 2.0], (2,))
            >>> s._nnz(), s.coalesce()._nnz(), s.coalesce().values()
            (2, 1, tensor([3.]))
        """
        tag = _need_coo(self, "coalesce")
        if tag.coalesced:
            return self
        if tag.raw is None:
            return _tag(self.clone(), True)
        return _tag(self.clone(), True, (tag.raw[0].unique(dim=1), None), tag.sparse_dim)

    def sparse_mask(self, mask):
        """Tensor.sparse_mask(mask) -> Tensor

        A sparse tensor with ``mask``'s indices (repeats and order kept) and this (strided)
        tensor's values at them.

        Args:
            mask (Tensor): a sparse COO tensor of this tensor's shape.

        Example::

            >>> d = flow.arange(6.0).reshape(3, 2)
            >>> d.sparse_mask(flow.tensor([[0.0, 1.0], [0.0, 0.0], [1.0, 0.0]]).to_sparse())
            tensor(indices=tensor([[0, 2],
                                   [1, 0]]),
                   values=tensor([1., 4.]),
                   size=(3, 2), nnz=2, layout=monoflow.sparse_coo)
        """
        tag = _need_coo(_C.check_tensor(mask, "sparse_mask", "mask"), "sparse_mask")
        if _coo(self) is not None:
            raise RuntimeError("sparse_mask: expected a strided tensor, got a sparse COO one")
        if tuple(self.shape) != tuple(mask.shape):
            raise RuntimeError(f"sparse_mask(): operands have incompatible sizes; self has size {tuple(self.shape)} "
                               f"but mask has size {tuple(mask.shape)}")
        idx = mask._indices()
        return sparse_coo_tensor(idx, self[tuple(idx)], tuple(self.shape), is_coalesced=tag.coalesced)

    def is_coalesced(self):
        """Tensor.is_coalesced() -> bool

        Whether a sparse tensor's indices are known to be unique and sorted.

        Example::

            >>> flow.tensor([1.0, 0.0]).to_sparse().is_coalesced()
            True
        """
        return _need_coo(self, "is_coalesced").coalesced

    def indices(self):
        """Tensor.indices() -> Tensor

        The ``(sparse_dim, nnz)`` int64 indices of a coalesced sparse tensor.

        Example::

            >>> flow.tensor([0.0, 5.0, 6.0]).to_sparse().indices()
            tensor([[1, 2]])
        """
        if not _need_coo(self, "indices").coalesced:
            raise RuntimeError("Cannot get indices on an uncoalesced tensor, please call .coalesce() first")
        return self._indices()

    def values(self):
        """Tensor.values() -> Tensor

        The ``(nnz,)`` values of a coalesced sparse tensor, in the order of ``indices()``.

        Example::

            >>> flow.tensor([0.0, 5.0, 6.0]).to_sparse().values()
            tensor([5., 6.])
        """
        if not _need_coo(self, "values", "sparse tensor").coalesced:
            raise RuntimeError("Cannot get values on an uncoalesced tensor, please call .coalesce() first")
        return self._values()

    def _indices(self):
        tag = _need_coo(self, "_indices")
        return tag.raw[0] if tag.raw is not None else _coalesced_indices(self)

    def _values(self):
        tag = _need_coo(self, "_values")
        if tag.raw is not None and tag.raw[1] is not None:
            return tag.raw[1]
        ind = self._indices()
        return self[tuple(ind[d] for d in range(ind.shape[0]))]

    def _nnz(self):
        tag = _need_coo(self, "_nnz")
        return int(tag.raw[0].shape[1]) if tag.raw is not None else int(self.detach().count_nonzero())

    def sparse_dim(self):
        """Tensor.sparse_dim() -> int

        The number of sparse dims: all dims for a sparse COO tensor, 0 for a strided one.

        Example::

            >>> flow.ones(2, 3).to_sparse().sparse_dim(), flow.ones(2, 3).sparse_dim()
            (2, 0)
        """
        tag = _coo(self)
        if tag is None:
            return 0
        return self.dim() if tag.sparse_dim is None else tag.sparse_dim

    def dense_dim(self):
        """Tensor.dense_dim() -> int

        The number of dense dims: 0 for a sparse COO tensor (no hybrids), all dims for a strided one.

        Example::

            >>> flow.ones(2, 3).to_sparse().dense_dim(), flow.ones(2, 3).dense_dim()
            (0, 2)
        """
        return self.dim() - self.sparse_dim()
