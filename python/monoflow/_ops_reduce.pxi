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


def reduce_mean(x, dim, keepdim, dt):
    if _is_cplx(x):
        return _complex_ops.mean(x, dim, keepdim, dt)
    return wrap(c_mean(_tt(x, "mean", "input"), _reduce_dims(dim, "mean"),
                       _bool_arg(keepdim, "mean", "keepdim"), _opt_dtype(dt, "mean")))


def reduce_prod(x, dim, keepdim, dt):
    if _is_cplx(x):
        return _complex_ops.shape.prod(x, dim, keepdim, dt)
    return wrap(c_prod(_tt(x, "prod", "input"), _opt_dim(dim, "prod"),
                       _bool_arg(keepdim, "prod", "keepdim"), _opt_dtype(dt, "prod")))


def reduce_amax(x, dim, keepdim):
    return wrap(c_amax(_tt(x, "amax", "input"), _reduce_dims(dim, "amax"), _bool_arg(keepdim, "amax", "keepdim")))


def reduce_amin(x, dim, keepdim):
    return wrap(c_amin(_tt(x, "amin", "input"), _reduce_dims(dim, "amin"), _bool_arg(keepdim, "amin", "keepdim")))


def reduce_max_all(x):
    return wrap(c_max_all(_tt(x, "max", "input")))


def reduce_min_all(x):
    return wrap(c_min_all(_tt(x, "min", "input")))


def reduce_max_dim(x, dim, keepdim):
    return _wrap_pair(c_max_dim(_tt(x, "max", "input"), _int_arg(dim, "max", "dim"),
                                _bool_arg(keepdim, "max", "keepdim")))


def reduce_min_dim(x, dim, keepdim):
    return _wrap_pair(c_min_dim(_tt(x, "min", "input"), _int_arg(dim, "min", "dim"),
                                _bool_arg(keepdim, "min", "keepdim")))


def reduce_argmax(x, dim, keepdim):
    return wrap(c_argmax(_tt(x, "argmax", "input"), _opt_dim(dim, "argmax"), _bool_arg(keepdim, "argmax", "keepdim")))


def reduce_argmin(x, dim, keepdim):
    return wrap(c_argmin(_tt(x, "argmin", "input"), _opt_dim(dim, "argmin"), _bool_arg(keepdim, "argmin", "keepdim")))


def reduce_var(x, dim, correction, keepdim):
    return wrap(c_var(_tt(x, "var", "input"), _reduce_dims(dim, "var"), _number_arg(correction, "var", "correction"),
                      _bool_arg(keepdim, "var", "keepdim")))


def reduce_std(x, dim, correction, keepdim):
    return wrap(c_std(_tt(x, "std", "input"), _reduce_dims(dim, "std"), _number_arg(correction, "std", "correction"),
                      _bool_arg(keepdim, "std", "keepdim")))


def reduce_vector_norm(x, p, dim, keepdim, dt):
    return wrap(c_vector_norm(_tt(x, "norm", "input"), _number_arg(p, "norm", "p"), _reduce_dims(dim, "norm"),
                              _bool_arg(keepdim, "norm", "keepdim"),
                              _opt_dtype(dt, "norm")))


def reduce_logsumexp(x, dim, keepdim):
    return wrap(c_logsumexp(_tt(x, "logsumexp", "input"), _reduce_dims(dim, "logsumexp"),
                            _bool_arg(keepdim, "logsumexp", "keepdim")))


def reduce_all(x, dim, keepdim):
    return wrap(c_all(_tt(x, "all", "input"), _reduce_dims(dim, "all"), _bool_arg(keepdim, "all", "keepdim")))


def reduce_any(x, dim, keepdim):
    return wrap(c_any(_tt(x, "any", "input"), _reduce_dims(dim, "any"), _bool_arg(keepdim, "any", "keepdim")))


def reduce_cumsum(x, dim, dt):
    return wrap(c_cumsum(_tt(x, "cumsum", "input"), _int_arg(dim, "cumsum", "dim"), _opt_dtype(dt, "cumsum")))


def reduce_cumprod(x, dim, dt):
    return wrap(c_cumprod(_tt(x, "cumprod", "input"), _int_arg(dim, "cumprod", "dim"), _opt_dtype(dt, "cumprod")))


def reduce_softmax(x, dim, dt):
    return wrap(c_softmax(_tt(x, "softmax", "input"), _int_arg(dim, "softmax", "dim"), _opt_dtype(dt, "softmax")))


def reduce_log_softmax(x, dim, dt):
    return wrap(c_log_softmax(_tt(x, "log_softmax", "input"), _int_arg(dim, "log_softmax", "dim"), _opt_dtype(dt, "log_softmax")))


def reduce_sort(x, dim, descending, stable):
    return _wrap_pair(c_sort(_tt(x, "sort", "input"), _int_arg(dim, "sort", "dim"),
                             _bool_arg(descending, "sort", "descending"),
                             _bool_arg(False if stable is None else stable, "sort", "stable")))


def reduce_argsort(x, dim, descending, stable):
    return wrap(c_argsort(_tt(x, "argsort", "input"), _int_arg(dim, "argsort", "dim"),
                          _bool_arg(descending, "argsort", "descending"),
                          _bool_arg(False if stable is None else stable, "argsort", "stable")))


def reduce_topk(x, k, dim, largest, sorted):
    return _wrap_pair(c_topk(_tt(x, "topk", "input"), _int_arg(k, "topk", "k"), _int_arg(dim, "topk", "dim"),
                             _bool_arg(largest, "topk", "largest"), _bool_arg(sorted, "topk", "sorted")))
