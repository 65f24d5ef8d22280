"""torch.random for monoflow: the seed and RNG-state functions of the
default generator (the same objects as ``monoflow.manual_seed`` ...), and
``fork_rng``, which restores the state after a block."""
import contextlib

from monoflow.ops_random import get_rng_state, initial_seed, manual_seed, seed, set_rng_state

__all__ = ["fork_rng", "get_rng_state", "initial_seed", "manual_seed", "seed", "set_rng_state"]


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices", device_type=None):
    """Context manager that restores the default generator's state on exit (torch.random.fork_rng).

    Random numbers drawn inside the block do not change what is drawn after it.
    monoflow runs on the CPU generator; `devices` and `device_type` are accepted
    for torch's signature.

    Args:
        devices (sequence, optional): accelerator devices to fork (none here).
        enabled (bool): False makes the block a no-op.
        _caller (str): torch's internal name for warnings.
        _devices_kw (str): torch's internal name for warnings.
        device_type (str, optional): the accelerator type (ignored: CPU generator only).

    Example::

        >>> import monoflow as flow
        >>> _ = flow.manual_seed(0)
        >>> with flow.random.fork_rng():
        ...     _ = flow.rand(3)
        >>> a = flow.rand(1); _ = flow.manual_seed(0)
        >>> bool((a == flow.rand(1)).all())
        True
    """
    if not enabled:
        yield
        return
    state = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(state)
