"""DistributedDataParallel: one model replica per process, gradients averaged
across processes during backward (torch.nn.parallel.DistributedDataParallel)."""
import contextlib

import monoflow.distributed as dist
from monoflow import _C, _creation, _dtypes, ops_shape
from monoflow.autograd import no_grad
from monoflow.distributed.process_group import init_from_environment
from monoflow.nn.module import Module
from monoflow.nn.parallel._reducer import Reducer, shape_signature


class DistributedDataParallel(Module):
    """Wraps ``module`` so that ``backward`` leaves in every parameter's ``.grad`` the average of the
    gradients computed by all ranks.

    The module's own attributes are also read through the wrapper (OneFlow's DDP is the module
    itself: ``ddp.w`` is ``ddp.module.w``). As in OneFlow, no ``init_process_group`` call is needed: without ``process_group`` the process group
    is set up from the launcher's environment (a single process is a world of size 1). At wrap time rank
    0's parameters and buffers are broadcast (after checking that every rank has the same parameter
    shapes); with ``broadcast_buffers`` buffers are broadcast again before each forward. Gradients are
    averaged in buckets of about ``bucket_cap_mb`` MiB that are all-reduced asynchronously as soon as
    they are complete, overlapping the rest of backward.

    Args:
        module (Module): the module to replicate; it needs a parameter that requires a gradient (else
            ``RuntimeError``).
        device_ids (list, optional): accepted for API compatibility (one device per process: the
            module's). Default: ``None``.
        output_device (optional): accepted for API compatibility. Default: ``None``.
        dim (int): the batch dim; kept for API compatibility (inputs are not scattered). Default: ``0``.
        broadcast_buffers (bool): broadcast rank 0's buffers before each forward. Default: ``True``.
        process_group (optional): the group to average over. Default: ``None`` (the world, from the
            environment).
        bucket_cap_mb (float): the size of the gradient buckets in MiB; must be positive. Default:
            ``25``.
        find_unused_parameters (bool): after each forward, walk the outputs' autograd graph so that
            parameters it does
            not reach do not hold up their bucket. Default: ``False``.
        check_reduction (bool): accepted for API compatibility (deprecated in torch). Default:
            ``False``.
        gradient_as_bucket_view (bool): make the parameters' ``.grad`` views into the all-reduce buckets
            (saves a copy, as in torch). Default: ``False``.
        static_graph (bool): accepted and ignored. Default: ``False``.

    Example::

        >>> ddp = nn.parallel.DistributedDataParallel(nn.Linear(4, 2))
        >>> ddp(flow.randn(3, 4)).sum().backward()
        >>> ddp.module.weight.grad.shape, flow.distributed.get_world_size()
        (monoflow.Size([2, 4]), 1)
    """

    def __init__(self, module, device_ids=None, output_device=None, dim=0, broadcast_buffers=True,
                 process_group=None, bucket_cap_mb=25, find_unused_parameters=False, check_reduction=False,
                 gradient_as_bucket_view=False, static_graph=False):
        super().__init__()
        if not isinstance(module, Module):
            raise TypeError(f"DistributedDataParallel: expected an nn.Module, got {type(module).__name__}")
        if process_group is None:
            # OneFlow sets the environment up by itself: no init_process_group needed.
            init_from_environment()
        named = [(n, p) for n, p in module.named_parameters() if p.requires_grad]
        if not named:
            raise RuntimeError("DistributedDataParallel is not needed when a module doesn't have any parameter "
                               "that requires a gradient.")
        if bucket_cap_mb is None:
            bucket_cap_mb = 25
        if bucket_cap_mb <= 0:
            raise ValueError(f"DistributedDataParallel: bucket_cap_mb must be positive, got {bucket_cap_mb}")
        self.module = module
        self._is_ddp_module = True  # OneFlow's marker of a DDP-wrapped module
        self.device_ids = device_ids
        self.output_device = output_device
        self.dim = dim
        self.broadcast_buffers = broadcast_buffers
        self.process_group = process_group
        self.find_unused_parameters = find_unused_parameters
        self.gradient_as_bucket_view = gradient_as_bucket_view
        self.static_graph = static_graph
        self.bucket_bytes_cap = int(bucket_cap_mb * 1024 * 1024)
        self.require_backward_grad_sync = True
        names = [n for n, _ in named]
        params = [p for _, p in named]
        self._check_same_shapes(names, params)
        self._broadcast(list(module.parameters()) + list(module.buffers()))
        self.reducer = Reducer(params, names, process_group, self.bucket_bytes_cap, find_unused_parameters,
                               gradient_as_bucket_view)

    # ---- wrap time
    def _check_same_shapes(self, names, params):
        """Every rank must hold the same parameters: compares each rank's
        signature with rank 0's, so that every rank raises the same error."""
        g, world = self.process_group, dist.get_world_size(self.process_group)
        sig = _creation.tensor(shape_signature(params), dtype=_dtypes.int64)
        lens = [_creation.zeros(1, dtype=_dtypes.int64) for _ in range(world)]
        dist.all_gather(lens, _creation.tensor([sig.numel()], dtype=_dtypes.int64), group=g)
        longest = max(int(t.item()) for t in lens)
        padded = _creation.full((longest,), -1, dtype=_dtypes.int64)
        padded[:sig.numel()] = sig
        sigs = [_creation.zeros(longest, dtype=_dtypes.int64) for _ in range(world)]
        dist.all_gather(sigs, padded, group=g)
        decoded = [_decode(s.tolist()) for s in sigs]
        ref = decoded[0]
        for r, d in enumerate(decoded[1:], 1):
            if len(d) != len(ref):
                raise RuntimeError(f"DistributedDataParallel: rank {r} has {len(d)} parameters that require grad "
                                   f"but rank 0 has {len(ref)}; every rank must wrap the same model")
            for i, ((s, dt), (s0, dt0)) in enumerate(zip(d, ref)):
                if s != s0 or dt != dt0:
                    what = f"shape {list(s)}" if s != s0 else "a different dtype"
                    raise RuntimeError(
                        f"DistributedDataParallel: parameter {i} ({names[i] if i < len(names) else '?'}) has "
                        f"{what} on rank {r} but shape {list(s0)} on rank 0; every rank must wrap the same model "
                        "(mismatched parameter shapes across ranks)")

    def _broadcast(self, tensors):
        """Rank 0's values into every rank's tensors, one flat broadcast per dtype/device."""
        groups = {}
        for t in tensors:
            groups.setdefault((t.dtype, str(t.device)), []).append(t)
        with no_grad():
            for ts in groups.values():
                flat = ops_shape.cat([t.detach().reshape(-1) for t in ts])
                dist.broadcast(flat, src=dist.get_global_rank(self.process_group, 0)
                               if self.process_group is not None else 0, group=self.process_group)
                off = 0
                for t in ts:
                    n = t.numel()
                    t.copy_(flat[off:off + n].view(tuple(t.shape)))
                    off += n

    # ---- training
    def forward(self, *inputs, **kwargs):
        grad = _C.is_grad_enabled()
        if grad:
            self.reducer.check_prior_finished(dist.get_rank(self.process_group))
        if self.broadcast_buffers:
            bufs = list(self.module.buffers())
            if bufs:
                self._broadcast(bufs)
        out = self.module(*inputs, **kwargs)
        if grad and self.require_backward_grad_sync:
            self.reducer.prepare_for_backward(out)
        else:
            self.reducer.skip_backward()
        return out

    @contextlib.contextmanager
    def no_sync(self):
        """Backward passes of forwards run inside this context accumulate
        gradients locally; the first synchronized backward after it averages
        the accumulated sums."""
        old = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = old

    def __getattr__(self, name):
        # OneFlow's DDP returns the module itself, so OneFlow programs read the module's own
        # attributes from it (ddp.lr, ddp.w): an attribute the wrapper lacks is the module's.
        try:
            return super().__getattr__(name)
        except AttributeError as own:
            module = self.__dict__.get("_modules", {}).get("module")
            if module is None or name.startswith("__") or not hasattr(module, name):
                raise own from None
            return getattr(module, name)

    def __getstate__(self):
        raise RuntimeError("DistributedDataParallel cannot be pickled; save .module or its state_dict")


def _decode(sig):
    """shape_signature back into [(shape, dtype code)]."""
    n, out, k = sig[0], [], 1
    for _ in range(n):
        nd = sig[k]
        out.append((tuple(sig[k + 1:k + 1 + nd]), sig[k + 1 + nd]))
        k += nd + 2
    return out
