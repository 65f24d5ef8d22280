"""The sets a distribution's parameters and samples must lie in, as torch.distributions.constraints names them.
Each constraint's ``check(value)`` returns a bool tensor (per element, or per event for event constraints)."""
import monoflow as flow


class Constraint:
    is_discrete = False
    event_dim = 0

    def check(self, value):
        raise NotImplementedError

    def __repr__(self):
        return type(self).__name__.lstrip("_") + "()"


class _Real(Constraint):
    def check(self, value):
        return value == value  # only NaN fails


class _GreaterThan(Constraint):
    def __init__(self, lower_bound):
        self.lower_bound = lower_bound

    def check(self, value):
        return value > self.lower_bound

    def __repr__(self):
        return f"GreaterThan(lower_bound={self.lower_bound})"


class _GreaterThanEq(_GreaterThan):
    def check(self, value):
        return value >= self.lower_bound

    def __repr__(self):
        return f"GreaterThanEq(lower_bound={self.lower_bound})"


class _Interval(Constraint):
    def __init__(self, lower_bound, upper_bound):
        self.lower_bound, self.upper_bound = lower_bound, upper_bound

    def check(self, value):
        return (self.lower_bound <= value) & (value <= self.upper_bound)

    def __repr__(self):
        return f"Interval(lower_bound={self.lower_bound}, upper_bound={self.upper_bound})"


class _HalfOpenInterval(_Interval):
    def check(self, value):
        return (self.lower_bound <= value) & (value < self.upper_bound)

    def __repr__(self):
        return f"HalfOpenInterval(lower_bound={self.lower_bound}, upper_bound={self.upper_bound})"


class _Boolean(Constraint):
    is_discrete = True

    def check(self, value):
        return (value == 0) | (value == 1)


class _IntegerInterval(Constraint):
    is_discrete = True

    def __init__(self, lower_bound, upper_bound):
        self.lower_bound, self.upper_bound = lower_bound, upper_bound

    def check(self, value):
        return (value % 1 == 0) & (self.lower_bound <= value) & (value <= self.upper_bound)

    def __repr__(self):
        return f"IntegerInterval(lower_bound={self.lower_bound}, upper_bound={self.upper_bound})"


class _Simplex(Constraint):
    event_dim = 1

    def check(self, value):
        return (value >= 0).all(-1) & ((value.sum(-1) - 1).abs() < 1e-6)


class _OneHot(Constraint):
    is_discrete = True
    event_dim = 1

    def check(self, value):
        return ((value == 0) | (value == 1)).all(-1) & (value.sum(-1) == 1)


class _RealVector(Constraint):
    event_dim = 1

    def check(self, value):
        return (value == value).all(-1)


class _LowerCholesky(Constraint):
    event_dim = 2

    def check(self, value):
        lower = (value.tril() == value).flatten(-2).all(-1)
        return lower & (value.diagonal(dim1=-2, dim2=-1) > 0).all(-1)


class _PositiveDefinite(Constraint):
    event_dim = 2

    def check(self, value):
        symmetric = ((value - value.transpose(-1, -2)).abs() < 1e-6).flatten(-2).all(-1)
        return symmetric & (flow.linalg.eigvalsh(value) > 0).all(-1)


class _Dependent(Constraint):
    """A support that depends on the distribution's parameters (Uniform's [low, high))."""

    def check(self, value):
        raise ValueError("Cannot determine validity of dependent constraint")


def interval(lower_bound, upper_bound):
    return _Interval(lower_bound, upper_bound)


def half_open_interval(lower_bound, upper_bound):
    return _HalfOpenInterval(lower_bound, upper_bound)


def integer_interval(lower_bound, upper_bound):
    return _IntegerInterval(lower_bound, upper_bound)


def greater_than(lower_bound):
    return _GreaterThan(lower_bound)


def greater_than_eq(lower_bound):
    return _GreaterThanEq(lower_bound)


real = _Real()
positive = _GreaterThan(0.0)
nonnegative = _GreaterThanEq(0.0)
unit_interval = _Interval(0.0, 1.0)
boolean = _Boolean()
nonnegative_integer = _IntegerInterval(0, float("inf"))
simplex = _Simplex()
one_hot = _OneHot()
real_vector = _RealVector()
lower_cholesky = _LowerCholesky()
positive_definite = _PositiveDefinite()
dependent = _Dependent()
