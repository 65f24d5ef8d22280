// Pooling (docs/kernels/nn.md): max/avg with windows, their backward, and
// the adaptive forms, float32/float64 on contiguous planes [P, H, W].
#include "kernel_args.h"
#include "launch.h"

namespace mfcuda {
namespace {

void read_pair(const char* op, const MFKernelCall* call, const char* name, int64_t out[2]) {
  const MFAttr* a = find_attr(call, name);
  if (a && a->kind == MF_ATTR_SCALAR) out[0] = out[1] = a->i;
  else if (a && a->kind == MF_ATTR_INTS && a->count == 2 && a->ints) out[0] = a->ints[0], out[1] = a->ints[1];
  else invalid(op, std::string("bad or missing attribute '") + name + "'");
}

bool dense(const MFTensorDesc& d) {
  int64_t s = 1;
  for (int32_t k = d.ndim - 1; k >= 0; --k) {
    if (d.shape[k] != 1 && d.strides[k] != s) return false;
    s *= d.shape[k];
  }
  return true;
}

template <int Op>
MFStatus pool(const MFKernelCall* call) noexcept {
  static constexpr const char* names[] = {"max_pool2d", "max_pool2d_backward", "avg_pool2d", "avg_pool2d_backward",
                                          "adaptive_avg_pool2d", "adaptive_avg_pool2d_backward", "adaptive_max_pool2d"};
  const char* op = names[Op];
  return guarded([&] {
    const bool two_out = Op == MFC_MAX_POOL || Op == MFC_AD_MAX;
    const bool backward = Op == MFC_MAX_POOL_BACK || Op == MFC_AVG_POOL_BACK || Op == MFC_AD_AVG_BACK;
    Device& d = check_call(op, call, Op == MFC_MAX_POOL_BACK ? 2 : 1, two_out ? 2 : 1);
    const MFTensorDesc& in = backward ? call->outputs[0] : call->inputs[0];   // the input side (x or gx)
    const MFTensorDesc& out = backward ? call->inputs[0] : call->outputs[0];  // the output side (y or gy)
    const MFTensorDesc* idx = two_out ? &call->outputs[1] : Op == MFC_MAX_POOL_BACK ? &call->inputs[1] : nullptr;
    for (int i = 0; i < call->num_inputs; ++i)
      if (!dense(call->inputs[i])) invalid(op, "operands must be contiguous");
    for (int i = 0; i < call->num_outputs; ++i)
      if (!dense(call->outputs[i])) invalid(op, "operands must be contiguous");
    if (in.ndim < 2 || in.ndim != out.ndim) invalid(op, "operands must be planes of one rank");
    if (idx && (idx->dtype != MF_INT64 || idx->ndim != out.ndim)) invalid(op, "indices must be int64 of the output's shape");
    PoolArgs a;
    std::memset(&a, 0, sizeof a);
    a.P = 1;
    for (int k = 0; k + 2 < in.ndim; ++k) {
      if (in.shape[k] != out.shape[k]) invalid(op, "leading dims differ");
      a.P *= in.shape[k];
    }
    a.H = in.shape[in.ndim - 2], a.W = in.shape[in.ndim - 1];
    a.OH = out.shape[out.ndim - 2], a.OW = out.shape[out.ndim - 1];
    a.x = in.data, a.y = out.data, a.idx = idx ? static_cast<int64_t*>(idx->data) : nullptr;
    a.op = Op;
    a.dh = a.dw = 1;
    if (Op == MFC_MAX_POOL || Op == MFC_AVG_POOL || Op == MFC_AVG_POOL_BACK) {
      int64_t ks[2], st[2], pd[2];
      read_pair(op, call, "kernel_size", ks);
      read_pair(op, call, "stride", st);
      read_pair(op, call, "padding", pd);
      a.kh = ks[0], a.kw = ks[1], a.sh = st[0], a.sw = st[1], a.ph = pd[0], a.pw = pd[1];
      if (Op == MFC_MAX_POOL) {
        int64_t dl[2];
        read_pair(op, call, "dilation", dl);
        a.dh = dl[0], a.dw = dl[1];
      } else {
        a.include_pad = scalar_attr(op, call, "count_include_pad").i != 0;
        a.divisor = scalar_attr(op, call, "divisor_override").i;
      }
      if (a.kh < 1 || a.kw < 1 || a.sh < 1 || a.sw < 1 || a.ph < 0 || a.pw < 0 || a.dh < 1 || a.dw < 1 || a.divisor < 0)
        invalid(op, "bad window");
    }
    if ((Op == MFC_AD_AVG || Op == MFC_AD_MAX) && (a.H == 0 || a.W == 0)) invalid(op, "empty input planes");
    const int32_t dt = in.dtype;
    if (dt != MF_FLOAT32 && dt != MF_FLOAT64) invalid(op, "float32 and float64 only");
    const int64_t IL = a.H * a.W, OL = a.OH * a.OW;
    if (Op == MFC_MAX_POOL_BACK) {
      const size_t bytes = size_t(a.P * IL) * (dt == MF_FLOAT64 ? 8 : 4);
      if (bytes)
        check(driver().cuMemsetD8Async(reinterpret_cast<CUdeviceptr>(in.data), 0, bytes, native(call->stream)),
              "cuMemsetD8Async");
    }
    launch(d, call->stream, kernel_name("pool", dtype_suffix(dt)).c_str(), &a,
           a.P * ((Op == MFC_AVG_POOL_BACK || Op == MFC_AD_AVG_BACK) ? IL : OL));
    return MF_OK;
  });
}

}  // namespace

void register_pool_kernels(const MFHostApi* host) {
  Registrar r(host);
  for (int32_t t : {MF_FLOAT32, MF_FLOAT64}) {
    r.add("max_pool2d", t, t, &pool<MFC_MAX_POOL>);
    r.add("max_pool2d_backward", t, t, &pool<MFC_MAX_POOL_BACK>);
    r.add("avg_pool2d", t, t, &pool<MFC_AVG_POOL>);
    r.add("avg_pool2d_backward", t, t, &pool<MFC_AVG_POOL_BACK>);
    r.add("adaptive_avg_pool2d", t, t, &pool<MFC_AD_AVG>);
    r.add("adaptive_avg_pool2d_backward", t, t, &pool<MFC_AD_AVG_BACK>);
    r.add("adaptive_max_pool2d", t, t, &pool<MFC_AD_MAX>);
  }
  r.done();
}

}  // namespace mfcuda
