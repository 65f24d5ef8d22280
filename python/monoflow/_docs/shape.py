"""Shapes and layout: view, reshape, permute, transpose, squeeze, cat, stack, split, flip, roll, expand."""
from monoflow._docs import add_doc, add_inplace_docs  # noqa: F401
