"""torch.utils.data._utils: the private path older scripts import the collate functions from
(``from torch.utils.data._utils.collate import default_collate``); the code is in utils.data.collate."""
from monoflow.utils.data._utils import collate  # noqa: F401
