"""Comparisons and logical ops: eq/ne/lt/..., isclose, allclose, isnan, where, sorting and top-k."""
from monoflow._docs import add_doc, add_inplace_docs  # noqa: F401
