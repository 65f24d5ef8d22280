// Advanced indexing: `index` (gather: embedding, index_select, gather) and
// `index_put` (scatter, with accumulate: embedding's backward, scatter_add).
// One thread per element of the n iteration dims; accumulation uses atomics,
// so duplicate indices add in an unspecified order (float results may differ
// from the CPU's in the last bits; integers and bool are exact).
#include "kernel_args.h"
#include "launch.h"

namespace mfcuda {
namespace {

// big: the (n + k)-dim tensor (x of index, self of index_put); small: the
// n-dim one (out of index, values of index_put); I: int64 (n + 1 dims).
void pack_index(const char* op, const MFTensorDesc& big, const MFTensorDesc& small, const MFTensorDesc& I,
                IndexArgs* a) {
  std::memset(a, 0, sizeof *a);
  if (I.dtype != MF_INT64) invalid(op, "indices must be int64");
  const int n = small.ndim;
  if (I.ndim != n + 1) invalid(op, "indices must have n + 1 dims");
  const int k = int(I.shape[n]);
  if (big.ndim != n + k) invalid(op, "the indexed tensor must have n + k dims");
  if (n > MFC_MAX_DIMS || k > MFC_MAX_DIMS) fail(MF_ERR_UNSUPPORTED, std::string(op) + ": too many dims");
  a->n = n, a->k = k;
  a->idx = static_cast<const int64_t*>(I.data);
  a->numel = 1;
  for (int d = 0; d < n; ++d) {
    if (big.shape[d] != small.shape[d] || I.shape[d] != small.shape[d]) invalid(op, "operand shapes differ");
    a->shape[d] = small.shape[d];
    a->st_idx[d] = I.strides[d];
    a->numel *= small.shape[d];
  }
  a->st_idx[n] = I.strides[n];
  for (int j = 0; j < k; ++j) a->ix_size[j] = big.shape[n + j], a->ix_stride[j] = big.strides[n + j];
}

MFStatus index(const MFKernelCall* call) noexcept {
  return guarded([&] {
    Device& d = check_call("index", call, 2, 1);
    const MFTensorDesc &x = call->inputs[0], &I = call->inputs[1], &out = call->outputs[0];
    if (x.dtype != out.dtype) invalid("index", "dtype does not match the kernel");
    IndexArgs a;
    pack_index("index", x, out, I, &a);
    a.out = out.data;
    a.x = x.data;
    for (int j = 0; j < a.n; ++j) a.st_out[j] = out.strides[j], a.st_x[j] = x.strides[j];
    launch(d, call->stream, kernel_name("index", size_suffix(dtype_size(x.dtype))).c_str(), &a, a.numel);
    return MF_OK;
  });
}

MFStatus index_put(const MFKernelCall* call) noexcept {
  return guarded([&] {
    Device& d = check_call("index_put", call, 2, 1);
    const MFTensorDesc &values = call->inputs[0], &I = call->inputs[1], &self = call->outputs[0];
    if (values.dtype != self.dtype) invalid("index_put", "dtype does not match the kernel");
    IndexArgs a;
    pack_index("index_put", self, values, I, &a);
    a.out = self.data;
    a.x = values.data;
    // the kernel reads values through st_out and writes self through st_x
    for (int j = 0; j < a.n; ++j) a.st_out[j] = values.strides[j], a.st_x[j] = self.strides[j];
    a.accumulate = scalar_attr("index_put", call, "accumulate").i != 0;
    launch(d, call->stream, kernel_name("index_put", dtype_suffix(self.dtype)).c_str(), &a, a.numel);
    return MF_OK;
  });
}

}  // namespace

void register_index_kernels(const MFHostApi* host) {
  Registrar r(host);
  for (int32_t t = MF_BOOL; t <= MF_FLOAT64; ++t) r.add("index", t, t, &index);
  // index_put: the dtypes CUDA has atomic adds for (others: CPU fallback).
  for (int32_t t : {MF_BOOL, MF_INT32, MF_INT64, MF_FLOAT32, MF_FLOAT64}) r.add("index_put", t, t, &index_put);
  r.done();
}

}  // namespace mfcuda
