"""The sets a distribution's parameters and samples must lie in, as torch.distributions.constraints names them.
Each constraint's ``check(value)`` returns a bool tensor (per element, or per event for event constraints)."""
from monoflow import linalg, ops_shape
from monoflow._creation import full
from monoflow._dtypes import bool_
from monoflow._type_info import finfo
from monoflow.ops_stats import isclose


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
        return symmetric & (linalg.eigvalsh(value) > 0).all(-1)


class _Dependent(Constraint):
    """A support that depends on the distribution's parameters (Uniform's [low, high))."""

    def __init__(self, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        self._is_discrete, self._event_dim = is_discrete, event_dim

    @property
    def is_discrete(self):
        if self._is_discrete is NotImplemented:
            raise NotImplementedError(".is_discrete cannot be determined statically")
        return self._is_discrete

    @property
    def event_dim(self):
        if self._event_dim is NotImplemented:
            raise NotImplementedError(".event_dim cannot be determined statically")
        return self._event_dim

    def __call__(self, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        return _Dependent(is_discrete=self._is_discrete if is_discrete is NotImplemented else is_discrete,
                          event_dim=self._event_dim if event_dim is NotImplemented else event_dim)

    def check(self, value):
        raise ValueError("Cannot determine validity of dependent constraint")


def is_dependent(constraint):
    """Whether ``constraint`` is a ``dependent`` placeholder (a support that depends on the parameters)."""
    return isinstance(constraint, _Dependent)


class _DependentProperty(property, _Dependent):
    """A property whose value is a constraint that depends on the distribution's parameters (torch's
    ``constraints.dependent_property``): on the class it reads as ``dependent``."""

    def __init__(self, fn=None, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        property.__init__(self, fn)
        self._is_discrete, self._event_dim = is_discrete, event_dim

    def __call__(self, fn):
        return _DependentProperty(fn, is_discrete=self._is_discrete, event_dim=self._event_dim)


dependent_property = _DependentProperty


class _IndependentConstraint(Constraint):
    """Reinterprets the rightmost ``reinterpreted_batch_ndims`` dims of ``base_constraint`` as event dims."""

    def __init__(self, base_constraint, reinterpreted_batch_ndims):
        if not isinstance(base_constraint, Constraint):
            raise TypeError(f"independent(): base_constraint must be a Constraint, not {type(base_constraint).__name__}")
        if not isinstance(reinterpreted_batch_ndims, int) or reinterpreted_batch_ndims < 0:
            raise ValueError("independent(): reinterpreted_batch_ndims must be a non-negative int")
        self.base_constraint = base_constraint
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    @property
    def is_discrete(self):
        return self.base_constraint.is_discrete

    @property
    def event_dim(self):
        return self.base_constraint.event_dim + self.reinterpreted_batch_ndims

    def check(self, value):
        result = self.base_constraint.check(value)
        if result.dim() < self.reinterpreted_batch_ndims:
            expected = self.base_constraint.event_dim + self.reinterpreted_batch_ndims
            raise ValueError(f"Expected value.dim() >= {expected} but got {value.dim()}")
        if self.reinterpreted_batch_ndims:
            result = result.reshape(tuple(result.shape[:result.dim() - self.reinterpreted_batch_ndims]) + (-1,)).all(-1)
        return result

    def __repr__(self):
        return f"IndependentConstraint({self.base_constraint!r}, {self.reinterpreted_batch_ndims})"


class _IntegerLessThan(Constraint):
    is_discrete = True

    def __init__(self, upper_bound):
        self.upper_bound = upper_bound

    def check(self, value):
        return (value % 1 == 0) & (value <= self.upper_bound)

    def __repr__(self):
        return f"IntegerLessThan(upper_bound={self.upper_bound})"


class _IntegerGreaterThan(Constraint):
    is_discrete = True

    def __init__(self, lower_bound):
        self.lower_bound = lower_bound

    def check(self, value):
        return (value % 1 == 0) & (value >= self.lower_bound)

    def __repr__(self):
        return f"IntegerGreaterThan(lower_bound={self.lower_bound})"


class _LessThan(Constraint):
    def __init__(self, upper_bound):
        self.upper_bound = upper_bound

    def check(self, value):
        return value < self.upper_bound

    def __repr__(self):
        return f"LessThan(upper_bound={self.upper_bound})"


class _Multinomial(Constraint):
    """Nonnegative integer vectors summing to at most ``upper_bound`` (a Multinomial's counts)."""
    is_discrete = True
    event_dim = 1

    def __init__(self, upper_bound):
        self.upper_bound = upper_bound

    def check(self, x):
        return (x >= 0).all(-1) & (x.sum(-1) <= self.upper_bound)


class _LowerTriangular(Constraint):
    event_dim = 2

    def check(self, value):
        return (value.tril() == value).flatten(-2).min(-1)[0]


class _CorrCholesky(Constraint):
    """Lower Cholesky factors of correlation matrices: positive diagonal, rows of unit norm."""
    event_dim = 2

    def check(self, value):
        tol = finfo(value.dtype).eps * value.size(-1) * 10
        row_norm = linalg.norm(value.detach(), dim=-1)
        unit_row_norm = ((row_norm - 1.0).abs() <= tol).all(-1)
        return _LowerCholesky().check(value) & unit_row_norm


class _Square(Constraint):
    event_dim = 2

    def check(self, value):
        return full(tuple(value.shape[:-2]), value.shape[-2] == value.shape[-1], dtype=bool_,
                    device=value.device)


class _Symmetric(_Square):
    def check(self, value):
        square_check = super().check(value)
        if not bool(square_check.all()):
            return square_check
        return isclose(value, value.transpose(-1, -2), atol=1e-6).flatten(-2).all(-1)


class _PositiveSemidefinite(_Symmetric):
    def check(self, value):
        sym_check = super().check(value)
        if not bool(sym_check.all()):
            return sym_check
        return (linalg.eigvalsh(value) >= 0).all(-1)


class _Cat(Constraint):
    """Applies each constraint of ``cseq`` to its slice (of ``lengths``) along ``dim``, as ``flow.cat``."""

    def __init__(self, cseq, dim=0, lengths=None):
        self.cseq = list(cseq)
        self.lengths = [1] * len(self.cseq) if lengths is None else list(lengths)
        if len(self.lengths) != len(self.cseq):
            raise ValueError("cat(): lengths and cseq must have the same length")
        self.dim = dim

    @property
    def is_discrete(self):
        return any(c.is_discrete for c in self.cseq)

    @property
    def event_dim(self):
        return max(c.event_dim for c in self.cseq)

    def check(self, value):
        if not -value.dim() <= self.dim < value.dim():
            raise ValueError(f"cat(): dim {self.dim} out of range for a value of {value.dim()} dims")
        checks, start = [], 0
        for constr, length in zip(self.cseq, self.lengths):
            checks.append(constr.check(value.narrow(self.dim, start, length)))
            start += length
        return ops_shape.cat(checks, self.dim)


class _Stack(Constraint):
    """Applies each constraint of ``cseq`` to its slice of ``dim``, as ``flow.stack``."""

    def __init__(self, cseq, dim=0):
        self.cseq = list(cseq)
        self.dim = dim

    @property
    def is_discrete(self):
        return any(c.is_discrete for c in self.cseq)

    @property
    def event_dim(self):
        dim = max(c.event_dim for c in self.cseq)
        if self.dim + dim < 0:
            dim += 1
        return dim

    def check(self, value):
        if not -value.dim() <= self.dim < value.dim():
            raise ValueError(f"stack(): dim {self.dim} out of range for a value of {value.dim()} dims")
        vs = [value.select(self.dim, i) for i in range(value.size(self.dim))]
        return ops_shape.stack([constr.check(v) for v, constr in zip(vs, self.cseq)], self.dim)


independent = _IndependentConstraint
interval = _Interval
half_open_interval = _HalfOpenInterval
integer_interval = _IntegerInterval
greater_than = _GreaterThan
greater_than_eq = _GreaterThanEq
less_than = _LessThan
multinomial = _Multinomial
cat = _Cat
stack = _Stack
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
positive_integer = _IntegerGreaterThan(1)
lower_triangular = _LowerTriangular()
corr_cholesky = _CorrCholesky()
square = _Square()
symmetric = _Symmetric()
positive_semidefinite = _PositiveSemidefinite()
