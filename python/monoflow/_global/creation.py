"""Creation functions with placement= and sbp=: the logical tensor is made
whole on every rank of the placement, the same everywhere (random ones from
a seed the first rank draws and shares), and each rank keeps its shard."""
import functools

from monoflow import _C, _dtypes
from monoflow._global.mode import current as current_mode
from monoflow._global.mode import suspended
from monoflow._global.sbp import as_nd_sbp, broadcast, check_dims


def _shared_seed(placement, generator, inside):
    import monoflow.distributed as dist
    from monoflow import _creation, ops_random  # local: both import this module for accepts_placement
    from monoflow._global import groups

    gen = generator if generator is not None else ops_random.default_generator
    seed = _creation.tensor([int(ops_random.randint(0, 2 ** 62, (1,), generator=gen).item())], dtype=_dtypes.int64)
    ranks = placement.rank_list()
    if len(ranks) > 1 and inside:  # (every rank draws, so default generators stay in step)
        dist.broadcast(seed, src=ranks[0], group=groups.group(ranks))
    g = _C.Generator()
    g.manual_seed(int(seed.item()))
    return g


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
    # agree before the seed's broadcast: ranks with different placements
    # would otherwise wait for different roots
    agree(what, (), placement, nd)
    inside = placement.coords(groups.rank()) is not None
    if random and groups.world_size() > 1:
        # one process needs no shared seed: drawing from the generator itself also lets a graph
        # trace record the draw (the seed's .item() cannot run inside one)
        kwargs["generator"] = _shared_seed(placement, kwargs.get("generator"), inside)
    out = kwargs.pop("out", None)
    if out is not None:  # out= (a global tensor): the samples are made whole, laid out, then copied in
        if kwargs.get("dtype") is None:
            kwargs["dtype"] = out.dtype
        from monoflow.autograd.grad_mode import no_grad  # (local: autograd imports this module's users)

        made = make(fn, placement, sbp, random, args, kwargs, what)
        with no_grad():
            return out.copy_(made)
    full = fn(*args, **kwargs)
    check_dims(nd, full.dim(), what)
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
