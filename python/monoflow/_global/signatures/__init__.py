"""SBP signatures: for each op, the ways its inputs may be laid out on one
hierarchy axis and the layout of its outputs that follows.

A rule gets an `Op` (the op's name, its arguments and the logical shapes of
its global tensor operands, in the order dispatch finds them) and returns
the valid 1-D signatures and the logical output shapes, and optionally a
`localize` hook that rewrites the call for this rank's shards (ops whose
arguments are sizes: reshape, expand...). On an n-D hierarchy each axis
picks one of the signatures (dispatch.py). A rule lists signatures from most
to least preferred; the cheapest by the cost model wins and the order breaks
ties.

A wrong signature is a silent wrong answer, so each one below is justified
by what the local op computes on the shards:
- S(d) -> S(d') holds when output piece i depends only on input piece i:
  the op must not look across dimension d (a reduction, softmax, norm, scan,
  flip or sort over d does), and must not depend on the absolute position
  along d (tril over d does).
- P -> P holds only for maps that are linear in that operand (sums, scaling
  by a broadcast factor, views, index selection); never for anything with a
  constant term (x + 2), a nonlinearity, or a truncating cast.
- Random ops never take B: every rank would draw a different sample of what
  must be one value.
"""
# Importing the rule modules registers their rules in RULES.
from monoflow._global.signatures import elementwise, indexing, matmul, nn, reductions, shape  # noqa: F401
from monoflow._global.signatures.base import RULES, Op, Signature, rule  # noqa: F401
from monoflow._global.signatures.elementwise import is_inplace  # noqa: F401
