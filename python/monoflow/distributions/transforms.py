"""Invertible maps with a log |det Jacobian|, as torch.distributions.transforms: the pieces of a
TransformedDistribution (SAC's tanh-squashed Gaussian is
``TransformedDistribution(Normal(mu, std), TanhTransform(cache_size=1))``).

Every transform is written with monoflow ops, so gradients flow through ``T(x)``, ``T.inv(y)`` and
``T.log_abs_det_jacobian(x, y)``. ``cache_size=1`` remembers the last ``(x, y)`` pair so that ``T.inv(T(x))``
returns ``x`` itself (a tanh-squashed sample's log_prob does not go through an unstable atanh).
"""
import math
import numbers
import operator
import weakref
from functools import reduce

import monoflow.nn.functional as F
from monoflow import _type_info, linalg
from monoflow._creation import as_tensor, full_like, ones, tensor, zeros_like
from monoflow._tensor import Size
from monoflow.distributions import constraints
from monoflow.ops_join import broadcast_shapes
from monoflow.ops_layout import tril_indices
from monoflow.ops_math import atanh, clamp, sigmoid, tanh
from monoflow.ops_random import eye
from monoflow.ops_shape import cat, stack

__all__ = ["AbsTransform", "AffineTransform", "CatTransform", "ComposeTransform", "CorrCholeskyTransform",
           "CumulativeDistributionTransform", "ExpTransform", "IndependentTransform", "LowerCholeskyTransform",
           "PositiveDefiniteTransform", "PowerTransform", "ReshapeTransform", "SigmoidTransform",
           "SoftplusTransform", "TanhTransform", "SoftmaxTransform", "StackTransform", "StickBreakingTransform",
           "Transform", "identity_transform"]


def _sum_rightmost(value, dim):
    return value.reshape(tuple(value.shape[:value.dim() - dim]) + (-1,)).sum(-1) if dim > 0 else value


class Transform:
    """``y = T(x)``; ``T.inv(y)`` undoes it and ``log_abs_det_jacobian(x, y)`` is log |dy/dx|, summed over the
    transform's event dims (``domain.event_dim``)."""

    bijective = False
    domain = constraints.real
    codomain = constraints.real

    def __init__(self, cache_size=0):
        if cache_size == 0:
            pass
        elif cache_size == 1:
            self._cached_x_y = None, None
        else:
            raise ValueError("cache_size must be 0 or 1")
        self._cache_size = cache_size
        self._inv = None

    @property
    def event_dim(self):
        if self.domain.event_dim == self.codomain.event_dim:
            return self.domain.event_dim
        raise ValueError("Please use either .domain.event_dim or .codomain.event_dim")

    @property
    def inv(self):
        inv = self._inv() if self._inv is not None else None
        if inv is None:
            inv = _InverseTransform(self)
            self._inv = weakref.ref(inv)
        return inv

    @property
    def sign(self):
        raise NotImplementedError

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        if type(self).__init__ is Transform.__init__:
            return type(self)(cache_size=cache_size)
        raise NotImplementedError(f"{type(self)}.with_cache is not implemented")

    def __eq__(self, other):
        return self is other

    def __ne__(self, other):
        return not self.__eq__(other)

    __hash__ = object.__hash__

    def __call__(self, x):
        if self._cache_size == 0:
            return self._call(x)
        x_old, y_old = self._cached_x_y
        if x is x_old:
            return y_old
        y = self._call(x)
        self._cached_x_y = x, y
        return y

    def _inv_call(self, y):
        if self._cache_size == 0:
            return self._inverse(y)
        x_old, y_old = self._cached_x_y
        if y is y_old:
            return x_old
        x = self._inverse(y)
        self._cached_x_y = x, y
        return x

    def _call(self, x):
        raise NotImplementedError

    def _inverse(self, y):
        raise NotImplementedError

    def log_abs_det_jacobian(self, x, y):
        raise NotImplementedError

    def forward_shape(self, shape):
        return shape

    def inverse_shape(self, shape):
        return shape

    def __repr__(self):
        return type(self).__name__ + "()"

    def __getstate__(self):
        state = self.__dict__.copy()
        state["_inv"] = None
        return state


class _InverseTransform(Transform):
    def __init__(self, transform):
        super().__init__(cache_size=transform._cache_size)
        self._inv = transform

    @property
    def domain(self):
        return self._inv.codomain

    @property
    def codomain(self):
        return self._inv.domain

    @property
    def bijective(self):
        return self._inv.bijective

    @property
    def sign(self):
        return self._inv.sign

    @property
    def inv(self):
        return self._inv

    def with_cache(self, cache_size=1):
        return self.inv.with_cache(cache_size).inv

    def __eq__(self, other):
        return isinstance(other, _InverseTransform) and self._inv == other._inv

    __hash__ = object.__hash__

    def __repr__(self):
        return f"{type(self._inv).__name__}().inv"

    def __call__(self, x):
        return self._inv._inv_call(x)

    def log_abs_det_jacobian(self, x, y):
        return -self._inv.log_abs_det_jacobian(y, x)

    def forward_shape(self, shape):
        return self._inv.inverse_shape(shape)

    def inverse_shape(self, shape):
        return self._inv.forward_shape(shape)


class ComposeTransform(Transform):
    """The transforms of ``parts`` applied in order (``parts[0]`` first).

    Example::

        >>> T = flow.distributions.transforms
        >>> t = T.ComposeTransform([T.ExpTransform(), T.AffineTransform(1.0, 2.0)])
        >>> t(flow.tensor([0.0]))
        tensor([3.])
    """

    def __init__(self, parts, cache_size=0):
        if cache_size:
            parts = [part.with_cache(cache_size) for part in parts]
        super().__init__(cache_size=cache_size)
        self.parts = list(parts)

    def __eq__(self, other):
        return isinstance(other, ComposeTransform) and self.parts == other.parts

    __hash__ = object.__hash__

    @property
    def domain(self):
        if not self.parts:
            return constraints.real
        domain = self.parts[0].domain
        event_dim = self.parts[-1].codomain.event_dim
        for part in reversed(self.parts):
            event_dim += part.domain.event_dim - part.codomain.event_dim
            event_dim = max(event_dim, part.domain.event_dim)
        if event_dim > domain.event_dim:
            domain = constraints.independent(domain, event_dim - domain.event_dim)
        return domain

    @property
    def codomain(self):
        if not self.parts:
            return constraints.real
        codomain = self.parts[-1].codomain
        event_dim = self.parts[0].domain.event_dim
        for part in self.parts:
            event_dim += part.codomain.event_dim - part.domain.event_dim
            event_dim = max(event_dim, part.codomain.event_dim)
        if event_dim > codomain.event_dim:
            codomain = constraints.independent(codomain, event_dim - codomain.event_dim)
        return codomain

    @property
    def bijective(self):
        return all(p.bijective for p in self.parts)

    @property
    def sign(self):
        sign = 1
        for p in self.parts:
            sign = sign * p.sign
        return sign

    @property
    def inv(self):
        inv = self._inv() if self._inv is not None else None
        if inv is None:
            inv = ComposeTransform([p.inv for p in reversed(self.parts)])
            self._inv = weakref.ref(inv)
            inv._inv = weakref.ref(self)
        return inv

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return ComposeTransform(self.parts, cache_size=cache_size)

    def __call__(self, x):
        for part in self.parts:
            x = part(x)
        return x

    def log_abs_det_jacobian(self, x, y):
        if not self.parts:
            return zeros_like(x)
        xs = [x]
        for part in self.parts[:-1]:
            xs.append(part(xs[-1]))
        xs.append(y)
        terms = []
        event_dim = self.domain.event_dim
        for part, x, y in zip(self.parts, xs[:-1], xs[1:]):
            terms.append(_sum_rightmost(part.log_abs_det_jacobian(x, y), event_dim - part.domain.event_dim))
            event_dim += part.codomain.event_dim - part.domain.event_dim
        return reduce(operator.add, terms)

    def forward_shape(self, shape):
        for part in self.parts:
            shape = part.forward_shape(shape)
        return shape

    def inverse_shape(self, shape):
        for part in reversed(self.parts):
            shape = part.inverse_shape(shape)
        return shape

    def __repr__(self):
        return type(self).__name__ + "(\n    " + ",\n    ".join(repr(p) for p in self.parts) + "\n)"


identity_transform = ComposeTransform([])


class IndependentTransform(Transform):
    """Wraps ``base_transform`` so that its rightmost ``reinterpreted_batch_ndims`` dims count as event dims
    (``log_abs_det_jacobian`` sums over them).

    Example::

        >>> T = flow.distributions.transforms
        >>> t = T.IndependentTransform(T.ExpTransform(), 1)
        >>> t.log_abs_det_jacobian(flow.tensor([1.0, 2.0]), None)
        tensor(3.)
    """

    def __init__(self, base_transform, reinterpreted_batch_ndims, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.base_transform = base_transform.with_cache(cache_size)
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return IndependentTransform(self.base_transform, self.reinterpreted_batch_ndims, cache_size=cache_size)

    @property
    def domain(self):
        return constraints.independent(self.base_transform.domain, self.reinterpreted_batch_ndims)

    @property
    def codomain(self):
        return constraints.independent(self.base_transform.codomain, self.reinterpreted_batch_ndims)

    @property
    def bijective(self):
        return self.base_transform.bijective

    @property
    def sign(self):
        return self.base_transform.sign

    def _call(self, x):
        if x.dim() < self.domain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform(x)

    def _inverse(self, y):
        if y.dim() < self.codomain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform.inv(y)

    def log_abs_det_jacobian(self, x, y):
        return _sum_rightmost(self.base_transform.log_abs_det_jacobian(x, y), self.reinterpreted_batch_ndims)

    def __repr__(self):
        return f"{type(self).__name__}({self.base_transform!r}, {self.reinterpreted_batch_ndims})"

    def forward_shape(self, shape):
        return self.base_transform.forward_shape(shape)

    def inverse_shape(self, shape):
        return self.base_transform.inverse_shape(shape)


class ReshapeTransform(Transform):
    """Reshapes the rightmost ``in_shape`` dims to ``out_shape`` (same number of elements; Jacobian 1).

    Example::

        >>> T = flow.distributions.transforms
        >>> T.ReshapeTransform((4,), (2, 2))(flow.arange(4.0)).shape
        monoflow.Size([2, 2])
    """
    bijective = True

    def __init__(self, in_shape, out_shape, cache_size=0):
        self.in_shape = Size(in_shape)
        self.out_shape = Size(out_shape)
        if self.in_shape.numel() != self.out_shape.numel():
            raise ValueError("in_shape, out_shape have different numbers of elements")
        super().__init__(cache_size=cache_size)

    @property
    def domain(self):
        return constraints.independent(constraints.real, len(self.in_shape))

    @property
    def codomain(self):
        return constraints.independent(constraints.real, len(self.out_shape))

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return ReshapeTransform(self.in_shape, self.out_shape, cache_size=cache_size)

    def _call(self, x):
        batch_shape = tuple(x.shape[:x.dim() - len(self.in_shape)])
        return x.reshape(batch_shape + tuple(self.out_shape))

    def _inverse(self, y):
        batch_shape = tuple(y.shape[:y.dim() - len(self.out_shape)])
        return y.reshape(batch_shape + tuple(self.in_shape))

    def log_abs_det_jacobian(self, x, y):
        batch_shape = tuple(x.shape[:x.dim() - len(self.in_shape)])
        return x.new_zeros(batch_shape)

    def forward_shape(self, shape):
        if len(shape) < len(self.in_shape):
            raise ValueError("Too few dimensions on input")
        cut = len(shape) - len(self.in_shape)
        if tuple(shape[cut:]) != tuple(self.in_shape):
            raise ValueError(f"Shape mismatch: expected {tuple(shape[cut:])} but got {tuple(self.in_shape)}")
        return tuple(shape[:cut]) + tuple(self.out_shape)

    def inverse_shape(self, shape):
        if len(shape) < len(self.out_shape):
            raise ValueError("Too few dimensions on input")
        cut = len(shape) - len(self.out_shape)
        if tuple(shape[cut:]) != tuple(self.out_shape):
            raise ValueError(f"Shape mismatch: expected {tuple(shape[cut:])} but got {tuple(self.out_shape)}")
        return tuple(shape[:cut]) + tuple(self.in_shape)


class ExpTransform(Transform):
    """``y = exp(x)``.

    Example::

        >>> T = flow.distributions.transforms
        >>> T.ExpTransform()(flow.tensor([0.0, 1.0]))
        tensor([1.0000, 2.7183])
    """
    domain = constraints.real
    codomain = constraints.positive
    bijective = True
    sign = +1

    def __eq__(self, other):
        return isinstance(other, ExpTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        return x.exp()

    def _inverse(self, y):
        return y.log()

    def log_abs_det_jacobian(self, x, y):
        return x


class PowerTransform(Transform):
    """``y = x ** exponent`` on positive ``x``.

    Example::

        >>> T = flow.distributions.transforms
        >>> T.PowerTransform(2.0)(flow.tensor([3.0]))
        tensor([9.])
    """
    domain = constraints.positive
    codomain = constraints.positive
    bijective = True

    def __init__(self, exponent, cache_size=0):
        super().__init__(cache_size=cache_size)
        if isinstance(exponent, numbers.Number):
            exponent = tensor(float(exponent))
        self.exponent = exponent

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return PowerTransform(self.exponent, cache_size=cache_size)

    @property
    def sign(self):
        return self.exponent.sign()

    def __eq__(self, other):
        return isinstance(other, PowerTransform) and bool(self.exponent.eq(other.exponent).all())

    __hash__ = object.__hash__

    def _call(self, x):
        return x.pow(self.exponent)

    def _inverse(self, y):
        return y.pow(1 / self.exponent)

    def log_abs_det_jacobian(self, x, y):
        return (self.exponent * y / x).abs().log()

    def forward_shape(self, shape):
        return tuple(broadcast_shapes(tuple(shape), tuple(getattr(self.exponent, "shape", ()))))

    def inverse_shape(self, shape):
        return tuple(broadcast_shapes(tuple(shape), tuple(getattr(self.exponent, "shape", ()))))


def _clipped_sigmoid(x):
    finfo = _type_info.finfo(x.dtype)
    return clamp(sigmoid(x), min=finfo.tiny, max=1.0 - finfo.eps)


class SigmoidTransform(Transform):
    """``y = sigmoid(x)``, clipped into the open unit interval.

    Example::

        >>> T = flow.distributions.transforms
        >>> T.SigmoidTransform()(flow.tensor([0.0]))
        tensor([0.5000])
    """
    domain = constraints.real
    codomain = constraints.unit_interval
    bijective = True
    sign = +1

    def __eq__(self, other):
        return isinstance(other, SigmoidTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        return _clipped_sigmoid(x)

    def _inverse(self, y):
        finfo = _type_info.finfo(y.dtype)
        y = y.clamp(min=finfo.tiny, max=1.0 - finfo.eps)
        return y.log() - (-y).log1p()

    def log_abs_det_jacobian(self, x, y):
        return -F.softplus(-x) - F.softplus(x)


class SoftplusTransform(Transform):
    """``y = log(1 + exp(x))``.

    Example::

        >>> T = flow.distributions.transforms
        >>> T.SoftplusTransform()(flow.tensor([0.0]))
        tensor([0.6931])
    """
    domain = constraints.real
    codomain = constraints.positive
    bijective = True
    sign = +1

    def __eq__(self, other):
        return isinstance(other, SoftplusTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        return F.softplus(x)

    def _inverse(self, y):
        return (-y).expm1().neg().log() + y

    def log_abs_det_jacobian(self, x, y):
        return -F.softplus(-x)


class TanhTransform(Transform):
    """``y = tanh(x)``; with ``cache_size=1`` (as SAC uses it) ``inv`` of a just-computed ``y`` returns ``x``.

    Example::

        >>> T = flow.distributions.transforms
        >>> t = T.TanhTransform(cache_size=1)
        >>> x = flow.tensor([5.0])
        >>> t.inv(t(x)) is x
        True
    """
    domain = constraints.real
    codomain = constraints.interval(-1.0, 1.0)
    bijective = True
    sign = +1

    def __eq__(self, other):
        return isinstance(other, TanhTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        return x.tanh()

    def _inverse(self, y):
        return atanh(y)

    def log_abs_det_jacobian(self, x, y):
        # log(1 - tanh(x)^2) in a form that stays finite for large |x| (torch's formula)
        return 2.0 * (math.log(2.0) - x - F.softplus(-2.0 * x))


class AbsTransform(Transform):
    """``y = |x|`` (not bijective; ``inv`` returns the nonnegative root).

    Example::

        >>> T = flow.distributions.transforms
        >>> T.AbsTransform()(flow.tensor([-2.0]))
        tensor([2.])
    """
    domain = constraints.real
    codomain = constraints.positive

    def __eq__(self, other):
        return isinstance(other, AbsTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        return x.abs()

    def _inverse(self, y):
        return y


class AffineTransform(Transform):
    """``y = loc + scale * x``; ``event_dim`` dims on the right count as one event.

    Example::

        >>> T = flow.distributions.transforms
        >>> T.AffineTransform(1.0, 2.0)(flow.tensor([1.0]))
        tensor([3.])
    """
    bijective = True

    def __init__(self, loc, scale, event_dim=0, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.loc = loc
        self.scale = scale
        self._event_dim = event_dim

    @property
    def event_dim(self):
        return self._event_dim

    @property
    def domain(self):
        if self.event_dim == 0:
            return constraints.real
        return constraints.independent(constraints.real, self.event_dim)

    @property
    def codomain(self):
        return self.domain

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return AffineTransform(self.loc, self.scale, self.event_dim, cache_size=cache_size)

    def __eq__(self, other):
        if not isinstance(other, AffineTransform):
            return False
        for a, b in ((self.loc, other.loc), (self.scale, other.scale)):
            if isinstance(a, numbers.Number) and isinstance(b, numbers.Number):
                if a != b:
                    return False
            elif not bool((as_tensor(a) == as_tensor(b)).all()):
                return False
        return True

    __hash__ = object.__hash__

    @property
    def sign(self):
        if isinstance(self.scale, numbers.Real):
            return 1 if float(self.scale) > 0 else -1 if float(self.scale) < 0 else 0
        return self.scale.sign()

    def _call(self, x):
        return self.loc + self.scale * x

    def _inverse(self, y):
        return (y - self.loc) / self.scale

    def log_abs_det_jacobian(self, x, y):
        shape = x.shape
        scale = self.scale
        if isinstance(scale, numbers.Real):
            result = full_like(x, math.log(abs(scale)))
        else:
            result = scale.abs().log()
        if self.event_dim:
            result_size = tuple(result.shape[:result.dim() - self.event_dim]) + (-1,)
            result = result.reshape(result_size).sum(-1)
            shape = shape[:len(shape) - self.event_dim]
        return result.expand(shape)

    def forward_shape(self, shape):
        return tuple(broadcast_shapes(tuple(shape), tuple(getattr(self.loc, "shape", ())),
                                      tuple(getattr(self.scale, "shape", ()))))

    def inverse_shape(self, shape):
        return self.forward_shape(shape)


class CorrCholeskyTransform(Transform):
    """Maps an unconstrained vector of length ``D*(D-1)/2`` to the lower Cholesky factor of a ``D x D``
    correlation matrix (a signed stick-breaking of each row).

    Example::

        >>> T = flow.distributions.transforms
        >>> L = T.CorrCholeskyTransform()(flow.zeros(3))
        >>> L.shape
        monoflow.Size([3, 3])
    """
    domain = constraints.real_vector
    codomain = constraints.corr_cholesky
    bijective = True

    def _call(self, x):
        x = tanh(x)
        eps = _type_info.finfo(x.dtype).eps
        x = x.clamp(min=-1 + eps, max=1 - eps)
        r = _vec_to_tril_matrix(x, diag=-1)
        z = r ** 2
        z1m_cumprod_sqrt = (1 - z).sqrt().cumprod(-1)
        r = r + eye(r.shape[-1], dtype=r.dtype, device=r.device)
        y = r * F.pad(z1m_cumprod_sqrt[..., :-1], [1, 0], value=1)
        return y

    def _inverse(self, y):
        y_cumsum = 1 - (y * y).cumsum(dim=-1)
        y_cumsum_shifted = F.pad(y_cumsum[..., :-1], [1, 0], value=1)
        y_vec = _tril_matrix_to_vec(y, diag=-1)
        y_cumsum_vec = _tril_matrix_to_vec(y_cumsum_shifted, diag=-1)
        t = y_vec / y_cumsum_vec.sqrt()
        return 0.5 * ((1 + t) / (1 - t)).log()

    def log_abs_det_jacobian(self, x, y, intermediates=None):
        y1m_cumsum = 1 - (y * y).cumsum(dim=-1)
        y1m_cumsum_tril = _tril_matrix_to_vec(y1m_cumsum, diag=-2)
        stick_breaking_logdet = 0.5 * (y1m_cumsum_tril).log().sum(-1)
        tanh_logdet = -2 * (x + F.softplus(-2 * x) - math.log(2.0)).sum(dim=-1)
        return stick_breaking_logdet + tanh_logdet

    def forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        N = shape[-1]
        D = round((0.25 + 2 * N) ** 0.5 + 0.5)
        if D * (D - 1) // 2 != N:
            raise ValueError("Input is not a flattend lower-diagonal number")
        return tuple(shape[:-1]) + (D, D)

    def inverse_shape(self, shape):
        if len(shape) < 2:
            raise ValueError("Too few dimensions on input")
        if shape[-2] != shape[-1]:
            raise ValueError("Input is not square")
        D = shape[-1]
        N = D * (D - 1) // 2
        return tuple(shape[:-2]) + (N,)


def _tril_matrix_to_vec(mat, diag=0):
    n = mat.shape[-1]
    rows, cols = tril_indices(n, n, offset=diag, device=mat.device)
    return mat[..., rows, cols]


def _vec_to_tril_matrix(vec, diag=0):
    n = round((math.sqrt(1 + 8 * vec.shape[-1]) - 1) / 2 - diag)
    rows, cols = tril_indices(n, n, offset=diag, device=vec.device)
    index = rows * n + cols
    flat = vec.new_zeros(tuple(vec.shape[:-1]) + (n * n,))
    flat = flat.scatter(-1, index.expand(tuple(vec.shape[:-1]) + (index.shape[-1],)), vec)
    return flat.reshape(tuple(vec.shape[:-1]) + (n, n))


class SoftmaxTransform(Transform):
    """``y = softmax(x)`` over the last dim (not bijective; the inverse picks log-probabilities).

    Example::

        >>> T = flow.distributions.transforms
        >>> T.SoftmaxTransform()(flow.tensor([0.0, 0.0]))
        tensor([0.5000, 0.5000])
    """
    domain = constraints.real_vector
    codomain = constraints.simplex

    def __eq__(self, other):
        return isinstance(other, SoftmaxTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        logprobs = x
        probs = (logprobs - logprobs.max(-1, True)[0]).exp()
        return probs / probs.sum(-1, True)

    def _inverse(self, y):
        return y.log()

    def forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return shape

    def inverse_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return shape


class StickBreakingTransform(Transform):
    """Maps ``K-1`` unconstrained reals to a point of the ``K``-simplex by stick breaking (bijective).

    Example::

        >>> T = flow.distributions.transforms
        >>> T.StickBreakingTransform()(flow.zeros(2))
        tensor([0.3333, 0.3333, 0.3333])
    """
    domain = constraints.real_vector
    codomain = constraints.simplex
    bijective = True

    def __eq__(self, other):
        return isinstance(other, StickBreakingTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        offset = x.shape[-1] + 1 - ones(x.shape[-1], dtype=x.dtype, device=x.device).cumsum(-1)
        z = _clipped_sigmoid(x - offset.log())
        z_cumprod = (1 - z).cumprod(-1)
        y = F.pad(z, [0, 1], value=1) * F.pad(z_cumprod, [1, 0], value=1)
        return y

    def _inverse(self, y):
        y_crop = y[..., :-1]
        offset = y.shape[-1] - ones(y_crop.shape[-1], dtype=y.dtype, device=y.device).cumsum(-1)
        sf = 1 - y_crop.cumsum(-1)
        finfo = _type_info.finfo(y.dtype)
        sf = clamp(sf, min=finfo.tiny)
        x = y_crop.log() - sf.log() + offset.log()
        return x

    def log_abs_det_jacobian(self, x, y):
        offset = x.shape[-1] + 1 - ones(x.shape[-1], dtype=x.dtype, device=x.device).cumsum(-1)
        x = x - offset.log()
        detJ = (-x + F.logsigmoid(x) + y[..., :-1].log()).sum(-1)
        return detJ

    def forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return tuple(shape[:-1]) + (shape[-1] + 1,)

    def inverse_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return tuple(shape[:-1]) + (shape[-1] - 1,)


class LowerCholeskyTransform(Transform):
    """Maps an unconstrained square matrix to a lower-triangular one with a positive (exponentiated) diagonal.

    Example::

        >>> T = flow.distributions.transforms
        >>> T.LowerCholeskyTransform()(flow.zeros(2, 2))
        tensor([[1., 0.],
                [0., 1.]])
    """
    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.lower_cholesky

    def __eq__(self, other):
        return isinstance(other, LowerCholeskyTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        return x.tril(-1) + x.diagonal(dim1=-2, dim2=-1).exp().diag_embed()

    def _inverse(self, y):
        return y.tril(-1) + y.diagonal(dim1=-2, dim2=-1).log().diag_embed()


class PositiveDefiniteTransform(Transform):
    """Maps an unconstrained square matrix to a positive definite one, ``L L^T`` with ``L`` from
    :class:`LowerCholeskyTransform`.

    Example::

        >>> T = flow.distributions.transforms
        >>> T.PositiveDefiniteTransform()(flow.zeros(2, 2))
        tensor([[1., 0.],
                [0., 1.]])
    """
    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.positive_definite

    def __eq__(self, other):
        return isinstance(other, PositiveDefiniteTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        x = LowerCholeskyTransform()(x)
        return x @ x.transpose(-1, -2)

    def _inverse(self, y):
        y = linalg.cholesky(y)
        return LowerCholeskyTransform().inv(y)


class CatTransform(Transform):
    """Applies each transform of ``tseq`` to its slice (of ``lengths``) of ``dim``, as ``flow.cat``.

    Example::

        >>> T = flow.distributions.transforms
        >>> t = T.CatTransform([T.ExpTransform(), T.identity_transform], dim=0, lengths=[1, 1])
        >>> t(flow.tensor([0.0, 5.0]))
        tensor([1., 5.])
    """

    def __init__(self, tseq, dim=0, lengths=None, cache_size=0):
        if not all(isinstance(t, Transform) for t in tseq):
            raise TypeError("CatTransform(): tseq must be Transforms")
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = list(tseq)
        if lengths is None:
            lengths = [1] * len(self.transforms)
        self.lengths = list(lengths)
        if len(self.lengths) != len(self.transforms):
            raise ValueError("CatTransform(): lengths and tseq must have the same length")
        self.dim = dim

    @property
    def event_dim(self):
        return max(t.event_dim for t in self.transforms)

    @property
    def length(self):
        return sum(self.lengths)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return CatTransform(self.transforms, self.dim, self.lengths, cache_size)

    def _slices(self, x):
        if not -x.dim() <= self.dim < x.dim():
            raise ValueError(f"CatTransform: dim {self.dim} out of range")
        if x.size(self.dim) != self.length:
            raise ValueError(f"CatTransform: size {x.size(self.dim)} along dim {self.dim} is not {self.length}")
        start = 0
        for length in self.lengths:
            yield x.narrow(self.dim, start, length)
            start += length

    def _call(self, x):
        return cat([t(xs) for t, xs in zip(self.transforms, self._slices(x))], dim=self.dim)

    def _inverse(self, y):
        return cat([t.inv(ys) for t, ys in zip(self.transforms, self._slices(y))], dim=self.dim)

    def log_abs_det_jacobian(self, x, y):
        logdetjacs = []
        for t, xs, ys in zip(self.transforms, self._slices(x), self._slices(y)):
            logdetjac = t.log_abs_det_jacobian(xs, ys)
            if t.event_dim < self.event_dim:
                logdetjac = _sum_rightmost(logdetjac, self.event_dim - t.event_dim)
            logdetjacs.append(logdetjac)
        dim = self.dim
        if dim >= 0:
            dim = dim - x.dim()
        dim = dim + self.event_dim
        if dim < 0:
            return cat(logdetjacs, dim=dim)
        return reduce(operator.add, logdetjacs)

    @property
    def bijective(self):
        return all(t.bijective for t in self.transforms)

    @property
    def domain(self):
        return constraints.cat([t.domain for t in self.transforms], self.dim, self.lengths)

    @property
    def codomain(self):
        return constraints.cat([t.codomain for t in self.transforms], self.dim, self.lengths)


class StackTransform(Transform):
    """Applies each transform of ``tseq`` to its slice of ``dim``, as ``flow.stack``.

    Example::

        >>> T = flow.distributions.transforms
        >>> t = T.StackTransform([T.ExpTransform(), T.identity_transform], dim=0)
        >>> t(flow.tensor([0.0, 5.0]))
        tensor([1., 5.])
    """

    def __init__(self, tseq, dim=0, cache_size=0):
        if not all(isinstance(t, Transform) for t in tseq):
            raise TypeError("StackTransform(): tseq must be Transforms")
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = list(tseq)
        self.dim = dim

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return StackTransform(self.transforms, self.dim, cache_size)

    def _slice(self, z):
        if not -z.dim() <= self.dim < z.dim():
            raise ValueError(f"StackTransform: dim {self.dim} out of range")
        if z.size(self.dim) != len(self.transforms):
            raise ValueError(f"StackTransform: size {z.size(self.dim)} along dim {self.dim} is not "
                             f"{len(self.transforms)}")
        return [z.select(self.dim, i) for i in range(z.size(self.dim))]

    def _call(self, x):
        return stack([t(xs) for xs, t in zip(self._slice(x), self.transforms)], dim=self.dim)

    def _inverse(self, y):
        return stack([t.inv(ys) for ys, t in zip(self._slice(y), self.transforms)], dim=self.dim)

    def log_abs_det_jacobian(self, x, y):
        return stack([t.log_abs_det_jacobian(xs, ys) for xs, ys, t in
                      zip(self._slice(x), self._slice(y), self.transforms)], dim=self.dim)

    @property
    def bijective(self):
        return all(t.bijective for t in self.transforms)

    @property
    def domain(self):
        return constraints.stack([t.domain for t in self.transforms], self.dim)

    @property
    def codomain(self):
        return constraints.stack([t.codomain for t in self.transforms], self.dim)


class CumulativeDistributionTransform(Transform):
    """``y = distribution.cdf(x)``: maps the support of a univariate ``distribution`` onto the unit interval
    (a copula's marginal).

    Example::

        >>> T = flow.distributions.transforms
        >>> Normal = flow.distributions.Normal
        >>> T.CumulativeDistributionTransform(Normal(0.0, 1.0))(flow.tensor([0.0]))
        tensor([0.5000])
    """
    bijective = True
    codomain = constraints.unit_interval
    sign = +1

    def __init__(self, distribution, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.distribution = distribution

    @property
    def domain(self):
        return self.distribution.support

    def _call(self, x):
        return self.distribution.cdf(x)

    def _inverse(self, y):
        return self.distribution.icdf(y)

    def log_abs_det_jacobian(self, x, y):
        return self.distribution.log_prob(x)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return type(self)(self.distribution, cache_size=cache_size)
