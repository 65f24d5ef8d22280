# Bindings of the shape ops (included by _C.pyx; uses its helpers: wrap, _dims, _to_scalar, TensorBase).
