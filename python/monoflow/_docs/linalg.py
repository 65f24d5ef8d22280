"""Matrix products and decompositions: matmul, mm, bmm, addmm, einsum, and the Tensor side of monoflow.linalg."""
from monoflow._docs import add_doc, add_inplace_docs  # noqa: F401
