"""Utilities: ``monoflow.utils.data`` (datasets, samplers, DataLoader)."""
from monoflow.utils import data  # noqa: F401
from monoflow.utils import checkpoint  # noqa: F401,E402
from monoflow.utils import hooks  # noqa: F401,E402
from monoflow.utils import benchmark  # noqa: F401,E402
from monoflow.utils import tensor  # noqa: F401,E402  (OneFlow's from_torch / to_torch)
from monoflow.utils import global_view  # noqa: F401,E402  (OneFlow's to_global / to_local / global_mode)
from monoflow.utils import vision  # noqa: F401,E402  (OneFlow's transforms and MNIST data sets)
