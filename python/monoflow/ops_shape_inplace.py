"""In-place shape changes (``Tensor.unsqueeze_``, ``squeeze_``, ``t_``, ``transpose_``,
``swapaxes_``/``swapdims_``, ``as_strided_``): the tensor takes the metadata of the view the
out-of-place op returns (same storage, new shape and strides), as torch's do.

Scripts use them on data (``target.unsqueeze_(-1)`` in the char-RNN tutorials), where no
autograd history is involved. A tensor that requires grad is refused: a leaf with torch's
error, a non-leaf because its gradient node expects the old shape and the core cannot
re-point it yet (NotImplementedError naming the op)."""


def _reshape_in_place(t, name, view):
    if t.requires_grad:
        if t.is_leaf:
            raise RuntimeError("a leaf Tensor that requires grad is being used in an in-place operation.")
        raise NotImplementedError(f"Tensor.{name}: in-place shape changes of a tensor with autograd history "
                                  f"are not implemented in monoflow yet; use the out-of-place op")
    t.data = view
    return t


def _doc(name, base):
    return (f"In-place version of :meth:`Tensor.{base}`: ``t.{name}(...)`` gives `t` the shape and "
            f"strides of ``t.{base}(...)`` (the same memory) and returns `t`.")


class TensorMethods:
    """Mixed into monoflow.Tensor."""

    def unsqueeze_(self, dim):
        return _reshape_in_place(self, "unsqueeze_", self.unsqueeze(dim))

    def squeeze_(self, dim=None):
        return _reshape_in_place(self, "squeeze_", self.squeeze(dim))

    def t_(self):
        return _reshape_in_place(self, "t_", self.t())

    def transpose_(self, dim0, dim1):
        return _reshape_in_place(self, "transpose_", self.transpose(dim0, dim1))

    def swapaxes_(self, axis0, axis1):
        return _reshape_in_place(self, "swapaxes_", self.transpose(axis0, axis1))

    def swapdims_(self, dim0, dim1):
        return _reshape_in_place(self, "swapdims_", self.transpose(dim0, dim1))

    def as_strided_(self, size, stride, storage_offset=None):
        return _reshape_in_place(self, "as_strided_", self.as_strided(size, stride, storage_offset))


for _name, _base in (("unsqueeze_", "unsqueeze"), ("squeeze_", "squeeze"), ("t_", "t"),
                     ("transpose_", "transpose"), ("swapaxes_", "swapaxes"), ("swapdims_", "swapdims"),
                     ("as_strided_", "as_strided")):
    getattr(TensorMethods, _name).__doc__ = _doc(_name, _base)
del _name, _base
