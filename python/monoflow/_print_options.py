"""set_printoptions: the options of tensor repr (held by monoflow/_tensor_str.py)."""
import math

from monoflow import _tensor_str

_PROFILES = {  # torch's: (precision, threshold, edgeitems, linewidth)
    "default": (4, 1000, 3, 80),
    "short": (2, 1000, 2, 80),
    "full": (4, math.inf, 3, 80),
}


def _int_option(value, name):
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"set_printoptions(): argument '{name}' must be int, not {type(value).__name__}")
    return value


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None,
                     sci_mode=None):
    """Sets how tensors print, as torch.set_printoptions.

    Args:
        precision (int): digits after the decimal point (default 4).
        threshold (int or float): element count above which a tensor prints summarised (default 1000).
        edgeitems (int): items printed at each end of a summarised dim (default 3).
        linewidth (int): characters per line (default 80).
        profile (str): "default", "short" or "full" sets all four first (an unknown name is ignored,
            as torch ignores it).
        sci_mode (bool or None): force scientific notation on or off; None (what every call without
            it sets) lets each tensor choose.

    Example::

        >>> import monoflow as flow
        >>> flow.set_printoptions(precision=2)
        >>> flow.tensor([1.2345])
        tensor([1.23])
        >>> flow.set_printoptions(profile="default")
    """
    if profile in _PROFILES:
        (_tensor_str.PRECISION, _tensor_str.THRESHOLD, _tensor_str.EDGE_ITEMS,
         _tensor_str.LINEWIDTH) = _PROFILES[profile]
    if precision is not None:
        _tensor_str.PRECISION = _int_option(precision, "precision")
    if threshold is not None:
        if isinstance(threshold, bool) or not isinstance(threshold, (int, float)):
            raise TypeError(f"set_printoptions(): argument 'threshold' must be a number, "
                            f"not {type(threshold).__name__}")
        _tensor_str.THRESHOLD = threshold
    if edgeitems is not None:
        _tensor_str.EDGE_ITEMS = _int_option(edgeitems, "edgeitems")
    if linewidth is not None:
        _tensor_str.LINEWIDTH = _int_option(linewidth, "linewidth")
    if sci_mode is not None and not isinstance(sci_mode, bool):
        raise TypeError(f"set_printoptions(): argument 'sci_mode' must be bool or None, not {type(sci_mode).__name__}")
    _tensor_str.SCI_MODE = sci_mode
