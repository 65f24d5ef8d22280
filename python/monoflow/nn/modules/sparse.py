"""Embedding (a lookup table of num_embeddings vectors) and EmbeddingBag (reduced bags of lookups)."""
from monoflow.autograd.grad_mode import no_grad
from monoflow.nn import functional as F
from monoflow.nn import init
from monoflow.nn.module import Module
from monoflow.nn.modules._factory import empty
from monoflow.nn.parameter import Parameter

__all__ = ["Embedding", "EmbeddingBag"]


class Embedding(Module):
    """A lookup table of ``num_embeddings`` vectors of size ``embedding_dim``: maps integer indices to rows
    of ``weight``.

    :meth:`from_pretrained` builds one from an existing table (frozen by default).

    Args:
        num_embeddings (int): the number of rows of the table.
        embedding_dim (int): the size of each row.
        padding_idx (int, optional): a row that is zero at creation and gets no gradient (negative
            values count from the end). Default: ``None``.
        max_norm (float, optional): rows looked up with a larger ``norm_type`` norm are rescaled in
            place to this norm. Default: ``None``.
        norm_type (float): the p of that norm. Default: ``2.0``.
        scale_grad_by_freq (bool): each row's gradient is divided by how often its index occurs in the
            input. Default: ``False``.
        sparse (bool): ``weight.grad`` is a sparse tensor over the rows looked up, for
            ``optim.SparseAdam`` (stored densely: see :mod:`monoflow.ops_sparse`). Default: ``False``.
        _weight (Tensor, optional): an initial table of shape ``(num_embeddings, embedding_dim)``.
            Default: ``None`` (``N(0, 1)``).
        _freeze (bool): create the table with ``requires_grad=False``. Default: ``False``.
        device (optional): the device of ``weight``. Default: the default device.
        dtype (optional): the dtype of ``weight``. Default: the default floating dtype.

    Shape:
        - Input: ``(*)``, int64 or int32 indices.
        - Output: ``(*, embedding_dim)``.

    Example::

        >>> m = nn.Embedding(10, 3, padding_idx=0)
        >>> m(flow.tensor([[0, 2], [4, 9]])).shape
        monoflow.Size([2, 2, 3])
        >>> m.weight[0]
        tensor([0., 0., 0.], grad_fn=<SelectBackward0>)
        >>> nn.Embedding.from_pretrained(flow.tensor([[1.0, 2.0], [3.0, 4.0]]))(flow.tensor([1]))
        tensor([[3., 4.]])
    """

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None, norm_type=2.0,
                 scale_grad_by_freq=False, sparse=False, _weight=None, _freeze=False, device=None, dtype=None):
        super().__init__()
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        if padding_idx is not None:
            if padding_idx > 0:
                if padding_idx >= num_embeddings:
                    raise AssertionError("Padding_idx must be within num_embeddings")
            elif padding_idx < 0:
                if padding_idx < -num_embeddings:
                    raise AssertionError("Padding_idx must be within num_embeddings")
                padding_idx = num_embeddings + padding_idx
        self.padding_idx = padding_idx
        self.max_norm = max_norm
        self.norm_type = norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        self.sparse = sparse
        if _weight is None:
            self.weight = Parameter(empty(num_embeddings, embedding_dim, device=device, dtype=dtype),
                                    requires_grad=not _freeze)
            self.reset_parameters()
        else:
            if tuple(_weight.shape) != (num_embeddings, embedding_dim):
                raise AssertionError("Shape of weight does not match num_embeddings and embedding_dim")
            self.weight = Parameter(_weight, requires_grad=not _freeze)

    def reset_parameters(self):
        init.normal_(self.weight)
        self._fill_padding_idx_with_zero()

    def _fill_padding_idx_with_zero(self):
        if self.padding_idx is not None:
            with no_grad():
                self.weight[self.padding_idx].fill_(0)

    def forward(self, input):
        return F.embedding(input, self.weight, self.padding_idx, self.max_norm, self.norm_type,
                           self.scale_grad_by_freq, self.sparse)

    def extra_repr(self):
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm}"
        if self.norm_type != 2:
            s += f", norm_type={self.norm_type}"
        if self.scale_grad_by_freq:
            s += ", scale_grad_by_freq=True"
        if self.sparse:
            s += ", sparse=True"
        return s

    @classmethod
    def from_pretrained(cls, embeddings, freeze=True, padding_idx=None, max_norm=None, norm_type=2.0,
                        scale_grad_by_freq=False, sparse=False):
        if embeddings.dim() != 2:
            raise AssertionError("Embeddings parameter is expected to be 2-dimensional")
        rows, cols = embeddings.shape
        return cls(rows, cols, _weight=embeddings, _freeze=freeze, padding_idx=padding_idx, max_norm=max_norm,
                   norm_type=norm_type, scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)


class EmbeddingBag(Module):
    """Computes the sum, mean or maximum of each bag of embedding rows (one output row per bag).

    Call it as ``m(input, offsets=None, per_sample_weights=None)``: a 2-d ``input`` ``(B, L)`` holds
    ``B`` bags of ``L`` indices; a 1-d ``input`` is the concatenation of the bags and ``offsets`` gives
    where each starts.

    Args:
        num_embeddings (int): the number of rows of the table.
        embedding_dim (int): the size of each row.
        max_norm (float, optional): renormalise looked-up rows above this norm. Default: ``None``.
        norm_type (float): the p of that norm. Default: ``2.0``.
        scale_grad_by_freq (bool): not supported (``True`` raises ``NotImplementedError``). Default:
            ``False``.
        mode (str): ``'sum'``, ``'mean'`` or ``'max'``. Default: ``'mean'``.
        sparse (bool): ``weight.grad`` is a sparse tensor over the rows in the bags. Default: ``False``.
        _weight (Tensor, optional): an initial table. Default: ``None`` (``N(0, 1)``).
        include_last_offset (bool): ``offsets`` has one more entry, the end of the last bag (CSR
            layout). Default: ``False``.
        padding_idx (int, optional): a row that is skipped in the reductions and is zero at creation.
            Default: ``None``.
        device (optional): the device of ``weight``. Default: the default device.
        dtype (optional): the dtype of ``weight``. Default: the default floating dtype.

    Shape:
        - Input: ``(B, L)``, or ``(T,)`` with ``offsets`` ``(B,)``.
        - Output: ``(B, embedding_dim)``; an empty bag gives zeros.

    Example::

        >>> m = nn.EmbeddingBag(10, 3, mode='sum')
        >>> m(flow.tensor([1, 2, 4, 5, 4, 3]), flow.tensor([0, 4])).shape
        monoflow.Size([2, 3])
        >>> m(flow.tensor([[1, 2], [4, 5]])).shape
        monoflow.Size([2, 3])
    """

    def __init__(self, num_embeddings, embedding_dim, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
                 mode="mean", sparse=False, _weight=None, include_last_offset=False, padding_idx=None, device=None,
                 dtype=None):
        super().__init__()
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        self.max_norm = max_norm
        self.norm_type = norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        if padding_idx is not None:
            if not -num_embeddings <= padding_idx < num_embeddings:
                raise AssertionError("padding_idx must be within num_embeddings")
            padding_idx = padding_idx % num_embeddings
        self.padding_idx = padding_idx
        if _weight is None:
            self.weight = Parameter(empty(num_embeddings, embedding_dim, device=device, dtype=dtype))
            self.reset_parameters()
        else:
            if list(_weight.shape) != [num_embeddings, embedding_dim]:
                raise AssertionError("Shape of weight does not match num_embeddings and embedding_dim")
            self.weight = Parameter(_weight)
        self.mode = mode
        self.sparse = sparse
        self.include_last_offset = include_last_offset

    def reset_parameters(self):
        init.normal_(self.weight)
        if self.padding_idx is not None:
            with no_grad():
                self.weight[self.padding_idx].fill_(0)

    @classmethod
    def from_pretrained(cls, embeddings, freeze=True, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
                        mode="mean", sparse=False, include_last_offset=False, padding_idx=None):
        """An EmbeddingBag whose table is ``embeddings`` (2-d), frozen (``requires_grad=False``)
        unless ``freeze=False``; the other arguments are the constructor's.

        Example::

            >>> bag = nn.EmbeddingBag.from_pretrained(flow.eye(3), mode='sum')
            >>> bag(flow.tensor([0, 1]), flow.tensor([0]))
            tensor([[1., 1., 0.]])
        """
        if embeddings.dim() != 2:
            raise AssertionError("Embeddings parameter is expected to be 2-dimensional")
        rows, cols = embeddings.shape
        bag = cls(rows, cols, _weight=embeddings, max_norm=max_norm, norm_type=norm_type,
                  scale_grad_by_freq=scale_grad_by_freq, mode=mode, sparse=sparse,
                  include_last_offset=include_last_offset, padding_idx=padding_idx)
        bag.weight.requires_grad = not freeze
        return bag

    def forward(self, input, offsets=None, per_sample_weights=None):
        return F.embedding_bag(input, self.weight, offsets, self.max_norm, self.norm_type, self.scale_grad_by_freq,
                               self.mode, self.sparse, per_sample_weights, self.include_last_offset,
                               self.padding_idx)

    def extra_repr(self):
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm}"
        if self.norm_type != 2:
            s += f", norm_type={self.norm_type}"
        if self.scale_grad_by_freq is not False:
            s += ", scale_grad_by_freq=True"
        s += f", mode='{self.mode}'"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        return s
