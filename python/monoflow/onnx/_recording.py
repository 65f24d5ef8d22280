"""Recording mode: while an export runs, the public monoflow functions,
nn.functional, the Tensor methods and ``nn.Module.__call__`` are replaced by
wrappers that run the real op and write its ONNX nodes; the originals are put
back when the export ends, so the ordinary op path never pays for it."""

import functools
import inspect
import types

from ._converters import FUNCTIONS, _module_converters
from ._errors import OnnxExporterError

# the operator methods recorded like the public ones (other _-prefixed methods are internal)
_DUNDERS = ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__",
            "__rtruediv__", "__matmul__", "__rmatmul__", "__neg__", "__getitem__", "__pow__", "__rpow__",
            "__floordiv__", "__mod__", "__iadd__", "__isub__", "__imul__", "__itruediv__", "__eq__", "__ne__",
            "__lt__", "__le__", "__gt__", "__ge__", "__and__", "__or__", "__xor__", "__invert__")


_PROPERTIES = ("T", "mT")


class Recorder:
    def __init__(self, builder):
        self.b = builder
        self.depth = 0            # > 0 inside a recorded op: its inner calls are not recorded
        self.module_stack = []
        self._saved = []          # (owner, name, had_own_attr, original)

    # ---- what a wrapper does
    def _traced_inputs(self, args, kwargs):
        found = []

        def visit(v):
            if isinstance(v, (list, tuple)):
                for x in v:
                    visit(x)
            elif self.b.is_traced(v):
                found.append(v)
        visit(args)
        visit(tuple(kwargs.values()))
        return found

    def _where(self):
        return f" (in module {self.module_stack[-1]})" if self.module_stack else ""

    def call(self, name, orig, args, kwargs):
        if self.depth:
            return orig(*args, **kwargs)
        self.depth += 1
        try:
            out = orig(*args, **kwargs)
        finally:
            self.depth -= 1
        if not self._traced_inputs(args, kwargs):
            return out  # a constant computation: its result becomes an initializer if used
        if not _is_tensor(out):
            return out  # metadata (size(), dim(), shape): read, not recorded
        conv = FUNCTIONS.get(name)
        if conv is None:
            raise OnnxExporterError(f"monoflow.onnx.export(): op '{name}' is not supported by the ONNX "
                                    f"exporter{self._where()}")
        self._bind(out, self._convert(conv, out, *args, **kwargs))
        return out

    def _bind(self, out, names):
        # a converter of a multi-result op names each result, nested as the results are
        # (an LSTM's (output, (h, c))); a None result (attention weights not asked for) has none
        if isinstance(out, (tuple, list)):
            for t, n in zip(out, names):
                self._bind(t, n)
        elif out is not None:
            self.b.bind(out, names)

    def _convert(self, conv, *args, **kwargs):
        self.depth += 1  # the converter's own tensor reads (dim(), shape) are not ops of the model
        try:
            return conv(self.b, *args, **kwargs)
        finally:
            self.depth -= 1

    def call_module(self, mod, orig_call, args, kwargs):
        conv = self.modules.get(type(mod))
        if self.depth or conv is None:
            self.module_stack.append(type(mod).__name__)
            try:
                return orig_call(mod, *args, **kwargs)
            finally:
                self.module_stack.pop()
        self.depth += 1
        try:
            out = orig_call(mod, *args, **kwargs)
        finally:
            self.depth -= 1
        if not self._traced_inputs(args, kwargs):
            return out
        try:  # most converters take the layer's input only (Linear, Conv, ...)
            inspect.signature(conv).bind(self.b, out, mod, *args, **kwargs)
        except TypeError as e:
            raise OnnxExporterError(f"monoflow.onnx.export(): module {type(mod).__name__} called with these "
                                    f"arguments is not supported by the ONNX exporter ({e})") from e
        self._bind(out, self._convert(conv, out, mod, *args, **kwargs))
        return out

    # ---- installing and removing the wrappers
    def _patch(self, owner, name, make):
        own = name in vars(owner)
        orig = getattr(owner, name)
        self._saved.append((owner, name, own, vars(owner).get(name)))
        setattr(owner, name, make(orig))

    def install(self):
        import sys

        from .. import nn
        flow = sys.modules[__name__.split(".")[0]]  # the package namespace user code reads
        self.modules = _module_converters()
        rec = self

        def fn_wrapper(name):
            def make(orig):
                def wrapped(*args, **kwargs):
                    return rec.call(name, orig, args, kwargs)
                functools.update_wrapper(wrapped, orig)
                # errors that name the running function by its code name name the op
                wrapped.__code__ = wrapped.__code__.replace(co_name=name)
                return wrapped
            return make

        def method_wrapper(name):
            def make(orig):
                def wrapped(self, *args, **kwargs):
                    return rec.call(name, orig, (self,) + args, kwargs)
                functools.update_wrapper(wrapped, orig)
                # errors that name the running function by its code name name the op
                wrapped.__code__ = wrapped.__code__.replace(co_name=name)
                return wrapped
            return make

        # every monoflow module's public functions, not only flow.* and F.*: layers
        # call their functional submodules (nn.functional.conv) directly, and an op
        # that ran unseen would be folded into a wrong constant instead of refused
        top = flow.__name__
        spaces = [mod for mname, mod in list(sys.modules.items())
                  if isinstance(mod, types.ModuleType) and (mname == top or mname.startswith(top + "."))
                  and not mname.startswith(__name__.rsplit(".", 1)[0])]
        for ns in spaces:
            for name, v in list(vars(ns).items()):
                if not name.startswith("_") and _is_function(v):
                    self._patch(ns, name, fn_wrapper(name))
        Tensor = flow.Tensor
        for name in dir(Tensor):
            if name.startswith("_") and name not in _DUNDERS:
                continue
            static = inspect.getattr_static(Tensor, name)
            if isinstance(static, (property, types.GetSetDescriptorType, types.MemberDescriptorType,
                                   classmethod, staticmethod)) or not callable(static):
                continue
            self._patch(Tensor, name, method_wrapper(name))

        for name in _PROPERTIES:  # x.T, x.mT: tensor-valued properties
            prop = inspect.getattr_static(Tensor, name)

            def make(orig, name=name, prop=prop):
                return property(lambda self: rec.call(name, prop.__get__, (self,), {}))
            self._patch(Tensor, name, make)

        def module_wrapper(orig):
            def wrapped(mod, *args, **kwargs):
                return rec.call_module(mod, orig, args, kwargs)
            return wrapped
        self._patch(nn.Module, "__call__", module_wrapper)

    def uninstall(self):
        for owner, name, own, orig in reversed(self._saved):
            if own:
                setattr(owner, name, orig)
            else:
                delattr(owner, name)
        self._saved.clear()


def _is_function(v):
    return isinstance(v, (types.FunctionType, types.BuiltinFunctionType)) or \
        type(v).__name__ in ("cython_function_or_method", "cyfunction")


def _is_tensor(v):
    # a tuple of tensors (split, chunk, max with dim) is a tensor result too: left
    # unrecorded, its items would be folded into constants
    from .._tensor import Tensor
    if isinstance(v, (tuple, list)):
        return any(_is_tensor(x) for x in v)
    return isinstance(v, Tensor)
