# Bindings of the classification losses (included by _C.pyx; uses _tt and _opt_tt from _args.pxi).
# Argument forms (reduction names, legacy size_average/reduce) are sorted out
# in monoflow/_losses.py; these are one-to-one with the C++ functions.

cdef extern from "monoflow/ops_loss.h" namespace "monoflow":
    cdef enum class LossReduction(int64_t):
        pass
    Tensor c_nll_loss "monoflow::nll_loss"(const Tensor& input, const Tensor& target, const Tensor& weight, int64_t ignore_index, LossReduction reduction) except +translate_exception
    Tensor c_cross_entropy "monoflow::cross_entropy"(const Tensor& input, const Tensor& target, const Tensor& weight, int64_t ignore_index, LossReduction reduction, double label_smoothing) except +translate_exception


def loss_nll(input, target, weight, ignore_index, int64_t reduction):
    return wrap(c_nll_loss(_tt(input, "nll_loss", "input"), _tt(target, "nll_loss", "target"),
                           _opt_tt(weight, "nll_loss", "weight"), _int_arg(ignore_index, "nll_loss", "ignore_index"),
                           <LossReduction>reduction))


def loss_cross_entropy(input, target, weight, ignore_index, int64_t reduction, label_smoothing):
    return wrap(c_cross_entropy(_tt(input, "cross_entropy", "input"), _tt(target, "cross_entropy", "target"),
                                _opt_tt(weight, "cross_entropy", "weight"),
                                _int_arg(ignore_index, "cross_entropy", "ignore_index"), <LossReduction>reduction,
                                _float_arg(label_smoothing, "cross_entropy", "label_smoothing")))
