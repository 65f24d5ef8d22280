// Optimizer updates (add_alpha, addcmul, addcdiv, sgd_momentum) and random
// numbers (uniform, normal, randint, bernoulli: dropout's masks) for the
// CUDA device; formulas and the Philox stream are the CPU's (kernels.cu).
#include "kernel_args.h"
#include "launch.h"

namespace mfcuda {
namespace {

template <int Op>
MFStatus update(const MFKernelCall* call) noexcept {
  return guarded([&] {
    const char* op = Op == MFC_AXPY ? "add_alpha" : Op == MFC_ADDCMUL ? "addcmul" : Op == MFC_ADDCDIV ? "addcdiv" : "sgd_momentum";
    ElemArgs a;
    Device* d;
    if (Op == MFC_MOMENTUM) {  // outputs p, buf; input g
      d = &check_call(op, call, 1, 2);
      const MFTensorDesc* ops[3] = {&call->outputs[0], &call->outputs[1], &call->inputs[0]};
      if (!pack_elementwise(op, ops, 3, &a)) return MF_OK;
      a.fval[0] = scalar_attr(op, call, "momentum").f;
      a.fval[1] = scalar_attr(op, call, "scale").f;
      a.fval[2] = scalar_attr(op, call, "lr").f;
      a.ival[0] = a.fval[1] == 1.0;  // b + g, not b + 1 * g (the CPU's unit_scale)
    } else {
      d = &check_call(op, call, Op == MFC_AXPY ? 2 : 3, 1);
      if (!pack_call(op, call, &a)) return MF_OK;
      a.fval[0] = scalar_attr(op, call, Op == MFC_AXPY ? "alpha" : "value").f;
    }
    a.op = Op;
    launch(*d, call->stream, kernel_name("update", dtype_suffix(call->outputs[0].dtype)).c_str(), &a, a.numel);
    return MF_OK;
  });
}

template <int Op>
MFStatus random(const MFKernelCall* call) noexcept {
  return guarded([&] {
    const char* op = Op == MFC_UNIFORM ? "uniform" : Op == MFC_NORMAL ? "normal" : Op == MFC_RANDINT ? "randint" : "bernoulli";
    if (!call || call->num_inputs > 1) invalid(op, "takes at most one input");
    Device& d = check_call(op, call, call->num_inputs, 1);
    const MFTensorDesc& out = call->outputs[0];
    if (out.ndim != 1) invalid(op, "output must be 1-D");
    RandomArgs a;
    std::memset(&a, 0, sizeof a);
    a.out = out.data;
    a.n = out.shape[0];
    a.stride = out.strides[0];
    if (call->num_inputs == 1) {
      const MFTensorDesc& p = call->inputs[0];
      if (p.ndim != 1 || p.shape[0] != a.n || p.dtype != out.dtype) invalid(op, "shape mismatch");
      a.p = p.data;
      a.p_stride = p.strides[0];
      a.has_p = 1;
    }
    a.seed = uint64_t(scalar_attr(op, call, "seed").i);
    a.offset = uint64_t(scalar_attr(op, call, "offset").i);
    const char* a2 = Op == MFC_NORMAL ? "mean" : Op == MFC_BERNOULLI ? "p" : "low";
    const char* a3 = Op == MFC_NORMAL ? "std" : Op == MFC_BERNOULLI ? nullptr : "high";
    const MFAttr& x2 = scalar_attr(op, call, a2);
    a.f2 = x2.f, a.ilow = x2.i;
    if (a3) {
      const MFAttr& x3 = scalar_attr(op, call, a3);
      a.f3 = x3.f, a.ihigh = x3.i;
    }
    a.op = Op;
    if (a.n == 0) return MF_OK;
    launch(d, call->stream, kernel_name("random", dtype_suffix(out.dtype)).c_str(), &a, a.n);
    return MF_OK;
  });
}

}  // namespace

void register_update_kernels(const MFHostApi* host) {
  Registrar r(host);
  for (int32_t t = MF_BOOL; t <= MF_FLOAT64; ++t) {
    r.add("randint", t, t, &random<MFC_RANDINT>);
    r.add("bernoulli", t, t, &random<MFC_BERNOULLI>);
    if (!is_floating(t)) continue;
    r.add("uniform", t, t, &random<MFC_UNIFORM>);
    r.add("normal", t, t, &random<MFC_NORMAL>);
    r.add("add_alpha", t, t, &update<MFC_AXPY>);
    r.add("addcmul", t, t, &update<MFC_ADDCMUL>);
    r.add("addcdiv", t, t, &update<MFC_ADDCDIV>);
    r.add("sgd_momentum", t, t, &update<MFC_MOMENTUM>);
  }
  r.done();
}

}  // namespace mfcuda
