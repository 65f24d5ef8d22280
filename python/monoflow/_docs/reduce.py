"""Reductions: sum, mean, prod, min/max, arg-reductions, norms, cumulative ops, statistics."""
from monoflow._docs import add_doc, add_inplace_docs  # noqa: F401
