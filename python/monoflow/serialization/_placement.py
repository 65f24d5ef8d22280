"""map_location: where the tensors a loader reads go (shared by every format)."""
from monoflow import _C


class UserError(Exception):
    """Carries an exception raised by the caller's own code (a map_location
    callable) through a loader's net for file errors; its __cause__ is
    re-raised unchanged."""


def check_map_location(ml):
    if ml is None or isinstance(ml, (str, _C.device, dict)) or callable(ml):
        return
    raise TypeError(f"flow.load: map_location must be None, a device, a str, a dict or a callable, "
                    f"got {type(ml).__name__}")


def contiguous_strides(shape):
    strides, acc = [], 1
    for n in reversed(shape):
        strides.append(acc)
        acc *= max(n, 1)
    return strides[::-1]


def target_device(saved, ml, error, path):
    """The device a tensor saved on `saved` (a device string) goes to;
    error(msg) makes the file's error."""
    if ml is None or callable(ml) and not isinstance(ml, (str, _C.device, dict)):
        target = saved
    elif isinstance(ml, (str, _C.device)):
        target = str(ml)
    else:
        target = str(ml.get(saved, ml.get(saved.split(":")[0], saved)))
    dev_type = target.split(":")[0]
    if dev_type not in _C.device_types() and dev_type != "meta":
        raise error(f"the tensor at {path} was saved on {saved!r} and would be restored on {target!r}, but device "
                    f"type {dev_type!r} is not registered here (available: {', '.join(_C.device_types())}); "
                    f"pass map_location, e.g. map_location='cpu'")
    try:
        dev = _C.device(target)
    except Exception as exc:  # noqa: BLE001 - the device string came from the file
        raise error(f"cannot restore the tensor at {path} on {target!r}: {exc}") from None
    count = _C.device_count(dev.type)
    if dev.index >= count:
        raise error(f"the tensor at {path} would be restored on {target!r}, "
                    f"but only {count} {dev.type} device(s) exist; pass map_location")
    return dev


def restore(buf, shape, dt, saved, ml, error, path):
    """A tensor of `shape` and dtype `dt` over host bytes `buf` (a uint8 numpy
    array the tensor may take over), placed as map_location `ml` says."""
    if callable(ml) and not isinstance(ml, (str, _C.device, dict)):
        cpu = _C._borrow_host_memory(buf, buf.ctypes.data, buf.nbytes, shape, contiguous_strides(shape), dt)
        try:
            out = ml(cpu, saved)
        except Exception as exc:  # noqa: BLE001 - the caller's own error, passed on as it is
            raise UserError() from exc
        if out is None:  # as in torch: None means "restore as usual"
            return _on(buf, shape, dt, target_device(saved, None, error, path))
        if not isinstance(out, _C.TensorBase) or list(out.shape) != list(shape) or out.dtype != dt:
            raise UserError() from TypeError(
                f"flow.load: map_location callable must return a {dt.name} tensor of shape "
                f"{tuple(shape)} (or None), got {out!r:.80}")
        return out.contiguous()  # views are made with as_strided over it
    return _on(buf, shape, dt, target_device(saved, ml, error, path))


def _on(buf, shape, dt, dev):
    if dev.type == "cpu":  # the tensor takes over the buffer: no second copy
        return _C._borrow_host_memory(buf, buf.ctypes.data, buf.nbytes, shape, contiguous_strides(shape), dt)
    return _C._from_host_array(buf, shape, dt, dev)
