#include "launch.h"

#include <cmath>

namespace mfcuda {

Device& check_call(const char* op, const MFKernelCall* call, int num_inputs, int num_outputs) {
  if (!call || call->struct_size < offsetof(MFKernelCall, attrs) + sizeof(call->attrs)) invalid(op, "bad MFKernelCall");
  if (call->num_inputs != num_inputs || call->num_outputs != num_outputs) invalid(op, "wrong number of operands");
  for (int i = 0; i < num_inputs; ++i)
    if (call->inputs[i].ndim > 0 && (!call->inputs[i].shape || !call->inputs[i].strides)) invalid(op, "bad operand");
  return device(call->device);
}

bool pack_elementwise(const char* op, const MFTensorDesc* const* ops, int n, ElemArgs* a) {
  std::memset(a, 0, sizeof *a);
  if (n > MFC_MAX_OPS) invalid(op, "too many operands");
  const MFTensorDesc& out = *ops[0];
  for (int k = 1; k < n; ++k) {
    if (ops[k]->ndim != out.ndim) invalid(op, "operand shapes differ");
    for (int32_t d = 0; d < out.ndim; ++d)
      if (ops[k]->shape[d] != out.shape[d]) invalid(op, "operand shapes differ");
  }
  a->nops = n;
  for (int k = 0; k < n; ++k) a->ptr[k] = ops[k]->data;
  int64_t numel = 1;
  for (int32_t d = 0; d < out.ndim; ++d) numel *= out.shape[d];
  a->numel = numel;
  if (numel == 0) return false;
  // Coalesce from the innermost dim outwards.
  int64_t shape[64];
  int64_t strides[MFC_MAX_OPS][64];
  int nd = 0;
  for (int32_t d = out.ndim - 1; d >= 0; --d) {
    if (out.shape[d] == 1) continue;
    if (nd > 0) {
      bool merge = true;
      for (int k = 0; k < n && merge; ++k)
        merge = ops[k]->strides[d] == strides[k][nd - 1] * shape[nd - 1];
      if (merge) {
        shape[nd - 1] *= out.shape[d];
        continue;
      }
    }
    if (nd == 64) fail(MF_ERR_UNSUPPORTED, std::string(op) + ": too many dims");
    shape[nd] = out.shape[d];
    for (int k = 0; k < n; ++k) strides[k][nd] = ops[k]->strides[d];
    ++nd;
  }
  if (nd > MFC_MAX_DIMS)
    fail(MF_ERR_UNSUPPORTED, std::string(op) + ": more than " + std::to_string(MFC_MAX_DIMS) + " non-mergeable dims");
  a->ndim = nd;  // stored outermost first
  bool contiguous = nd <= 1;
  for (int i = 0; i < nd; ++i) {
    a->shape[i] = shape[nd - 1 - i];
    for (int k = 0; k < n; ++k) {
      a->strides[k][i] = strides[k][nd - 1 - i];
      if (nd == 1 && a->strides[k][i] != 1) contiguous = false;
    }
  }
  if (nd == 0) {  // one element
    a->ndim = 1;
    a->shape[0] = 1;
  }
  a->contiguous = contiguous ? 1 : 0;
  return true;
}

bool pack_call(const char* op, const MFKernelCall* call, ElemArgs* a) {
  const MFTensorDesc* ops[MFC_MAX_OPS];
  const int n = 1 + call->num_inputs;
  if (n > MFC_MAX_OPS) invalid(op, "too many operands");
  ops[0] = &call->outputs[0];
  for (int i = 0; i < call->num_inputs; ++i) ops[1 + i] = &call->inputs[i];
  return pack_elementwise(op, ops, n, a);
}

namespace {
uint32_t float_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
// Round to nearest even, NaN stays quiet, overflow to inf.
uint16_t to_half(float f) {
  const uint32_t x = float_bits(f);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t ax = x & 0x7fffffffu;
  if (ax > 0x7f800000u) return uint16_t(sign | 0x7e00u);
  if (ax >= 0x477ff000u) return uint16_t(sign | 0x7c00u);  // >= 65520: inf
  if (ax < 0x38800000u) {                                   // subnormal half (or zero)
    const float scaled = std::fabs(f) * 16777216.0f;          // units of 2^-24, exact
    return uint16_t(sign | uint32_t(std::nearbyint(scaled)));
  }
  const uint32_t mant = ax & 0x7fffffu;
  uint32_t h = ((ax >> 23) - 112) << 10 | (mant >> 13);
  const uint32_t rest = mant & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;  // carries into the exponent correctly
  return uint16_t(sign | h);
}
uint16_t to_bfloat16(float f) {
  const uint32_t x = float_bits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return uint16_t((x >> 16) | 0x40u);
  return uint16_t((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}
}  // namespace

int64_t scalar_bits(int32_t dtype, const MFAttr& a) {
  int64_t bits = 0;
  auto put = [&](auto v) { std::memcpy(&bits, &v, sizeof v); };
  switch (dtype) {
    case MF_BOOL: put(uint8_t(a.i != 0)); break;
    case MF_UINT8: put(uint8_t(a.i)); break;
    case MF_INT8: put(int8_t(a.i)); break;
    case MF_INT16: put(int16_t(a.i)); break;
    case MF_INT32: put(int32_t(a.i)); break;
    case MF_INT64: put(int64_t(a.i)); break;
    case MF_FLOAT16: put(to_half(float(a.f))); break;
    case MF_BFLOAT16: put(to_bfloat16(float(a.f))); break;
    case MF_FLOAT32: put(float(a.f)); break;
    case MF_FLOAT64: put(double(a.f)); break;
    default: fail(MF_ERR_UNSUPPORTED, "no kernels for dtype " + std::to_string(dtype));
  }
  return bits;
}

}  // namespace mfcuda
