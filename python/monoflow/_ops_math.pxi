# Bindings of the math ops (included by _C.pyx; uses its helpers: wrap, _dims, _to_scalar, TensorBase).
# Ops are passed by id (math_op(name)) so one binding serves each arity;
# operands may be tensors or Python numbers, which the core promotes as
# PyTorch's wrapped numbers.

cdef extern from "monoflow/op_registry.h" namespace "monoflow":
    cdef cppclass OpDef:
        const char* name
    const OpDef& op_def(int id)
    int kNumOps


cdef str _op_name(int op):
    # The name of op id `op` for an error message; an id out of range (from a
    # direct call of these bindings) is named as such instead of read past the table.
    if 0 <= op < kNumOps:
        return op_def(op).name.decode()
    return f"op #{op} (unknown)"

cdef extern from "monoflow/ops_math.h" namespace "monoflow":
    cdef cppclass TensorOrScalar:
        Tensor tensor
        Scalar scalar
        cbool is_scalar
    Tensor c_wrapped_scalar "monoflow::wrapped_scalar"(Scalar s, Device device) except +translate_exception
    Tensor c_math_unary "monoflow::math_unary"(int op, const Tensor& x) except +translate_exception
    void c_math_unary_ "monoflow::math_unary_"(int op, const Tensor& x) except +translate_exception
    Tensor c_round_decimals "monoflow::round_decimals"(const Tensor& x, int64_t decimals) except +translate_exception
    void c_round_decimals_ "monoflow::round_decimals_"(const Tensor& x, int64_t decimals) except +translate_exception
    Tensor c_gelu "monoflow::gelu"(const Tensor& x, cbool tanh_approximation) except +translate_exception
    Tensor c_softplus "monoflow::softplus"(const Tensor& x, double beta, double threshold) except +translate_exception
    Tensor c_math_binary "monoflow::math_binary"(int op, const TensorOrScalar& a,
                                                 const TensorOrScalar& b) except +translate_exception
    void c_math_binary_ "monoflow::math_binary_"(int op, const Tensor& self,
                                                 const TensorOrScalar& b) except +translate_exception
    Tensor c_clamp "monoflow::clamp"(const Tensor& x, const TensorOrScalar& lo,
                                     const TensorOrScalar& hi) except +translate_exception
    void c_clamp_ "monoflow::clamp_"(const Tensor& x, const TensorOrScalar& lo,
                                     const TensorOrScalar& hi) except +translate_exception
    Tensor c_where "monoflow::where"(const Tensor& cond, const TensorOrScalar& x,
                                     const TensorOrScalar& y) except +translate_exception
    Tensor c_lerp "monoflow::lerp"(const Tensor& start, const Tensor& end,
                                   const TensorOrScalar& weight) except +translate_exception
    void c_lerp_ "monoflow::lerp_"(const Tensor& self, const Tensor& end,
                                   const TensorOrScalar& weight) except +translate_exception


def math_op(str name):
    """The id of a math op, for the functions below."""
    cdef int op = find_op(name.encode())
    if op < 0:
        raise ValueError(f"unknown op {name!r}")
    return op


cdef inline bint _operand(object v, TensorOrScalar* out) except -1:
    # 1: a tensor or a number, now in *out; 0: neither (None, or another type)
    if isinstance(v, TensorBase):
        out.tensor = (<TensorBase>v).t
        out.is_scalar = False
        return 1
    if v is not None and _to_scalar(v, &out.scalar):
        out.is_scalar = True
        return 1
    return 0


cdef inline Tensor _op_tt(object x, int op, str what) except *:
    # _tt for the ops passed by id: the op's name is looked up only for the error.
    if isinstance(x, TensorBase):
        return (<TensorBase>x).t
    raise _arg_error(_op_name(op), what, 0, "Tensor", x)


cdef TensorOrScalar _optional_operand(object v, str op, str what) except *:
    cdef TensorOrScalar out
    if v is not None and not _operand(v, &out):
        raise _arg_error(op, what, 0, "Tensor, Number or None", v)
    return out


cdef object _wrapped_number(TensorBase like, object v):
    # A Python number as a 0-dim tensor that promotes as a number (for ops
    # that take tensors only, such as the comparisons).
    cdef Scalar s
    if not _to_scalar(v, &s):
        raise TypeError(name_op_in_progress(f"unsupported operand type: {type(v).__name__}"))
    return wrap(c_wrapped_scalar(s, like.t.get().device()))


def math_unary(int op, x):
    if _is_cplx(x):
        return _complex_ops.unary(op, x)
    return wrap(c_math_unary(op, _op_tt(x, op, "input")))


def math_unary_(int op, x):
    if _is_cplx(x):
        return _complex_ops.unary_(op, x)
    c_math_unary_(op, _op_tt(x, op, "input"))
    return x


def round_decimals(x, decimals):
    return wrap(c_round_decimals(_tt(x, "round", "input"), _int_arg(decimals, "round", "decimals")))


def round_decimals_(x, decimals):
    c_round_decimals_(_tt(x, "round_", "input"), _int_arg(decimals, "round_", "decimals"))
    return x


def _gelu(x, bint tanh_approximation=False):
    return wrap(c_gelu(_tt(x, "gelu", "input"), tanh_approximation))


def softplus(x, beta, threshold):
    return wrap(c_softplus(_tt(x, "softplus", "input"), _float_arg(beta, "softplus", "beta"),
                           _float_arg(threshold, "softplus", "threshold")))


def math_binary(int op, a, b):
    """a (op) b for tensors and numbers; NotImplemented for other operand types."""
    cdef TensorOrScalar x, y
    if _is_cplx(a) or _is_cplx(b):
        return _complex_ops.math_binary(op, a, b)
    try:
        if not (_operand(a, &x) and _operand(b, &y)):
            return NotImplemented
    except OverflowError as e:
        raise _overflow_named(_op_name(op), e) from None
    return wrap(c_math_binary(op, x, y))


def math_binary_(int op, self, b):
    """self (op)= b in place; NotImplemented for other operand types."""
    cdef TensorOrScalar y
    if _is_cplx(self) or _is_cplx(b):
        return _complex_ops.math_binary_(op, self, b)
    try:
        if not _operand(b, &y):
            return NotImplemented
    except OverflowError as e:
        raise _overflow_named(_op_name(op) + "_", e) from None
    c_math_binary_(op, _op_tt(self, op, "self"), y)
    return self


def _clamp(x, min, max):
    return wrap(c_clamp(_tt(x, "clamp", "input"), _optional_operand(min, "clamp", "min"),
                        _optional_operand(max, "clamp", "max")))


def _clamp_(x, min, max):
    c_clamp_(_tt(x, "clamp", "input"), _optional_operand(min, "clamp", "min"),
             _optional_operand(max, "clamp", "max"))
    return x


def _where(condition, x, y):
    if _is_cplx(x) or _is_cplx(y):
        return _complex_ops.shape.where(condition, x, y)
    return wrap(c_where(_tt(condition, "where", "condition"), _optional_operand(x, "where", "input"),
                        _optional_operand(y, "where", "other")))


def lerp(start, end, weight):
    return wrap(c_lerp(_tt(start, "lerp", "input"), _tt(end, "lerp", "end"),
                       _optional_operand(weight, "lerp", "weight")))


def lerp_(start, end, weight):
    c_lerp_(_tt(start, "lerp", "input"), _tt(end, "lerp", "end"),
            _optional_operand(weight, "lerp", "weight"))
    return start
