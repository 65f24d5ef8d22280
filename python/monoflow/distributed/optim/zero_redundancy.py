"""ZeroRedundancyOptimizer: each rank keeps the optimizer state of its share of the parameters only
(ZeRO stage 1, torch.distributed.optim's wrapper).

The parameters are dealt to the ranks greedily by size (largest first, to the rank holding least), so
each rank owns about 1/N of the elements. step() runs the wrapped optimizer class on the owned parameters
only (their gradients must already be the same on every rank, as DDP leaves them), then every parameter
is broadcast from its owner, so the replicas stay equal. The state of the parameters a rank does not own
is never made there."""
from monoflow.distributed import collectives
from monoflow.distributed import process_group as pg

__all__ = ["ZeroRedundancyOptimizer"]


class ZeroRedundancyOptimizer:
    """Wraps ``optimizer_class(owned parameters, **defaults)`` on each rank.

    Args:
        params (iterable of Tensor or dict): the parameters (or parameter groups) of the whole model.
        optimizer_class (type): the local optimizer, e.g. ``flow.optim.AdamW``.
        process_group (optional): the ranks that share the state. Default: the world.
        parameters_as_bucket_view, overlap_with_ddp: accepted for torch's signature; ``overlap_with_ddp``
            is not supported (``NotImplementedError``).
        **defaults: the local optimizer's arguments (lr, ...).
    """

    def __init__(self, params, optimizer_class, process_group=None, parameters_as_bucket_view=False,
                 overlap_with_ddp=False, **defaults):
        if overlap_with_ddp:
            raise NotImplementedError("ZeroRedundancyOptimizer: overlap_with_ddp is not supported")
        if not isinstance(optimizer_class, type):
            raise TypeError(f"ZeroRedundancyOptimizer: optimizer_class must be an optimizer class, got "
                            f"{type(optimizer_class).__name__}")
        params = list(params)
        groups = params if params and isinstance(params[0], dict) else [{"params": params}]
        self.process_group = process_group
        initialized = pg.is_initialized()
        self.world_size = pg.get_world_size(process_group) if initialized else 1
        self.rank = pg.get_rank(process_group) if initialized else 0
        self._all_params = [p for g in groups for p in g["params"]]
        if not self._all_params:
            raise ValueError("ZeroRedundancyOptimizer: got an empty parameter list")
        # greedy partition by size: the same on every rank (it depends on the shapes only)
        loads = [0] * self.world_size
        self._owner = {}
        for i in sorted(range(len(self._all_params)), key=lambda i: -self._all_params[i].numel()):
            r = min(range(self.world_size), key=lambda k: (loads[k], k))
            self._owner[i] = r
            loads[r] += self._all_params[i].numel()
        index = {id(p): i for i, p in enumerate(self._all_params)}
        owned_groups = []
        for g in groups:
            mine = [p for p in g["params"] if self._owner[index[id(p)]] == self.rank]
            owned_groups.append(dict(g, params=mine))
        self.optim = optimizer_class([g for g in owned_groups if g["params"]] or [{"params": []}], **defaults) \
            if any(g["params"] for g in owned_groups) else None
        self._optimizer_class, self._defaults = optimizer_class, defaults

    @property
    def param_groups(self):
        return self.optim.param_groups if self.optim is not None else []

    @property
    def state(self):
        return self.optim.state if self.optim is not None else {}

    def zero_grad(self, set_to_none=True):
        for p in self._all_params:
            if p.grad is not None:
                if set_to_none:
                    p.grad = None
                else:
                    p.grad.zero_()

    def step(self, closure=None):
        loss = self.optim.step(closure) if self.optim is not None else (closure() if closure else None)
        if self.world_size > 1:
            for i, p in enumerate(self._all_params):
                src = self._owner[i]
                if self.process_group is not None:
                    src = pg.get_global_rank(self.process_group, src)
                collectives.broadcast(p.data, src=src, group=self.process_group)
        return loss

    def consolidate_state_dict(self, to=0):
        """Accepted for torch's API: each rank's state_dict() holds its own share."""

    def state_dict(self):
        return self.optim.state_dict() if self.optim is not None else {}

    def load_state_dict(self, state_dict):
        if self.optim is not None:
            self.optim.load_state_dict(state_dict)
