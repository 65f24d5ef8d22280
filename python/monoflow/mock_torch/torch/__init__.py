"""The ``torch`` package that ``eval $(python -m monoflow.mock_torch)`` puts first on PYTHONPATH:
importing it enables monoflow.mock_torch, and the import of ``torch`` that ran this file ends with
monoflow (the import system returns what ``sys.modules['torch']`` holds when this file is done)."""
import importlib as _importlib
import os as _os
import sys as _sys

import monoflow.mock_torch as _mock


def _flag(name):
    return _os.environ.get(name, "0") not in ("0", "", "False", "false")


if __name__ == "torch":  # imported as monoflow.mock_torch.torch (a package walk) it does nothing
    del _sys.modules[__name__]  # this stand-in goes; the mock's finder answers 'torch' from now on
    _mock.enable(lazy=_flag("MONOFLOW_MOCK_TORCH_LAZY"), verbose=_flag("MONOFLOW_MOCK_TORCH_VERBOSE"), _globals={})
    _importlib.import_module(__name__)
