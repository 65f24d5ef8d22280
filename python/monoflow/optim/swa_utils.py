"""Stochastic weight averaging and EMA (torch.optim.swa_utils): AveragedModel
keeps a running average of a model's parameters, SWALR anneals each group's
lr to a constant SWA lr, update_bn recomputes BatchNorm statistics for the
averaged weights."""
import copy
import itertools
import math

from monoflow import _creation
from monoflow._dtypes import int64
from monoflow.autograd.grad_mode import no_grad
from monoflow.nn.module import Module
from monoflow.nn.modules.batchnorm import _BatchNorm
from monoflow.optim.lr_scheduler import LRScheduler, _per_group

__all__ = ["AveragedModel", "SWALR", "update_bn", "get_ema_avg_fn", "get_ema_multi_avg_fn", "get_swa_avg_fn",
           "get_swa_multi_avg_fn"]


def get_ema_multi_avg_fn(decay=0.999):
    """In place: averaged = lerp(averaged, current, 1 - decay), for lists of tensors."""
    def ema_update(averaged_params, current_params, num_averaged):
        for a, c in zip(averaged_params, current_params):
            if a.is_floating_point():
                a.lerp_(c, 1 - decay)
            else:
                a.copy_(a * decay + c * (1 - decay))
    return ema_update


def get_swa_multi_avg_fn():
    """In place: the running mean, averaged += (current - averaged) / (n + 1)."""
    def swa_update(averaged_params, current_params, num_averaged):
        n = int(num_averaged)
        for a, c in zip(averaged_params, current_params):
            if a.is_floating_point():
                a.lerp_(c, 1 / (n + 1))
            else:
                a.add_((c - a) / (n + 1))
    return swa_update


def get_ema_avg_fn(decay=0.999):
    def ema_update(ema_param, current_param, num_averaged):
        return decay * ema_param + (1 - decay) * current_param
    return ema_update


def get_swa_avg_fn():
    def swa_update(averaged_param, current_param, num_averaged):
        return averaged_param + (current_param - averaged_param) / (num_averaged + 1)
    return swa_update


class AveragedModel(Module):
    """A deep copy of ``model`` whose parameters (and buffers, with
    use_buffers) are averaged by ``update_parameters(model)``: the equal-weight
    running mean by default, or avg_fn / multi_avg_fn (e.g. an EMA)."""

    def __init__(self, model, device=None, avg_fn=None, multi_avg_fn=None, use_buffers=False):
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = copy.deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", _creation.tensor(0, dtype=int64, device=device))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)

    def update_parameters(self, model):
        with no_grad():
            self._update(model)

    def _update(self, model):
        mine = (itertools.chain(self.module.parameters(), self.module.buffers()) if self.use_buffers
                else self.parameters())
        theirs = itertools.chain(model.parameters(), model.buffers()) if self.use_buffers else model.parameters()
        n = int(self.n_averaged)
        averaged, current = [], []
        for p_avg, p_model in zip(mine, theirs):
            p_model = p_model.detach().to(p_avg.device)
            averaged.append(p_avg.detach())
            current.append(p_model)
            if n == 0:
                p_avg.detach().copy_(p_model)
        if n > 0:
            if self.avg_fn is not None:
                for a, c in zip(averaged, current):
                    a.copy_(self.avg_fn(a, c, self.n_averaged))
            else:
                (self.multi_avg_fn or get_swa_multi_avg_fn())(averaged, current, self.n_averaged)
        if not self.use_buffers:
            # buffers are not averaged: keep them in sync with the source model
            for b_avg, b_model in zip(self.module.buffers(), model.buffers()):
                b_avg.detach().copy_(b_model.detach().to(b_avg.device))
        self.n_averaged.add_(1)


def update_bn(loader, model, device=None):
    """One pass over ``loader`` in train mode with momentum None (a plain
    average), so that every BatchNorm's running statistics are those of the
    current weights."""
    momenta = {}
    for module in model.modules():
        if isinstance(module, _BatchNorm):
            module.reset_running_stats()
            momenta[module] = module.momentum
    if not momenta:
        return
    was_training = model.training
    model.train()
    for module in momenta:
        module.momentum = None
    with no_grad():
        for batch in loader:
            if isinstance(batch, (list, tuple)):
                batch = batch[0]
            if device is not None:
                batch = batch.to(device)
            model(batch)
    for module, momentum in momenta.items():
        module.momentum = momentum
    model.train(was_training)


class SWALR(LRScheduler):
    """Anneals each group's lr to ``swa_lr`` over ``anneal_epochs`` epochs
    (cosine or linear), then holds it."""

    def __init__(self, optimizer, swa_lr, anneal_epochs=10, anneal_strategy="cos", last_epoch=-1):
        for lr, group in zip(_per_group("swa_lr", optimizer, swa_lr), optimizer.param_groups):
            group["swa_lr"] = lr
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(f"anneal_strategy must by one of 'cos' or 'linear', instead got {anneal_strategy}")
        self.anneal_strategy = anneal_strategy
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got {anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    def anneal_func(self, t):
        return (1 - math.cos(math.pi * t)) / 2 if self.anneal_strategy == "cos" else t

    @staticmethod
    def _get_initial_lr(lr, swa_lr, alpha):
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def get_lr(self):
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        prev_alpha = self.anneal_func(max(0, min(1, (step - 1) / max(1, self.anneal_epochs))))
        prev_lrs = [self._get_initial_lr(group["lr"], group["swa_lr"], prev_alpha)
                    for group in self.optimizer.param_groups]
        alpha = self.anneal_func(max(0, min(1, step / max(1, self.anneal_epochs))))
        return [group["swa_lr"] * alpha + lr * (1 - alpha) for group, lr in zip(self.optimizer.param_groups, prev_lrs)]
