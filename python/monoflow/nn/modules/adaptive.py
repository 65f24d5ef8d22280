"""AdaptiveLogSoftmaxWithLoss: torch.nn's efficient softmax over a large vocabulary (Grave et
al., "Efficient softmax approximation for GPUs"): the frequent classes (below ``cutoffs[0]``)
and one entry per tail cluster share a head softmax; each cluster's classes get their own
softmax over a smaller projection of the input."""
from collections import namedtuple

from monoflow.nn import functional as F
from monoflow.nn.module import Module
from monoflow.nn.modules.container import ModuleList, Sequential
from monoflow.nn.modules.linear import Linear

__all__ = ["AdaptiveLogSoftmaxWithLoss"]

_ASMoutput = namedtuple("_ASMoutput", ["output", "loss"])


class AdaptiveLogSoftmaxWithLoss(Module):
    """Adaptive softmax: the log-probability of each target and the mean negative log-likelihood,
    with a head over the ``cutoffs[0]`` most frequent classes plus one entry per cluster, and a
    two-layer projection (hidden size ``in_features // div_value ** (i + 1)``) per tail cluster.

    Args:
        in_features (int): the size of each input row.
        n_classes (int): the number of classes, sorted by frequency (class 0 the most frequent).
        cutoffs (Sequence[int]): increasing, unique, in ``[1, n_classes - 1]``: the cluster bounds.
        div_value (float): the divisor of each next cluster's projection size. Default: ``4.0``.
        head_bias (bool): whether the head has a bias. Default: ``False``.
        device (optional): the device of the parameters. Default: the default device.
        dtype (optional): the dtype of the parameters. Default: the default floating dtype.

    Returns (from ``forward(input, target)``):
        ``(output, loss)``: ``output`` the log-probability of each target (``(N,)`` or ``()``),
        ``loss`` the mean of ``-output``.

    Shape:
        - input: ``(N, in_features)`` or ``(in_features,)``; target: ``(N,)`` or ``()``.

    Example::

        >>> asm = nn.AdaptiveLogSoftmaxWithLoss(8, 10, cutoffs=[4])
        >>> out = asm(flow.randn(3, 8), flow.tensor([0, 5, 9]))
        >>> out.output.shape, out.loss.shape, asm.log_prob(flow.randn(3, 8)).shape
        (monoflow.Size([3]), monoflow.Size([]), monoflow.Size([3, 10]))
    """

    def __init__(self, in_features, n_classes, cutoffs, div_value=4.0, head_bias=False, device=None, dtype=None):
        super().__init__()
        factory = {"device": device, "dtype": dtype}
        cutoffs = list(cutoffs)
        if len(cutoffs) == 0:
            raise ValueError("cutoffs should be a sequence of length larger than 0")
        if (cutoffs != sorted(cutoffs) or min(cutoffs) <= 0 or max(cutoffs) > (n_classes - 1)
                or len(set(cutoffs)) != len(cutoffs) or any(int(c) != c for c in cutoffs)):
            raise ValueError("cutoffs should be a sequence of unique, positive integers sorted in an increasing "
                             "order, where each value is between 1 and n_classes-1")
        self.in_features = in_features
        self.n_classes = n_classes
        self.cutoffs = cutoffs + [n_classes]
        self.div_value = div_value
        self.head_bias = head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        self.head = Linear(self.in_features, self.head_size, bias=self.head_bias, **factory)
        self.tail = ModuleList()
        for i in range(self.n_clusters):
            hsz = int(self.in_features // (self.div_value ** (i + 1)))
            osz = self.cutoffs[i + 1] - self.cutoffs[i]
            self.tail.append(Sequential(Linear(self.in_features, hsz, bias=False, **factory),
                                        Linear(hsz, osz, bias=False, **factory)))

    def reset_parameters(self):
        self.head.reset_parameters()
        for i2h, h2o in self.tail:
            i2h.reset_parameters()
            h2o.reset_parameters()

    def forward(self, input_, target_):
        targ_dim = target_.dim()
        if targ_dim == 1:
            if input_.size(0) != target_.size(0):
                raise RuntimeError("Input and target should have the same size in the batch dimension.")
            if input_.dim() != 2:
                raise RuntimeError(f"1D target tensor expects 2D input tensors, but found inputs with size "
                                   f"{list(input_.size())}")
        elif targ_dim == 0:
            if input_.dim() != 1:
                raise RuntimeError(f"0D target tensor expects 1D input tensors, but found inputs with size "
                                   f"{list(input_.size())}")
        else:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        is_batched = targ_dim > 0
        input = input_ if is_batched else input_.unsqueeze(0)
        target = target_ if is_batched else target_.unsqueeze(0)
        used_rows = 0
        batch_size = target.size(0)
        output = input.new_zeros(batch_size)
        gather_inds = target.new_empty(batch_size)
        cutoff_values = [0] + self.cutoffs
        for i in range(len(cutoff_values) - 1):
            low_idx, high_idx = cutoff_values[i], cutoff_values[i + 1]
            target_mask = (target >= low_idx) & (target < high_idx)
            row_indices = target_mask.nonzero().reshape(-1)
            if row_indices.numel() == 0:
                continue
            if i == 0:
                gather_inds.index_copy_(0, row_indices, target[target_mask])
            else:
                relative_target = target[target_mask] - low_idx
                input_subset = input.index_select(0, row_indices)
                cluster_output = self.tail[i - 1](input_subset)
                cluster_index = self.shortlist_size + i - 1
                gather_inds.index_fill_(0, row_indices, cluster_index)
                cluster_logprob = F.log_softmax(cluster_output, dim=1)
                local_logprob = cluster_logprob.gather(1, relative_target.unsqueeze(1))
                output = output.index_copy(0, row_indices, local_logprob.squeeze(1))
            used_rows += row_indices.numel()
        if used_rows != batch_size:
            raise RuntimeError(f"Target values should be in [0, {self.n_classes - 1}], but values in range "
                               f"[{target.min().item()}, {target.max().item()}] were found. ")
        head_output = self.head(input)
        head_logprob = F.log_softmax(head_output, dim=1)
        output = output + head_logprob.gather(1, gather_inds.unsqueeze(1)).squeeze(1)
        loss = (-output).mean()
        if not is_batched:
            output = output.squeeze(0)
        return _ASMoutput(output, loss)

    def _get_full_log_prob(self, input, head_output):
        head_logprob = F.log_softmax(head_output, dim=1)
        parts = [head_logprob[:, :self.shortlist_size]]
        for i in range(self.n_clusters):
            cluster_logprob = F.log_softmax(self.tail[i](input), dim=1)
            parts.append(cluster_logprob + head_logprob[:, self.shortlist_size + i].unsqueeze(1))
        from monoflow import cat

        return cat(parts, dim=1)

    def log_prob(self, input):
        """The log-probabilities of every class: ``(N, n_classes)`` (or ``(n_classes,)``)."""
        is_batched = input.dim() > 1
        x = input if is_batched else input.unsqueeze(0)
        out = self._get_full_log_prob(x, self.head(x))
        return out if is_batched else out.squeeze(0)

    def predict(self, input):
        """The most likely class of each row: ``(N,)`` (or ``()``)."""
        return self.log_prob(input).argmax(dim=-1)
