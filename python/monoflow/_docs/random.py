"""Random sampling: manual_seed, rand, randn, randint, randperm, bernoulli, multinomial, normal, in-place samplers."""
from monoflow._docs import add_doc, add_inplace_docs  # noqa: F401
