"""Creation functions with placement= and sbp=: the logical tensor is made
whole on every rank of the placement, the same everywhere (random ones drawn
by every rank, the placement's first rank's draw broadcast: Note [Global
creation inside a graph's build]), and each rank keeps its shard."""
import functools

from monoflow._global.mode import current as current_mode
from monoflow._global.mode import suspended
from monoflow._global.sbp import as_nd_sbp, broadcast, check_dims


def make(fn, placement, sbp, random, args, kwargs, what):
    """Calls creation function `fn` for the whole logical tensor, then lays it
    out as `sbp` on `placement`."""
    from monoflow._global import boxing, groups
    from monoflow._global.tensor import _check_placement, agree, install_grad_hook, wrap

    _check_placement(placement, what)
    if sbp is None:
        raise ValueError(f"{what}: placement= needs sbp= too")
    nd = as_nd_sbp(sbp, len(placement.hierarchy), what)
    requires_grad = kwargs.pop("requires_grad", False)
    if kwargs.get("device") is not None:
        raise ValueError(f"{what}: pass placement= or device=, not both")
    out = kwargs.pop("out", None)
    if out is not None:  # out= (a global tensor): the samples are made whole, laid out, then copied in
        if kwargs.get("dtype") is None:
            kwargs["dtype"] = out.dtype
        from monoflow.autograd.grad_mode import no_grad  # (local: autograd imports this module's users)

        made = make(fn, placement, sbp, random, args, kwargs, what)
        with no_grad():
            return out.copy_(made)
    # Note [Global creation inside a graph's build]: build may not read tensor values (a trace cannot
    # replay a host read), so there the metadata agreement is skipped (every rank runs the same build).
    # A random tensor is drawn by every rank from its generator (so generators stay in step, and a
    # seeded draw equals the local one) and the placement's first rank's draw is broadcast: a
    # collective, which a graph trace records as well.
    from monoflow.framework.graph_build_util import lazy_mode  # (local: framework imports the tensor module)

    building = lazy_mode.is_enabled()
    if not building:
        # agree before the draw's broadcast: ranks with different placements
        # would otherwise wait for different roots
        agree(what, (), placement, nd)
    inside = placement.coords(groups.rank()) is not None
    ranks = placement.rank_list()
    full = fn(*args, **kwargs)
    check_dims(nd, full.dim(), what)
    if random and inside and len(ranks) > 1:
        import monoflow.distributed as dist

        full = full.detach().contiguous()
        dist.broadcast(full, src=ranks[0], group=groups.group(ranks))
    if not building:
        agree(what, (), tuple(full.shape), full.dtype.name)
    if not inside:  # an empty shard, as for an op's result on a placement this rank is not in
        local = full.new_zeros((0,))
    else:
        local = boxing.convert(full, tuple(full.shape), placement, (broadcast,) * len(nd), nd)
    t = wrap(local.detach(), placement, nd, tuple(full.shape))
    if requires_grad:
        t.requires_grad_(True)
        install_grad_hook(t)
    return t


def _device_fits(device, placement):
    """Whether a creation call's device= (None, a string or a device) lets global mode put the tensor on
    `placement`: none named, or one of the placement's device type."""
    if device is None:
        return True
    return str(device).split(":")[0] == placement.type


def accepts_placement(random=False):
    """Adds placement= and sbp= to a creation function."""
    def decorate(fn):
        @functools.wraps(fn)
        def wrapper(*args, placement=None, sbp=None, **kwargs):
            if placement is None:
                if sbp is not None:
                    raise ValueError(f"{fn.__name__}: sbp= needs placement= too")
                mode = current_mode()  # Note: OneFlow's global mode (mode.py)
                if mode is None or not _device_fits(kwargs.get("device"), mode[0]):
                    return fn(*args, **kwargs)
                placement, sbp = mode
                kwargs.pop("device", None)
            with suspended():
                return make(fn, placement, sbp, random, args, kwargs, fn.__name__)
        return wrapper
    return decorate
