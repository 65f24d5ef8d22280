"""Transitional shim: ``monoflow.devices`` is the package ``devices/``.

Editable installs made before the move map the name ``monoflow.devices`` to
this file (scikit-build-core records every module's path at install time), so
this file runs the package's ``__init__`` and gives the module the package's
``__path__``: ``monoflow.devices.conformance`` imports either way. Any other
install never reads it (a package directory wins over a module of the same
name). Delete it once every editable install has been redone
(``pip install -e .``).
"""
import os as _os

__path__ = [_os.path.join(_os.path.dirname(_os.path.abspath(__file__)), "devices")]
with open(_os.path.join(__path__[0], "__init__.py")) as _f:
    exec(compile(_f.read(), _f.name, "exec"))
