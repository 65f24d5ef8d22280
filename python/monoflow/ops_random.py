"""Random numbers (reproducible with monoflow.manual_seed or a Generator),
linspace and eye."""
import math
import numbers

from monoflow import _C, _dtypes, _memory_format
from monoflow._op_names import names_its_errors
from monoflow._global.creation import accepts_placement


def _requires_grad(t, requires_grad):
    # The `requires_grad=` argument of the creation functions (requires_grad_ checks its type).
    return t if requires_grad is False or requires_grad is None else t.requires_grad_(requires_grad)

__all__ = ["exponential", "Generator", "manual_seed", "seed", "initial_seed", "default_generator", "get_rng_state", "set_rng_state",
           "rand", "randn", "randint",
           "rand_like", "randn_like", "randint_like", "normal", "bernoulli", "poisson", "linspace", "logspace", "eye"]

Generator = _C.Generator
default_generator = _C.default_generator_for("cpu")


def manual_seed(seed):
    """Seeds the default generator of every device; returns the CPU's."""
    try:
        seed = int(seed)  # as torch: int(seed), so '7' and 7.0 are seeds too
    except (TypeError, ValueError) as e:
        raise type(e)(f"manual_seed(): {e}") from None
    _C.manual_seed(seed)
    return default_generator


def seed():
    return default_generator.seed()


def initial_seed():
    return default_generator.initial_seed()


def get_rng_state():
    """The CPU default generator's state, a uint8 tensor (monoflow.save-able);
    set_rng_state() with it makes the following draws repeat bit for bit."""
    return default_generator.get_state()


def set_rng_state(new_state):
    from monoflow import _dtypes

    _C.check_tensor(new_state, "set_rng_state", "new_state", 1)
    if new_state.dtype != _dtypes.uint8:  # (TypeError as torch)
        raise TypeError(f"set_rng_state(): the RNG state must be a uint8 tensor, got {new_state.dtype}")
    if tuple(new_state.shape) != (16,):
        raise RuntimeError(f"set_rng_state(): expected the 16-byte state of get_rng_state(), got shape "
                           f"{list(new_state.shape)}")
    default_generator.set_state(new_state)


def _size(size):
    if len(size) == 1 and not isinstance(size[0], numbers.Integral):
        if not hasattr(size[0], "__iter__"):  # (named after the op that called: rand, randn)
            raise TypeError(_C.name_op_in_progress(f"rand(): argument 'size' must be tuple of ints, "
                                                   f"not {type(size[0]).__name__}"))
        return tuple(size[0])
    return tuple(size)


class _NotFloatingDtypeError(NotImplementedError, TypeError):
    """A floating sampler given an integer or bool dtype: NotImplementedError as torch and OneFlow
    raise (torch: '"normal_kernel_cpu" not implemented for 'Int''), and a TypeError too."""


def _check_layout(layout, op):
    from monoflow import strided

    if layout is not None and layout is not strided:
        raise NotImplementedError(f"{op}(): only the strided layout is supported, got {layout}")


def _float_dtype(dtype):
    dtype = _C.get_default_dtype() if dtype is None else dtype
    if not isinstance(dtype, _C.dtype):  # (named after the op that called: rand, randn, ...)
        raise TypeError(_C.name_op_in_progress(f"rand(): argument 'dtype' must be monoflow.dtype, "
                                               f"not {type(dtype).__name__}"))
    if not dtype.is_floating_point:
        msg = _C.name_op_in_progress(f"expected a floating point dtype, got {dtype!r}")
        if msg.startswith("normal(): "):
            msg += " (Only support float and double in normal().)"  # OneFlow's phrase
        raise _NotFloatingDtypeError(msg)
    return dtype


def _size_arg(op, shape, size):
    # torch and OneFlow take the size positionally (ints, a tuple) or as size=
    if size is None:
        return shape
    if shape:
        raise TypeError(f"{op}(): the size is given twice (positionally and as size=)")
    return (size,)


@accepts_placement(random=True)
def rand(*shape, size=None, generator=None, dtype=None, device=None, requires_grad=False, layout=None,
         pin_memory=False):
    """Uniform samples from [0, 1). ``layout`` may only be strided; ``pin_memory`` changes nothing."""
    _check_layout(layout, "rand")
    size = _size_arg("rand", shape, size)
    if isinstance(dtype, _C.dtype) and dtype.is_complex:  # torch: both parts uniform on [0, 1)
        from monoflow import _complex

        r = _C.uniform_(_C._empty(_size(size) + (2,), dtype.to_real(), device), 0.0, 1.0, generator)
        return _requires_grad(_complex.view_as_complex(r), requires_grad)
    return _requires_grad(_C.uniform_(_C._empty(_size(size), _float_dtype(dtype), device), 0.0, 1.0, generator), requires_grad)


@accepts_placement(random=True)
def randn(*shape, size=None, generator=None, dtype=None, device=None, requires_grad=False, layout=None,
          pin_memory=False):
    """Standard normal samples. ``layout`` may only be strided; ``pin_memory`` changes nothing."""
    _check_layout(layout, "randn")
    size = _size_arg("randn", shape, size)
    if isinstance(dtype, _C.dtype) and dtype.is_complex:
        from monoflow import _complex

        return _requires_grad(_complex.randn(_size(size), dtype, device, generator), requires_grad)
    return _requires_grad(_C.normal_(_C._empty(_size(size), _float_dtype(dtype), device), 0.0, 1.0, generator), requires_grad)


@accepts_placement(random=True)
def randint(low=0, high=None, size=None, *, generator=None, dtype=None, device=None, requires_grad=False,
            layout=None, pin_memory=False):
    """Integers uniform in [low, high): randint(high, size) or randint(low, high, size)."""
    _check_layout(layout, "randint")
    if size is None:
        if not isinstance(high, (tuple, list)):
            raise TypeError("randint: the 'size' argument is required")
        low, high, size = 0, low, high
    if high is None:
        low, high = 0, low
    from monoflow import _dtypes

    try:
        size = tuple(size)
    except TypeError:  # (Python's "'int' object is not iterable" names no op)
        raise TypeError(f"randint(): argument 'size' must be tuple of ints, not {type(size).__name__}") from None
    t = _C._empty(size, _dtypes.int64 if dtype is None else dtype, device)
    low, high = _C.check_int(low, "randint", "low", 1), _C.check_int(high, "randint", "high", 2)
    return _requires_grad(_C.random_int_(t, low, high, generator), requires_grad)


def _like_defaults(t, dtype, device):
    # t's dtype and device unless given (`dtype or ...` would ask an array argument its truth value)
    return {"dtype": t.dtype if dtype is None else dtype, "device": t.device if device is None else device}


@accepts_placement(random=True)
def rand_like(t, *, dtype=None, device=None, generator=None, requires_grad=False, memory_format=None):
    _C.check_tensor(t, "rand_like", "input", 1)
    out = rand(tuple(t.shape), **_like_defaults(t, dtype, device), generator=generator)
    return _requires_grad(_memory_format.like(out, t, memory_format, "rand_like"), requires_grad)


@accepts_placement(random=True)
def randn_like(t, *, dtype=None, device=None, generator=None, requires_grad=False, memory_format=None):
    _C.check_tensor(t, "randn_like", "input", 1)
    out = randn(tuple(t.shape), **_like_defaults(t, dtype, device), generator=generator)
    return _requires_grad(_memory_format.like(out, t, memory_format, "randn_like"), requires_grad)


@accepts_placement(random=True)
def randint_like(t, low=0, high=None, *, dtype=None, device=None, generator=None, requires_grad=False,
                 memory_format=None):
    _C.check_tensor(t, "randint_like", "input", 1)
    if high is None:
        low, high = 0, low
    out = randint(low, high, tuple(t.shape), **_like_defaults(t, dtype, device), generator=generator)
    return _requires_grad(_memory_format.like(out, t, memory_format, "randint_like"), requires_grad)


@accepts_placement(random=True)
def normal(mean=0.0, std=1.0, size=None, *, generator=None, dtype=None, device=None, out=None,
           requires_grad=False):
    """Normal samples; mean and std may be numbers (then `size` is required) or tensors.
    out= receives the samples (its dtype and device win); requires_grad= marks the new leaf."""
    if out is not None:
        _C.check_tensor(out, "normal", "out", 0)
    if out is not None and dtype is not None and dtype != getattr(out, "dtype", dtype):
        # OneFlow's wording: an explicit dtype= that out= cannot hold is refused, not cast
        raise RuntimeError(f"normal(): data type {dtype!r} does not match data type of out parameter {out.dtype!r}")
    r = _normal(mean, std, size, generator, dtype if out is None else out.dtype,
                device if out is None else out.device)
    if out is not None:
        if tuple(out.shape) != tuple(r.shape):
            raise RuntimeError(f"normal(): out= has shape {tuple(out.shape)} but the samples have shape "
                               f"{tuple(r.shape)}")
        return out.copy_(r)
    if requires_grad:
        r.requires_grad_(True)
    return r


def _normal(mean, std, size, generator, dtype, device):
    if isinstance(mean, _C.TensorBase) or isinstance(std, _C.TensorBase):
        like = mean if isinstance(mean, _C.TensorBase) else std
        m = mean if isinstance(mean, _C.TensorBase) else _C._full((), _C.check_float(mean, "normal", "mean", 1),
                                                                 like.dtype, like.device)
        s = std if isinstance(std, _C.TensorBase) else _C._full((), _C.check_float(std, "normal", "std", 2),
                                                               like.dtype, like.device)
        return _C.normal_tensor(m, s, generator)
    if size is None:
        raise TypeError("normal: 'size' is required when mean and std are numbers")
    mean, std = _C.check_float(mean, "normal", "mean", 1), _C.check_float(std, "normal", "std", 2)
    if isinstance(size, numbers.Integral) or not hasattr(size, "__iter__"):  # (torch takes a sequence only)
        raise TypeError(f"normal(): argument 'size' must be tuple of ints, not {type(size).__name__}")
    return _C.normal_(_C._empty(tuple(size), _float_dtype(dtype), device), mean, std, generator)


def bernoulli(input, p=None, *, generator=None, dtype=None):
    """1 with probability `input` (elementwise), or with probability `p` in input's shape;
    ``dtype`` (OneFlow's keyword) gives the result's dtype."""
    if dtype is not None and not isinstance(dtype, _C.dtype):
        raise TypeError(f"bernoulli(): argument 'dtype' must be a dtype, not {type(dtype).__name__}")
    if p is None:
        out = _C._bernoulli(input, generator)
        return out if dtype is None or out.dtype == dtype else out.to(dtype)
    _C.check_tensor(input, "bernoulli", "input", 1)
    dt = input.dtype if dtype is None else dtype
    return _C.bernoulli_scalar_(_C._empty(tuple(input.shape), dt, input.device), p, generator)


def exponential(input, lambd=1.0, *, generator=None):
    """Draws from the exponential distribution of rate ``lambd``: a new tensor of ``input``'s
    shape, dtype and device (OneFlow's ``oneflow.exponential``; the out-of-place
    ``Tensor.exponential_``, whose draws it equals for the same generator state). The values of
    ``input`` are not used.

    Args:
        input (Tensor): gives the shape, dtype (floating point) and device.
        lambd (float): the rate, positive. Default: ``1.0``.
        generator (Generator, optional): the generator to draw from. Default: ``None``.

    Example::

        >>> g = flow.Generator(); _ = g.manual_seed(0)
        >>> a = flow.exponential(flow.empty(3), generator=g)
        >>> _ = g.manual_seed(0)
        >>> bool((a == flow.empty(3).exponential_(generator=g)).all()), bool((a >= 0).all())
        (True, True)
    """
    _C.check_tensor(input, "exponential", "input", 1)
    return _C._empty(tuple(input.shape), input.dtype, input.device).exponential_(lambd, generator=generator)


def poisson(input, generator=None):
    """Draws from the Poisson distribution of rate ``input`` (elementwise, rates >= 0), in ``input``'s
    dtype and device; the draws come from numpy seeded by ``generator`` (or the default generator), so
    ``manual_seed`` makes them reproducible. The result does not require grad.

    Args:
        input (Tensor): the rates, a floating-point tensor.
        generator (Generator, optional): the generator the seed is drawn from. Default: ``None``.

    Example::

        >>> _ = flow.manual_seed(0)
        >>> x = flow.poisson(flow.full((1000,), 4.0))
        >>> abs(x.mean().item() - 4.0) < 0.3, x.dtype
        (True, monoflow.float32)
    """
    import numpy as np

    from monoflow._creation import tensor

    _C.check_tensor(input, "poisson", "input", 1)
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"poisson(): expected a floating point input, got {input.dtype}")
    rates = input.detach().cpu().numpy().astype(np.float64)
    if (rates < 0).any() or np.isnan(rates).any():
        raise RuntimeError("poisson(): invalid Poisson rate, expected rate to be non-negative")
    seed = int(_C.random_int_(_C._empty((1,), _dtypes.int64, "cpu"), 0, 2 ** 31 - 1, generator).item())
    draws = np.random.default_rng(seed).poisson(rates)
    return tensor(draws, dtype=input.dtype, device=input.device)


def _traced_linspace(start, end, steps, dtype, device):
    # linspace from tensor endpoints by tensor ops, for an nn.Graph trace (whose tensor values cannot
    # be read): torch's formula, start + i * step for the first half, end - (steps - 1 - i) * step after
    from monoflow import _creation

    steps = _C.check_int(steps, "linspace", "steps", 3)
    if steps < 0:
        raise RuntimeError("linspace(): number of steps must be non-negative")
    ends = [v.detach().reshape(()).to(dtype) if isinstance(v, _C.TensorBase) else v for v in (start, end)]
    idx = _creation.arange(steps, dtype=dtype, device=device)
    if steps <= 1:
        return idx * 0 + ends[0]
    step = (ends[1] - ends[0]) / (steps - 1)
    first, second = ends[0] + step * idx, ends[1] - step * (steps - 1 - idx)
    return first.where(idx < steps // 2, second)


@accepts_placement()
def linspace(start, end, steps, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    # (one-element tensors are accepted for the numbers, as torch does)
    dtype = dtype or _C.get_default_dtype()
    if (_C._graph_tracing() and dtype.is_floating_point and not isinstance(steps, _C.TensorBase)
            and any(isinstance(v, _C.TensorBase) for v in (start, end))):
        return _requires_grad(_traced_linspace(start, end, steps, dtype, device), requires_grad)
    start, end, steps = (v.item() if isinstance(v, _C.TensorBase) else v for v in (start, end, steps))
    return _requires_grad(_C._linspace(start, end, steps, dtype, device), requires_grad)


@accepts_placement()
def logspace(start, end, steps, base=10.0, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """base ** linspace(start, end, steps), computed in float64."""
    start, end, steps = (v.item() if isinstance(v, _C.TensorBase) else v for v in (start, end, steps))
    from monoflow import _dtypes

    exps = _C._linspace(start, end, steps, _dtypes.float64, device)
    out = _C.math_binary(_C.math_op("pow"), float(base), exps).to(dtype or _C.get_default_dtype())
    return _requires_grad(out, requires_grad)


@accepts_placement()
@accepts_placement()
def eye(n, m=None, *, dtype=None, device=None, requires_grad=False):
    return _requires_grad(_C._eye(n, n if m is None else m, dtype or _C.get_default_dtype(), device), requires_grad)


def _random_top(dt):
    """The largest value random_() draws for dtype dt (as torch)."""
    digits = {"float16": 11, "bfloat16": 8, "float32": 24, "float64": 53}
    if dt.name in digits:
        return 2 ** digits[dt.name]
    if dt.name == "bool":
        return 1
    from monoflow import _type_info

    return min(_type_info.iinfo(dt).max, 2 ** 63 - 2)


class TensorMethods:
    """Mixed into monoflow.Tensor."""

    def uniform_(self, a=0.0, b=1.0, *, generator=None):
        return _C.uniform_(self, a, b, generator)

    def normal_(self, mean=0.0, std=1.0, *, generator=None):
        return _C.normal_(self, mean, std, generator)

    def random_(self, *args, generator=None, **kwargs):
        """torch's three forms: random_() over [0, top], random_(to) over
        [0, to), random_(from, to) over [from, to) (to=None: [from, top]),
        where top is the dtype's largest integer (2**mantissa bits for floats)."""
        if "from" in kwargs:
            args = (kwargs.pop("from"),) + args
        if "to" in kwargs:
            args = (args[0] if args else 0, kwargs.pop("to"))
        if kwargs or len(args) > 2:
            raise TypeError(f"random_() takes at most 2 arguments (from, to), got {len(args)} and "
                            f"{sorted(kwargs)}")
        if len(args) == 1:
            args = (0, args[0])
        from_, to = args if args else (0, None)
        if to is None:
            to = _random_top(self.dtype) + 1
        return _C.random_int_(self, from_, to, generator)

    def bernoulli_(self, p=0.5, *, generator=None):
        if isinstance(p, _C.TensorBase):  # a probability per element (broadcast to self)
            prob = p if p.dtype.is_floating_point else p.double()
            return self.copy_(_C._bernoulli(prob.expand(tuple(self.shape)).contiguous(), generator))
        return _C.bernoulli_scalar_(self, p, generator)

    def bernoulli(self, p=None, *, generator=None, dtype=None):
        return bernoulli(self, p, generator=generator, dtype=dtype)

    # torch's other in-place samplers, drawn by inverting the CDF of a uniform draw
    def _uniform_like(self, op, generator):
        _C.check_tensor(self, op, "self", 0)
        if not self.dtype.is_floating_point and op != "geometric_":
            raise RuntimeError(f"{op} expects a floating point tensor, got {self.dtype}")
        dt = self.dtype if self.dtype.is_floating_point else _dtypes.float64
        return _C.uniform_(_C._empty(tuple(self.shape), dt, self.device), 0.0, 1.0, generator)

    def exponential_(self, lambd=1.0, *, generator=None):
        """Fills ``self`` in place with draws from the exponential distribution of rate ``lambd``.

        Args:
            lambd (float): the rate, positive. Default: ``1.0``.
            generator (Generator, optional): the generator to draw from. Default: ``None``.

        Example::

            >>> x = flow.empty(1000).exponential_(2.0)
            >>> bool(x.min() >= 0), abs(x.mean().item() - 0.5) < 0.1
            (True, True)
        """
        lambd = _C.check_float(lambd, "exponential_", "lambd", 1)
        if not lambd > 0:
            raise RuntimeError(f"exponential_ expects lambd > 0.0, but found lambd={lambd}")
        u = TensorMethods._uniform_like(self, "exponential_", generator)
        return self.copy_(u.neg().log1p().neg() / lambd)

    def geometric_(self, p, *, generator=None):
        """Fills ``self`` in place with the number of Bernoulli(``p``) trials up to the first success
        (1, 2, ...); float or integer tensors.

        Args:
            p (float): the success probability, in ``(0, 1)``.
            generator (Generator, optional): the generator to draw from. Default: ``None``.

        Example::

            >>> x = flow.empty(1000, dtype=flow.int64).geometric_(0.5)
            >>> x.min().item() >= 1, x.dtype
            (True, monoflow.int64)
        """
        p = _C.check_float(p, "geometric_", "p", 1)
        if not 0 < p < 1:
            raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p}")
        u = TensorMethods._uniform_like(self, "geometric_", generator)
        return self.copy_((u.neg().log1p() / math.log1p(-p)).ceil().clamp(min=1))

    def log_normal_(self, mean=1.0, std=2.0, *, generator=None):
        """Fills ``self`` in place with ``exp`` of draws from the normal distribution ``N(mean, std)``.

        Args:
            mean (float): the mean of the underlying normal. Default: ``1.0``.
            std (float): its standard deviation, positive. Default: ``2.0``.
            generator (Generator, optional): the generator to draw from. Default: ``None``.

        Example::

            >>> bool((flow.empty(10).log_normal_(0.0, 0.5) > 0).all())
            True
        """
        mean = _C.check_float(mean, "log_normal_", "mean", 1)
        std = _C.check_float(std, "log_normal_", "std", 2)
        if not std > 0:
            raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std}")
        _C.check_tensor(self, "log_normal_", "self", 0)
        return _C.normal_(self, mean, std, generator).exp_()

    def cauchy_(self, median=0.0, sigma=1.0, *, generator=None):
        """Fills ``self`` in place with draws from the Cauchy distribution at ``median`` with scale ``sigma``.

        Args:
            median (float): the location. Default: ``0.0``.
            sigma (float): the scale. Default: ``1.0``.
            generator (Generator, optional): the generator to draw from. Default: ``None``.

        Example::

            >>> x = flow.empty(2001).cauchy_(3.0, 0.1)
            >>> abs(x.median().item() - 3.0) < 0.05
            True
        """
        median = _C.check_float(median, "cauchy_", "median", 1)
        sigma = _C.check_float(sigma, "cauchy_", "sigma", 2)
        u = TensorMethods._uniform_like(self, "cauchy_", generator)
        return self.copy_(((u - 0.5) * math.pi).tan() * sigma + median)



exponential = names_its_errors(exponential)  # it forwards to exponential_: refusals name exponential
