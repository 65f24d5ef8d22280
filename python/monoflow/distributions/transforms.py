"""Invertible maps with a log |det Jacobian|, as torch.distributions.transforms: the pieces of a
TransformedDistribution (SAC's tanh-squashed Gaussian is ``TransformedDistribution(Normal(mu, std), TanhTransform())``)."""
import math

import monoflow as flow
import monoflow.nn.functional as F
from monoflow.distributions import constraints

__all__ = ["Transform", "ComposeTransform", "ExpTransform", "AffineTransform", "TanhTransform", "SigmoidTransform"]


class Transform:
    """``y = T(x)``; ``T.inv(y)`` undoes it and ``log_abs_det_jacobian(x, y)`` is log |dy/dx| per element."""

    bijective = True
    domain = constraints.real
    codomain = constraints.real
    sign = 1

    def __call__(self, x):
        return self._call(x)

    @property
    def inv(self):
        return _InverseTransform(self)

    def _call(self, x):
        raise NotImplementedError

    def _inverse(self, y):
        raise NotImplementedError

    def log_abs_det_jacobian(self, x, y):
        raise NotImplementedError

    def __repr__(self):
        return type(self).__name__ + "()"


class _InverseTransform(Transform):
    def __init__(self, transform):
        self._inv = transform

    @property
    def inv(self):
        return self._inv

    def _call(self, x):
        return self._inv._inverse(x)

    def _inverse(self, y):
        return self._inv._call(y)

    def log_abs_det_jacobian(self, x, y):
        return -self._inv.log_abs_det_jacobian(y, x)


class ComposeTransform(Transform):
    def __init__(self, parts):
        self.parts = list(parts)

    def _call(self, x):
        for part in self.parts:
            x = part(x)
        return x

    def _inverse(self, y):
        for part in reversed(self.parts):
            y = part.inv(y)
        return y

    def log_abs_det_jacobian(self, x, y):
        if not self.parts:
            return flow.zeros_like(x)
        total = 0
        for part in self.parts:
            y_part = part(x)
            total = total + part.log_abs_det_jacobian(x, y_part)
            x = y_part
        return total


class ExpTransform(Transform):
    codomain = constraints.positive

    def _call(self, x):
        return x.exp()

    def _inverse(self, y):
        return y.log()

    def log_abs_det_jacobian(self, x, y):
        return x


class AffineTransform(Transform):
    """``y = loc + scale * x`` (elementwise; ``event_dim`` is accepted as torch's but only 0 is supported)."""

    def __init__(self, loc, scale, event_dim=0, cache_size=0):
        if event_dim != 0:
            raise NotImplementedError("AffineTransform(): only event_dim=0 is supported")
        self.loc, self.scale = loc, scale

    def _call(self, x):
        return self.loc + self.scale * x

    def _inverse(self, y):
        return (y - self.loc) / self.scale

    def log_abs_det_jacobian(self, x, y):
        scale = self.scale
        if isinstance(scale, (int, float)):
            return flow.full_like(x, math.log(abs(scale)))
        return scale.abs().log().expand(x.shape) if scale.shape != x.shape else scale.abs().log()


class TanhTransform(Transform):
    codomain = constraints.interval(-1.0, 1.0)

    def __init__(self, cache_size=0):
        pass

    def _call(self, x):
        return x.tanh()

    def _inverse(self, y):
        return flow.atanh(y)

    def log_abs_det_jacobian(self, x, y):
        # log(1 - tanh(x)^2) in a form that stays finite for large |x| (torch's formula)
        return 2.0 * (math.log(2.0) - x - F.softplus(-2.0 * x))


class SigmoidTransform(Transform):
    codomain = constraints.unit_interval

    def __init__(self, cache_size=0):
        pass

    def _call(self, x):
        return flow.sigmoid(x)

    def _inverse(self, y):
        eps = flow.finfo(y.dtype).eps
        y = y.clamp(min=eps, max=1 - eps)
        return y.log() - (-y).log1p()

    def log_abs_det_jacobian(self, x, y):
        return -F.softplus(-x) - F.softplus(x)
