"""Submodule imports through a bare name alias of monoflow.

A program (or the harness running it) that points ``torch`` at monoflow
with nothing but ``sys.modules["torch"] = monoflow`` then writes
``import torch.nn as nn``. Python looks ``nn`` up on monoflow's ``__path__``
and runs monoflow/nn/__init__.py a second time as a new module named
``torch.nn``: a second ``nn.Module`` class (isinstance fails against
monoflow's), a second op registry view, and module-level code that assumes
it runs once fails outright. The finder below, first on ``sys.meta_path``,
answers ``<alias>.<sub>`` with the module ``monoflow.<sub>`` itself whenever
``sys.modules[<alias>]`` is the monoflow package. Without an alias it
declines at once (one dict lookup per dotted import). ``mock_torch`` is the
documented way to get the same; this keeps the bare alias from breaking.
"""
import importlib
import importlib.abc
import importlib.machinery
import sys


class AliasFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def __init__(self):
        self._specs = {}  # id(module) -> its own spec, put back after the import system stamps the alias's

    def find_spec(self, fullname, path=None, target=None):
        top, dot, _ = fullname.partition(".")
        if not dot or top == "monoflow" or sys.modules.get(top) is not sys.modules.get("monoflow"):
            return None
        return importlib.machinery.ModuleSpec(fullname, self)

    def create_module(self, spec):
        module = importlib.import_module("monoflow." + spec.name.partition(".")[2])
        self._specs[id(module)] = module.__dict__.get("__spec__")
        return module

    def exec_module(self, module):
        if id(module) in self._specs:
            module.__spec__ = self._specs.pop(id(module))


def install():
    if not any(isinstance(f, AliasFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, AliasFinder())
