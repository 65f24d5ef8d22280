"""Sampling built on the core's uniform generator: randperm (the argsort of
uniform keys) and multinomial (inverse-CDF with replacement, the Gumbel-top-k
trick without), both reproducible from monoflow.manual_seed or a Generator."""
from monoflow import _C, _dtypes
from monoflow import ops_math as _m
from monoflow._global.creation import accepts_placement

__all__ = ["randperm", "multinomial"]

_INT64 = _dtypes.ALIASES["int64"]
_FLOAT64 = _dtypes.ALIASES["float64"]


def _uniform(shape, generator, device):
    # float64 keys: ties between keys, which would bias the permutation, are
    # practically impossible
    return _C.uniform_(_C._empty(tuple(shape), _FLOAT64, device), 0.0, 1.0, generator)


@accepts_placement(random=True)
def randperm(n, *, generator=None, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """A uniformly random permutation of 0..n-1 (int64 by default)."""
    if isinstance(n, bool) or not isinstance(n, int):
        if isinstance(n, _C.TensorBase) and n.numel() == 1 and not n.dtype.is_floating_point:
            n = int(n.item())
        else:
            raise TypeError(f"randperm(): argument 'n' must be int, not {type(n).__name__}")
    if n < 0:
        raise RuntimeError(f"randperm(): n must be non-negative, got {n} (Trying to create tensor with negative dimension {n})")
    if dtype is not None and not isinstance(dtype, _C.dtype):  # (else to()'s message)
        raise TypeError(f"randperm(): argument 'dtype' must be monoflow.dtype, not {type(dtype).__name__}")
    perm = _uniform((n,), generator, device).argsort(-1)
    out = perm if dtype is None or dtype == _INT64 else perm.to(dtype)
    return out.requires_grad_() if requires_grad else out


def multinomial(input, num_samples, replacement=False, *, generator=None):
    """Indices sampled from the categories whose (unnormalised, non-negative)
    weights are input's last dim: num_samples per row."""
    if not isinstance(input, _C.TensorBase):
        raise TypeError(f"multinomial(): argument 'input' must be Tensor, not {type(input).__name__}")
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: {input.dtype}")
    if input.dim() not in (1, 2):
        raise RuntimeError("multinomial(): prob_dist must be 1 or 2 dim")
    num_samples = _C.check_int(num_samples, "multinomial", "num_samples", 2)
    if num_samples <= 0:
        raise RuntimeError("multinomial(): cannot sample n_sample <= 0 samples")
    p = input.detach().double()
    rows = p if p.dim() == 2 else p.unsqueeze(0)
    k = rows.shape[1]
    if not replacement and num_samples > k:
        raise RuntimeError("multinomial(): cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    # The value checks read the weights on the host, which a graph trace has not got: a traced
    # multinomial samples without them (as OneFlow's compiled op).
    checked = not _C._graph_tracing()
    if checked and (bool((rows < 0).any()) or not bool(_m.isfinite(rows).all())):
        raise RuntimeError("multinomial(): probability tensor contains either `inf`, `nan` or element < 0")
    total = rows.sum(-1, keepdim=True)
    if checked and bool((total <= 0).any()):
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    if replacement:
        # inverse CDF: the number of cumulative weights at or below u * total
        cdf = rows.cumsum(-1)
        u = _uniform((rows.shape[0], num_samples), generator, input.device) * total
        out = (cdf.unsqueeze(1) <= u.unsqueeze(-1)).sum(-1, dtype=_INT64)
        out = out.clamp(max=k - 1)  # u * total can round up to the last cumulative weight
    else:
        # Gumbel-top-k: the k largest log(p) + Gumbel noise are a sample without replacement
        u = _uniform(tuple(rows.shape), generator, input.device)
        keys = _m.log(rows) - _m.log(-_m.log(u))
        keys = _m.where(rows > 0, keys, -float("inf"))
        if checked and bool(((rows > 0).sum(-1) < num_samples).any()):
            raise RuntimeError("invalid multinomial distribution (with replacement=False, not enough non-negative "
                               "category to sample)")
        out = keys.topk(num_samples, -1).indices
    return out if input.dim() == 2 else out.squeeze(0)


class TensorMethods:
    """Mixed into monoflow.Tensor."""

    def multinomial(self, num_samples, replacement=False, *, generator=None):
        return multinomial(self, num_samples, replacement, generator=generator)
