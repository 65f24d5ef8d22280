"""set_float32_matmul_precision / get_float32_matmul_precision.

The setting tells a framework how much precision float32 matmuls may give up
for speed ("highest": none; "high"/"medium": TF32 or bfloat16 passes). It
allows, never requires, the faster forms, and monoflow's kernels have none:
every float32 matmul computes in float32 whatever the setting, so the value is
kept only for scripts that read it back.
"""
import warnings

_PRECISIONS = ("highest", "high", "medium")
_precision = "highest"


def set_float32_matmul_precision(precision):
    """Records the allowed float32 matmul precision: "highest", "high" or "medium".

    An unknown value warns and changes nothing, as in torch. monoflow computes
    every float32 matmul in full float32 precision under each setting.

    Args:
        precision (str): "highest", "high" or "medium".

    Example::

        >>> import monoflow as flow
        >>> flow.set_float32_matmul_precision("high")
        >>> flow.get_float32_matmul_precision()
        'high'
        >>> flow.set_float32_matmul_precision("highest")
    """
    global _precision
    if not isinstance(precision, str):  # (an array's `in` asks its truth value; torch's type)
        raise RuntimeError(f"set_float32_matmul_precision expects a str, but got {type(precision).__name__}")
    if precision not in _PRECISIONS:
        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current "
                      "set_float32_matmul_precision call has no effect.", UserWarning, stacklevel=2)
        return
    _precision = precision


def get_float32_matmul_precision():
    """The value of the last valid ``set_float32_matmul_precision`` ("highest" by default).

    Returns:
        str: "highest", "high" or "medium".

    Example::

        >>> import monoflow as flow
        >>> flow.get_float32_matmul_precision()
        'highest'
    """
    return _precision
