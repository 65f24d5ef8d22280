# Bindings of the fused elementwise updates (included by _C.pyx; uses its
# helpers: wrap, _to_scalar, TensorBase): add with alpha, addcmul, addcdiv.

cdef TensorBase _fused_tensor(object x, str op, str what):
    if not isinstance(x, TensorBase):
        raise TypeError(f"{op}(): argument '{what}' must be Tensor, not {type(x).__name__}")
    return <TensorBase>x


cdef Scalar _fused_scalar(object v, str op, str what) except *:
    cdef Scalar s
    if isinstance(v, TensorBase) or not _to_scalar(v, &s):
        raise TypeError(f"{op}(): argument '{what}' must be a Python number, not {type(v).__name__}")
    return s


def add_alpha(a, b, alpha):
    """a + alpha * b in one pass (Tensor.add(other, alpha=))."""
    return wrap(c_add_alpha(_fused_tensor(a, "add", "input").t, _fused_tensor(b, "add", "other").t,
                            _fused_scalar(alpha, "add", "alpha")))


def add_alpha_(a, b, alpha):
    c_add_alpha_(_fused_tensor(a, "add_", "input").t, _fused_tensor(b, "add_", "other").t,
                 _fused_scalar(alpha, "add_", "alpha"))
    return a


def addcmul(input, tensor1, tensor2, value=1):
    """input + value * tensor1 * tensor2."""
    return wrap(c_addcmul(_fused_tensor(input, "addcmul", "input").t, _fused_tensor(tensor1, "addcmul", "tensor1").t,
                          _fused_tensor(tensor2, "addcmul", "tensor2").t, _fused_scalar(value, "addcmul", "value")))


def addcmul_(input, tensor1, tensor2, value=1):
    c_addcmul_(_fused_tensor(input, "addcmul_", "input").t, _fused_tensor(tensor1, "addcmul_", "tensor1").t,
               _fused_tensor(tensor2, "addcmul_", "tensor2").t, _fused_scalar(value, "addcmul_", "value"))
    return input


def addcdiv(input, tensor1, tensor2, value=1):
    """input + value * tensor1 / tensor2."""
    return wrap(c_addcdiv(_fused_tensor(input, "addcdiv", "input").t, _fused_tensor(tensor1, "addcdiv", "tensor1").t,
                          _fused_tensor(tensor2, "addcdiv", "tensor2").t, _fused_scalar(value, "addcdiv", "value")))


def addcdiv_(input, tensor1, tensor2, value=1):
    c_addcdiv_(_fused_tensor(input, "addcdiv_", "input").t, _fused_tensor(tensor1, "addcdiv_", "tensor1").t,
               _fused_tensor(tensor2, "addcdiv_", "tensor2").t, _fused_scalar(value, "addcdiv_", "value"))
    return input


def sgd_momentum_(p, buf, g, double momentum, double scale, double lr):
    """SGD's momentum step in one pass: buf = momentum * buf + scale * g; p += -lr * buf."""
    c_sgd_momentum_(_fused_tensor(p, "sgd_momentum_", "param").t, _fused_tensor(buf, "sgd_momentum_", "buf").t,
                    _fused_tensor(g, "sgd_momentum_", "grad").t, momentum, scale, lr)
    return p
