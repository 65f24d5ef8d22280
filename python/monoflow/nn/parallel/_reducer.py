"""The gradient reducer of DistributedDataParallel.

Parameters are grouped into buckets (reverse registration order, which is
roughly the order backward produces their gradients). A hook on each
parameter copies its gradient (plus any gradient accumulated locally, e.g.
under no_sync) into its slot of the bucket's flat buffer; when every slot of
a bucket is filled, the bucket is all-reduced (average) asynchronously, so
communication overlaps the rest of backward. Buckets are launched strictly in
index order so that every rank issues the same collectives in the same order.

The engine has no post-accumulate hook nor a final callback (see
autograd.h): a leaf hook runs *before* accumulation. So the hook clears
``.grad`` (the engine then stores the incoming gradient without an add), and
the end of backward is the moment the last bucket becomes ready: the hook
that completes it waits for all works, writes the averages into ``.grad``,
and returns its own parameter's average as the replacement gradient.
"""
import zlib

import monoflow.distributed as dist
from monoflow import _creation, _dtypes
from monoflow._tensor import Tensor
from monoflow.autograd import no_grad


class _Bucket:
    def __init__(self, index, params, dtype, device):
        self.index = index
        self.params = params          # parameter indices, in slot order
        self.numel = 0
        self.dtype, self.device = dtype, device
        self.flat = None
        self.pending = 0
        self.work = None


class Reducer:
    def __init__(self, params, names, process_group, bucket_cap_bytes, find_unused_parameters,
                 gradient_as_bucket_view):
        self.params = params
        self.names = names
        self.group = process_group
        self.find_unused = find_unused_parameters
        self.as_view = gradient_as_bucket_view
        self.slot = [None] * len(params)        # parameter index -> (bucket, offset)
        self.buckets = self._make_buckets(bucket_cap_bytes)
        self.accumulators = None                # parameter index -> its AccumulateGrad node
        self.events = []                         # ("hook", i) / ("launch", b) of the last backward
        self.handles = [p.register_hook(self._make_hook(i)) for i, p in enumerate(params)]
        self._reset(expect=False)

    # ---- layout
    def _make_buckets(self, cap):
        buckets, cur, cur_bytes, key = [], [], 0, None
        for i in reversed(range(len(self.params))):
            p = self.params[i]
            k = (p.dtype, str(p.device))
            nbytes = p.numel() * p.element_size()
            if cur and (k != key or cur_bytes + nbytes > cap):
                buckets.append(self._bucket(len(buckets), cur))
                cur, cur_bytes = [], 0
            cur.append(i)
            cur_bytes += nbytes
            key = k
        if cur:
            buckets.append(self._bucket(len(buckets), cur))
        return buckets

    def _bucket(self, index, members):
        first = self.params[members[0]]
        b = _Bucket(index, members, first.dtype, first.device)
        off = 0
        for i in members:
            self.slot[i] = (b, off)
            off += self.params[i].numel()
        b.numel = off
        b.flat = _creation.zeros(off, dtype=b.dtype, device=b.device)
        return b

    def _view(self, i):
        b, off = self.slot[i]
        p = self.params[i]
        return b.flat[off:off + p.numel()].view(tuple(p.shape))

    # ---- per-iteration state
    def _reset(self, expect):
        self.expect = expect          # this backward must be synchronized
        self.started = False          # a hook of this backward has fired
        self.ready = [False] * len(self.params)
        self.unused = []
        self.used_work = self.used_count = None
        for b in self.buckets:
            b.pending = len(b.params)
            b.work = None
        self.next_launch = 0

    def check_prior_finished(self, rank):
        """Raises when the previous synchronized backward left parameters
        without gradients (the bucket holding them was never reduced)."""
        if not (self.expect and self.started):
            return
        missing = [i for i, r in enumerate(self.ready) if not r]
        self._drain()
        self._reset(expect=False)
        names = ", ".join(self.names[i] for i in missing)
        raise RuntimeError(
            "Expected to have finished reduction in the prior iteration before starting a new one. This error "
            "indicates that your module has parameters that were not used in producing loss. You can enable "
            "unused parameter detection by passing the keyword argument `find_unused_parameters=True` to "
            "`monoflow.nn.parallel.DistributedDataParallel`, and by making sure all `forward` function outputs "
            "participate in calculating loss.\n"
            f"Parameters which did not receive grad for rank {rank}: {names}\n"
            f"Parameter indices which did not receive grad for rank {rank}: {' '.join(map(str, missing))}")

    def prepare_for_backward(self, outputs):
        self._reset(expect=True)
        self.events = []
        if self.find_unused:
            self.unused = self._find_unused(outputs)

    def skip_backward(self):
        self._reset(expect=False)

    # ---- unused parameters: the parameters whose accumulators the outputs cannot reach
    def _accumulator_nodes(self):
        if self.accumulators is None:
            # A view's only next edge is the leaf's accumulator; holding the
            # node keeps it the one the engine uses for this parameter.
            self.accumulators = [p.view_as(p).grad_fn.next_functions[0][0] for p in self.params]
        return self.accumulators

    def _find_unused(self, outputs):
        acc = self._accumulator_nodes()
        seen, stack = set(), [t.grad_fn for t in _tensors(outputs) if t.grad_fn is not None]
        seen.update(stack)
        while stack:
            n = stack.pop()
            for nxt, _ in n.next_functions:
                if nxt is not None and nxt not in seen:
                    seen.add(nxt)
                    stack.append(nxt)
        return [i for i, a in enumerate(acc) if a not in seen]

    # ---- backward
    def _make_hook(self, i):
        def hook(grad):
            if not self.expect:
                return None           # no_sync, or no forward of ours: accumulate locally
            return self._on_grad(i, grad)
        return hook

    def _on_grad(self, i, grad):
        self.events.append(("hook", i))
        if not self.started:
            self.started = True
            if self.find_unused:
                self._mark_unused_ready()
        if self.ready[i]:
            raise RuntimeError(
                f"DistributedDataParallel: parameter {self.names[i]} received a gradient twice in one backward "
                "(reentrant backward, or a parameter marked unused that was used); this is not supported")
        p = self.params[i]
        with no_grad():
            view = self._view(i)
            prev = p.grad
            if prev is not None:      # gradient accumulated locally (no_sync) or not zeroed
                view.copy_(prev)
                view.add_(grad)
            else:
                view.copy_(grad)
        p.grad = None                 # the engine now stores `grad` without an add; replaced at the end
        if self._mark_ready(i):
            return self._finalize(current=i)
        return None

    def _mark_unused_ready(self):
        # Whether each parameter was used on any rank: a globally unused one
        # keeps its .grad. Every rank issues this, unused parameters or not.
        used = _creation.ones(len(self.params), dtype=_dtypes.int32)
        for i in self.unused:
            used[i] = 0
        self.used_count = used
        self.used_work = dist.all_reduce(used, group=self.group, async_op=True)
        with no_grad():
            for i in self.unused:
                prev = self.params[i].grad
                view = self._view(i)
                if prev is not None:
                    view.copy_(prev)
                else:
                    view.zero_()
                self._mark_ready(i)

    def _mark_ready(self, i):
        """Returns True when this completes the last bucket."""
        self.ready[i] = True
        b, _ = self.slot[i]
        b.pending -= 1
        while self.next_launch < len(self.buckets) and self.buckets[self.next_launch].pending == 0:
            nb = self.buckets[self.next_launch]
            self.events.append(("launch", nb.index))
            nb.work = dist.all_reduce(nb.flat, op=dist.ReduceOp.AVG, group=self.group, async_op=True)
            self.next_launch += 1
        return self.next_launch == len(self.buckets)

    def _drain(self):
        for w in [self.used_work] + [b.work for b in self.buckets]:
            if w is not None:
                w.wait()

    def _finalize(self, current):
        self._drain()
        globally_unused = set()
        if self.used_count is not None:
            globally_unused = {i for i in self.unused if int(self.used_count[i].item()) == 0}
        result = None
        with no_grad():
            for i, p in enumerate(self.params):
                if i in globally_unused:
                    continue
                view = self._view(i)
                if i == current:
                    result = view if self.as_view else view.clone()
                elif self.as_view:
                    p.grad = view
                elif p.grad is not None and i not in self.unused:
                    p.grad.copy_(view)    # the tensor the engine just stored
                else:
                    p.grad = view.clone()
        self._reset(expect=False)
        return result

    def remove_hooks(self):
        for h in self.handles:
            h.remove()
        self.handles = []


def _tensors(obj):
    """The tensors in a (nested) forward output."""
    if isinstance(obj, Tensor):
        yield obj
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            yield from _tensors(v)
    elif isinstance(obj, dict):
        for v in obj.values():
            yield from _tensors(v)


def shape_signature(params):
    """Parameter count, then (ndim, shape..., dtype code) per parameter."""
    sig = [len(params)]
    for p in params:
        sig += [p.dim(), *p.shape, zlib.crc32(str(p.dtype).encode())]
    return sig
