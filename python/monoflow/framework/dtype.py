"""``oneflow.framework.dtype``: conversions between monoflow and numpy dtypes."""
from monoflow import _dtypes

__all__ = ["convert_oneflow_dtype_to_numpy_dtype", "convert_numpy_dtype_to_oneflow_dtype"]


def convert_oneflow_dtype_to_numpy_dtype(oneflow_dtype):
    """The numpy dtype of a monoflow dtype (``TypeError`` for one numpy lacks, e.g. bfloat16).

    Args:
        oneflow_dtype (monoflow.dtype): the dtype to convert.

    Example::

        >>> import monoflow as flow
        >>> flow.framework.dtype.convert_oneflow_dtype_to_numpy_dtype(flow.float32)
        <class 'numpy.float32'>
    """
    return _dtypes.to_numpy(oneflow_dtype)


def convert_numpy_dtype_to_oneflow_dtype(numpy_dtype):
    """The monoflow dtype of a numpy dtype (or type, such as ``numpy.int64``).

    Args:
        numpy_dtype (numpy.dtype or type): the dtype to convert.

    Example::

        >>> import numpy as np, monoflow as flow
        >>> flow.framework.dtype.convert_numpy_dtype_to_oneflow_dtype(np.int64)
        monoflow.int64
    """
    return _dtypes.from_numpy(numpy_dtype)
