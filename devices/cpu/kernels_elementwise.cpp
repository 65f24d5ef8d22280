// Elementwise arithmetic: binary ops, their scalar forms, comparisons, neg.
// Every op is a small functor on compute types (float for half/bfloat16,
// int32 for bool); templates instantiate one kernel per (op, dtype).
#include <atomic>
#include <cmath>
#include <type_traits>

#include "dtype.h"
#include "launch.h"
#include "loops.h"
#include "strided.h"

namespace mfcpu {
namespace {

template <class C>
using W = wrap_t<C>;

struct OpBase {
  static constexpr bool kCanDivideByZero = false;
};

struct Add : OpBase {
  static constexpr const char* name = "add";
  template <class C>
  C operator()(C a, C b) const {
    if constexpr (std::is_integral<C>::value) return C(W<C>(a) + W<C>(b));
    else return a + b;
  }
};
struct Sub : OpBase {
  static constexpr const char* name = "sub";
  template <class C>
  C operator()(C a, C b) const {
    if constexpr (std::is_integral<C>::value) return C(W<C>(a) - W<C>(b));
    else return a - b;
  }
};
struct Mul : OpBase {
  static constexpr const char* name = "mul";
  template <class C>
  C operator()(C a, C b) const {
    if constexpr (std::is_integral<C>::value) return C(W<C>(a) * W<C>(b));
    else return a * b;
  }
};
struct Div : OpBase {  // floating only
  static constexpr const char* name = "div";
  template <class C>
  C operator()(C a, C b) const {
    return a / b;
  }
};
// NaN-propagating like numpy (a != a is false for integers and folds away).
struct Maximum : OpBase {
  static constexpr const char* name = "maximum";
  template <class C>
  C operator()(C a, C b) const {
    return (a >= b || a != a) ? a : b;
  }
};
struct Minimum : OpBase {
  static constexpr const char* name = "minimum";
  template <class C>
  C operator()(C a, C b) const {
    return (a <= b || a != a) ? a : b;
  }
};

// Python/numpy semantics: rounds toward -inf. Integer division by zero writes
// 0 and raises a flag the task turns into MF_ERR_ZERO_DIVISION (throwing out
// of an OpenMP region is not allowed).
struct FloorDivide {
  static constexpr const char* name = "floor_divide";
  static constexpr bool kCanDivideByZero = true;
  std::atomic<bool>* zero_division = nullptr;

  template <class C>
  C operator()(C a, C b) const {
    if constexpr (std::is_integral<C>::value) {
      if (b == 0) {
        zero_division->store(true, std::memory_order_relaxed);
        return 0;
      }
      if constexpr (std::is_signed<C>::value) {
        if (b == -1) return C(W<C>(0) - W<C>(a));  // MIN / -1 wraps instead of trapping
        C q = C(a / b);
        if (a % b != 0 && ((a < 0) != (b < 0))) --q;
        return q;
      } else {
        return C(a / b);
      }
    } else {  // numpy's npy_floor_divide / npy_divmod
      if (b == 0) return a / b;
      const C mod = std::fmod(a, b);
      C div = (a - mod) / b;
      if (mod != 0 && ((b < 0) != (mod < 0))) div -= C(1);
      if (div != 0) {
        C floordiv = std::floor(div);
        if (div - floordiv > C(0.5)) floordiv += C(1);
        return floordiv;
      }
      return std::copysign(C(0), a / b);
    }
  }
};

struct Eq : OpBase {
  static constexpr const char* name = "eq";
  template <class C>
  bool operator()(C a, C b) const {
    return a == b;
  }
};
struct Ne : OpBase {
  static constexpr const char* name = "ne";
  template <class C>
  bool operator()(C a, C b) const {
    return a != b;
  }
};
struct Lt : OpBase {
  static constexpr const char* name = "lt";
  template <class C>
  bool operator()(C a, C b) const {
    return a < b;
  }
};
struct Le : OpBase {
  static constexpr const char* name = "le";
  template <class C>
  bool operator()(C a, C b) const {
    return a <= b;
  }
};
struct Gt : OpBase {
  static constexpr const char* name = "gt";
  template <class C>
  bool operator()(C a, C b) const {
    return a > b;
  }
};
struct Ge : OpBase {
  static constexpr const char* name = "ge";
  template <class C>
  bool operator()(C a, C b) const {
    return a >= b;
  }
};

// ------------------------------------------------------------ binary

template <class S, class Op, class SO>
void run_binary(Task& task) {
  const size_t sizes[3] = {sizeof(SO), sizeof(S), sizeof(S)};
  const auto g = make_geometry<3>(task.ops, sizes);
  std::atomic<bool> zero_division{false};
  BinaryLoop<SO, S, Op> loop{};
  if constexpr (Op::kCanDivideByZero) loop.op.zero_division = &zero_division;
  run_loop(g, loop);
  if (zero_division.load(std::memory_order_relaxed))
    fail(MF_ERR_ZERO_DIVISION, "floor_divide: integer division by zero");
}

template <class S, class Op, class SO>
MFStatus launch_binary(const MFKernelCall* call) {
  return guarded([&] {
    static constexpr LaunchSpec spec{2, 1, dtype_of<S>, dtype_of<SO>, {nullptr, nullptr}};
    check_call(Op::name, call, spec);
    check_same_shapes(Op::name, call);
    enqueue_call(Op::name, call, spec, &run_binary<S, Op, SO>);
    return MF_OK;
  });
}

// ------------------------------------------------------------ scalar and unary

// Maps storage -> storage through the compute type, with the scalar (if any)
// already converted to the compute type so half ops round only once.
template <class S, class Op, bool kScalarOnLeft>
struct ScalarFn {
  Op op;
  compute_t<S> scalar;
  S operator()(S x) const {
    return store<S>(kScalarOnLeft ? op(scalar, load(x)) : op(load(x), scalar));
  }
};

template <class S>
compute_t<S> scalar_attr(const Task& task) {
  using C = compute_t<S>;
  if constexpr (is_floating_v<S>) return C(task.fval[0]);
  else if constexpr (std::is_same<S, boolean>::value) return C(task.ival[0] != 0);
  else return C(task.ival[0]);  // wraps like integer arithmetic
}

template <class S, class Op, bool kScalarOnLeft>
void run_scalar(Task& task) {
  const size_t sizes[2] = {sizeof(S), sizeof(S)};
  const auto g = make_geometry<2>(task.ops, sizes);
  UnaryLoop<S, S, ScalarFn<S, Op, kScalarOnLeft>> loop{{Op{}, scalar_attr<S>(task)}};
  run_loop(g, loop);
}

template <class S, class Op, bool kScalarOnLeft>
MFStatus launch_scalar(const MFKernelCall* call) {
  return guarded([&] {
    static constexpr LaunchSpec spec{1, 1, dtype_of<S>, dtype_of<S>, {"other", nullptr}};
    check_call(Op::name, call, spec);
    check_same_shapes(Op::name, call);
    enqueue_call(Op::name, call, spec, &run_scalar<S, Op, kScalarOnLeft>);
    return MF_OK;
  });
}

template <class S>
struct NegFn {
  S operator()(S x) const {
    using C = compute_t<S>;
    if constexpr (std::is_integral<C>::value) return store<S>(C(W<C>(0) - W<C>(load(x))));
    else return store<S>(-load(x));
  }
};

template <class S>
void run_neg(Task& task) {
  const size_t sizes[2] = {sizeof(S), sizeof(S)};
  const auto g = make_geometry<2>(task.ops, sizes);
  UnaryLoop<S, S, NegFn<S>> loop{};
  run_loop(g, loop);
}

template <class S>
MFStatus launch_neg(const MFKernelCall* call) {
  return guarded([&] {
    static constexpr LaunchSpec spec{1, 1, dtype_of<S>, dtype_of<S>, {nullptr, nullptr}};
    check_call("neg", call, spec);
    check_same_shapes("neg", call);
    enqueue_call("neg", call, spec, &run_neg<S>);
    return MF_OK;
  });
}

// ------------------------------------------------------------ registration

template <class S, class Op>
void add_binary(Registrar& r) {
  r.add(Op::name, dtype_of<S>, dtype_of<S>, &launch_binary<S, Op, S>);
}
template <class S, class Op>
void add_compare(Registrar& r) {
  r.add(Op::name, dtype_of<S>, MF_BOOL, &launch_binary<S, Op, boolean>);
}
template <class S, class Op, bool kLeft>
void add_scalar(Registrar& r, const char* name) {
  r.add(name, dtype_of<S>, dtype_of<S>, &launch_scalar<S, Op, kLeft>);
}

}  // namespace

void register_elementwise_kernels(Registrar& r) {
  for_each_dtype([&](auto tag) {
    using S = typename decltype(tag)::type;
    add_binary<S, Add>(r);
    add_binary<S, Sub>(r);
    add_binary<S, Mul>(r);
    add_binary<S, Maximum>(r);
    add_binary<S, Minimum>(r);
    add_compare<S, Eq>(r);
    add_compare<S, Ne>(r);
    add_compare<S, Lt>(r);
    add_compare<S, Le>(r);
    add_compare<S, Gt>(r);
    add_compare<S, Ge>(r);
    add_scalar<S, Add, false>(r, "add_scalar");
    add_scalar<S, Sub, false>(r, "sub_scalar");
    add_scalar<S, Sub, true>(r, "rsub_scalar");
    add_scalar<S, Mul, false>(r, "mul_scalar");
    if constexpr (!std::is_same<S, boolean>::value) {
      add_binary<S, FloorDivide>(r);
      r.add("neg", dtype_of<S>, dtype_of<S>, &launch_neg<S>);
    }
    if constexpr (is_floating_v<S>) {
      add_binary<S, Div>(r);
      add_scalar<S, Div, false>(r, "div_scalar");
      add_scalar<S, Div, true>(r, "rdiv_scalar");
    }
  });
}

}  // namespace mfcpu
