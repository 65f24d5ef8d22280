"""The one error type every checkpoint load failure raises."""
import pickle


class CheckpointError(ValueError, RuntimeError):
    """A file could not be loaded as a checkpoint: it is not one, it is
    corrupt or hostile, or it needs something this load does not allow.

    A ValueError (the file's content is wrong) and a RuntimeError (what torch
    raises for unreadable checkpoints), so code written for either catches it.
    The message names the file and, where there is one, the member."""


class WeightsOnlyError(CheckpointError, pickle.UnpicklingError):
    """A ``weights_only=True`` load met a pickled object whose class is not
    allow-listed. Also a ``pickle.UnpicklingError``, as torch's is."""


def file_error(fname, msg, member=None, cls=CheckpointError):
    where = f"{fname}" if member is None else f"{fname}, member {member!r}"
    return cls(f"flow.load: {where}: {msg}")


def type_name(obj):
    """The name of obj's type as messages give it: ``int``, ``numpy.ndarray``."""
    t = type(obj)
    return t.__qualname__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__qualname__}"
