"""monoflow.hub: torch.hub's checkpoint cache (load_state_dict_from_url, download_url_to_file, get_dir/set_dir),
local hubconf entry points (``load(dir, name, source='local')``, ``list``, ``help``) and its ``tqdm``.

The cache directory is torch's (``$TORCH_HOME/hub``, else
``$XDG_CACHE_HOME/torch/hub``, else ``~/.cache/torch/hub``), so checkpoints
torch already downloaded are reused; monoflow.load reads torch's format.
GitHub repositories are not fetched: download the repository and load it
with ``source='local'``."""
import hashlib
import importlib.util
import os
import shutil
import sys
import tempfile
import urllib.parse
import urllib.request

from monoflow import serialization

try:
    from tqdm import tqdm  # noqa: F401  (torch.hub re-exports it: `from torch.hub import tqdm`)
except ImportError:  # pragma: no cover - tqdm is optional, as in torch
    class tqdm:  # noqa: N801
        """A silent stand-in for tqdm's progress bar (iteration, update, set_postfix, close)."""

        def __init__(self, iterable=None, total=None, disable=False, **kwargs):
            self.iterable, self.total, self.n = iterable, total, 0

        def __iter__(self):
            return iter(self.iterable)

        def __len__(self):
            return len(self.iterable)

        def update(self, n=1):
            self.n += n

        def set_postfix(self, *args, **kwargs):
            pass

        def set_description(self, *args, **kwargs):
            pass

        def close(self):
            pass

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.close()

__all__ = ["download_url_to_file", "get_dir", "help", "list", "load", "load_state_dict_from_url", "set_dir", "tqdm"]

_hub_dir = None


def get_dir():
    """The cache directory: the one set_dir chose, else torch's default (``$TORCH_HOME/hub`` ...)."""
    if _hub_dir is not None:
        return _hub_dir
    return os.path.join(_get_torch_home(), "hub")


def _get_torch_home():
    # torch's private helper, which torchvision imports for its dataset root
    return os.path.expanduser(os.getenv("TORCH_HOME", os.path.join(os.getenv("XDG_CACHE_HOME", "~/.cache"), "torch")))


def set_dir(d):
    global _hub_dir
    _hub_dir = os.path.expanduser(os.fspath(d))


def download_url_to_file(url, dst, hash_prefix=None, progress=True):
    """Downloads ``url`` to ``dst`` (through a temporary file in the same directory, so a failed download leaves no
    partial ``dst``); ``hash_prefix`` is checked against the start of the file's SHA-256."""
    dst = os.path.expanduser(dst)
    folder = os.path.dirname(os.path.abspath(dst))
    os.makedirs(folder, exist_ok=True)
    sha = hashlib.sha256()
    fd, tmp = tempfile.mkstemp(dir=folder, suffix=".partial")
    try:
        with os.fdopen(fd, "wb") as out, urllib.request.urlopen(urllib.request.Request(url, headers={"User-Agent": "monoflow.hub"})) as src:
            size = src.info().get("Content-Length")
            with tqdm(total=int(size) if size else None, disable=not progress, unit="B", unit_scale=True) as bar:
                while True:
                    chunk = src.read(1 << 16)
                    if not chunk:
                        break
                    out.write(chunk)
                    sha.update(chunk)
                    bar.update(len(chunk))
        if hash_prefix is not None and not sha.hexdigest().startswith(hash_prefix):
            raise RuntimeError(f'invalid hash value (expected "{hash_prefix}", got "{sha.hexdigest()}")')
        shutil.move(tmp, dst)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def load_state_dict_from_url(url, model_dir=None, map_location=None, progress=True, check_hash=False, file_name=None,
                             weights_only=False):
    """Loads the object saved at ``url``, downloading it into the cache (``get_dir()/checkpoints``) the first time.

    With ``check_hash``, the file name's ``-<sha256 prefix>`` part (torchvision's ``resnet18-f37072fd.pth``) must
    match the download."""
    model_dir = model_dir or os.path.join(get_dir(), "checkpoints")
    os.makedirs(model_dir, exist_ok=True)
    filename = file_name or os.path.basename(urllib.parse.urlparse(url).path)
    cached = os.path.join(model_dir, filename)
    if not os.path.exists(cached):
        sys.stderr.write(f'Downloading: "{url}" to {cached}\n')
        prefix = None
        if check_hash:
            stem = filename.split(".")[0]
            prefix = stem.rsplit("-", 1)[-1] if "-" in stem else None
        download_url_to_file(url, cached, prefix, progress=progress)
    return serialization.load(cached, map_location=map_location, weights_only=weights_only)


def _hubconf(repo_or_dir, source, what):
    if source not in ("github", "local"):
        raise ValueError(f'Unknown source: "{source}". Allowed values: "github" | "local".')
    if source == "github":
        raise NotImplementedError(f"hub.{what}(): monoflow does not fetch GitHub repositories; clone "
                                  f"'{repo_or_dir}' and call hub.{what}(path, ..., source='local')")
    path = os.path.join(repo_or_dir, "hubconf.py")
    if not os.path.isfile(path):
        raise FileNotFoundError(f"hub.{what}(): no hubconf.py in '{repo_or_dir}'")
    spec = importlib.util.spec_from_file_location("hubconf", path)
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, repo_or_dir)
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(repo_or_dir)
    return module


def _entry(module, model):
    fn = getattr(module, model, None)
    if fn is None or not callable(fn):
        raise RuntimeError(f"Cannot find callable {model} in hubconf")
    return fn


def list(repo_or_dir, force_reload=False, skip_validation=False, trust_repo=None, verbose=True, source="github"):  # noqa: A001
    """The entry points (public callables) of the repository's hubconf.py."""
    module = _hubconf(repo_or_dir, source, "list")
    return [name for name in dir(module) if callable(getattr(module, name)) and not name.startswith("_")]


def help(repo_or_dir, model, force_reload=False, skip_validation=False, trust_repo=None, source="github"):  # noqa: A001
    return _entry(_hubconf(repo_or_dir, source, "help"), model).__doc__


def load(repo_or_dir, model, *args, source="github", trust_repo=None, force_reload=False, verbose=True,
         skip_validation=False, **kwargs):
    """Calls the entry point ``model`` of the repository's hubconf.py with ``*args, **kwargs``."""
    return _entry(_hubconf(repo_or_dir, source, "load"), model)(*args, **kwargs)
