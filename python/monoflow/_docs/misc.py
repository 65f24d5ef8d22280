"""Top-level utilities: dtypes and devices, grad modes, save/load, default dtype/device, type promotion."""
from monoflow._docs import add_doc, add_inplace_docs  # noqa: F401
