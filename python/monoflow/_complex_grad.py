"""The autograd ops under the complex tensors (Note [Complex through real views]
in _complex.py): the two reinterpreting views and |z| with torch's gradient at 0.
Separate from _complex.py because monoflow.autograd imports the Tensor class,
which _complex.py is part of."""
from monoflow._complex import _raw_as_complex, _raw_as_real
from monoflow.autograd.function import Function


class ViewAsReal(Function):
    @staticmethod
    def forward(ctx, x):
        return _raw_as_real(x)

    @staticmethod
    def backward(ctx, g):
        return _raw_as_complex(g.contiguous())


class ViewAsComplex(Function):
    @staticmethod
    def forward(ctx, r):
        return _raw_as_complex(r)

    @staticmethod
    def backward(ctx, g):
        return _raw_as_real(g).contiguous()


class PairAbs(Function):
    """|re + i im| over the (..., 2) pairs, with torch's gradient 0 at 0."""

    @staticmethod
    def forward(ctx, r):
        re, im = r[..., 0], r[..., 1]
        out = (re * re + im * im).sqrt()  # (not a sum over the size-2 dim: the reduction is far slower)
        ctx.save_for_backward(r, out)
        return out

    @staticmethod
    def backward(ctx, g):
        r, out = ctx.saved_tensors
        from monoflow import ops_math

        safe = ops_math.where(out == 0, 1.0, out)
        return ops_math.where((out == 0).unsqueeze(-1), 0.0, r * (g / safe).unsqueeze(-1))
