# Bindings of the reduce ops (included by _C.pyx; uses its helpers: wrap, _dims, TensorBase, and the
# argument converters of _args.pxi).
# Argument forms (dim=None, unbiased vs correction, p='fro', ...) are sorted
# out in monoflow/ops_reduce.py; these are one-to-one with the C++ functions.
from libcpp.utility cimport pair


cdef extern from "monoflow/ops_reduce_ext.h" namespace "monoflow":
    Tensor c_mean "monoflow::mean"(const Tensor& x, const Dims& dims, cbool keepdim, optional[DType] dt) except +translate_exception
    Tensor c_prod "monoflow::prod"(const Tensor& x, optional[int64_t] dim, cbool keepdim, optional[DType] dt) except +translate_exception
    Tensor c_amax "monoflow::amax"(const Tensor& x, const Dims& dims, cbool keepdim) except +translate_exception
    Tensor c_amin "monoflow::amin"(const Tensor& x, const Dims& dims, cbool keepdim) except +translate_exception
    Tensor c_max_all "monoflow::max_all"(const Tensor& x) except +translate_exception
    Tensor c_min_all "monoflow::min_all"(const Tensor& x) except +translate_exception
    pair[Tensor, Tensor] c_max_dim "monoflow::max_dim"(const Tensor& x, int64_t dim, cbool keepdim) except +translate_exception
    pair[Tensor, Tensor] c_min_dim "monoflow::min_dim"(const Tensor& x, int64_t dim, cbool keepdim) except +translate_exception
    Tensor c_argmax "monoflow::argmax"(const Tensor& x, optional[int64_t] dim, cbool keepdim) except +translate_exception
    Tensor c_argmin "monoflow::argmin"(const Tensor& x, optional[int64_t] dim, cbool keepdim) except +translate_exception
    Tensor c_var "monoflow::var"(const Tensor& x, const Dims& dims, double correction, cbool keepdim) except +translate_exception
    Tensor c_std "monoflow::stddev"(const Tensor& x, const Dims& dims, double correction, cbool keepdim) except +translate_exception
    Tensor c_vector_norm "monoflow::vector_norm"(const Tensor& x, double p, const Dims& dims, cbool keepdim, optional[DType] dt) except +translate_exception
    Tensor c_logsumexp "monoflow::logsumexp"(const Tensor& x, const Dims& dims, cbool keepdim) except +translate_exception
    Tensor c_all "monoflow::all"(const Tensor& x, const Dims& dims, cbool keepdim) except +translate_exception
    Tensor c_any "monoflow::any"(const Tensor& x, const Dims& dims, cbool keepdim) except +translate_exception
    Tensor c_cumsum "monoflow::cumsum"(const Tensor& x, int64_t dim, optional[DType] dt) except +translate_exception
    Tensor c_cumprod "monoflow::cumprod"(const Tensor& x, int64_t dim, optional[DType] dt) except +translate_exception
    Tensor c_softmax "monoflow::softmax"(const Tensor& x, int64_t dim, optional[DType] dt) except +translate_exception
    Tensor c_log_softmax "monoflow::log_softmax"(const Tensor& x, int64_t dim, optional[DType] dt) except +translate_exception
    pair[Tensor, Tensor] c_sort "monoflow::sort"(const Tensor& x, int64_t dim, cbool descending, cbool stable) except +translate_exception
    Tensor c_argsort "monoflow::argsort"(const Tensor& x, int64_t dim, cbool descending, cbool stable) except +translate_exception
    pair[Tensor, Tensor] c_topk "monoflow::topk"(const Tensor& x, int64_t k, int64_t dim, cbool largest, cbool sorted) except +translate_exception


cdef inline Dims _reduce_dims(object dim, str op) except *:
    # None: all dims (an empty list)
    cdef Dims d
    if dim is None:
        return d
    return _dims(dim, op)


cdef inline optional[DType] _opt_dtype(object d, str op) except *:
    cdef optional[DType] r
    if d is not None:
        r = _dtype_arg(d, op, "dtype")
    return r


cdef inline optional[int64_t] _opt_dim(object dim, str op) except *:
    cdef optional[int64_t] r
    if dim is not None:
        r = _int_arg(dim, op, "dim")
    return r


cdef inline tuple _wrap_pair(const pair[Tensor, Tensor]& p):
    return (wrap(p.first), wrap(p.second))


def reduce_mean(x, dim, bint keepdim, dt):
    if _is_cplx(x):
        return _complex_ops.mean(x, dim, keepdim, dt)
    return wrap(c_mean(_tt(x, "mean", "input"), _reduce_dims(dim, "mean"), keepdim, _opt_dtype(dt, "mean")))


def reduce_prod(x, dim, bint keepdim, dt):
    if _is_cplx(x):
        return _complex_ops.shape.prod(x, dim, keepdim, dt)
    return wrap(c_prod(_tt(x, "prod", "input"), _opt_dim(dim, "prod"), keepdim, _opt_dtype(dt, "prod")))


def reduce_amax(x, dim, bint keepdim):
    return wrap(c_amax(_tt(x, "amax", "input"), _reduce_dims(dim, "amax"), keepdim))


def reduce_amin(x, dim, bint keepdim):
    return wrap(c_amin(_tt(x, "amin", "input"), _reduce_dims(dim, "amin"), keepdim))


def reduce_max_all(x):
    return wrap(c_max_all(_tt(x, "max", "input")))


def reduce_min_all(x):
    return wrap(c_min_all(_tt(x, "min", "input")))


def reduce_max_dim(x, dim, bint keepdim):
    return _wrap_pair(c_max_dim(_tt(x, "max", "input"), _int_arg(dim, "max", "dim"), keepdim))


def reduce_min_dim(x, dim, bint keepdim):
    return _wrap_pair(c_min_dim(_tt(x, "min", "input"), _int_arg(dim, "min", "dim"), keepdim))


def reduce_argmax(x, dim, bint keepdim):
    return wrap(c_argmax(_tt(x, "argmax", "input"), _opt_dim(dim, "argmax"), keepdim))


def reduce_argmin(x, dim, bint keepdim):
    return wrap(c_argmin(_tt(x, "argmin", "input"), _opt_dim(dim, "argmin"), keepdim))


def reduce_var(x, dim, correction, bint keepdim):
    return wrap(c_var(_tt(x, "var", "input"), _reduce_dims(dim, "var"), _number_arg(correction, "var", "correction"),
                      keepdim))


def reduce_std(x, dim, correction, bint keepdim):
    return wrap(c_std(_tt(x, "std", "input"), _reduce_dims(dim, "std"), _number_arg(correction, "std", "correction"),
                      keepdim))


def reduce_vector_norm(x, p, dim, bint keepdim, dt):
    return wrap(c_vector_norm(_tt(x, "norm", "input"), _number_arg(p, "norm", "p"), _reduce_dims(dim, "norm"), keepdim,
                              _opt_dtype(dt, "norm")))


def reduce_logsumexp(x, dim, bint keepdim):
    return wrap(c_logsumexp(_tt(x, "logsumexp", "input"), _reduce_dims(dim, "logsumexp"), keepdim))


def reduce_all(x, dim, bint keepdim):
    return wrap(c_all(_tt(x, "all", "input"), _reduce_dims(dim, "all"), keepdim))


def reduce_any(x, dim, bint keepdim):
    return wrap(c_any(_tt(x, "any", "input"), _reduce_dims(dim, "any"), keepdim))


def reduce_cumsum(x, dim, dt):
    return wrap(c_cumsum(_tt(x, "cumsum", "input"), _int_arg(dim, "cumsum", "dim"), _opt_dtype(dt, "cumsum")))


def reduce_cumprod(x, dim, dt):
    return wrap(c_cumprod(_tt(x, "cumprod", "input"), _int_arg(dim, "cumprod", "dim"), _opt_dtype(dt, "cumprod")))


def reduce_softmax(x, dim, dt):
    return wrap(c_softmax(_tt(x, "softmax", "input"), _int_arg(dim, "softmax", "dim"), _opt_dtype(dt, "softmax")))


def reduce_log_softmax(x, dim, dt):
    return wrap(c_log_softmax(_tt(x, "log_softmax", "input"), _int_arg(dim, "log_softmax", "dim"), _opt_dtype(dt, "log_softmax")))


def reduce_sort(x, dim, bint descending, bint stable):
    return _wrap_pair(c_sort(_tt(x, "sort", "input"), _int_arg(dim, "sort", "dim"), descending, stable))


def reduce_argsort(x, dim, bint descending, bint stable):
    return wrap(c_argsort(_tt(x, "argsort", "input"), _int_arg(dim, "argsort", "dim"), descending, stable))


def reduce_topk(x, k, dim, bint largest, bint sorted):
    return _wrap_pair(c_topk(_tt(x, "topk", "input"), _int_arg(k, "topk", "k"), _int_arg(dim, "topk", "dim"), largest, sorted))
