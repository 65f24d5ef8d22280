// Reductions (sum, mean, amax/amin, max/min with indices, var/std) and the
// row ops softmax/log_softmax: one CUDA block per output element (per row),
// its threads striding over the reduced elements and combining in shared
// memory (kernels.cu). Floating sums accumulate in double, integer ones wrap
// in 64 bits, as on the CPU; the order of additions differs, so float32
// results agree with the CPU's to rounding, not bit for bit.
#include "kernel_args.h"
#include "launch.h"

namespace mfcuda {
namespace {

// Splits x's dims into kept (out's size equals x's) and reduced (out's is 1,
// x's is not). A dim of size 1 in both is dropped.
void pack_reduce(const char* op, const MFTensorDesc& x, const MFTensorDesc& out, const MFTensorDesc* out2,
                 ReduceArgs* a) {
  std::memset(a, 0, sizeof *a);
  if (x.ndim != out.ndim || (out2 && out2->ndim != out.ndim)) invalid(op, "out must keep x's rank");
  a->x = x.data;
  a->out = out.data;
  a->out2 = out2 ? out2->data : nullptr;
  a->num_out = 1;
  a->num_red = 1;
  for (int32_t d = 0; d < x.ndim; ++d) {
    if (x.shape[d] == out.shape[d]) {
      if (x.shape[d] == 1) continue;
      if (a->kept_ndim == MFC_MAX_DIMS) fail(MF_ERR_UNSUPPORTED, std::string(op) + ": too many dims");
      const int k = a->kept_ndim++;
      a->kept_shape[k] = x.shape[d];
      a->kept_x[k] = x.strides[d];
      a->kept_out[k] = out.strides[d];
      a->kept_out2[k] = out2 ? out2->strides[d] : 0;
      a->num_out *= x.shape[d];
    } else if (out.shape[d] == 1) {
      if (a->red_ndim == MFC_MAX_DIMS) fail(MF_ERR_UNSUPPORTED, std::string(op) + ": too many reduced dims");
      const int k = a->red_ndim++;
      a->red_shape[k] = x.shape[d];
      a->red_x[k] = x.strides[d];
      a->num_red *= x.shape[d];
    } else {
      invalid(op, "out's dims must be x's or 1");
    }
  }
}

template <int Op>
MFStatus reduce(const MFKernelCall* call) noexcept {
  return guarded([&] {
    const char* op = "reduction";
    const bool with_indices = Op == MFC_MAX || Op == MFC_MIN;
    Device& d = check_call(op, call, 1, with_indices ? 2 : 1);
    const MFTensorDesc& x = call->inputs[0];
    ReduceArgs a;
    pack_reduce(op, x, call->outputs[0], with_indices ? &call->outputs[1] : nullptr, &a);
    if (with_indices && a.red_ndim > 1) invalid(op, "max/min reduce at most one dim");
    a.op = Op;
    if (Op == MFC_VAR || Op == MFC_STD) a.fval = scalar_attr("var", call, "correction").f;
    launch_rows(d, call->stream, kernel_name("reduce", dtype_suffix(x.dtype)).c_str(), &a, a.num_out);
    return MF_OK;
  });
}

template <int Op>
MFStatus softmax(const MFKernelCall* call) noexcept {
  return guarded([&] {
    Device& d = check_call("softmax", call, 1, 1);
    const MFTensorDesc &x = call->inputs[0], &out = call->outputs[0];
    if (x.ndim != out.ndim) invalid("softmax", "out must have x's shape");
    ReduceArgs a;
    std::memset(&a, 0, sizeof a);
    a.x = x.data;
    a.out = out.data;
    a.op = Op;
    a.num_out = 1;
    for (int32_t k = 0; k + 1 < x.ndim; ++k) {
      if (x.shape[k] != out.shape[k]) invalid("softmax", "out must have x's shape");
      if (x.shape[k] == 1) continue;
      if (a.kept_ndim == MFC_MAX_DIMS) fail(MF_ERR_UNSUPPORTED, "softmax: too many dims");
      const int j = a.kept_ndim++;
      a.kept_shape[j] = x.shape[k];
      a.kept_x[j] = x.strides[k];
      a.kept_out[j] = out.strides[k];
      a.num_out *= x.shape[k];
    }
    a.red_ndim = 1;
    a.red_shape[0] = x.ndim ? x.shape[x.ndim - 1] : 1;
    a.red_x[0] = x.ndim ? x.strides[x.ndim - 1] : 0;
    a.red_out[0] = out.ndim ? out.strides[out.ndim - 1] : 0;
    a.num_red = a.red_shape[0];
    if (a.num_red == 0) return MF_OK;
    launch_rows(d, call->stream, kernel_name("softmax", dtype_suffix(x.dtype)).c_str(), &a, a.num_out);
    return MF_OK;
  });
}

}  // namespace

void register_reduce_kernels(const MFHostApi* host) {
  Registrar r(host);
  for (int32_t t = MF_BOOL; t <= MF_FLOAT64; ++t) {
    const bool fp = is_floating(t);
    r.add("sum", t, fp ? t : MF_INT64, &reduce<MFC_SUM>);
    r.add("amax", t, t, &reduce<MFC_AMAX>);
    r.add("amin", t, t, &reduce<MFC_AMIN>);
    r.add("max", t, t, &reduce<MFC_MAX>);
    r.add("min", t, t, &reduce<MFC_MIN>);
    r.add("all", t, MF_BOOL, &reduce<MFC_ALL>);
    r.add("any", t, MF_BOOL, &reduce<MFC_ANY>);
    if (fp) {
      r.add("mean", t, t, &reduce<MFC_MEAN>);
      r.add("var", t, t, &reduce<MFC_VAR>);
      r.add("std", t, t, &reduce<MFC_STD>);
      r.add("softmax", t, t, &softmax<MFC_SOFTMAX>);
      r.add("log_softmax", t, t, &softmax<MFC_LOG_SOFTMAX>);
    }
  }
  r.done();
}

}  // namespace mfcuda
