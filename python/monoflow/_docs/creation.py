"""Tensor creation: tensor, zeros, ones, full, empty, arange, linspace, eye, the *_like functions."""
from monoflow._docs import add_doc, add_inplace_docs  # noqa: F401
