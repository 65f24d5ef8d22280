# Bindings of the reduce ops (included by _C.pyx; uses its helpers: wrap, _dims, _dt, TensorBase).
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


cdef inline optional[DType] _opt_dtype(object d) except *:
    cdef optional[DType] r
    if d is not None:
        r = _dt(d)
    return r


cdef inline optional[int64_t] _opt_dim(object dim, str op) except *:
    cdef optional[int64_t] r
    if dim is not None:
        if not hasattr(dim, "__index__"):
            raise TypeError(f"{op}(): argument 'dim' must be int, not {type(dim).__name__}")
        r = <int64_t>dim.__index__()
    return r


cdef inline tuple _wrap_pair(const pair[Tensor, Tensor]& p):
    return (wrap(p.first), wrap(p.second))


def reduce_mean(TensorBase x, dim, bint keepdim, dt):
    return wrap(c_mean(x.t, _reduce_dims(dim, "mean"), keepdim, _opt_dtype(dt)))


def reduce_prod(TensorBase x, dim, bint keepdim, dt):
    return wrap(c_prod(x.t, _opt_dim(dim, "prod"), keepdim, _opt_dtype(dt)))


def reduce_amax(TensorBase x, dim, bint keepdim):
    return wrap(c_amax(x.t, _reduce_dims(dim, "amax"), keepdim))


def reduce_amin(TensorBase x, dim, bint keepdim):
    return wrap(c_amin(x.t, _reduce_dims(dim, "amin"), keepdim))


def reduce_max_all(TensorBase x):
    return wrap(c_max_all(x.t))


def reduce_min_all(TensorBase x):
    return wrap(c_min_all(x.t))


def reduce_max_dim(TensorBase x, int64_t dim, bint keepdim):
    return _wrap_pair(c_max_dim(x.t, dim, keepdim))


def reduce_min_dim(TensorBase x, int64_t dim, bint keepdim):
    return _wrap_pair(c_min_dim(x.t, dim, keepdim))


def reduce_argmax(TensorBase x, dim, bint keepdim):
    return wrap(c_argmax(x.t, _opt_dim(dim, "argmax"), keepdim))


def reduce_argmin(TensorBase x, dim, bint keepdim):
    return wrap(c_argmin(x.t, _opt_dim(dim, "argmin"), keepdim))


def reduce_var(TensorBase x, dim, double correction, bint keepdim):
    return wrap(c_var(x.t, _reduce_dims(dim, "var"), correction, keepdim))


def reduce_std(TensorBase x, dim, double correction, bint keepdim):
    return wrap(c_std(x.t, _reduce_dims(dim, "std"), correction, keepdim))


def reduce_vector_norm(TensorBase x, double p, dim, bint keepdim, dt):
    return wrap(c_vector_norm(x.t, p, _reduce_dims(dim, "norm"), keepdim, _opt_dtype(dt)))


def reduce_logsumexp(TensorBase x, dim, bint keepdim):
    return wrap(c_logsumexp(x.t, _reduce_dims(dim, "logsumexp"), keepdim))


def reduce_all(TensorBase x, dim, bint keepdim):
    return wrap(c_all(x.t, _reduce_dims(dim, "all"), keepdim))


def reduce_any(TensorBase x, dim, bint keepdim):
    return wrap(c_any(x.t, _reduce_dims(dim, "any"), keepdim))


def reduce_cumsum(TensorBase x, int64_t dim, dt):
    return wrap(c_cumsum(x.t, dim, _opt_dtype(dt)))


def reduce_cumprod(TensorBase x, int64_t dim, dt):
    return wrap(c_cumprod(x.t, dim, _opt_dtype(dt)))


def reduce_softmax(TensorBase x, int64_t dim, dt):
    return wrap(c_softmax(x.t, dim, _opt_dtype(dt)))


def reduce_log_softmax(TensorBase x, int64_t dim, dt):
    return wrap(c_log_softmax(x.t, dim, _opt_dtype(dt)))


def reduce_sort(TensorBase x, int64_t dim, bint descending, bint stable):
    return _wrap_pair(c_sort(x.t, dim, descending, stable))


def reduce_argsort(TensorBase x, int64_t dim, bint descending, bint stable):
    return wrap(c_argsort(x.t, dim, descending, stable))


def reduce_topk(TensorBase x, int64_t k, int64_t dim, bint largest, bint sorted):
    return _wrap_pair(c_topk(x.t, k, dim, largest, sorted))
