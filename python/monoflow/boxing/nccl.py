"""OneFlow's ``oneflow.boxing.nccl``: knobs of its NCCL collective fusion for nn.Graph.

monoflow's collectives (gloo or a device plugin's) do not fuse by these knobs: each call checks its
argument as OneFlow does and records the value, which :func:`settings` returns, so a OneFlow script
that tunes them runs unchanged."""

__all__ = ["allow_fuse_all_gather", "allow_fuse_all_reduce", "allow_fuse_broadcast", "allow_fuse_mixed_ops",
           "allow_fuse_reduce", "allow_fuse_reduce_scatter", "enable_all_to_all", "enable_use_buffer_to_fuse_all_reduce",
           "enable_use_compute_stream", "set_fusion_max_ops_num", "set_fusion_threshold_mbytes", "set_stream_num",
           "settings"]

_settings = {}


def _record(name, val, kind):
    # OneFlow asserts the exact type (True is no int here, 1 no bool)
    if type(val) is not kind:
        raise TypeError(f"boxing.nccl.{name}(): argument 'val' must be {kind.__name__}, not {type(val).__name__}")
    if kind is int and val < 0:
        raise ValueError(f"boxing.nccl.{name}(): argument 'val' must be non-negative, got {val}")
    _settings[name] = val


def settings():
    """The values given so far, by function name (an empty dict before any call).

    Example::

        >>> import monoflow as flow
        >>> flow.boxing.nccl.set_stream_num(2)
        >>> flow.boxing.nccl.settings()["set_stream_num"]
        2
    """
    return dict(_settings)


def set_fusion_threshold_mbytes(val):
    """The size in MiB up to which OneFlow fuses small collectives into one.

    Args:
        val (int): the threshold in MiB.

    Example::

        >>> import monoflow as flow
        >>> flow.boxing.nccl.set_fusion_threshold_mbytes(16)
    """
    _record("set_fusion_threshold_mbytes", val, int)


def set_fusion_max_ops_num(val):
    """The largest number of collectives OneFlow fuses into one.

    Args:
        val (int): the number of ops.

    Example::

        >>> import monoflow as flow
        >>> flow.boxing.nccl.set_fusion_max_ops_num(24)
    """
    _record("set_fusion_max_ops_num", val, int)


def set_stream_num(val):
    """The number of NCCL streams OneFlow runs collectives on.

    Args:
        val (int): the number of streams.

    Example::

        >>> import monoflow as flow
        >>> flow.boxing.nccl.set_stream_num(1)
    """
    _record("set_stream_num", val, int)


def allow_fuse_all_reduce(val):
    """Whether OneFlow fuses all-reduces.

    Args:
        val (bool): allow or not.

    Example::

        >>> import monoflow as flow
        >>> flow.boxing.nccl.allow_fuse_all_reduce(True)
    """
    _record("allow_fuse_all_reduce", val, bool)


def allow_fuse_reduce_scatter(val):
    """Whether OneFlow fuses reduce-scatters.

    Args:
        val (bool): allow or not.

    Example::

        >>> import monoflow as flow
        >>> flow.boxing.nccl.allow_fuse_reduce_scatter(False)
    """
    _record("allow_fuse_reduce_scatter", val, bool)


def allow_fuse_all_gather(val):
    """Whether OneFlow fuses all-gathers.

    Args:
        val (bool): allow or not.

    Example::

        >>> import monoflow as flow
        >>> flow.boxing.nccl.allow_fuse_all_gather(True)
    """
    _record("allow_fuse_all_gather", val, bool)


def allow_fuse_reduce(val):
    """Whether OneFlow fuses reduces.

    Args:
        val (bool): allow or not.

    Example::

        >>> import monoflow as flow
        >>> flow.boxing.nccl.allow_fuse_reduce(True)
    """
    _record("allow_fuse_reduce", val, bool)


def allow_fuse_broadcast(val):
    """Whether OneFlow fuses broadcasts.

    Args:
        val (bool): allow or not.

    Example::

        >>> import monoflow as flow
        >>> flow.boxing.nccl.allow_fuse_broadcast(True)
    """
    _record("allow_fuse_broadcast", val, bool)


def allow_fuse_mixed_ops(val):
    """Whether OneFlow fuses collectives of different kinds together.

    Args:
        val (bool): allow or not.

    Example::

        >>> import monoflow as flow
        >>> flow.boxing.nccl.allow_fuse_mixed_ops(False)
    """
    _record("allow_fuse_mixed_ops", val, bool)


def enable_use_buffer_to_fuse_all_reduce(val):
    """Whether OneFlow copies fused all-reduce operands into one buffer.

    Args:
        val (bool): use the buffer or not.

    Example::

        >>> import monoflow as flow
        >>> flow.boxing.nccl.enable_use_buffer_to_fuse_all_reduce(True)
    """
    _record("enable_use_buffer_to_fuse_all_reduce", val, bool)


def enable_all_to_all(val):
    """Whether OneFlow may use all-to-all to change a split axis.

    Args:
        val (bool): allow or not.

    Example::

        >>> import monoflow as flow
        >>> flow.boxing.nccl.enable_all_to_all(True)
    """
    _record("enable_all_to_all", val, bool)


def enable_use_compute_stream(val=False):
    """Whether OneFlow runs NCCL on the compute stream (reusing its memory).

    Args:
        val (bool): use the compute stream or not. Default: ``False``.

    Example::

        >>> import monoflow as flow
        >>> flow.boxing.nccl.enable_use_compute_stream(True)
    """
    _record("enable_use_compute_stream", val, bool)
