"""torch.utils.model_zoo: ``model_zoo.load_url(url)`` of older model definitions, which is hub's
load_state_dict_from_url (and hub's tqdm, which torch re-exports here)."""
from monoflow.hub import load_state_dict_from_url as load_url  # noqa: F401
from monoflow.hub import tqdm  # noqa: F401

__all__ = ["load_url", "tqdm"]
