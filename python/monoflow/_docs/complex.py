"""Complex numbers: building complex tensors, their parts, conjugates and angles."""
from monoflow._docs import add_doc

# How monoflow holds complex tensors, said once for the texts below.
_STORAGE = ("A complex tensor (``complex64`` or ``complex128``) stores interleaved (real, imaginary) pairs of "
            "``float32`` or ``float64``.")

add_doc("is_complex", "is_complex(input) -> bool", """
    Tells whether ``input`` has a complex dtype (``complex64`` or ``complex128``).

    Args:
        input (Tensor): the tensor to check.

    Returns:
        bool: ``True`` for a complex dtype, else ``False``.

    Example::

        >>> flow.is_complex(flow.zeros(2, dtype=flow.complex64))
        True
        >>> flow.ones(2).is_complex()
        False
    """)

add_doc("view_as_real", "view_as_real(input) -> Tensor", f"""
    The real view of a complex tensor: a float tensor of shape
    ``input.shape + (2,)`` whose last dimension holds each element's real and
    imaginary parts.

    {_STORAGE} The result shares that memory (a ``complex64`` input gives a
    ``float32`` view, ``complex128`` a ``float64`` one): writing into it changes
    ``input``. Gradients flow through it. Real inputs raise a ``RuntimeError``.

    Args:
        input (Tensor): a complex tensor.

    Returns:
        Tensor: the float view, one dimension more than ``input``.

    Example::

        >>> z = flow.complex(flow.tensor([1., 3.]), flow.tensor([2., -1.]))
        >>> flow.view_as_real(z)
        tensor([[ 1.,  2.],
                [ 3., -1.]])
        >>> flow.view_as_real(z)[0, 0] = 5.
        >>> z
        tensor([5.+2.j, 3.-1.j])
    """)

add_doc("view_as_complex", "view_as_complex(input) -> Tensor", """
    The complex view of a float tensor whose last dimension, of size 2, holds
    (real, imaginary) pairs: the inverse of :func:`monoflow.view_as_real`.

    The result shares ``input``'s memory and has its shape without the last
    dimension; ``float32`` gives ``complex64``, ``float64`` gives
    ``complex128``. Gradients flow through it. A ``RuntimeError`` is raised
    for other dtypes, a last dimension that is not 2 long or not contiguous,
    or strides and offsets that are not even.

    Args:
        input (Tensor): a ``float32`` or ``float64`` tensor of shape ``(*, 2)``.

    Returns:
        Tensor: the complex view, of shape ``(*)``.

    Example::

        >>> flow.view_as_complex(flow.tensor([[1., 2.], [3., -1.]]))
        tensor([1.+2.j, 3.-1.j])
    """)

add_doc("complex", "complex(real, imag) -> Tensor", """
    Builds the complex tensor ``real + i * imag`` from its real and imaginary
    parts.

    ``real`` and ``imag`` must have the same dtype, ``float32`` (giving
    ``complex64``) or ``float64`` (giving ``complex128``); otherwise a
    ``RuntimeError`` is raised (``float16`` a ``TypeError``: monoflow has no
    ``complex32``). Their shapes broadcast. The result is a new tensor, and
    gradients flow to both parts.

    Args:
        real (Tensor): the real parts.
        imag (Tensor): the imaginary parts.

    Returns:
        Tensor: a complex tensor of the broadcast shape.

    Example::

        >>> flow.complex(flow.tensor([1., 3.]), flow.tensor([2., -1.]))
        tensor([1.+2.j, 3.-1.j])
        >>> flow.complex(flow.zeros(2, dtype=flow.float64), flow.ones(1, dtype=flow.float64))
        tensor([0.+1.j, 0.+1.j], dtype=monoflow.complex128)
    """, method=False)

add_doc("polar", "polar(abs, angle) -> Tensor", """
    Builds the complex tensor with absolute values ``abs`` and angles
    ``angle``: ``abs * (cos(angle) + i * sin(angle))``.

    The dtypes follow :func:`monoflow.complex`: ``float32`` parts give
    ``complex64``, ``float64`` parts ``complex128``; the shapes broadcast.

    Args:
        abs (Tensor): the absolute values (moduli).
        angle (Tensor): the angles, in radians.

    Returns:
        Tensor: a complex tensor of the broadcast shape.

    Example::

        >>> flow.polar(flow.tensor([2., 1.]), flow.tensor([0., 0.]))
        tensor([2.+0.j, 1.+0.j])
        >>> z = flow.polar(flow.tensor([2.]), flow.tensor([3.14159265 / 2]))
        >>> flow.allclose(flow.view_as_real(z), flow.tensor([[0., 2.]]), atol=1e-6)
        True
    """, method=False)

add_doc("real", "real(input) -> Tensor", """
    The real parts of ``input``.

    For a complex tensor, the result is a view of its memory (``float32`` for
    ``complex64``, ``float64`` for ``complex128``) through which gradients
    flow; a real tensor is returned as it is. :attr:`Tensor.real` is the
    same, as a property.

    Args:
        input (Tensor): the input tensor.

    Returns:
        Tensor: a real tensor of ``input``'s shape.

    Example::

        >>> z = flow.complex(flow.tensor([1., 3.]), flow.tensor([2., -1.]))
        >>> flow.real(z)
        tensor([1., 3.])
        >>> z.real
        tensor([1., 3.])
    """, method=False)

add_doc("imag", "imag(input) -> Tensor", """
    The imaginary parts of a complex tensor.

    The result is a view of ``input``'s memory (``float32`` for
    ``complex64``, ``float64`` for ``complex128``) through which gradients
    flow. Real tensors raise a ``RuntimeError``, as in torch.
    :attr:`Tensor.imag` is the same, as a property.

    Args:
        input (Tensor): a complex tensor.

    Returns:
        Tensor: a real tensor of ``input``'s shape.

    Example::

        >>> z = flow.complex(flow.tensor([1., 3.]), flow.tensor([2., -1.]))
        >>> flow.imag(z)
        tensor([ 2., -1.])
        >>> z.imag
        tensor([ 2., -1.])
    """, method=False)

add_doc("real", "Tensor.real", """
    The real parts of the tensor, as :func:`monoflow.real`: a view for a
    complex tensor, the tensor itself for a real one.
    """)

add_doc("imag", "Tensor.imag", """
    The imaginary parts of a complex tensor, as :func:`monoflow.imag`: a
    view of its memory (real tensors raise a ``RuntimeError``).
    """)

add_doc("conj", "conj(input) -> Tensor", """
    The complex conjugate of ``input``: each element's imaginary part negated.

    Unlike torch, whose ``conj`` is a lazy view with a conjugate bit, monoflow
    returns a new tensor (the values and gradients are the same, and
    :meth:`Tensor.is_conj` is always ``False``). A real tensor is returned as
    it is.

    Args:
        input (Tensor): the input tensor.

    Returns:
        Tensor: the conjugate, of ``input``'s shape and dtype.

    Example::

        >>> z = flow.complex(flow.tensor([1., 3.]), flow.tensor([2., -1.]))
        >>> flow.conj(z)
        tensor([1.-2.j, 3.+1.j])
        >>> z.conj().imag
        tensor([-2.,  1.])
    """)

add_doc("conj_physical", "conj_physical(input) -> Tensor", """
    The complex conjugate of ``input``, computed into new memory.

    In monoflow it is the same as :func:`monoflow.conj`, which never makes
    lazy views; it exists for programs written for torch. A real tensor is
    returned as it is.

    Args:
        input (Tensor): the input tensor.

    Returns:
        Tensor: the conjugate, of ``input``'s shape and dtype.

    Example::

        >>> z = flow.complex(flow.tensor([1., 3.]), flow.tensor([2., -1.]))
        >>> flow.conj_physical(z)
        tensor([1.-2.j, 3.+1.j])
    """)

add_doc("angle", "angle(input) -> Tensor", r"""
    The angle (argument) of each element of ``input``, in radians.

    For a complex element it is ``atan2(imag, real)``, in
    :math:`(-\pi, \pi]`, and the result has the real dtype of ``input``
    (``float32`` for ``complex64``). For a real element it is :math:`\pi`
    where it is negative, 0 elsewhere, NaN kept (as torch).

    Args:
        input (Tensor): the input tensor, complex or real.

    Returns:
        Tensor: a real tensor of ``input``'s shape.

    Example::

        >>> flow.angle(flow.complex(flow.tensor([1., 0.]), flow.tensor([1., -2.])))
        tensor([ 0.7854, -1.5708])
        >>> flow.tensor([-1., 0., 2.]).angle()
        tensor([3.1416, 0.0000, 0.0000])
    """)

add_doc("resolve_conj", "Tensor.resolve_conj() -> Tensor", """
    Returns the tensor with any lazy conjugation applied.

    monoflow never makes lazy conjugate views (:func:`monoflow.conj` computes
    the conjugate), so this returns the tensor itself; it exists for programs
    written for torch.

    Example::

        >>> z = flow.complex(flow.tensor([1.]), flow.tensor([2.]))
        >>> z.conj().resolve_conj()
        tensor([1.-2.j])
    """)

add_doc("is_conj", "Tensor.is_conj() -> bool", """
    Tells whether the tensor is a lazy conjugate view; always ``False`` in
    monoflow, whose :func:`monoflow.conj` computes the conjugate.

    Example::

        >>> flow.complex(flow.tensor([1.]), flow.tensor([2.])).conj().is_conj()
        False
    """)
