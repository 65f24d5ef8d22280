"""Indexing: gather, scatter, index_select, masked ops, take, nonzero, narrow, select."""
from monoflow._docs import add_doc, add_inplace_docs  # noqa: F401
