// Data movement and creation: copy (with dtype cast), fill, arange.
#include <complex>
#include <type_traits>

#include "dtype.h"
#include "launch.h"
#include "loops.h"
#include "strided.h"

namespace mfcpu {
namespace {

template <class SO, class SI>
struct CastFn {
  SO operator()(SI x) const { return cast<SO>(x); }

  // float <-> half/bfloat16 runs convert a block at a time (convert16.h).
  template <class O = SO, class I = SI, std::enable_if_t<std::is_same<O, float>::value && kStaged16<I>, int> = 0>
  void block(SO* o, const SI* x, int64_t n) const {
    widen(x, o, n);
  }
  template <class O = SO, class I = SI, std::enable_if_t<kStaged16<O> && std::is_same<I, float>::value, long> = 0>
  void block(SO* o, const SI* x, int64_t n) const {
    narrow(x, o, n);
  }
};

template <class SO, class SI>
void run_copy(Task& task) {
  const size_t sizes[2] = {sizeof(SO), sizeof(SI)};
  const auto g = make_geometry<2>(task.ops, sizes);
  UnaryLoop<SO, SI, CastFn<SO, SI>> loop{};
  run_loop(g, loop);
}

// Registered as (x dtype, ANY): the output dtype picks the instantiation here.
template <class SI>
MFStatus launch_copy(const MFKernelCall* call) {
  return guarded([&] {
    static constexpr LaunchSpec spec{1, 1, dtype_of<SI>, MF_DTYPE_ANY, {nullptr, nullptr}};
    check_call("copy", call, spec);
    check_same_shapes("copy", call);
    Task::Fn fn = nullptr;
    const int32_t out = call->outputs[0].dtype;
    if (out == MF_COMPLEX64) fn = &run_copy<std::complex<float>, SI>;  // real part; imag 0
    else if (out == MF_COMPLEX128) fn = &run_copy<std::complex<double>, SI>;
    else dispatch_dtype(out, [&](auto tag) { fn = &run_copy<typename decltype(tag)::type, SI>; });
    if (!fn) invalid("copy", "unknown output dtype");
    enqueue_call("copy", call, spec, fn);
    return MF_OK;
  });
}

// Scalar attributes: integer/bool kernels read `i`, floating ones `f`.
template <class S>
S scalar_value(const Task& task, int k) {
  if constexpr (is_floating_v<S>) return cast<S>(task.fval[k]);
  else return cast<S>(task.ival[k]);
}

template <class S>
void run_fill(Task& task) {
  const size_t sizes[1] = {sizeof(S)};
  const auto g = make_geometry<1>(task.ops, sizes);
  FillLoop<S> loop{scalar_value<S>(task, 0)};
  run_loop(g, loop);
}

template <class S>
MFStatus launch_fill(const MFKernelCall* call) {
  return guarded([&] {
    static constexpr LaunchSpec spec{0, 1, dtype_of<S>, dtype_of<S>, {"value", nullptr}};
    check_call("fill", call, spec);
    enqueue_call("fill", call, spec, &run_fill<S>);
    return MF_OK;
  });
}

// out[i] = start + i * step, in double for floating types (one rounding on
// store) and in wrapping int64 arithmetic for integers.
template <class S>
void run_arange(Task& task) {
  const Operand& out = task.ops[0];
  const int64_t n = out.shape[0];
  const int64_t stride = out.strides[0];
  S* o = reinterpret_cast<S*>(out.data);
  parallel_range(n, 1, [&](int64_t lo, int64_t hi) {
    if constexpr (is_floating_v<S>) {
      const double start = task.fval[0], step = task.fval[1];
      for (int64_t i = lo; i < hi; ++i) o[i * stride] = cast<S>(start + double(i) * step);
    } else {
      const uint64_t start = uint64_t(task.ival[0]), step = uint64_t(task.ival[1]);
      for (int64_t i = lo; i < hi; ++i)
        o[i * stride] = cast<S>(int64_t(start + uint64_t(i) * step));
    }
  });
}

template <class S>
MFStatus launch_arange(const MFKernelCall* call) {
  return guarded([&] {
    static constexpr LaunchSpec spec{0, 1, dtype_of<S>, dtype_of<S>, {"start", "step"}};
    check_call("arange", call, spec);
    if (call->outputs[0].ndim != 1) invalid("arange", "output must be 1-D");
    enqueue_call("arange", call, spec, &run_arange<S>);
    return MF_OK;
  });
}

}  // namespace

void register_copy_kernels(Registrar& r) {
  for_each_dtype([&](auto tag) {
    using S = typename decltype(tag)::type;
    r.add("copy", dtype_of<S>, MF_DTYPE_ANY, &launch_copy<S>);
    // No inputs: fill and arange are keyed by their output dtype.
    r.add("fill", dtype_of<S>, dtype_of<S>, &launch_fill<S>);
    if constexpr (!std::is_same<S, boolean>::value)
      r.add("arange", dtype_of<S>, dtype_of<S>, &launch_arange<S>);
  });
}

}  // namespace mfcpu
