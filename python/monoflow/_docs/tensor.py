"""Tensor-only methods and attributes: shape, dtype, device, grad, backward, to, numpy, item, in-place helpers."""
from monoflow._docs import add_doc, add_inplace_docs  # noqa: F401
