"""Turning a list of samples into a batch.

``default_collate`` stacks tensors (and numpy arrays) along a new first
dimension, turns Python numbers into 1-D tensors, keeps strings as lists, and
recurses into dicts, namedtuples, tuples and lists, exactly where torch's does.
``default_convert`` is what a DataLoader without batching (``batch_size=None``)
applies: numpy arrays become tensors, the rest is left as is."""
import collections.abc
import copy
import numbers

import numpy as np

# ops_shape.stack is looked up at call time: utils.data is imported before monoflow wraps ops_shape's
# functions for global tensors (_global/install.py), so a name bound here would miss that wrapper
from monoflow import ops_shape
from monoflow._creation import as_tensor, tensor
from monoflow._dtypes import bool_, float64, int64
from monoflow._tensor import Tensor

__all__ = ["default_collate", "default_convert"]

_ERR = ("default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}")


def _numpy_convertible(arr):
    # Strings and Python objects have no tensor dtype.
    return arr.dtype.kind not in "SaUO"


def default_convert(data):
    """Converts one sample without batching: numpy arrays and numpy scalars become tensors.

    What a DataLoader with ``batch_size=None`` applies to each sample. Tensors,
    strings and other objects are left as they are; dicts, namedtuples and
    sequences are converted element by element (a tuple becomes a list, as in torch).

    Args:
        data: a sample.

    Example::

        >>> flow.utils.data.default_convert(np.array([1, 2]))
        tensor([1, 2])
        >>> flow.utils.data.default_convert({"x": np.array([0.5]), "name": "a"})
        {'x': tensor([0.5000], dtype=monoflow.float64), 'name': 'a'}
    """
    if isinstance(data, Tensor):
        return data
    if isinstance(data, np.ndarray):
        return as_tensor(data) if _numpy_convertible(data) else data
    if isinstance(data, np.generic) and not isinstance(data, (np.str_, np.bytes_)):
        return as_tensor(data)
    if isinstance(data, (str, bytes)):
        return data
    if isinstance(data, collections.abc.Mapping):
        return _rebuild_mapping(data, {k: default_convert(v) for k, v in data.items()})
    if isinstance(data, tuple) and hasattr(data, "_fields"):  # namedtuple
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence):
        return _rebuild_sequence(data, [default_convert(d) for d in data])
    return data


def _rebuild_mapping(like, items):
    """A mapping of like's type holding `items` (a dict when that type can't be built)."""
    if isinstance(like, collections.abc.MutableMapping):
        try:
            clone = copy.copy(like)  # keeps OrderedDict/defaultdict and their extra state
            clone.update(items)
            return clone
        except Exception:  # noqa: BLE001 - an exotic mapping: fall back below
            pass
    try:
        return type(like)(items)
    except TypeError:
        return items


def _rebuild_sequence(like, items):
    if isinstance(like, list):
        return items
    try:
        return type(like)(items)
    except TypeError:
        return items


def default_collate(batch):
    """Merges a list of samples into a batch: the default ``collate_fn`` of a DataLoader.

    Tensors (and numpy arrays) are stacked along a new first dimension; Python
    ints become an int64 tensor, floats a float64 tensor, bools a bool tensor;
    strings are kept as given; dicts, namedtuples, tuples and lists are collated
    field by field (tuples give a list of fields), as torch's does. Sequences of
    unequal lengths raise ``RuntimeError``; other types ``TypeError``.

    Args:
        batch (list): the samples.

    Example::

        >>> flow.utils.data.default_collate([flow.tensor([1, 2]), flow.tensor([3, 4])])
        tensor([[1, 2],
                [3, 4]])
        >>> flow.utils.data.default_collate([(1, 0.5), (2, 1.5)])
        [tensor([1, 2]), tensor([0.5000, 1.5000], dtype=monoflow.float64)]
        >>> flow.utils.data.default_collate([{"x": 1}, {"x": 2}])
        {'x': tensor([1, 2])}
    """
    elem = batch[0]
    if isinstance(elem, Tensor):
        return ops_shape.stack(list(batch), 0)
    if isinstance(elem, np.ndarray):
        if not _numpy_convertible(elem):
            raise TypeError(_ERR.format(elem.dtype))
        return default_collate([as_tensor(b) for b in batch])
    if isinstance(elem, np.generic) and not isinstance(elem, (np.str_, np.bytes_)):
        if elem.dtype.kind in "SaUO":
            raise TypeError(_ERR.format(elem.dtype))
        return as_tensor(np.asarray(batch))
    if isinstance(elem, bool):
        return tensor(batch, dtype=bool_)
    if isinstance(elem, numbers.Integral):
        return tensor(batch, dtype=int64)
    if isinstance(elem, float):
        return tensor(batch, dtype=float64)
    if isinstance(elem, (str, bytes)):
        return batch  # as given (a tuple when it is a column of a tuple batch, as in torch)
    if isinstance(elem, collections.abc.Mapping):
        return _rebuild_mapping(elem, {k: default_collate([d[k] for d in batch]) for k in elem})
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # namedtuple
        return type(elem)(*(default_collate(s) for s in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        size = len(elem)
        if any(len(e) != size for e in batch):
            raise RuntimeError("default_collate: each element in list of batch should be of equal size")
        columns = [default_collate(s) for s in zip(*batch)]
        if isinstance(elem, tuple):
            return columns  # as torch: a list of the collated fields
        return _rebuild_sequence(elem, columns)
    raise TypeError(_ERR.format(type(elem)))
