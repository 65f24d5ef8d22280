"""Learning-rate schedulers (torch.optim.lr_scheduler).

A scheduler rewrites ``group["lr"]`` of its optimizer's groups on every
``step()``. Constructing one performs the first step (``last_epoch`` -1 -> 0)
and records ``initial_lr`` in every group; ``base_lrs`` are those.

Note [Chainable vs closed form]
    ``get_lr()`` is *chainable*: most schedulers compute the next lr from the
    group's current lr (StepLR multiplies it by gamma at a boundary), so two
    schedulers on one optimizer compose and an lr changed by hand is kept.
    ``_get_closed_form_lr()`` computes the lr from ``base_lrs`` and the epoch
    alone; it is used only by the deprecated ``step(epoch)``. Both must give
    torch's sequences exactly, rounding included, so the formulas below keep
    torch's order of operations.
"""
from bisect import bisect_right
from collections import Counter
import functools
import math
import types
import warnings

from monoflow.optim.optimizer import Optimizer

__all__ = ["LRScheduler", "LambdaLR", "MultiplicativeLR", "StepLR", "MultiStepLR", "ConstantLR", "LinearLR",
           "ExponentialLR", "SequentialLR", "PolynomialLR", "CosineAnnealingLR", "ChainedScheduler",
           "ReduceLROnPlateau", "OneCycleLR", "CyclicLR", "CosineAnnealingWarmRestarts", "CosineDecayLR",
           "WarmupLR", "WarmUpLR"]

_EPOCH_DEPRECATION = ("The epoch parameter in `scheduler.step()` was not necessary and is being deprecated where "
                      "possible. Please use `scheduler.step()` to step the scheduler.")


def _lrs(optimizer):
    return [group["lr"] for group in optimizer.param_groups]


def _warns_outside_step(get_lr):
    """A built-in scheduler's get_lr(): called from outside step() it warns, as torch's do (what
    step() set is get_last_lr(); get_lr() computes the next value from the current state)."""
    @functools.wraps(get_lr)
    def checked(self):
        if not getattr(self, "_get_lr_called_within_step", False):
            warnings.warn("To get the last learning rate computed by the scheduler, please use `get_last_lr()`.",
                          UserWarning, stacklevel=2)
        return get_lr(self)

    return checked


class LRScheduler:
    """Base class of the learning-rate schedulers: rewrites ``group["lr"]`` of every group on ``step()``.

    A subclass implements ``get_lr()``, the next learning rates computed from the
    current ones (so schedulers on one optimizer compose), and optionally
    ``_get_closed_form_lr()`` for the deprecated ``step(epoch)``. Constructing a
    scheduler performs its first step. Call ``scheduler.step()`` after
    ``optimizer.step()``; ``get_last_lr()`` returns the rates the last step set.

    Args:
        optimizer (Optimizer): the optimizer whose groups' ``lr`` it sets.
        last_epoch (int): index of the last epoch when resuming; ``-1`` starts afresh
            (and records ``initial_lr`` in every group). Default: ``-1``.

    Raises:
        TypeError: when ``optimizer`` is not an ``Optimizer``.

    Example::

        >>> class Halving(flow.optim.lr_scheduler.LRScheduler):
        ...     def get_lr(self):
        ...         if self.last_epoch == 0:
        ...             return [g["lr"] for g in self.optimizer.param_groups]
        ...         return [g["lr"] / 2 for g in self.optimizer.param_groups]
        >>> opt = flow.optim.SGD([nn.Parameter(flow.zeros(1))], lr=1.0)
        >>> sched = Halving(opt)
        >>> opt.step(); sched.step(); sched.get_last_lr()
        [0.5]
    """

    _is_initial = False

    def __init__(self, optimizer, last_epoch=-1):
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", group["lr"])
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError(f"param 'initial_lr' is not specified in param_groups[{i}] when resuming "
                                   "scheduler with last_epoch >= 0 (load the optimizer's state first)")
        self.base_lrs = [group["initial_lr"] for group in optimizer.param_groups]
        self.last_epoch = last_epoch
        self._initial_step()

    def _initial_step(self):
        self._step_count = 0
        self._is_initial = True
        try:
            self.step()
        finally:
            self._is_initial = False

    def state_dict(self):
        """Every attribute but the optimizer."""
        return {key: value for key, value in self.__dict__.items() if key != "optimizer"}

    def load_state_dict(self, state_dict):
        self.__dict__.update(state_dict)

    def get_last_lr(self):
        """The learning rates the last ``step()`` set, one per group."""
        return self._last_lr

    @property
    def last_step(self):
        """OneFlow's name for ``last_epoch``: the index of the last step taken."""
        return self.last_epoch

    @last_step.setter
    def last_step(self, value):
        self.last_epoch = value

    def get_lr(self):
        raise NotImplementedError

    def _compute_lr(self):
        """``get_lr()`` as ``step()`` calls it (the built-in ones warn when called from outside)."""
        self._get_lr_called_within_step = True
        try:
            return self.get_lr()
        finally:
            self._get_lr_called_within_step = False

    def step(self, epoch=None):
        """Advances one epoch (call after ``optimizer.step()``) and sets the groups' lr."""
        if self._step_count == 1 and not getattr(self.optimizer, "_opt_called", False):
            warnings.warn("Detected call of `lr_scheduler.step()` before `optimizer.step()`. Call them in the "
                          "order `optimizer.step()`, then `lr_scheduler.step()`; otherwise the first value of "
                          "the learning rate schedule is skipped.", UserWarning, stacklevel=2)
        self._step_count += 1
        if epoch is not None:
            warnings.warn(_EPOCH_DEPRECATION, UserWarning, stacklevel=2)
        self._update_lr(epoch)

    def _update_lr(self, epoch=None):
        if epoch is None:
            self.last_epoch += 1
            values = self._compute_lr()
        else:
            self.last_epoch = epoch
            closed = getattr(self, "_get_closed_form_lr", None)
            values = closed() if closed is not None else self._compute_lr()
        for group, lr in zip(self.optimizer.param_groups, values):
            group["lr"] = lr
        self._last_lr = _lrs(self.optimizer)


class _LambdaState:
    """state_dict of the lambda schedulers: functions and lambdas are not
    saved (they may not pickle); callable objects save their ``__dict__``."""

    def state_dict(self):
        state = {key: value for key, value in self.__dict__.items() if key not in ("optimizer", "lr_lambdas")}
        state["lr_lambdas"] = [None if isinstance(fn, types.FunctionType) else fn.__dict__.copy()
                               for fn in self.lr_lambdas]
        return state

    def load_state_dict(self, state_dict):
        state_dict = dict(state_dict)
        lr_lambdas = state_dict.pop("lr_lambdas")
        self.__dict__.update(state_dict)
        for fn, saved in zip(self.lr_lambdas, lr_lambdas):
            if saved is not None:
                fn.__dict__.update(saved)

    def _set_lambdas(self, optimizer, lr_lambda):
        n = len(optimizer.param_groups)
        if isinstance(lr_lambda, (list, tuple)):
            if len(lr_lambda) != n:
                raise ValueError(f"Expected {n} lr_lambdas, but got {len(lr_lambda)}")
            self.lr_lambdas = list(lr_lambda)
        else:
            self.lr_lambdas = [lr_lambda] * n
        for fn in self.lr_lambdas:
            if not callable(fn):
                raise TypeError(f"lr_lambda should be a function, but got {type(fn).__name__}")


class LambdaLR(_LambdaState, LRScheduler):
    """Sets ``lr = initial_lr * lr_lambda(epoch)``.

    Args:
        optimizer (Optimizer): the optimizer whose groups' ``lr`` it sets.
        lr_lambda (function or list): a function of the epoch (an int) returning the
            factor, or one function per parameter group. Plain functions and lambdas
            are left out of ``state_dict()``; callable objects save their ``__dict__``.
        last_epoch (int): index of the last epoch when resuming; ``-1`` starts afresh
            (and records ``initial_lr`` in every group). Default: ``-1``.

    Example::

        >>> opt = flow.optim.SGD([nn.Parameter(flow.zeros(1))], lr=1.0)
        >>> sched = flow.optim.lr_scheduler.LambdaLR(opt, lr_lambda=lambda epoch: 0.5 ** epoch)
        >>> lrs = []
        >>> for epoch in range(5):
        ...     opt.step()  # after the epoch's backward passes
        ...     lrs.append(sched.get_last_lr()[0])
        ...     sched.step()
        >>> lrs
        [1.0, 0.5, 0.25, 0.125, 0.0625]
    """

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        self.optimizer = optimizer
        self._set_lambdas(optimizer, lr_lambda)
        super().__init__(optimizer, last_epoch)

    @_warns_outside_step
    def get_lr(self):
        return [base_lr * fn(self.last_epoch) for fn, base_lr in zip(self.lr_lambdas, self.base_lrs)]


class MultiplicativeLR(_LambdaState, LRScheduler):
    """Multiplies the lr by ``lr_lambda(epoch)`` on every step after the first.

    Args:
        optimizer (Optimizer): the optimizer whose groups' ``lr`` it sets.
        lr_lambda (function or list): a function of the epoch (an int) returning the
            factor, or one function per parameter group.
        last_epoch (int): index of the last epoch when resuming; ``-1`` starts afresh
            (and records ``initial_lr`` in every group). Default: ``-1``.

    Example::

        >>> opt = flow.optim.SGD([nn.Parameter(flow.zeros(1))], lr=1.0)
        >>> sched = flow.optim.lr_scheduler.MultiplicativeLR(opt, lr_lambda=lambda epoch: 0.9)
        >>> lrs = []
        >>> for epoch in range(5):
        ...     opt.step()  # after the epoch's backward passes
        ...     lrs.append(round(sched.get_last_lr()[0], 4))
        ...     sched.step()
        >>> lrs
        [1.0, 0.9, 0.81, 0.729, 0.6561]
    """

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        self.optimizer = optimizer
        self._set_lambdas(optimizer, lr_lambda)
        super().__init__(optimizer, last_epoch)

    @_warns_outside_step
    def get_lr(self):
        if self._is_initial:
            return _lrs(self.optimizer)
        return [group["lr"] * fn(self.last_epoch) for fn, group in zip(self.lr_lambdas, self.optimizer.param_groups)]


class StepLR(LRScheduler):
    """Multiplies the lr by ``gamma`` every ``step_size`` epochs.

    Args:
        optimizer (Optimizer): the optimizer whose groups' ``lr`` it sets.
        step_size (int): period of the decay, in epochs.
        gamma (float): multiplicative factor. Default: ``0.1``.
        last_epoch (int): index of the last epoch when resuming; ``-1`` starts afresh
            (and records ``initial_lr`` in every group). Default: ``-1``.

    Example::

        >>> opt = flow.optim.SGD([nn.Parameter(flow.zeros(1))], lr=1.0)
        >>> sched = flow.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
        >>> lrs = []
        >>> for epoch in range(5):
        ...     opt.step()  # after the epoch's backward passes
        ...     lrs.append(sched.get_last_lr()[0])
        ...     sched.step()
        >>> lrs
        [1.0, 1.0, 0.5, 0.5, 0.25]
    """

    def __init__(self, optimizer, step_size, gamma=0.1, last_epoch=-1):
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    @_warns_outside_step
    def get_lr(self):
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return _lrs(self.optimizer)
        return [group["lr"] * self.gamma for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [base_lr * self.gamma ** (self.last_epoch // self.step_size) for base_lr in self.base_lrs]


class MultiStepLR(LRScheduler):
    """Multiplies the lr by ``gamma`` at each milestone epoch (one listed ``n`` times: ``gamma ** n``).

    Args:
        optimizer (Optimizer): the optimizer whose groups' ``lr`` it sets.
        milestones (list of int): the epochs at which to decay.
        gamma (float): multiplicative factor. Default: ``0.1``.
        last_epoch (int): index of the last epoch when resuming; ``-1`` starts afresh
            (and records ``initial_lr`` in every group). Default: ``-1``.

    Example::

        >>> opt = flow.optim.SGD([nn.Parameter(flow.zeros(1))], lr=1.0)
        >>> sched = flow.optim.lr_scheduler.MultiStepLR(opt, milestones=[1, 3], gamma=0.1)
        >>> lrs = []
        >>> for epoch in range(5):
        ...     opt.step()  # after the epoch's backward passes
        ...     lrs.append(round(sched.get_last_lr()[0], 4))
        ...     sched.step()
        >>> lrs
        [1.0, 0.1, 0.1, 0.01, 0.01]
    """

    def __init__(self, optimizer, milestones, gamma=0.1, last_epoch=-1):
        self.milestones = Counter(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    @_warns_outside_step
    def get_lr(self):
        if self.last_epoch not in self.milestones:
            return _lrs(self.optimizer)
        factor = self.gamma ** self.milestones[self.last_epoch]
        return [group["lr"] * factor for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        milestones = sorted(self.milestones.elements())
        return [base_lr * self.gamma ** bisect_right(milestones, self.last_epoch) for base_lr in self.base_lrs]


class ConstantLR(LRScheduler):
    """Scales the lr by a constant ``factor`` for the first ``total_iters`` epochs, then restores it.

    Args:
        optimizer (Optimizer): the optimizer whose groups' ``lr`` it sets.
        factor (float): the factor, in ``[0, 1]``. Default: ``1/3``.
        total_iters (int): epochs during which the factor applies. Default: ``5``.
        last_epoch (int): index of the last epoch when resuming; ``-1`` starts afresh
            (and records ``initial_lr`` in every group). Default: ``-1``.

    Example::

        >>> opt = flow.optim.SGD([nn.Parameter(flow.zeros(1))], lr=1.0)
        >>> sched = flow.optim.lr_scheduler.ConstantLR(opt, factor=0.5, total_iters=2)
        >>> lrs = []
        >>> for epoch in range(5):
        ...     opt.step()  # after the epoch's backward passes
        ...     lrs.append(sched.get_last_lr()[0])
        ...     sched.step()
        >>> lrs
        [0.5, 0.5, 1.0, 1.0, 1.0]
    """

    def __init__(self, optimizer, factor=1.0 / 3, total_iters=5, last_epoch=-1):
        if factor > 1.0 or factor < 0:
            raise ValueError("Constant multiplicative factor expected to be between 0 and 1.")
        self.factor = factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    @_warns_outside_step
    def get_lr(self):
        if self.last_epoch == 0:
            return [group["lr"] * self.factor for group in self.optimizer.param_groups]
        if self.last_epoch != self.total_iters:
            return _lrs(self.optimizer)
        return [group["lr"] * (1.0 / self.factor) for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [base_lr * (self.factor + (self.last_epoch >= self.total_iters) * (1 - self.factor))
                for base_lr in self.base_lrs]


class LinearLR(LRScheduler):
    """Scales the lr by a factor that goes linearly from ``start_factor`` to ``end_factor``
    over ``total_iters`` epochs (linear warm-up), then stays at ``end_factor``.

    Args:
        optimizer (Optimizer): the optimizer whose groups' ``lr`` it sets.
        start_factor (float): the first factor, in ``(0, 1]``. Default: ``1/3``.
        end_factor (float): the last factor, in ``[0, 1]``. Default: ``1.0``.
        total_iters (int): epochs of the ramp. Default: ``5``.
        last_epoch (int): index of the last epoch when resuming; ``-1`` starts afresh
            (and records ``initial_lr`` in every group). Default: ``-1``.

    Example::

        >>> opt = flow.optim.SGD([nn.Parameter(flow.zeros(1))], lr=1.0)
        >>> sched = flow.optim.lr_scheduler.LinearLR(opt, start_factor=0.25, total_iters=3)
        >>> lrs = []
        >>> for epoch in range(5):
        ...     opt.step()  # after the epoch's backward passes
        ...     lrs.append(sched.get_last_lr()[0])
        ...     sched.step()
        >>> lrs
        [0.25, 0.5, 0.75, 1.0, 1.0]
    """

    def __init__(self, optimizer, start_factor=1.0 / 3, end_factor=1.0, total_iters=5, last_epoch=-1):
        if start_factor > 1.0 or start_factor <= 0:
            raise ValueError("Starting multiplicative factor expected to be greater than 0 and less or equal to 1.")
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError("Ending multiplicative factor expected to be between 0 and 1.")
        self.start_factor = start_factor
        self.end_factor = end_factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    @_warns_outside_step
    def get_lr(self):
        if self.last_epoch == 0:
            return [group["lr"] * self.start_factor for group in self.optimizer.param_groups]
        if self._is_initial or self.last_epoch > self.total_iters:
            return _lrs(self.optimizer)
        # ratio of consecutive factors, so that it chains
        delta = self.end_factor - self.start_factor
        ratio = 1.0 + delta / (self.total_iters * self.start_factor + (self.last_epoch - 1) * delta)
        return [group["lr"] * ratio for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [base_lr * (self.start_factor + (self.end_factor - self.start_factor)
                           * min(self.total_iters, self.last_epoch) / self.total_iters)
                for base_lr in self.base_lrs]


class ExponentialLR(LRScheduler):
    """Multiplies the lr by ``gamma`` every epoch.

    Args:
        optimizer (Optimizer): the optimizer whose groups' ``lr`` it sets.
        gamma (float): multiplicative factor.
        last_epoch (int): index of the last epoch when resuming; ``-1`` starts afresh
            (and records ``initial_lr`` in every group). Default: ``-1``.

    Example::

        >>> opt = flow.optim.SGD([nn.Parameter(flow.zeros(1))], lr=1.0)
        >>> sched = flow.optim.lr_scheduler.ExponentialLR(opt, gamma=0.5)
        >>> lrs = []
        >>> for epoch in range(5):
        ...     opt.step()  # after the epoch's backward passes
        ...     lrs.append(sched.get_last_lr()[0])
        ...     sched.step()
        >>> lrs
        [1.0, 0.5, 0.25, 0.125, 0.0625]
    """

    def __init__(self, optimizer, gamma, last_epoch=-1):
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    @_warns_outside_step
    def get_lr(self):
        if self._is_initial:
            return _lrs(self.optimizer)
        return [group["lr"] * self.gamma for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [base_lr * self.gamma ** self.last_epoch for base_lr in self.base_lrs]


class PolynomialLR(LRScheduler):
    """Decays the lr polynomially, ``(initial_lr - end) * (1 - epoch / total_iters) ** power + end``.

    torch's form by default (``end`` 0, positional ``total_iters, power``);
    OneFlow's keywords ``decay_batch``, ``end_learning_rate`` and ``cycle``
    are taken too (with ``decay_batch``, ``end_learning_rate`` defaults to
    OneFlow's ``0.0001``). With ``cycle``, the decay restarts every
    ``total_iters`` steps over a horizon stretched to the next multiple.

    Args:
        optimizer (Optimizer): the optimizer whose groups' ``lr`` it sets.
        total_iters (int): epochs until the lr reaches ``end``. Default: ``5``.
        power (float): the power of the polynomial. Default: ``1.0``.
        last_epoch (int): index of the last epoch when resuming; ``-1`` starts afresh
            (and records ``initial_lr`` in every group). Default: ``-1``.
        decay_batch (int, optional): OneFlow's name for ``total_iters``.
        end_learning_rate (float, optional): the final lr. Default: ``0.0``
            (``0.0001`` when ``decay_batch`` is given, as OneFlow's).
        cycle (bool): restart the decay every ``total_iters`` steps. Default: ``False``.
        last_step (int, optional): OneFlow's name for ``last_epoch``.
        verbose (bool): accepted for OneFlow's signature; nothing is printed.

    More than three positional arguments after ``optimizer`` follow OneFlow's
    order: ``PolynomialLR(optimizer, decay_batch, end_learning_rate, power,
    cycle, last_step, verbose)``.

    Example::

        >>> opt = flow.optim.SGD([nn.Parameter(flow.zeros(1))], lr=1.0)
        >>> sched = flow.optim.lr_scheduler.PolynomialLR(opt, total_iters=4, power=1.0)
        >>> lrs = []
        >>> for epoch in range(5):
        ...     opt.step()  # after the epoch's backward passes
        ...     lrs.append(sched.get_last_lr()[0])
        ...     sched.step()
        >>> lrs
        [1.0, 0.75, 0.5, 0.25, 0.0]
    """

    def __init__(self, optimizer, total_iters=5, power=1.0, last_epoch=-1, *args, decay_batch=None,
                 end_learning_rate=None, cycle=False, last_step=None, verbose=False):
        if args:  # more than torch's three positionals: OneFlow's order (decay_batch, end_learning_rate,
            # power, cycle[, last_step[, verbose]]), as its scripts and tests pass them
            if len(args) > 3 or decay_batch is not None or end_learning_rate is not None:
                raise TypeError("PolynomialLR() takes at most 7 positional arguments (OneFlow's order: optimizer, "
                                "decay_batch, end_learning_rate, power, cycle, last_step, verbose), or its keywords")
            decay_batch, end_learning_rate, power = total_iters, power, last_epoch
            cycle = args[0]
            last_epoch = args[1] if len(args) > 1 else -1
        if decay_batch is not None:
            total_iters = decay_batch
            end_learning_rate = 0.0001 if end_learning_rate is None else end_learning_rate
        if isinstance(total_iters, bool) or not isinstance(total_iters, int) or total_iters <= 0:
            raise ValueError(f"PolynomialLR(): total_iters must be a positive int, got {total_iters!r}")
        self.total_iters = total_iters
        self.power = power
        self.end_learning_rate = float(end_learning_rate or 0.0)
        self.cycle = bool(cycle)
        super().__init__(optimizer, last_epoch if last_step is None else last_step)

    @_warns_outside_step
    def get_lr(self):
        if self.end_learning_rate or self.cycle:  # OneFlow's form: closed, as its docs write it
            return self._get_closed_form_lr()
        if self._is_initial or self.last_epoch > self.total_iters:
            return _lrs(self.optimizer)
        decay = ((1.0 - self.last_epoch / self.total_iters)
                 / (1.0 - (self.last_epoch - 1) / self.total_iters)) ** self.power
        return [group["lr"] * decay for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        step, horizon = self.last_epoch, self.total_iters
        if self.cycle:
            step = max(step, 1)  # OneFlow's: step 0 of a cycling decay counts as step 1
            horizon *= math.ceil(step / horizon)
        else:
            step = min(step, horizon)
        end = self.end_learning_rate
        return [(base_lr - end) * (1.0 - step / horizon) ** self.power + end for base_lr in self.base_lrs]


class CosineAnnealingLR(LRScheduler):
    """Anneals the lr along a cosine from ``initial_lr`` down to ``eta_min`` over ``T_max`` epochs.

    Past ``T_max`` it rises again over the next ``T_max`` epochs, as torch's
    recursive form does (use :class:`CosineAnnealingWarmRestarts` for restarts).

    Args:
        optimizer (Optimizer): the optimizer whose groups' ``lr`` it sets.
        T_max (int): epochs of the half cosine.
        eta_min (float): the lowest lr. Default: ``0.0``.
        last_epoch (int): index of the last epoch when resuming; ``-1`` starts afresh
            (and records ``initial_lr`` in every group). Default: ``-1``.

    Example::

        >>> opt = flow.optim.SGD([nn.Parameter(flow.zeros(1))], lr=1.0)
        >>> sched = flow.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=4)
        >>> lrs = []
        >>> for epoch in range(5):
        ...     opt.step()  # after the epoch's backward passes
        ...     lrs.append(round(sched.get_last_lr()[0], 4))
        ...     sched.step()
        >>> lrs
        [1.0, 0.8536, 0.5, 0.1464, 0.0]
    """

    def __init__(self, optimizer, T_max, eta_min=0.0, last_epoch=-1):
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch)

    @_warns_outside_step
    def get_lr(self):
        if self._is_initial:
            return _lrs(self.optimizer)
        if self._step_count == 1 and self.last_epoch > 0:  # resumed: start from the closed form
            return self._get_closed_form_lr()
        if (self.last_epoch - 1 - self.T_max) % (2 * self.T_max) == 0:
            # the bottom of a cycle, where the ratio below would divide by zero
            return [group["lr"] + (base_lr - self.eta_min) * (1 - math.cos(math.pi / self.T_max)) / 2
                    for base_lr, group in zip(self.base_lrs, self.optimizer.param_groups)]
        ratio_num = 1 + math.cos(math.pi * self.last_epoch / self.T_max)
        ratio_den = 1 + math.cos(math.pi * (self.last_epoch - 1) / self.T_max)
        return [ratio_num / ratio_den * (group["lr"] - self.eta_min) + self.eta_min
                for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [self.eta_min + (base_lr - self.eta_min) * (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2
                for base_lr in self.base_lrs]



class CosineDecayLR(LRScheduler):
    """OneFlow's cosine decay: over ``decay_steps`` steps the lr falls from ``initial_lr``
    to ``alpha * initial_lr`` along half a cosine, and stays there afterwards::

        step = min(last_epoch, decay_steps)
        lr = initial_lr * ((1 - alpha) * 0.5 * (1 + cos(pi * step / decay_steps)) + alpha)

    Args:
        optimizer (Optimizer): the optimizer whose groups' ``lr`` it sets.
        decay_steps (int): steps over which the lr decays (positive).
        alpha (float): the final lr as a fraction of the initial one. Default: ``0.0``.
        last_step (int): index of the last step when resuming; ``-1`` starts afresh.
            Default: ``-1``.
        verbose (bool): accepted for OneFlow's signature. Default: ``False``.

    Raises:
        ValueError: when ``decay_steps`` is not a positive int.

    Example::

        >>> opt = flow.optim.SGD([nn.Parameter(flow.zeros(1))], lr=1.0)
        >>> sched = flow.optim.lr_scheduler.CosineDecayLR(opt, decay_steps=2)
        >>> lrs = []
        >>> for step in range(4):
        ...     opt.step()
        ...     lrs.append(round(sched.get_last_lr()[0], 6))
        ...     sched.step()
        >>> lrs
        [1.0, 0.5, 0.0, 0.0]
    """

    def __init__(self, optimizer, decay_steps, alpha=0.0, last_step=-1, verbose=False):
        if isinstance(decay_steps, bool) or not isinstance(decay_steps, int) or decay_steps <= 0:
            raise ValueError(f"CosineDecayLR(): argument 'decay_steps' must be a positive int, not {decay_steps!r}")
        self.decay_steps = decay_steps
        self.alpha = alpha
        super().__init__(optimizer, last_step)

    @_warns_outside_step
    def get_lr(self):
        # a closed form of the step (as OneFlow computes it), not a ratio of the last lr:
        # the lr is 0 at the end of the decay when alpha is 0
        return self._get_closed_form_lr()

    def _get_closed_form_lr(self):
        step = min(max(self.last_epoch, 0), self.decay_steps)
        factor = (1.0 - self.alpha) * 0.5 * (1.0 + math.cos(math.pi * step / self.decay_steps)) + self.alpha
        return [base_lr * factor for base_lr in self.base_lrs]

class SequentialLR(LRScheduler):
    """Runs the schedulers one after another, switching at the milestones.

    ``schedulers[i]`` drives the lr between ``milestones[i-1]`` and
    ``milestones[i]`` (e.g. a LinearLR warm-up, then CosineAnnealingLR); at a
    milestone the next scheduler restarts from its epoch 0.

    Args:
        optimizer (Optimizer): the optimizer whose groups' ``lr`` it sets.
        schedulers (list): the schedulers, all on ``optimizer`` (``ReduceLROnPlateau``
            is not accepted).
        milestones (list of int): the switching epochs, one fewer than ``schedulers``.
        last_epoch (int): index of the last epoch when resuming; ``-1`` starts afresh
            (and records ``initial_lr`` in every group). Default: ``-1``.

    Example::

        >>> opt = flow.optim.SGD([nn.Parameter(flow.zeros(1))], lr=1.0)
        >>> warmup = flow.optim.lr_scheduler.LinearLR(opt, start_factor=0.5, total_iters=2)
        >>> decay = flow.optim.lr_scheduler.ExponentialLR(opt, gamma=0.5)
        >>> sched = flow.optim.lr_scheduler.SequentialLR(opt, [warmup, decay], milestones=[2])
        >>> lrs = []
        >>> for epoch in range(5):
        ...     opt.step()
        ...     lrs.append(sched.get_last_lr()[0])
        ...     sched.step()
        >>> lrs
        [0.5, 0.75, 1.0, 0.5, 0.25]
    """

    def __init__(self, optimizer, schedulers, milestones, last_epoch=-1):
        if len(schedulers) < 1:
            raise ValueError("SequentialLR expects at least one scheduler, but got no scheduler.")
        for i, sched in enumerate(schedulers):
            if not hasattr(sched, "optimizer"):
                raise TypeError(f"SequentialLR at index {i} should have `optimizer` as its attribute.")
            if isinstance(sched, ReduceLROnPlateau):
                raise ValueError("SequentialLR does not support `ReduceLROnPlateau` scheduler as it requires "
                                 "additional kwargs to be specified when calling `step`, but got one at index "
                                 f"{i} in the given schedulers sequence.")
            if sched.optimizer is not optimizer:
                raise ValueError(f"SequentialLR expects all schedulers to belong to the same optimizer, but got "
                                 f"scheduler {type(sched).__name__} at index {i} with a different optimizer.")
        if len(milestones) != len(schedulers) - 1:
            raise ValueError("Sequential Schedulers expects number of schedulers provided to be one more than the "
                             f"number of milestone points, but got number of schedulers {len(schedulers)} and the "
                             f"number of milestones to be equal to {len(milestones)}")
        self._schedulers = list(schedulers)
        self._milestones = list(milestones)
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        # Building the schedulers stepped each of them once: undo that, and
        # restart the first one from the initial lr.
        for group in optimizer.param_groups:
            group["lr"] = group["initial_lr"]
        self._undo_initial_steps(self)
        idx = bisect_right(self._milestones, 0)
        self._schedulers[idx]._initial_step()
        self._last_lr = self._schedulers[idx].get_last_lr()

    def _undo_initial_steps(self, sched):
        if hasattr(sched, "_schedulers"):
            for s in sched._schedulers:
                self._undo_initial_steps(s)
        elif hasattr(sched, "last_epoch"):
            sched.last_epoch -= 1

    def recursive_undo(self, sched=None):
        self._undo_initial_steps(self if sched is None else sched)

    def step(self):
        self.last_epoch += 1
        idx = bisect_right(self._milestones, self.last_epoch)
        sched = self._schedulers[idx]
        if idx > 0 and self._milestones[idx - 1] == self.last_epoch:
            sched._update_lr(0)
        else:
            sched.step()
        self._last_lr = sched.get_last_lr()

    def state_dict(self):
        state = {key: value for key, value in self.__dict__.items() if key not in ("optimizer", "_schedulers")}
        state["_schedulers"] = [s.state_dict() for s in self._schedulers]
        return state

    def load_state_dict(self, state_dict):
        state_dict = dict(state_dict)
        saved = state_dict.pop("_schedulers")
        self.__dict__.update(state_dict)
        for sched, s in zip(self._schedulers, saved):
            sched.load_state_dict(s)


class ChainedScheduler(LRScheduler):
    """Steps every scheduler of the list on each ``step()``, so that their effects compose.

    Args:
        schedulers (list): the chainable schedulers, all on one optimizer.
        optimizer (Optimizer, optional): that optimizer; taken from the first
            scheduler when omitted. Default: ``None``.

    Example::

        >>> opt = flow.optim.SGD([nn.Parameter(flow.zeros(1))], lr=1.0)
        >>> const = flow.optim.lr_scheduler.ConstantLR(opt, factor=0.5, total_iters=2)
        >>> expo = flow.optim.lr_scheduler.ExponentialLR(opt, gamma=0.9)
        >>> sched = flow.optim.lr_scheduler.ChainedScheduler([const, expo])
        >>> lrs = []
        >>> for epoch in range(4):
        ...     opt.step()
        ...     lrs.append(round(sched.get_last_lr()[0], 4))
        ...     sched.step()
        >>> lrs
        [0.5, 0.45, 0.81, 0.729]
    """

    def __init__(self, schedulers, optimizer=None):
        if len(schedulers) < 1:
            raise ValueError("ChainedScheduler expects at least one scheduler to be chained, but got no scheduler.")
        optimizer = optimizer or schedulers[0].optimizer
        for i, sched in enumerate(schedulers):
            if sched.optimizer is not optimizer:
                raise ValueError(f"ChainedScheduler expects all schedulers to belong to the same optimizer, but "
                                 f"got scheduler {type(sched).__name__} at index {i} with a different optimizer.")
        self._schedulers = list(schedulers)
        self.optimizer = optimizer
        self._last_lr = _lrs(optimizer)

    def step(self):
        for sched in self._schedulers:
            sched.step()
        self._last_lr = _lrs(self.optimizer)

    state_dict = SequentialLR.state_dict
    load_state_dict = SequentialLR.load_state_dict


class ReduceLROnPlateau(LRScheduler):
    """Multiplies the lr by ``factor`` when the metric given to ``step(metrics)`` stops improving.

    After more than ``patience`` epochs without improvement the lr of every group
    is reduced (not below ``min_lr``), then ``cooldown`` epochs pass before bad
    epochs are counted again.

    Args:
        optimizer (Optimizer): the optimizer whose groups' ``lr`` it sets.
        mode (str): ``"min"`` (the metric should decrease, e.g. a loss) or ``"max"``.
            Default: ``"min"``.
        factor (float): multiplicative factor, below 1. Default: ``0.1``.
        patience (int): epochs without improvement tolerated. Default: ``10``.
        threshold (float): the least change that counts as an improvement. Default: ``1e-4``.
        threshold_mode (str): ``"rel"`` (relative to the best value) or ``"abs"``.
            Default: ``"rel"``.
        cooldown (int): epochs to wait after a reduction. Default: ``0``.
        min_lr (float or list): lower bound of the lr, one for all groups or one per
            group. Default: ``0``.
        eps (float): a reduction smaller than this is skipped. Default: ``1e-8``.

    Example::

        >>> opt = flow.optim.SGD([nn.Parameter(flow.zeros(1))], lr=1.0)
        >>> sched = flow.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=1, factor=0.5)
        >>> lrs = []
        >>> for val_loss in [1.0, 0.5, 0.6, 0.6, 0.6, 0.4]:
        ...     opt.step()
        ...     sched.step(val_loss)
        ...     lrs.append(opt.param_groups[0]["lr"])
        >>> lrs
        [1.0, 1.0, 1.0, 0.5, 0.5, 0.5]
    """

    def __init__(self, optimizer, mode="min", factor=0.1, patience=10, threshold=1e-4, threshold_mode="rel",
                 cooldown=0, min_lr=0, eps=1e-8):
        if factor >= 1.0:
            raise ValueError("Factor should be < 1.0.")
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.factor = factor
        self.optimizer = optimizer
        n = len(optimizer.param_groups)
        if isinstance(min_lr, (list, tuple)):
            if len(min_lr) != n:
                raise ValueError(f"expected {n} min_lrs, got {len(min_lr)}")
            self.default_min_lr = None
            self.min_lrs = list(min_lr)
        else:
            self.default_min_lr = min_lr
            self.min_lrs = [min_lr] * n
        self.patience = patience
        self.cooldown = cooldown
        self.eps = eps
        self.last_epoch = 0
        self._last_lr = _lrs(optimizer)
        self._init_is_better(mode, threshold, threshold_mode)
        self._reset()

    def _reset(self):
        self.best = self.mode_worse
        self.cooldown_counter = 0
        self.num_bad_epochs = 0

    @property
    def in_cooldown(self):
        return self.cooldown_counter > 0

    def step(self, metrics, epoch=None):
        current = float(metrics)
        if epoch is None:
            epoch = self.last_epoch + 1
        else:
            warnings.warn(_EPOCH_DEPRECATION, UserWarning, stacklevel=2)
        self.last_epoch = epoch
        if self._is_better(current, self.best):
            self.best = current
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1
        if self.in_cooldown:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0  # bad epochs in cooldown do not count
        if self.num_bad_epochs > self.patience:
            self._reduce_lr()
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0
        self._last_lr = _lrs(self.optimizer)

    def _reduce_lr(self):
        groups = self.optimizer.param_groups
        if len(groups) != len(self.min_lrs):
            if self.default_min_lr is None:
                raise RuntimeError(f"The number of param groups in the `optimizer` ({len(groups)}) differs from "
                                   f"when `ReduceLROnPlateau` was initialized ({len(self.min_lrs)}), usually due "
                                   "to a new param group being added to the optimizer. Please modify the "
                                   "`min_lrs` field to match the length of the `optimizer` param groups.")
            self.min_lrs = [self.default_min_lr] * len(groups)
        for group, min_lr in zip(groups, self.min_lrs):
            old_lr = float(group["lr"])
            new_lr = max(old_lr * self.factor, min_lr)
            if old_lr - new_lr > self.eps:  # changes smaller than eps are ignored
                group["lr"] = new_lr

    def _is_better(self, a, best):
        if self.mode == "min" and self.threshold_mode == "rel":
            return a < best * (1.0 - self.threshold)
        if self.mode == "min":
            return a < best - self.threshold
        if self.threshold_mode == "rel":
            return a > best * (self.threshold + 1.0)
        return a > best + self.threshold

    def _init_is_better(self, mode, threshold, threshold_mode):
        if mode not in ("min", "max"):
            raise ValueError(f"mode {mode} is unknown!")
        if threshold_mode not in ("rel", "abs"):
            raise ValueError(f"threshold mode {threshold_mode} is unknown!")
        self.mode_worse = math.inf if mode == "min" else -math.inf
        self.mode = mode
        self.threshold = threshold
        self.threshold_mode = threshold_mode

    def load_state_dict(self, state_dict):
        self.__dict__.update(state_dict)
        self._init_is_better(self.mode, self.threshold, self.threshold_mode)


def _per_group(name, optimizer, value):
    n = len(optimizer.param_groups)
    if isinstance(value, (list, tuple)):
        if len(value) != n:
            raise ValueError(f"{name} must have the same length as optimizer.param_groups. "
                             f"{name} has {len(value)} values, param_groups has {n}.")
        return list(value)
    return [value] * n


class OneCycleLR(LRScheduler):
    """The 1cycle policy: the lr rises to ``max_lr`` then anneals far below its start; step it per batch.

    The lr goes from ``max_lr / div_factor`` up to ``max_lr`` over ``pct_start`` of
    the steps, then down to ``initial_lr / final_div_factor``; the momentum (or
    Adam's beta1) cycles the other way. Give ``total_steps``, or ``epochs`` and
    ``steps_per_epoch``; stepping past the total raises ``ValueError``.

    Args:
        optimizer (Optimizer): the optimizer whose groups' ``lr`` it sets.
        max_lr (float or list): the peak lr, one for all groups or one per group.
        total_steps (int, optional): the number of steps of the cycle. Default: ``None``.
        epochs (int, optional): with ``steps_per_epoch``, gives
            ``total_steps = epochs * steps_per_epoch``. Default: ``None``.
        steps_per_epoch (int, optional): steps in one epoch. Default: ``None``.
        pct_start (float): fraction of the cycle spent raising the lr. Default: ``0.3``.
        anneal_strategy (str): ``"cos"`` or ``"linear"`` annealing. Default: ``"cos"``.
        cycle_momentum (bool): cycle the momentum (or beta1) inversely to the lr; the
            optimizer must have ``momentum`` or ``betas``. Default: ``True``.
        base_momentum (float or list): the lowest momentum, reached at the lr peak.
            Default: ``0.85``.
        max_momentum (float or list): the highest momentum, at the start. Default: ``0.95``.
        div_factor (float): ``initial_lr = max_lr / div_factor``. Default: ``25.0``.
        final_div_factor (float): ``min_lr = initial_lr / final_div_factor``. Default: ``1e4``.
        three_phase (bool): a third phase anneals from ``initial_lr`` to ``min_lr``
            (the second then returns to ``initial_lr``). Default: ``False``.
        last_epoch (int): index of the last epoch when resuming; ``-1`` starts afresh
            (and records ``initial_lr`` in every group). Default: ``-1``.

    Example::

        >>> opt = flow.optim.SGD([nn.Parameter(flow.zeros(1))], lr=1.0, momentum=0.9)
        >>> sched = flow.optim.lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=5)
        >>> lrs = []
        >>> for epoch in range(5):
        ...     opt.step()  # after the epoch's backward passes
        ...     lrs.append(round(sched.get_last_lr()[0], 4))
        ...     sched.step()
        >>> lrs
        [0.04, 0.9505, 0.6113, 0.1883, 0.0]
    """

    def __init__(self, optimizer, max_lr, total_steps=None, epochs=None, steps_per_epoch=None, pct_start=0.3,
                 anneal_strategy="cos", cycle_momentum=True, base_momentum=0.85, max_momentum=0.95,
                 div_factor=25.0, final_div_factor=1e4, three_phase=False, last_epoch=-1):
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        if total_steps is not None:
            if not isinstance(total_steps, int) or total_steps <= 0:
                raise ValueError(f"Expected positive integer total_steps, but got {total_steps}")
            self.total_steps = total_steps
        elif epochs is not None and steps_per_epoch is not None:
            if not isinstance(epochs, int) or epochs <= 0:
                raise ValueError(f"Expected positive integer epochs, but got {epochs}")
            if not isinstance(steps_per_epoch, int) or steps_per_epoch <= 0:
                raise ValueError(f"Expected positive integer steps_per_epoch, but got {steps_per_epoch}")
            self.total_steps = epochs * steps_per_epoch
        else:
            raise ValueError("You must define either total_steps OR (epochs AND steps_per_epoch)")
        if not isinstance(pct_start, float) or not 0 <= pct_start <= 1:
            raise ValueError(f"Expected float between 0 and 1 pct_start, but got {pct_start}")
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}")
        self._anneal_func_type = anneal_strategy
        # (end step, lr from, lr to, momentum from, momentum to) per phase
        up = float(pct_start * self.total_steps) - 1
        if three_phase:
            self._phases = [(up, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                            (float(2 * pct_start * self.total_steps) - 2, "max_lr", "initial_lr", "base_momentum",
                             "max_momentum"),
                            (self.total_steps - 1, "initial_lr", "min_lr", "max_momentum", "max_momentum")]
        else:
            self._phases = [(up, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                            (self.total_steps - 1, "max_lr", "min_lr", "base_momentum", "max_momentum")]
        max_lrs = _per_group("max_lr", optimizer, max_lr)
        if last_epoch == -1:
            for lr, group in zip(max_lrs, optimizer.param_groups):
                group["initial_lr"] = lr / div_factor
                group["max_lr"] = lr
                group["min_lr"] = group["initial_lr"] / final_div_factor
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
                raise ValueError("optimizer must support momentum or beta1 with `cycle_momentum` option enabled")
            self.use_beta1 = "betas" in optimizer.defaults
            maxes = _per_group("max_momentum", optimizer, max_momentum)
            bases = _per_group("base_momentum", optimizer, base_momentum)
            if last_epoch == -1:
                for m, b, group in zip(maxes, bases, optimizer.param_groups):
                    self._set_momentum(group, m)
                    group["max_momentum"] = m
                    group["base_momentum"] = b
        super().__init__(optimizer, last_epoch)

    def _set_momentum(self, group, value):
        if self.use_beta1:
            group["betas"] = (value, *group["betas"][1:])
        else:
            group["momentum"] = value

    @staticmethod
    def _annealing_cos(start, end, pct):
        return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)

    @staticmethod
    def _annealing_linear(start, end, pct):
        return (end - start) * pct + start

    def _anneal(self, start, end, pct):
        if self._anneal_func_type == "cos":
            return self._annealing_cos(start, end, pct)
        return self._annealing_linear(start, end, pct)

    @_warns_outside_step
    def get_lr(self):
        step = self.last_epoch
        if step > self.total_steps:
            raise ValueError(f"Tried to step {step} times. The specified number of total steps is {self.total_steps}")
        lrs = []
        for group in self.optimizer.param_groups:
            start = 0.0
            for i, (end, lr_from, lr_to, m_from, m_to) in enumerate(self._phases):
                if step <= end or i == len(self._phases) - 1:
                    pct = (step - start) / (end - start)
                    lrs.append(self._anneal(group[lr_from], group[lr_to], pct))
                    if self.cycle_momentum:
                        self._set_momentum(group, self._anneal(group[m_from], group[m_to], pct))
                    break
                start = end
        return lrs


class CyclicLR(LRScheduler):
    """Cyclical learning rates (Smith 2017): the lr swings between ``base_lr`` and ``max_lr``.

    The lr goes from ``base_lr`` up to ``max_lr`` over ``step_size_up`` steps and
    back over ``step_size_down``; the swing is scaled per cycle
    (``"triangular2"``), per step (``"exp_range"``) or by ``scale_fn``. The momentum
    (or beta1) cycles the other way. Step it after every batch.

    Args:
        optimizer (Optimizer): the optimizer whose groups' ``lr`` it sets.
        base_lr (float or list): the low end, one for all groups or one per group
            (set as the groups' lr at construction).
        max_lr (float or list): the high end.
        step_size_up (int): steps of the rising half. Default: ``2000``.
        step_size_down (int, optional): steps of the falling half; ``None`` means
            ``step_size_up``. Default: ``None``.
        mode (str): ``"triangular"``, ``"triangular2"`` (halve the swing each cycle) or
            ``"exp_range"`` (scale it by ``gamma ** step``). Default: ``"triangular"``.
        gamma (float): the base of ``"exp_range"``. Default: ``1.0``.
        scale_fn (function, optional): a custom scaling of the swing, in ``[0, 1]``;
            overrides ``mode``. Default: ``None``.
        scale_mode (str): whether ``scale_fn`` takes the ``"cycle"`` number or the
            step (``"iterations"``). Default: ``"cycle"``.
        cycle_momentum (bool): cycle the momentum (or beta1) inversely to the lr.
            Default: ``True``.
        base_momentum (float or list): the lowest momentum. Default: ``0.8``.
        max_momentum (float or list): the highest momentum. Default: ``0.9``.
        last_epoch (int): index of the last epoch when resuming; ``-1`` starts afresh
            (and records ``initial_lr`` in every group). Default: ``-1``.

    Example::

        >>> opt = flow.optim.SGD([nn.Parameter(flow.zeros(1))], lr=1.0, momentum=0.9)
        >>> sched = flow.optim.lr_scheduler.CyclicLR(opt, base_lr=0.1, max_lr=1.0, step_size_up=2)
        >>> lrs = []
        >>> for epoch in range(5):
        ...     opt.step()  # after the epoch's backward passes
        ...     lrs.append(round(sched.get_last_lr()[0], 4))
        ...     sched.step()
        >>> lrs
        [0.1, 0.55, 1.0, 0.55, 0.1]
    """

    def __init__(self, optimizer, base_lr, max_lr, step_size_up=2000, step_size_down=None, mode="triangular",
                 gamma=1.0, scale_fn=None, scale_mode="cycle", cycle_momentum=True, base_momentum=0.8,
                 max_momentum=0.9, last_epoch=-1):
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        base_lrs = _per_group("base_lr", optimizer, base_lr)
        if last_epoch == -1:
            for lr, group in zip(base_lrs, optimizer.param_groups):
                group["lr"] = lr
        self.max_lrs = _per_group("max_lr", optimizer, max_lr)
        step_size_up = float(step_size_up)
        step_size_down = float(step_size_down) if step_size_down is not None else step_size_up
        self.total_size = step_size_up + step_size_down
        self.step_ratio = step_size_up / self.total_size
        if mode not in ("triangular", "triangular2", "exp_range") and scale_fn is None:
            raise ValueError("mode is invalid and scale_fn is None")
        self.mode = mode
        self.gamma = gamma
        self._scale_fn_custom = scale_fn
        self.scale_mode = {"triangular": "cycle", "triangular2": "cycle", "exp_range": "iterations"}.get(
            mode, scale_mode) if scale_fn is None else scale_mode
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
                raise ValueError("optimizer must support momentum or beta1 with `cycle_momentum` option enabled")
            self.use_beta1 = "betas" in optimizer.defaults
            self.base_momentums = _per_group("base_momentum", optimizer, base_momentum)
            self.max_momentums = _per_group("max_momentum", optimizer, max_momentum)
            if last_epoch == -1:
                for m, b, group in zip(self.max_momentums, self.base_momentums, optimizer.param_groups):
                    self._set_momentum(group, m)
                    group["max_momentum"] = m
                    group["base_momentum"] = b
        self.optimizer = optimizer
        self.base_lrs = base_lrs
        super().__init__(optimizer, last_epoch)
        self.base_lrs = base_lrs

    def scale_fn(self, x):
        if self._scale_fn_custom is not None:
            return self._scale_fn_custom(x)
        if self.mode == "triangular":
            return 1.0
        if self.mode == "triangular2":
            return 1 / (2.0 ** (x - 1))
        return self.gamma ** x

    def _set_momentum(self, group, value):
        if self.use_beta1:
            group["betas"] = (value, *group["betas"][1:])
        else:
            group["momentum"] = value

    @_warns_outside_step
    def get_lr(self):
        cycle = math.floor(1 + self.last_epoch / self.total_size)
        x = 1.0 + self.last_epoch / self.total_size - cycle
        if x <= self.step_ratio:
            scale_factor = x / self.step_ratio
        else:
            scale_factor = (x - 1) / (self.step_ratio - 1)
        scale = self.scale_fn(cycle if self.scale_mode == "cycle" else self.last_epoch)
        lrs = [base_lr + (max_lr - base_lr) * scale_factor * scale
               for base_lr, max_lr in zip(self.base_lrs, self.max_lrs)]
        if self.cycle_momentum:
            for group, base_m, max_m in zip(self.optimizer.param_groups, self.base_momentums, self.max_momentums):
                self._set_momentum(group, max_m - (max_m - base_m) * scale_factor * scale)
        return lrs

    def state_dict(self):
        """As the base's, without a custom scale_fn that is a plain function
        (it may not pickle); a callable object saves its ``__dict__``."""
        state = super().state_dict()
        fn = state.pop("_scale_fn_custom")
        state["_scale_fn_custom"] = None if fn is None or isinstance(fn, types.FunctionType) else fn.__dict__.copy()
        return state

    def load_state_dict(self, state_dict):
        state_dict = dict(state_dict)
        saved = state_dict.pop("_scale_fn_custom", None)
        self.__dict__.update(state_dict)
        if saved is not None and self._scale_fn_custom is not None:
            self._scale_fn_custom.__dict__.update(saved)


class CosineAnnealingWarmRestarts(LRScheduler):
    """SGDR (Loshchilov & Hutter): cosine annealing from ``initial_lr`` to ``eta_min``, with restarts.

    The first period lasts ``T_0`` epochs, each next one ``T_mult`` times longer.
    ``step(epoch)`` with a fractional epoch is supported (the per-batch use).

    Args:
        optimizer (Optimizer): the optimizer whose groups' ``lr`` it sets.
        T_0 (int): epochs of the first period, positive.
        T_mult (int): growth factor of the period, at least 1. Default: ``1``.
        eta_min (float): the lowest lr. Default: ``0.0``.
        last_epoch (int): index of the last epoch when resuming; ``-1`` starts afresh
            (and records ``initial_lr`` in every group). Default: ``-1``.
        decay_rate (float): OneFlow's: each period's peak is ``initial_lr * decay_rate ** k``
            for the ``k``-th period. Default: ``1.0``.
        restart_limit (int): OneFlow's: after this many periods the lr stays at ``eta_min``;
            ``0`` restarts without end. Default: ``0``.
        last_step (int, optional): OneFlow's name for ``last_epoch``.
        verbose (bool): accepted for OneFlow's signature; nothing is printed.

    Example::

        >>> opt = flow.optim.SGD([nn.Parameter(flow.zeros(1))], lr=1.0)
        >>> sched = flow.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=2)
        >>> lrs = []
        >>> for epoch in range(5):
        ...     opt.step()  # after the epoch's backward passes
        ...     lrs.append(round(sched.get_last_lr()[0], 4))
        ...     sched.step()
        >>> lrs
        [1.0, 0.5, 1.0, 0.5, 1.0]
    """

    def __init__(self, optimizer, T_0, T_mult=1, eta_min=0.0, last_epoch=-1, *, decay_rate=1.0, restart_limit=0,
                 last_step=None, verbose=False):
        if last_step is not None:
            last_epoch = last_step
        if isinstance(restart_limit, bool) or not isinstance(restart_limit, int) or restart_limit < 0:
            raise ValueError(f"Expected a non-negative integer restart_limit, but got {restart_limit!r}")
        self.decay_rate = float(decay_rate)
        self.restart_limit = restart_limit
        if not isinstance(T_0, int) or T_0 <= 0:
            raise ValueError(f"Expected positive integer T_0, but got {T_0}")
        if not isinstance(T_mult, int) or T_mult < 1:
            raise ValueError(f"Expected integer T_mult >= 1, but got {T_mult}")
        if not isinstance(eta_min, (float, int)):
            raise ValueError(f"Expected float or int eta_min, but got {eta_min} of type {type(eta_min)}")
        self.T_0 = T_0
        self.T_i = T_0
        self.T_mult = T_mult
        self.eta_min = eta_min
        self.T_cur = last_epoch
        super().__init__(optimizer, last_epoch)

    @_warns_outside_step
    def get_lr(self):
        gamma = 1.0
        if self.decay_rate != 1.0 or self.restart_limit:  # OneFlow's: the cycle's peak decays, restarts end
            if self.T_mult == 1:
                cycle = int(self.last_epoch // self.T_0)
            else:
                cycle = int(round(math.log(self.T_i / self.T_0, self.T_mult)))
            if self.restart_limit and cycle >= self.restart_limit:
                return [self.eta_min for _ in self.base_lrs]
            gamma = self.decay_rate ** cycle
        return [self.eta_min + (base_lr * gamma - self.eta_min) * (1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2
                for base_lr in self.base_lrs]

    def step(self, epoch=None):
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur = self.T_cur + 1
            if self.T_cur >= self.T_i:
                self.T_cur = self.T_cur - self.T_i
                self.T_i = self.T_i * self.T_mult
        else:
            if epoch < 0:
                raise ValueError(f"Expected non-negative epoch, but got {epoch}")
            if epoch >= self.T_0:
                if self.T_mult == 1:
                    self.T_cur = epoch % self.T_0
                else:
                    n = int(math.log((epoch / self.T_0 * (self.T_mult - 1) + 1), self.T_mult))
                    self.T_cur = epoch - self.T_0 * (self.T_mult ** n - 1) / (self.T_mult - 1)
                    self.T_i = self.T_0 * self.T_mult ** n
            else:
                self.T_i = self.T_0
                self.T_cur = epoch
        self._step_count += 1
        self.last_epoch = math.floor(epoch)
        for group, lr in zip(self.optimizer.param_groups, self._compute_lr()):
            group["lr"] = lr
        self._last_lr = _lrs(self.optimizer)


def _lr_at(scheduler, step):
    """The lrs ``scheduler`` sets at ``step``, from its closed form (its own state is left as it was)."""
    saved = scheduler.last_epoch
    scheduler.last_epoch = step
    try:
        closed = getattr(scheduler, "_get_closed_form_lr", None)
        return list(closed() if closed is not None else scheduler._compute_lr())
    finally:
        scheduler.last_epoch = saved


class WarmupLR(LRScheduler):
    """OneFlow's warm-up: for the first ``warmup_iters`` steps the lr is ``initial_lr`` times a
    factor (``"linear"``: from ``warmup_factor`` rising linearly; ``"constant"``: ``warmup_factor``),
    then the wrapped scheduler (if one is given instead of an optimizer) takes over.

    As in OneFlow, a wrapped scheduler counts its steps from the start of training
    (``warmup_prefix=False``: a linear warm-up then ends at the lr the scheduler has at
    ``warmup_iters``, so the schedule is continuous) or from the end of the warm-up
    (``warmup_prefix=True``: the linear warm-up ends at ``initial_lr``). The wrapped
    scheduler's lr at a step is its closed form.

    Args:
        scheduler_or_optimizer (LRScheduler or Optimizer): the scheduler to warm up, or an optimizer.
        warmup_factor (float): the factor of the first step. Default: ``1/3``.
        warmup_iters (int): steps of warm-up. Default: ``5``.
        warmup_method (str): ``"linear"`` or ``"constant"``. Default: ``"linear"``.
        warmup_prefix (bool): whether the wrapped scheduler starts counting after the warm-up.
            Default: ``False``.
        last_step (int): index of the last step when resuming; ``-1`` starts afresh. Default: ``-1``.
        verbose (bool): accepted for OneFlow's signature. Default: ``False``.

    Raises:
        ValueError: for another ``warmup_method``, something other than a scheduler or an
            optimizer, or ``warmup_iters=0`` with an optimizer.

    Example::

        >>> opt = flow.optim.SGD([nn.Parameter(flow.zeros(1))], lr=1.0)
        >>> sched = flow.optim.lr_scheduler.WarmupLR(opt, warmup_factor=0.5, warmup_iters=5)
        >>> lrs = []
        >>> for step in range(7):
        ...     opt.step()
        ...     lrs.append(round(sched.get_last_lr()[0], 6))
        ...     sched.step()
        >>> lrs
        [0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.0]
    """

    def __init__(self, scheduler_or_optimizer, warmup_factor=1.0 / 3, warmup_iters=5, warmup_method="linear",
                 warmup_prefix=False, last_step=-1, verbose=False):
        if isinstance(scheduler_or_optimizer, LRScheduler):
            optimizer, scheduler = scheduler_or_optimizer.optimizer, scheduler_or_optimizer
        elif isinstance(scheduler_or_optimizer, Optimizer):
            optimizer, scheduler = scheduler_or_optimizer, None
        else:
            raise ValueError("'scheduler_or_optimizer' must be a LRScheduler or an Optimizer, but got "
                             f"{type(scheduler_or_optimizer)}")
        if warmup_method not in ("linear", "constant"):
            raise ValueError(f"'warmup_method' must be 'linear' or 'constant', but got {warmup_method}")
        if scheduler is None and warmup_iters == 0:
            raise ValueError("When 'scheduler_or_optimizer' is an optimizer warmup_iters can't be equal to 0")
        self.scheduler = scheduler
        self.warmup_factor = warmup_factor
        self.warmup_iters = warmup_iters
        self.warmup_method = warmup_method
        self.warmup_prefix = warmup_prefix
        self.verbose = verbose
        super().__init__(optimizer, last_step)

    def _inner_step(self, step):
        return step - self.warmup_iters if self.warmup_prefix else step

    def _get_closed_form_lr(self):
        step = self.last_epoch
        if step < self.warmup_iters:
            if self.warmup_method == "constant":
                return [base_lr * self.warmup_factor for base_lr in self.base_lrs]
            if self.scheduler is not None and not self.warmup_prefix:
                ends = _lr_at(self.scheduler, self.warmup_iters)
            else:
                ends = self.base_lrs
            t = step / self.warmup_iters
            return [base_lr * self.warmup_factor + (end - base_lr * self.warmup_factor) * t
                    for base_lr, end in zip(self.base_lrs, ends)]
        if self.scheduler is None:
            return list(self.base_lrs)
        inner = self._inner_step(step)
        self.scheduler.last_epoch = inner
        return _lr_at(self.scheduler, inner)

    get_lr = _get_closed_form_lr

    def state_dict(self):
        state = {key: value for key, value in self.__dict__.items() if key not in ("optimizer", "scheduler")}
        if self.scheduler is not None:
            state["scheduler"] = self.scheduler.state_dict()
        return state

    def load_state_dict(self, state_dict):
        state_dict = dict(state_dict)
        inner = state_dict.pop("scheduler", None)
        self.__dict__.update(state_dict)
        if inner is not None and self.scheduler is not None:
            self.scheduler.load_state_dict(inner)


WarmUpLR = WarmupLR  # OneFlow's former name

_LRScheduler = LRScheduler  # torch's former name, still imported by older scripts
