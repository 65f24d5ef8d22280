// Complex kernels (complex64, complex128: std::complex<float/double>, the
// interleaved layout of MF_COMPLEX64/128): copy with casts out of complex,
// fill, and the linear elementwise ops (add, sub, neg) that autograd needs to
// accumulate and route complex gradients. The other complex ops are
// composed in Python from real kernels on view_as_real (python/monoflow/_complex.py).
#include <complex>
#include <type_traits>

#include "dtype.h"
#include "launch.h"
#include "loops.h"
#include "strided.h"

namespace mfcpu {

template <>
struct DTypeOf<std::complex<float>> {
  static constexpr MFDType value = MF_COMPLEX64;
};
template <>
struct DTypeOf<std::complex<double>> {
  static constexpr MFDType value = MF_COMPLEX128;
};

namespace {

// complex -> complex converts both parts; complex -> real keeps the real
// part (torch does the same, with a warning the core gives).
template <class SO, class C>
struct FromComplex {
  SO operator()(C x) const {
    if constexpr (std::is_same<SO, std::complex<float>>::value || std::is_same<SO, std::complex<double>>::value)
      return SO(x);
    else
      return cast<SO>(x.real());
  }
};

template <class SO, class C>
void run_copy_from(Task& task) {
  const size_t sizes[2] = {sizeof(SO), sizeof(C)};
  const auto g = make_geometry<2>(task.ops, sizes);
  UnaryLoop<SO, C, FromComplex<SO, C>> loop{};
  run_loop(g, loop);
}

template <class C>
MFStatus launch_copy_from(const MFKernelCall* call) {
  return guarded([&] {
    static constexpr LaunchSpec spec{1, 1, dtype_of<C>, MF_DTYPE_ANY, {nullptr, nullptr}};
    check_call("copy", call, spec);
    check_same_shapes("copy", call);
    Task::Fn fn = nullptr;
    const int32_t out = call->outputs[0].dtype;
    if (out == MF_COMPLEX64) fn = &run_copy_from<std::complex<float>, C>;
    else if (out == MF_COMPLEX128) fn = &run_copy_from<std::complex<double>, C>;
    else dispatch_dtype(out, [&](auto tag) { fn = &run_copy_from<typename decltype(tag)::type, C>; });
    if (!fn) invalid("copy", "unknown output dtype");
    enqueue_call("copy", call, spec, fn);
    return MF_OK;
  });
}

template <class C>
void run_fill(Task& task) {  // a real scalar: the core sends complex values as two fills
  const size_t sizes[1] = {sizeof(C)};
  const auto g = make_geometry<1>(task.ops, sizes);
  FillLoop<C> loop{C(typename C::value_type(task.fval[0]))};
  run_loop(g, loop);
}

template <class C>
MFStatus launch_fill(const MFKernelCall* call) {
  return guarded([&] {
    static constexpr LaunchSpec spec{0, 1, dtype_of<C>, dtype_of<C>, {"value", nullptr}};
    check_call("fill", call, spec);
    enqueue_call("fill", call, spec, &run_fill<C>);
    return MF_OK;
  });
}

struct Add {
  static constexpr bool kCanDivideByZero = false;
  static constexpr const char* name = "add";
  template <class C>
  C operator()(C a, C b) const { return a + b; }
};
struct Sub {
  static constexpr bool kCanDivideByZero = false;
  static constexpr const char* name = "sub";
  template <class C>
  C operator()(C a, C b) const { return a - b; }
};

template <class C, class Op>
void run_binary(Task& task) {
  const size_t sizes[3] = {sizeof(C), sizeof(C), sizeof(C)};
  const auto g = make_geometry<3>(task.ops, sizes);
  BinaryLoop<C, C, Op> loop{};
  run_loop(g, loop);
}

template <class C, class Op>
MFStatus launch_binary(const MFKernelCall* call) {
  return guarded([&] {
    static constexpr LaunchSpec spec{2, 1, dtype_of<C>, dtype_of<C>, {nullptr, nullptr}};
    check_call(Op::name, call, spec);
    check_same_shapes(Op::name, call);
    enqueue_call(Op::name, call, spec, &run_binary<C, Op>);
    return MF_OK;
  });
}

template <class C>
struct NegFn {
  C operator()(C x) const { return -x; }
};

template <class C>
void run_neg(Task& task) {
  const size_t sizes[2] = {sizeof(C), sizeof(C)};
  const auto g = make_geometry<2>(task.ops, sizes);
  UnaryLoop<C, C, NegFn<C>> loop{};
  run_loop(g, loop);
}

template <class C>
MFStatus launch_neg(const MFKernelCall* call) {
  return guarded([&] {
    static constexpr LaunchSpec spec{1, 1, dtype_of<C>, dtype_of<C>, {nullptr, nullptr}};
    check_call("neg", call, spec);
    check_same_shapes("neg", call);
    enqueue_call("neg", call, spec, &run_neg<C>);
    return MF_OK;
  });
}

template <class C>
void register_for(Registrar& r) {
  r.add("copy", dtype_of<C>, MF_DTYPE_ANY, &launch_copy_from<C>);
  r.add("fill", dtype_of<C>, dtype_of<C>, &launch_fill<C>);
  r.add("add", dtype_of<C>, dtype_of<C>, &launch_binary<C, Add>);
  r.add("sub", dtype_of<C>, dtype_of<C>, &launch_binary<C, Sub>);
  r.add("neg", dtype_of<C>, dtype_of<C>, &launch_neg<C>);
}

}  // namespace

void register_complex_kernels(Registrar& r) {
  register_for<std::complex<float>>(r);
  register_for<std::complex<double>>(r);
}

}  // namespace mfcpu
