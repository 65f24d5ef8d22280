# Bindings of the fused elementwise updates (included by _C.pyx; uses its
# helpers: wrap, _to_scalar, TensorBase, and the argument converters of
# _args.pxi): add with alpha, addcmul, addcdiv.

cdef Scalar _fused_scalar(object v, str op, str what) except *:
    cdef Scalar s
    if isinstance(v, TensorBase) or not _to_scalar(v, &s):
        raise TypeError(f"{op}(): argument '{what}' must be a Python number, not {type(v).__name__}")
    return s


def add_alpha(a, b, alpha):
    """a + alpha * b in one pass (Tensor.add(other, alpha=))."""
    return wrap(c_add_alpha(_tt(a, "add", "input"), _tt(b, "add", "other"),
                            _fused_scalar(alpha, "add", "alpha")))


def add_alpha_(a, b, alpha):
    c_add_alpha_(_tt(a, "add_", "input"), _tt(b, "add_", "other"),
                 _fused_scalar(alpha, "add_", "alpha"))
    return a


def addcmul(input, tensor1, tensor2, value=1):
    """input + value * tensor1 * tensor2."""
    return wrap(c_addcmul(_tt(input, "addcmul", "input"), _tt(tensor1, "addcmul", "tensor1"),
                          _tt(tensor2, "addcmul", "tensor2"), _fused_scalar(value, "addcmul", "value")))


def addcmul_(input, tensor1, tensor2, value=1):
    c_addcmul_(_tt(input, "addcmul_", "input"), _tt(tensor1, "addcmul_", "tensor1"),
               _tt(tensor2, "addcmul_", "tensor2"), _fused_scalar(value, "addcmul_", "value"))
    return input


def addcdiv(input, tensor1, tensor2, value=1):
    """input + value * tensor1 / tensor2."""
    return wrap(c_addcdiv(_tt(input, "addcdiv", "input"), _tt(tensor1, "addcdiv", "tensor1"),
                          _tt(tensor2, "addcdiv", "tensor2"), _fused_scalar(value, "addcdiv", "value")))


def addcdiv_(input, tensor1, tensor2, value=1):
    c_addcdiv_(_tt(input, "addcdiv_", "input"), _tt(tensor1, "addcdiv_", "tensor1"),
               _tt(tensor2, "addcdiv_", "tensor2"), _fused_scalar(value, "addcdiv_", "value"))
    return input


def sgd_momentum_(p, buf, g, double momentum, double scale, double lr):
    """SGD's momentum step in one pass: buf = momentum * buf + scale * g; p += -lr * buf."""
    c_sgd_momentum_(_tt(p, "sgd_momentum_", "param"), _tt(buf, "sgd_momentum_", "buf"),
                    _tt(g, "sgd_momentum_", "grad"), momentum, scale, lr)
    return p
