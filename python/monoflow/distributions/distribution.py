"""The base of every distribution: shapes, argument checking and the
sample/log_prob/entropy interface that torch.distributions.Distribution has."""
from monoflow._tensor import Size, Tensor
from monoflow.autograd.grad_mode import no_grad
from monoflow.distributions import constraints
from monoflow.distributions.utils import lazy_property
from monoflow.ops_math import exp

_default_validate_args = __debug__


def _size(shape):
    return Size(shape if isinstance(shape, (tuple, list, Size)) else (shape,))


class Distribution:
    """An abstract probability distribution with ``batch_shape`` independent
    members, each over events of ``event_shape``."""

    has_rsample = False
    has_enumerate_support = False
    arg_constraints = {}
    support = None

    @staticmethod
    def set_default_validate_args(value):
        """Turns argument and sample checks on or off for distributions built afterwards (on by default, as in torch)."""
        if value not in (True, False):
            raise ValueError("set_default_validate_args(): argument 'value' must be True or False")
        global _default_validate_args
        _default_validate_args = value

    def __init__(self, batch_shape=(), event_shape=(), validate_args=None):
        self._batch_shape = _size(batch_shape)
        self._event_shape = _size(event_shape)
        self._validate_args = _default_validate_args if validate_args is None else validate_args
        if self._validate_args:
            for name, constraint in self.arg_constraints.items():
                if constraint is constraints.dependent or name not in self.__dict__ and isinstance(
                        getattr(type(self), name, None), lazy_property):
                    continue  # a parameter given in its other form (probs for logits) is not checked twice
                value = getattr(self, name)
                if not bool(constraint.check(value).all()):
                    raise ValueError(
                        f"Expected parameter {name} ({type(value).__name__} of shape {tuple(value.shape)}) of "
                        f"distribution {self!r} to satisfy the constraint {constraint!r}, but found invalid values:\n{value}")

    @property
    def batch_shape(self):
        return self._batch_shape

    @property
    def event_shape(self):
        return self._event_shape

    @property
    def mean(self):
        raise NotImplementedError(f"{type(self).__name__} does not implement mean")

    @property
    def mode(self):
        raise NotImplementedError(f"{type(self).__name__} does not implement mode")

    @property
    def variance(self):
        raise NotImplementedError(f"{type(self).__name__} does not implement variance")

    @property
    def stddev(self):
        return self.variance.sqrt()

    def sample(self, sample_shape=Size()):
        """Draws samples of shape ``sample_shape + batch_shape + event_shape``, without a gradient."""
        with no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=Size()):
        raise NotImplementedError(f"{type(self).__name__} does not implement rsample (it has no reparameterized sampler)")

    def sample_n(self, n):
        return self.sample(Size((n,)))

    def log_prob(self, value):
        raise NotImplementedError(f"{type(self).__name__} does not implement log_prob")

    def cdf(self, value):
        raise NotImplementedError(f"{type(self).__name__} does not implement cdf")

    def icdf(self, value):
        raise NotImplementedError(f"{type(self).__name__} does not implement icdf")

    def entropy(self):
        raise NotImplementedError(f"{type(self).__name__} does not implement entropy")

    def enumerate_support(self, expand=True):
        raise NotImplementedError(f"{type(self).__name__} does not implement enumerate_support")

    def perplexity(self):
        return exp(self.entropy())

    def expand(self, batch_shape, _instance=None):
        """A new distribution of the same kind whose batch is broadcast to ``batch_shape`` (the parameters are
        expanded views, as torch's ``expand``).

        Example::

            >>> m = flow.distributions.Normal(flow.tensor([0.0, 1.0]), flow.tensor([1.0, 2.0]))
            >>> m.expand((3, 2)).batch_shape
            monoflow.Size([3, 2])
        """
        batch_shape = _size(batch_shape)
        old = tuple(self._batch_shape)
        new = type(self).__new__(type(self)) if _instance is None else _instance
        for key, value in self.__dict__.items():
            if isinstance(value, Tensor) and tuple(value.shape[:len(old)]) == old:
                value = value.expand(tuple(batch_shape) + tuple(value.shape[len(old):]))
            elif isinstance(value, Distribution) and tuple(value.batch_shape[:len(old)]) == old:
                value = value.expand(tuple(batch_shape) + tuple(value.batch_shape[len(old):]))
            new.__dict__[key] = value
        new._batch_shape = batch_shape
        return new

    def _extended_shape(self, sample_shape=Size()):
        return Size(tuple(_size(sample_shape)) + tuple(self._batch_shape) + tuple(self._event_shape))

    def _validate_sample(self, value):
        if not isinstance(value, Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        event_dim = len(self._event_shape)
        if tuple(value.shape[value.dim() - event_dim:]) != tuple(self._event_shape):
            raise ValueError(f"The right-most size of value must match event_shape: {tuple(value.shape)} vs {tuple(self._event_shape)}.")
        support = self.support
        if support is None or support is constraints.dependent:
            return
        if not bool(support.check(value).all()):
            raise ValueError(
                f"Expected value argument ({type(value).__name__} of shape {tuple(value.shape)}) to be within the "
                f"support ({support!r}) of the distribution {self!r}, but found invalid values:\n{value}")

    def __repr__(self):
        names = [k for k in self.arg_constraints if k in self.__dict__]
        args = ", ".join(f"{k}: {self.__dict__[k] if self.__dict__[k].numel() == 1 else self.__dict__[k].size()}"
                         for k in names)
        return f"{type(self).__name__}({args})"
