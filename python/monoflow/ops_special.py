"""Special functions under torch's top-level and Tensor names (``torch.lgamma``,
``x.erfinv()``, ``x.digamma_()``): monoflow.special's implementations, which
carry their gradients."""
import importlib


def _special():
    # Imported on first use: monoflow.special builds on autograd.Function, which
    # the Tensor class (that mixes these methods in) must not wait for.
    return importlib.import_module("monoflow.special")

__all__ = ["digamma", "erfinv", "i0", "lgamma", "mvlgamma", "polygamma"]


def erfinv(input):
    """The inverse error function, as ``monoflow.special.erfinv``."""
    return _special().erfinv(input)


def lgamma(input):
    """``log |Gamma(input)|``, as ``monoflow.special.gammaln``."""
    return _special().gammaln(input)


def digamma(input):
    """The logarithmic derivative of Gamma, as ``monoflow.special.digamma``."""
    return _special().digamma(input)


def polygamma(n, input):
    """The `n`-th derivative of digamma, as ``monoflow.special.polygamma``."""
    return _special().polygamma(n, input)


def i0(input):
    """The modified Bessel function of the first kind, order 0, as ``monoflow.special.i0``."""
    return _special().i0(input)


def mvlgamma(input, p):
    """The multivariate log-gamma of dimension `p`, as ``monoflow.special.multigammaln``."""
    return _special().multigammaln(input, p)


_TORCH_TYPE_NAMES = {"bool": "Bool", "uint8": "Byte", "int8": "Char", "int16": "Short", "int32": "Int",
                     "int64": "Long"}


def _in_place(self, op, result):
    # The result is floating: an integer tensor cannot hold it in place, as in torch.
    if not self.dtype.is_floating_point:
        raise RuntimeError(f"{op}(): result type Float can't be cast to the desired output type "
                           f"{_TORCH_TYPE_NAMES[self.dtype.name]}")
    return self.copy_(result)


class TensorMethods:
    """Mixed into monoflow.Tensor."""

    def erfinv(self):
        return erfinv(self)

    def lgamma(self):
        return lgamma(self)

    def digamma(self):
        return digamma(self)

    def polygamma(self, n):
        return polygamma(n, self)

    def i0(self):
        return i0(self)

    def mvlgamma(self, p):
        return mvlgamma(self, p)

    def erfinv_(self):
        return _in_place(self, "erfinv_", erfinv(self))

    def lgamma_(self):
        return _in_place(self, "lgamma_", lgamma(self))

    def digamma_(self):
        return _in_place(self, "digamma_", digamma(self))

    def polygamma_(self, n):
        return _in_place(self, "polygamma_", polygamma(n, self))

    def i0_(self):
        return _in_place(self, "i0_", i0(self))

    def mvlgamma_(self, p):
        return _in_place(self, "mvlgamma_", mvlgamma(self, p))
