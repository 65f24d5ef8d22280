"""Checkpoints: ``flow.save`` and ``flow.load``.

``flow.save`` writes monoflow's own format (native.py; the file format is
docs/checkpoint_format.md): a zip archive of JSON and raw tensor bytes that
loading never executes. Objects that are not data (a whole ``nn.Module``)
take the explicit pickle path (pickled.py, Note [The pickle path]), which a
load only runs with ``weights_only=False`` or an allow-list.

``flow.load`` detects the format from the file's content and reads:
  * monoflow checkpoints (native.py);
  * PyTorch checkpoints, zip and legacy (torch_format.py): their tensors,
    containers and plain values, without executing their pickle;
  * safetensors files (safetensors.py; also save_file/load_file there).

Every failure a file causes is one error type, CheckpointError (both a
ValueError and a RuntimeError), whose message names the file and the member.
"""
import functools
import io

from monoflow import _C

from . import native, pickled, safetensors, torch_format
from ._archive import Archive, Source, file_name, in_directory, sniff
from ._errors import CheckpointError, WeightsOnlyError, file_error
from ._placement import UserError, check_map_location
from .native import FORMAT_NAME, FORMAT_VERSION, save
from .pickled import add_safe_globals, clear_safe_globals, get_safe_globals, safe_globals

__all__ = ["save", "load", "CheckpointError", "WeightsOnlyError", "FORMAT_NAME", "FORMAT_VERSION",
           "add_safe_globals", "clear_safe_globals", "get_safe_globals", "safe_globals"]


def load(f, map_location=None, pickle_module=None, *, weights_only=True, mmap=None, global_src_rank=None,
         support_pytorch_format=True, **pickle_load_args):
    """Loads a checkpoint: what :func:`monoflow.save` wrote, a PyTorch
    ``.pt``/``.pth`` file or a safetensors file (the format is detected from
    the content).

    ``weights_only`` (``True`` by default, as in torch since 2.6): pickled
    objects are rebuilt only from allow-listed globals
    (``flow.serialization.add_safe_globals`` / ``safe_globals``); anything
    else raises ``WeightsOnlyError`` saying how to opt in.
    ``weights_only=False`` unpickles fully, which runs code from the file:
    only for trusted files. Data (tensors, numpy values, containers) never
    needs it. PyTorch files are always read without running their pickle
    (allow-listed globals are rebuilt, nothing else), whatever
    ``weights_only`` says.

    Global tensors load as local tensors holding their logical value. With
    ``global_src_rank`` (OneFlow's), only that rank reads ``f`` and shares its
    bytes, and every tensor loads as a global tensor: in its saved placement
    and SBP where this job has those ranks, broadcast over all ranks
    otherwise. Every rank must call it then.

    Args:
        f (str or os.PathLike or file object): a path, or a readable binary
            file object; a directory that ``flow.save`` wrote into (OneFlow's
            form) is read from the checkpoint file inside it.
        map_location (optional): where tensors go, as in torch. ``None``
            (default): the device each tensor was saved on (an error if that
            device type is not registered in this process); a str or
            ``monoflow.device``: every tensor goes there; a dict mapping saved
            device strings (``"cuda:0"``, or a bare type ``"cuda"``) to target
            devices (unmapped devices stay as saved); a callable
            ``fn(tensor, saved_device_str)``, called once per stored blob with
            a CPU tensor holding it, that returns the tensor to use (or
            ``None`` for the default placement).
        pickle_module (module, optional): accepted for torch compatibility and
            ignored.
        weights_only (bool): rebuild only allow-listed pickled objects.
            Default: ``True``.
        mmap (bool, optional): accepted for torch compatibility and ignored.
        global_src_rank (int, optional): the rank that reads the file and
            shares it; makes every tensor global. Default: ``None``.
        support_pytorch_format (bool): OneFlow's switch: ``False`` refuses a
            PyTorch checkpoint (``NotImplementedError``). Default: ``True``.
        pickle_load_args: further keyword arguments, accepted for torch
            compatibility and ignored.

    Raises:
        CheckpointError: if the file is invalid, corrupt or hostile (the
            message names the file).

    Example::

        >>> import io
        >>> buf = io.BytesIO()
        >>> flow.save(nn.Linear(2, 1).state_dict(), buf)
        >>> _ = buf.seek(0)
        >>> sd = flow.load(buf, map_location="cpu")
        >>> sorted(sd), sd["weight"].shape
        (['bias', 'weight'], monoflow.Size([1, 2]))
    """
    del pickle_module, mmap, pickle_load_args
    check_map_location(map_location)
    weights_only = True if weights_only is None else bool(weights_only)
    as_global = global_src_rank is not None
    f = in_directory(f, reading=True)
    fname = file_name(f)
    if as_global:
        f = io.BytesIO(native.read_on_rank(f, _C.check_int(global_src_rank, "load", "global_src_rank")))
    source = Source(f, fname)
    try:
        with source as fp:
            return _load_from(fp, fname, source.size, map_location, weights_only, as_global,
                              bool(support_pytorch_format))
    except UserError as exc:  # the caller's map_location callable failed: its own error
        raise exc.__cause__ from None


def _refuse_torch(fname):
    raise NotImplementedError(f"load: No valid load method found for {fname}: it is a PyTorch checkpoint and "
                              f"support_pytorch_format=False")


def _load_from(fp, fname, size, map_location, weights_only, as_global, support_pytorch_format):
    head = sniff(fp)
    if torch_format.is_legacy(head):
        if not support_pytorch_format:
            _refuse_torch(fname)
        return torch_format.load_legacy(fp, functools.partial(file_error, fname), map_location)
    if safetensors.looks_like(head, size):
        return safetensors.read(fp, fname, size, map_location)
    archive = Archive(fp, fname, size)
    try:
        if archive.info(native.FORMAT_MEMBER) is None and torch_format.zip_prefix(archive) is not None:
            if not support_pytorch_format:
                _refuse_torch(fname)
            return torch_format.load_zip(archive, map_location)
        return native.load_archive(archive, map_location, weights_only, as_global)
    finally:
        archive.close()
