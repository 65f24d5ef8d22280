"""Special functions under torch's top-level and Tensor names (``torch.lgamma``,
``x.erfinv()``, ``x.digamma_()``): monoflow.special's implementations, which
carry their gradients."""
import importlib

from monoflow import _C, _dtypes


def _special():
    # Imported on first use: monoflow.special builds on autograd.Function, which
    # the Tensor class (that mixes these methods in) must not wait for.
    return importlib.import_module("monoflow.special")

__all__ = ["digamma", "erfinv", "i0", "lgamma", "mvlgamma", "polygamma"]


def erfinv(input):
    """The inverse error function: ``erf(erfinv(input)) == input`` on (-1, 1).

    Args:
        input (Tensor): values in [-1, 1] (±1 give ±inf).

    Returns:
        Tensor: floating, with its gradient (``monoflow.special.erfinv``).

    Example::

        >>> import monoflow as flow
        >>> flow.erfinv(flow.tensor([0.0, 0.5]))
        tensor([0.0000, 0.4769])
    """
    return _special().erfinv(input)


def lgamma(input):
    """``log |Gamma(input)|``, as ``monoflow.special.gammaln``.

    Args:
        input (Tensor): the points.

    Returns:
        Tensor: floating, with its gradient (digamma).

    Example::

        >>> import monoflow as flow
        >>> flow.lgamma(flow.tensor([0.5, 5.0]))
        tensor([0.5724, 3.1781])
    """
    if _C.check_tensor(input, "lgamma", "input", 1).dtype.is_complex:  # (gammaln's refusal names gammaln)
        raise NotImplementedError(f"lgamma(): not implemented for complex tensors (got {input.dtype})")
    return _special().gammaln(input)


def digamma(input):
    """The logarithmic derivative of Gamma, as ``monoflow.special.digamma``.

    Args:
        input (Tensor): the points.

    Returns:
        Tensor: floating, with its gradient (polygamma(1, input)).

    Example::

        >>> import monoflow as flow
        >>> flow.digamma(flow.tensor([1.0]))
        tensor([-0.5772])
    """
    return _special().digamma(input)


def polygamma(n, input):
    """The `n`-th derivative of digamma, as ``monoflow.special.polygamma``.

    Args:
        n (int): the order, n >= 0 (0 is digamma).
        input (Tensor): the points.

    Returns:
        Tensor: floating, with its gradient.

    Example::

        >>> import monoflow as flow
        >>> flow.polygamma(1, flow.tensor([1.0]))
        tensor([1.6449])
    """
    return _special().polygamma(n, input)


def i0(input):
    """The modified Bessel function of the first kind, order 0, as ``monoflow.special.i0``.

    Args:
        input (Tensor): the points.

    Returns:
        Tensor: floating, with its gradient (i1).

    Example::

        >>> import monoflow as flow
        >>> flow.i0(flow.tensor([0.0, 1.0]))
        tensor([1.0000, 1.2661])
    """
    return _special().i0(input)


def mvlgamma(input, p):
    """The multivariate log-gamma of dimension `p`, as ``monoflow.special.multigammaln``.

    Args:
        input (Tensor): the points, all > (p - 1) / 2.
        p (int): the dimension.

    Returns:
        Tensor: floating, with its gradient.

    Example::

        >>> import monoflow as flow
        >>> flow.mvlgamma(flow.tensor([2.5]), 2)
        tensor([0.8570])
    """
    _C.check_tensor(input, "mvlgamma", "input", 1)
    return _special().multigammaln(input, p)




def _in_place(self, op, result):
    # The result is floating: an integer tensor cannot hold it in place, as in torch.
    if not self.dtype.is_floating_point:
        raise RuntimeError(f"{op}(): result type Float can't be cast to the desired output type "
                           f"{_dtypes.torch_name(self.dtype)}")
    return self.copy_(result)


class TensorMethods:
    """Mixed into monoflow.Tensor."""

    def erfinv(self):
        """Tensor.erfinv() -> Tensor: ``monoflow.erfinv`` of this tensor.

        Example::

            >>> import monoflow as flow
            >>> flow.tensor([0.5]).erfinv()
            tensor([0.4769])
        """
        return erfinv(self)

    def lgamma(self):
        """Tensor.lgamma() -> Tensor: ``monoflow.lgamma`` of this tensor.

        Example::

            >>> import monoflow as flow
            >>> flow.tensor([5.0]).lgamma()
            tensor([3.1781])
        """
        return lgamma(self)

    def digamma(self):
        """Tensor.digamma() -> Tensor: ``monoflow.digamma`` of this tensor.

        Example::

            >>> import monoflow as flow
            >>> flow.tensor([1.0]).digamma()
            tensor([-0.5772])
        """
        return digamma(self)

    def polygamma(self, n):
        """Tensor.polygamma(n) -> Tensor: ``monoflow.polygamma`` of this tensor.

        Args:
            n (int): the order.

        Example::

            >>> import monoflow as flow
            >>> flow.tensor([1.0]).polygamma(1)
            tensor([1.6449])
        """
        return polygamma(n, self)

    def i0(self):
        """Tensor.i0() -> Tensor: ``monoflow.i0`` of this tensor.

        Example::

            >>> import monoflow as flow
            >>> flow.tensor([1.0]).i0()
            tensor([1.2661])
        """
        return i0(self)

    def mvlgamma(self, p):
        """Tensor.mvlgamma(p) -> Tensor: ``monoflow.mvlgamma`` of this tensor.

        Args:
            p (int): the dimension.

        Example::

            >>> import monoflow as flow
            >>> flow.tensor([2.5]).mvlgamma(2)
            tensor([0.8570])
        """
        return mvlgamma(self, p)

    def erfinv_(self):
        """In-place version of ``Tensor.erfinv`` (floating tensors only)."""
        return _in_place(self, "erfinv_", erfinv(self))

    def lgamma_(self):
        """In-place version of ``Tensor.lgamma`` (floating tensors only)."""
        return _in_place(self, "lgamma_", lgamma(self))

    def digamma_(self):
        """In-place version of ``Tensor.digamma`` (floating tensors only)."""
        return _in_place(self, "digamma_", digamma(self))

    def polygamma_(self, n):
        """In-place version of ``Tensor.polygamma`` (floating tensors only)."""
        return _in_place(self, "polygamma_", polygamma(n, self))

    def i0_(self):
        """In-place version of ``Tensor.i0`` (floating tensors only)."""
        return _in_place(self, "i0_", i0(self))

    def mvlgamma_(self, p):
        """In-place version of ``Tensor.mvlgamma`` (floating tensors only)."""
        return _in_place(self, "mvlgamma_", mvlgamma(self, p))
