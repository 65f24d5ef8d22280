"""GradScaler: dynamic loss scaling, torch.amp.GradScaler's algorithm.

scale(loss) multiplies by the scale; step(optimizer) unscales the gradients
and skips the step when one is inf/NaN; update() halves the scale after a
skipped step and doubles it after `growth_interval` good ones. Disabled
(enabled=False, or a device type that is not loaded, which warns as torch
does without CUDA) it passes everything through: scale() returns its input
and step() just steps."""
import numbers
import warnings

from monoflow import _C
from monoflow.autograd import no_grad


class GradScaler:
    """Dynamic loss scaling for mixed-precision training (torch.amp.GradScaler's algorithm).

    ``scale(loss)`` multiplies the loss by the scale; ``step(optimizer)`` unscales
    the gradients (``unscale_``) and skips the step when one of them is inf or
    NaN; ``update()`` multiplies the scale by ``backoff_factor`` after a skipped
    step and by ``growth_factor`` after ``growth_interval`` good ones. Disabled
    (``enabled=False``, or a device type that is not loaded, which warns as torch
    does without CUDA) it passes everything through: ``scale()`` returns its
    input and ``step()`` just steps.

    Args:
        device (str): the device type of the gradients. Default: ``"cuda"``.
        init_scale (float): the starting scale. Default: ``2.0 ** 16``.
        growth_factor (float): the factor after ``growth_interval`` good steps, above 1.
            Default: ``2.0``.
        backoff_factor (float): the factor after a step with inf/NaN gradients, in
            ``(0, 1)``. Default: ``0.5``.
        growth_interval (int): good steps between two growths. Default: ``2000``.
        enabled (bool): whether scaling is on. Default: ``True``.

    Example::

        >>> scaler = flow.amp.GradScaler("cpu", init_scale=4.0)
        >>> w = nn.Parameter(flow.tensor([1.0, -2.0]))
        >>> opt = flow.optim.SGD([w], lr=0.1)
        >>> scaler.scale((w * w).sum()).backward()
        >>> w.grad  # scaled by 4
        tensor([  8., -16.])
        >>> scaler.step(opt)  # unscales, then steps
        >>> scaler.update()
        >>> w.detach(), scaler.get_scale()
        (tensor([ 0.8000, -1.6000]), 4.0)
    """

    def __init__(self, device="cuda", init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5,
                 growth_interval=2000, enabled=True):
        if not isinstance(device, str):
            raise TypeError(f"GradScaler(): argument 'device' must be a device type name (str), not "
                            f"{type(device).__name__}")
        for name, value in (("init_scale", init_scale), ("growth_factor", growth_factor),
                            ("backoff_factor", backoff_factor), ("growth_interval", growth_interval)):
            if not isinstance(value, numbers.Real) or isinstance(value, bool):
                raise TypeError(f"GradScaler(): argument '{name}' must be a number, not {type(value).__name__}")
        self._device = device
        self._enabled = bool(enabled)
        if self._enabled and device not in _C.device_types():
            warnings.warn(f"GradScaler is enabled, but '{device}' is not available.  Disabling.", UserWarning,
                          stacklevel=2)
            self._enabled = False
        if growth_factor <= 1.0:
            raise ValueError("GradScaler: the growth factor must be > 1.0")
        if not 0.0 < backoff_factor < 1.0:
            raise ValueError("GradScaler: the backoff factor must be < 1.0")
        self._scale = float(init_scale)
        self._growth_factor = float(growth_factor)
        self._backoff_factor = float(backoff_factor)
        self._growth_interval = int(growth_interval)
        self._growth_tracker = 0
        self._per_optimizer = {}  # id(optimizer) -> {"unscaled": bool, "found_inf": bool}

    def is_enabled(self):
        return self._enabled

    def scale(self, outputs):
        if not self._enabled:
            return outputs
        if isinstance(outputs, _C.TensorBase):
            return outputs * self._scale
        if isinstance(outputs, (list, tuple)):
            return type(outputs)(self.scale(o) for o in outputs)
        raise ValueError("GradScaler.scale: outputs must be a Tensor or an iterable of Tensors")

    def _state(self, optimizer):
        return self._per_optimizer.setdefault(id(optimizer), {"unscaled": False, "found_inf": False})

    def unscale_(self, optimizer):
        if not self._enabled:
            return
        state = self._state(optimizer)
        if state["unscaled"]:
            raise RuntimeError("unscale_() has already been called on this optimizer since the last update().")
        inv = 1.0 / self._scale
        found_inf = False
        with no_grad():
            for group in optimizer.param_groups:
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    p.grad.mul_(inv)
                    found_inf = found_inf or not bool(p.grad.isfinite().all())
        state.update(unscaled=True, found_inf=found_inf)

    def step(self, optimizer, *args, **kwargs):
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        state = self._state(optimizer)
        if not state["unscaled"]:
            self.unscale_(optimizer)
        if not state["found_inf"]:
            return optimizer.step(*args, **kwargs)
        return None

    def update(self, new_scale=None):
        if not self._enabled:
            return
        if new_scale is not None:
            self._scale = float(new_scale.item() if isinstance(new_scale, _C.TensorBase) else new_scale)
        elif any(s["found_inf"] for s in self._per_optimizer.values()):
            self._scale *= self._backoff_factor
            self._growth_tracker = 0
        else:
            self._growth_tracker += 1
            if self._growth_tracker == self._growth_interval:
                self._scale *= self._growth_factor
                self._growth_tracker = 0
        self._per_optimizer = {}

    def get_scale(self):
        return self._scale if self._enabled else 1.0

    def get_growth_factor(self):
        return self._growth_factor

    def set_growth_factor(self, new_factor):
        self._growth_factor = float(new_factor)

    def get_backoff_factor(self):
        return self._backoff_factor

    def set_backoff_factor(self, new_factor):
        self._backoff_factor = float(new_factor)

    def get_growth_interval(self):
        return self._growth_interval

    def set_growth_interval(self, new_interval):
        self._growth_interval = int(new_interval)

    def state_dict(self):
        if not self._enabled:
            return {}
        return {"scale": self._scale, "growth_factor": self._growth_factor, "backoff_factor": self._backoff_factor,
                "growth_interval": self._growth_interval, "_growth_tracker": self._growth_tracker}

    def load_state_dict(self, state_dict):
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved from a disabled "
                               "instance of GradScaler.")
        self._scale = float(state_dict["scale"])
        self._growth_factor = float(state_dict["growth_factor"])
        self._backoff_factor = float(state_dict["backoff_factor"])
        self._growth_interval = int(state_dict["growth_interval"])
        self._growth_tracker = int(state_dict["_growth_tracker"])


class StaticGradScaler(GradScaler):
    """OneFlow's loss scaling by a fixed factor: ``scale(loss)`` multiplies by ``scale_factor``,
    ``step(optimizer)`` unscales the gradients and skips the step when one is inf or NaN, and
    ``update()`` keeps the scale (for any device type).

    Args:
        scale_factor (float): the scale, positive.

    Example::

        >>> scaler = flow.amp.StaticGradScaler(8.0)
        >>> w = nn.Parameter(flow.tensor([1.0]))
        >>> opt = flow.optim.SGD([w], lr=0.5)
        >>> scaler.scale((w * w).sum()).backward()
        >>> scaler.step(opt); scaler.update()
        >>> w.detach(), scaler.get_scale()
        (tensor([0.]), 8.0)
    """

    def __init__(self, scale_factor):
        if isinstance(scale_factor, bool) or not isinstance(scale_factor, (int, float)) or not scale_factor > 0:
            raise ValueError(f"StaticGradScaler: scale_factor must be a positive number, got {scale_factor!r}")
        self._device = None
        self._enabled = True
        self._scale = float(scale_factor)
        self._growth_factor = 1.0
        self._backoff_factor = 1.0
        self._growth_interval = 1
        self._growth_tracker = 0
        self._per_optimizer = {}

    def update(self, new_scale=None):
        self._per_optimizer = {}
