"""Placeholders for PyTorch names monoflow does not implement yet.

A script that calls one of these gets ``NotImplementedError`` naming the
feature instead of an ``AttributeError`` that reads like a typo.  The price is
that ``hasattr`` answers True for them, so the lists hold only names scripts
*call* (``torch.stft(x, ...)``), never names they probe to choose a code path
(``hasattr(torch, "compile")``, ``hasattr(t, "untyped_storage")``): keep them
explicit and short.

A module placeholder is served by the module's ``__getattr__`` (PEP 562), which
Python consults only for names the module does not define, so a real
implementation added later simply wins.  ``hasattr`` swallows only
``AttributeError``; that is why the placeholder is returned as an object whose
*call* raises, rather than raised on access.  tools/compat_map.py counts these
objects as missing.
"""

MODULE_PLACEHOLDERS = {
    "monoflow": (
        "sparse_csr_tensor",
        "lobpcg", "histogramdd",
        "quantize_per_tensor", "quantize_per_channel",
    ),
    "monoflow.nn": (),
    "monoflow.nn.functional": (),
}

TENSOR_PLACEHOLDERS = ()


class NotImplementedFeature:
    """Stands for a name monoflow knows but does not implement; calling it raises."""

    __monoflow_not_implemented__ = True
    __slots__ = ("feature",)

    def __init__(self, feature):
        self.feature = feature

    def __call__(self, *args, **kwargs):
        raise NotImplementedError(
            f"{self.feature} is not implemented in monoflow yet "
            f"(PyTorch has it; monoflow only reserves the name)")

    def __repr__(self):
        return f"<not implemented in monoflow: {self.feature}>"


def module_getattr(module_name):
    """A PEP 562 ``__getattr__`` for `module_name` serving its placeholders."""
    placeholders = {name: NotImplementedFeature(f"{module_name}.{name}")
                    for name in MODULE_PLACEHOLDERS[module_name]}

    def __getattr__(name):
        try:
            return placeholders[name]
        except KeyError:
            raise AttributeError(f"module '{module_name}' has no attribute '{name}'") from None

    return __getattr__


def install_tensor_placeholders(tensor_class):
    """Give `tensor_class` a placeholder for each listed method it still lacks."""
    for name in TENSOR_PLACEHOLDERS:
        if not hasattr(tensor_class, name):
            setattr(tensor_class, name, NotImplementedFeature(f"monoflow.Tensor.{name}"))
