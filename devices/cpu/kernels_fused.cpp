// Fused elementwise updates for the optimizers: add_alpha (a + alpha * b),
// addcmul (x + value * a * b) and addcdiv (x + value * a / b), floating
// dtypes only. Operands arrive broadcast to the output's shape with one
// dtype; the scalar is a double attribute, rounded once to the compute type
// (float for half/bfloat16), and products are evaluated left to right as in
// torch: (value * a) * b and (value * a) / b. sgd_momentum is SGD's
// momentum step in one pass. Contiguous float/double runs
// use the wide loops of Note [Wide contiguous loops].
#include "dtype.h"
#include "launch.h"
#include "loops.h"
#include "strided.h"

namespace mfcpu {
namespace {

// out = a + alpha * b
template <class S>
struct AxpyOp {
  static constexpr bool kCanDivideByZero = false;
  compute_t<S> alpha;
  compute_t<S> operator()(compute_t<S> a, compute_t<S> b) const { return a + alpha * b; }
};

// out = x + value * a (op) b
template <class S, bool kDiv>
struct AddcOp {
  compute_t<S> value;
  S operator()(S x, S a, S b) const {
    if constexpr (kDiv) return store<S>(load(x) + value * load(a) / load(b));
    else return store<S>(load(x) + value * load(a) * load(b));
  }
};

template <class S, class Op>
MFCPU_SIMD_CLONES void addc_contig_wide(S* o, const S* x, const S* a, const S* b, int64_t n, const Op& op) {
  for (int64_t i = 0; i < n; ++i) o[i] = op(x[i], a[i], b[i]);
}

template <class S, class Op>
struct AddcLoop {
  Op op;
  void operator()(char* const* p, const int64_t* s, int64_t n) const {
    constexpr int64_t e = sizeof(S);
    if (s[0] == e && s[1] == e && s[2] == e && s[3] == e) {
      S* o = reinterpret_cast<S*>(p[0]);
      const S* x = reinterpret_cast<const S*>(p[1]);
      const S* a = reinterpret_cast<const S*>(p[2]);
      const S* b = reinterpret_cast<const S*>(p[3]);
      if constexpr (kWideLoop<S>) addc_contig_wide(o, x, a, b, n, op);
      else for (int64_t i = 0; i < n; ++i) o[i] = op(x[i], a[i], b[i]);
    } else {
      for (int64_t i = 0; i < n; ++i)
        at<S>(p[0], s[0], i) = op(at<const S>(p[1], s[1], i), at<const S>(p[2], s[2], i), at<const S>(p[3], s[3], i));
    }
  }
};

template <class S>
void run_add_alpha(Task& task) {
  const size_t sizes[3] = {sizeof(S), sizeof(S), sizeof(S)};
  const auto g = make_geometry<3>(task.ops, sizes);
  BinaryLoop<S, S, AxpyOp<S>> loop{{compute_t<S>(task.fval[0])}};
  run_loop(g, loop);
}

template <class S, bool kDiv>
void run_addc(Task& task) {
  const size_t sizes[4] = {sizeof(S), sizeof(S), sizeof(S), sizeof(S)};
  const auto g = make_geometry<4>(task.ops, sizes);
  AddcLoop<S, AddcOp<S, kDiv>> loop{{compute_t<S>(task.fval[0])}};
  run_loop(g, loop);
}

template <class S>
MFStatus launch_add_alpha(const MFKernelCall* call) {
  return guarded([&] {
    static constexpr LaunchSpec spec{2, 1, dtype_of<S>, dtype_of<S>, {"alpha", nullptr}};
    check_call("add_alpha", call, spec);
    check_same_shapes("add_alpha", call);
    enqueue_call("add_alpha", call, spec, &run_add_alpha<S>);
    return MF_OK;
  });
}

template <class S, bool kDiv>
MFStatus launch_addc(const MFKernelCall* call) {
  return guarded([&] {
    constexpr const char* name = kDiv ? "addcdiv" : "addcmul";
    static constexpr LaunchSpec spec{3, 1, dtype_of<S>, dtype_of<S>, {"value", nullptr}};
    check_call(name, call, spec);
    check_same_shapes(name, call);
    enqueue_call(name, call, spec, &run_addc<S, kDiv>);
    return MF_OK;
  });
}

// SGD momentum, in place: ops are p, buf (outputs) and g. Rounded as the
// chain buf.mul_(m).add_(g, alpha=scale); p.add_(buf, alpha=-lr).
template <class S>
struct MomentumOp {
  compute_t<S> momentum, scale, neg_lr;
  bool unit_scale;
  void operator()(S& p, S& buf, S g) const {
    compute_t<S> b = store_round(load(buf) * momentum);
    b = unit_scale ? b + load(g) : b + scale * load(g);
    buf = store<S>(b);
    p = store<S>(load(p) + neg_lr * load(buf));
  }
  // half types round to storage between the chain's steps, as three kernels would
  static compute_t<S> store_round(compute_t<S> v) { return load(store<S>(v)); }
};

template <class S>
MFCPU_SIMD_CLONES void momentum_contig_wide(S* p, S* buf, const S* g, int64_t n, const MomentumOp<S>& op) {
  for (int64_t i = 0; i < n; ++i) op(p[i], buf[i], g[i]);
}

template <class S>
struct MomentumLoop {
  MomentumOp<S> op;
  void operator()(char* const* ptr, const int64_t* s, int64_t n) const {
    constexpr int64_t e = sizeof(S);
    if (s[0] == e && s[1] == e && s[2] == e) {
      S* p = reinterpret_cast<S*>(ptr[0]);
      S* buf = reinterpret_cast<S*>(ptr[1]);
      const S* g = reinterpret_cast<const S*>(ptr[2]);
      if constexpr (kWideLoop<S>) momentum_contig_wide(p, buf, g, n, op);
      else for (int64_t i = 0; i < n; ++i) op(p[i], buf[i], g[i]);
    } else {
      for (int64_t i = 0; i < n; ++i) op(at<S>(ptr[0], s[0], i), at<S>(ptr[1], s[1], i), at<const S>(ptr[2], s[2], i));
    }
  }
};

template <class S>
void run_momentum(Task& task) {
  const size_t sizes[3] = {sizeof(S), sizeof(S), sizeof(S)};
  const auto g = make_geometry<3>(task.ops, sizes);
  using C = compute_t<S>;
  MomentumLoop<S> loop{{C(task.fval[0]), C(task.fval[1]), C(-task.fval[2]), task.fval[1] == 1.0}};
  run_loop(g, loop);
}

template <class S>
MFStatus launch_momentum(const MFKernelCall* call) {
  return guarded([&] {
    static constexpr LaunchSpec spec{1, 2, dtype_of<S>, dtype_of<S>, {"momentum", "scale", "lr", nullptr}};
    check_call("sgd_momentum", call, spec);
    check_same_shapes("sgd_momentum", call);
    if (!same_shape(call->outputs[0], call->outputs[1])) invalid("sgd_momentum", "operand shapes differ");
    enqueue_call("sgd_momentum", call, spec, &run_momentum<S>);
    return MF_OK;
  });
}

}  // namespace

void register_fused_kernels(Registrar& r) {
  for_each_dtype([&](auto tag) {
    using S = typename decltype(tag)::type;
    if constexpr (is_floating_v<S>) {
      r.add("add_alpha", dtype_of<S>, dtype_of<S>, &launch_add_alpha<S>);
      r.add("addcmul", dtype_of<S>, dtype_of<S>, &launch_addc<S, false>);
      r.add("addcdiv", dtype_of<S>, dtype_of<S>, &launch_addc<S, true>);
      r.add("sgd_momentum", dtype_of<S>, dtype_of<S>, &launch_momentum<S>);
    }
  });
}

}  // namespace mfcpu
