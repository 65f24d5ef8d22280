// Shared machinery of the math kernels (kernels_math_*.cpp): launchers that
// turn a functor into a registered kernel for one operand count.
//
// Functors of unary and binary kernels work on compute types (float for
// half/bfloat16, int32 for bool: docs/kernels.md) so half types round once on
// store; ternary functors get storage values and convert what they need
// (where copies its values untouched). Attributes reach a functor through
// init(task) from Task::ival/fval, in the order of its attr0/attr1 names.
#pragma once

#include <atomic>
#include <cmath>
#include <initializer_list>
#include <string>

#include "dtype.h"
#include "launch.h"
#include "loops.h"
#include "strided.h"

namespace mfcpu {

struct NoAttrs {
  static constexpr const char* attr0 = nullptr;
  static constexpr const char* attr1 = nullptr;
  static constexpr bool kCanDivideByZero = false;
  void init(const Task&) {}
};

// ------------------------------------------------------------ unary: out = f(x)

template <class SO, class SI, class F>
struct MapFn {
  F f;
  // always inlined: a call left in the map loop keeps it scalar (GCC's inline budget runs
  // out in the files with many kernels)
  inline __attribute__((always_inline)) SO operator()(SI x) const {
    return store<SO>(static_cast<compute_t<SO>>(f(load(x))));
  }

  // Contiguous half/bfloat16 input: staged through float blocks (convert16.h).
  template <class I = SI, std::enable_if_t<kStaged16<I>, int> = 0>
  void block(SO* o, const SI* x, int64_t n) const {
    float fx[kStageBlock], fo[kStageBlock];
    for (int64_t i0 = 0; i0 < n; i0 += kStageBlock) {
      const int64_t m = std::min(kStageBlock, n - i0);
      widen(x + i0, fx, m);
      if constexpr (std::is_same<SO, SI>::value) {
        for (int64_t i = 0; i < m; ++i) fo[i] = static_cast<float>(f(fx[i]));
        narrow(fo, o + i0, m);
      } else {
        for (int64_t i = 0; i < m; ++i) o[i0 + i] = store<SO>(static_cast<compute_t<SO>>(f(fx[i])));
      }
    }
  }
};

template <class SO, class SI, class F>
void run_map(Task& task) {
  const size_t sizes[2] = {sizeof(SO), sizeof(SI)};
  const auto g = make_geometry<2>(task.ops, sizes);
  UnaryLoop<SO, SI, MapFn<SO, SI, F>> loop{};
  loop.fn.f.init(task);
  run_loop(g, loop);
}

template <class SO, class SI, class F>
MFStatus launch_map(const MFKernelCall* call) {
  return guarded([&] {
    static constexpr LaunchSpec spec{1, 1, dtype_of<SI>, dtype_of<SO>, {F::attr0, F::attr1}};
    check_call(F::name, call, spec);
    check_same_shapes(F::name, call);
    enqueue_call(F::name, call, spec, &run_map<SO, SI, F>);
    return MF_OK;
  });
}

template <class SO, class SI, class F>
void add_map(Registrar& r) {
  r.add(F::name, dtype_of<SI>, dtype_of<SO>, &launch_map<SO, SI, F>);
}

// ------------------------------------------------------------ binary: out = op(a, b)

// Integer division by zero (remainder, fmod) cannot throw out of an OpenMP
// region: the functor raises this flag, the task fails after the loop.
struct ZeroDivisionFlag : NoAttrs {
  static constexpr bool kCanDivideByZero = true;
  std::atomic<bool>* zero_division = nullptr;
  void raise() const { zero_division->store(true, std::memory_order_relaxed); }
};

template <class S, class Op, class SO>
void run_binary(Task& task) {
  const size_t sizes[3] = {sizeof(SO), sizeof(S), sizeof(S)};
  const auto g = make_geometry<3>(task.ops, sizes);
  std::atomic<bool> zero_division{false};
  BinaryLoop<SO, S, Op> loop{};
  loop.op.init(task);
  if constexpr (Op::kCanDivideByZero) loop.op.zero_division = &zero_division;
  run_loop(g, loop);
  if (zero_division.load(std::memory_order_relaxed))
    fail(MF_ERR_ZERO_DIVISION, std::string(Op::name) + ": integer division by zero");
}

template <class S, class Op, class SO>
MFStatus launch_binary(const MFKernelCall* call) {
  return guarded([&] {
    static constexpr LaunchSpec spec{2, 1, dtype_of<S>, dtype_of<SO>, {Op::attr0, Op::attr1}};
    check_call(Op::name, call, spec);
    check_same_shapes(Op::name, call);
    enqueue_call(Op::name, call, spec, &run_binary<S, Op, SO>);
    return MF_OK;
  });
}

template <class S, class Op, class SO = S>
void add_binary(Registrar& r) {
  r.add(Op::name, dtype_of<S>, dtype_of<SO>, &launch_binary<S, Op, SO>);
}

// ------------------------------------------------------------ ternary: out = op(a, b, c)

template <class SO, class S0, class S1, class S2, class Op>
struct TernaryLoop {
  Op op;
  void operator()(char* const* p, const int64_t* s, int64_t n) const {
    constexpr int64_t so = sizeof(SO), s0 = sizeof(S0), s1 = sizeof(S1), s2 = sizeof(S2);
    SO* o = reinterpret_cast<SO*>(p[0]);
    const S0* a = reinterpret_cast<const S0*>(p[1]);
    const S1* b = reinterpret_cast<const S1*>(p[2]);
    const S2* c = reinterpret_cast<const S2*>(p[3]);
    if (s[0] == so && s[1] == s0 && s[2] == s1 && s[3] == s2) {
      for (int64_t i = 0; i < n; ++i) o[i] = op(a[i], b[i], c[i]);
    } else if (s[0] == so && s[1] == s0 && s[2] == 0 && s[3] == 0) {  // clamp(x, lo, hi) with scalar bounds
      const S1 bv = *b;
      const S2 cv = *c;
      for (int64_t i = 0; i < n; ++i) o[i] = op(a[i], bv, cv);
    } else if (s[0] == so && s[1] == s0 && s[2] == s1 && s[3] == 0) {
      // where(cond, x, 0) (gradients of relu, clamp, ...): vectorised
      // selects; the generic path below branches on every element.
      const S2 cv = *c;
      for (int64_t i = 0; i < n; ++i) o[i] = op(a[i], b[i], cv);
    } else if (s[0] == so && s[1] == s0 && s[2] == 0 && s[3] == s2) {
      const S1 bv = *b;
      for (int64_t i = 0; i < n; ++i) o[i] = op(a[i], bv, c[i]);
    } else {
      for (int64_t i = 0; i < n; ++i)
        at<SO>(p[0], s[0], i) = op(at<const S0>(p[1], s[1], i), at<const S1>(p[2], s[2], i), at<const S2>(p[3], s[3], i));
    }
  }
};

template <class SO, class S0, class S1, class S2, class Op>
void run_ternary(Task& task) {
  const size_t sizes[4] = {sizeof(SO), sizeof(S0), sizeof(S1), sizeof(S2)};
  const auto g = make_geometry<4>(task.ops, sizes);
  TernaryLoop<SO, S0, S1, S2, Op> loop{};
  run_loop(g, loop);
}

// check_call() wants one dtype for all inputs; where's condition is bool.
inline void check_ternary_call(const char* op, const MFKernelCall* call, const int32_t (&in)[3], int32_t out) {
  if (!call || call->struct_size < sizeof(MFKernelCall)) invalid(op, "bad MFKernelCall");
  if (call->device != 0) invalid(op, "no such cpu device");
  if (call->num_inputs != 3 || call->num_outputs != 1) invalid(op, "wrong number of operands");
  for (int i = 0; i < 3; ++i)
    if (call->inputs[i].dtype != in[i]) invalid(op, "input dtype does not match the kernel");
  if (call->outputs[0].dtype != out) invalid(op, "output dtype does not match the kernel");
}

template <class SO, class S0, class S1, class S2, class Op>
MFStatus launch_ternary(const MFKernelCall* call) {
  return guarded([&] {
    static constexpr int32_t in[3] = {dtype_of<S0>, dtype_of<S1>, dtype_of<S2>};
    static constexpr LaunchSpec spec{3, 1, dtype_of<S1>, dtype_of<SO>, {nullptr, nullptr}};
    check_ternary_call(Op::name, call, in, dtype_of<SO>);
    check_same_shapes(Op::name, call);
    enqueue_call(Op::name, call, spec, &run_ternary<SO, S0, S1, S2, Op>);
    return MF_OK;
  });
}

template <class SO, class S0, class S1, class S2, class Op>
void add_ternary(Registrar& r) {
  r.add(Op::name, dtype_of<S1>, dtype_of<SO>, &launch_ternary<SO, S0, S1, S2, Op>);
}

// torch's lerp, in the compute type: exact at both ends, and the branch on
// |weight| keeps the rounding error small over all of [0, 1].
template <class C>
inline C lerp(C start, C end, C weight) {
  return std::abs(weight) < C(0.5) ? start + weight * (end - start) : end - (end - start) * (C(1) - weight);
}

void register_math_unary_kernels(Registrar& r);
void register_math_binary_kernels(Registrar& r);
void register_math_ternary_kernels(Registrar& r);

}  // namespace mfcpu
