// Kernel operands: dtypes as OpenCL C types, descriptors resolved to
// buffers, attributes, and the load/store snippets kernels are built from.
#include <cstring>

#include "launch.h"

namespace mfocl {

namespace {

const DTypeInfo kInfo[] = {
    /* bool     */ {"uchar", "int", 1, false, true, false, false, false},
    /* uint8    */ {"uchar", "uchar", 1, false, false, false, false, false},
    /* int8     */ {"char", "char", 1, false, false, false, false, true},
    /* int16    */ {"short", "short", 2, false, false, false, false, true},
    /* int32    */ {"int", "int", 4, false, false, false, false, true},
    /* int64    */ {"long", "long", 8, false, false, false, false, true},
    /* float16  */ {"ushort", "float", 2, true, false, true, false, true},
    /* bfloat16 */ {"ushort", "float", 2, true, false, false, true, true},
    /* float32  */ {"float", "float", 4, true, false, false, false, true},
    /* float64  */ {"double", "double", 8, true, false, false, false, true},
};

const char* const kNames[] = {"bool",     "uint8",    "int8",    "int16",   "int32",     "int64",
                              "float16",  "bfloat16", "float32", "float64", "complex64", "complex128"};

}  // namespace

const char* dtype_name(int32_t dtype) {
  return dtype >= 0 && dtype < MF_NUM_DTYPES ? kNames[dtype] : "?";
}

const DTypeInfo& dtype_info(int32_t dtype) {
  if (dtype < 0 || dtype > MF_FLOAT64) raise(MF_ERR_UNSUPPORTED, std::string("dtype ") + dtype_name(dtype) +
                                                                    " has no opencl kernels");
  return kInfo[dtype];
}

bool supported_dtype(const Device& d, int32_t dtype) {
  return dtype >= 0 && dtype <= MF_FLOAT64 && (dtype != MF_FLOAT64 || d.fp64);
}

int64_t numel(const MFTensorDesc& t) {
  int64_t n = 1;
  for (int32_t i = 0; i < t.ndim; ++i) n *= t.shape[i];
  return n;
}

bool same_shape(const MFTensorDesc& a, const MFTensorDesc& b) {
  if (a.ndim != b.ndim) return false;
  for (int32_t i = 0; i < a.ndim; ++i)
    if (a.shape[i] != b.shape[i]) return false;
  return true;
}

Resolved resolve_desc(const MFTensorDesc& t, int32_t device_index, const char* op, const char* role) {
  if (t.ndim < 0 || (t.ndim > 0 && (t.shape == nullptr || t.strides == nullptr)))
    invalid(op, std::string(role) + " has an invalid rank/shape/strides");
  const size_t esize = dtype_info(t.dtype).size;
  int64_t last = 0;
  bool empty = false;
  for (int32_t d = 0; d < t.ndim; ++d) {
    if (t.shape[d] < 0 || t.strides[d] < 0) invalid(op, std::string(role) + " has a negative size or stride");
    if (t.shape[d] == 0) empty = true;
    else last += (t.shape[d] - 1) * t.strides[d];
  }
  // A zero-size operand is never read or written, and may have no memory
  // at all (data NULL): it resolves to a null buffer.
  if (empty) return Resolved{nullptr, 0, 0, device_index};
  const std::string what = std::string(op) + ": " + role;
  return resolve(t.data, size_t(last + 1) * esize, device_index, what.c_str());
}

const MFAttr* find_attr(const MFKernelCall* call, const char* name) {
  for (int32_t i = 0; i < call->num_attrs && call->attrs != nullptr; ++i)
    if (call->attrs[i].name != nullptr && std::strcmp(call->attrs[i].name, name) == 0) return &call->attrs[i];
  return nullptr;
}

const MFAttr& attr(const MFKernelCall* call, const char* op, const char* name) {
  const MFAttr* a = find_attr(call, name);
  if (a == nullptr) invalid(op, std::string("missing attribute '") + name + "'");
  return *a;
}

void read_ints(const char* op, const MFKernelCall* call, const char* name, int n, int64_t* out) {
  const MFAttr& a = attr(call, op, name);
  if (a.kind == MF_ATTR_INTS) {
    if (a.count < n || a.ints == nullptr) invalid(op, std::string("attribute '") + name + "' has too few values");
    for (int k = 0; k < n; ++k) out[k] = a.ints[k];
  } else {
    for (int k = 0; k < n; ++k) out[k] = a.i;
  }
}

Stream* check_call(const MFKernelCall* call, const char* op, int num_inputs, int num_outputs) {
  if (call == nullptr) invalid(op, "null call");
  if (!MF_HAS_FIELD(call, MFKernelCall, attrs))
    invalid(op, "MFKernelCall.struct_size " + std::to_string(call->struct_size) + " too small");
  Stream* s = stream_of(call->device, call->stream);
  if ((num_inputs >= 0 && call->num_inputs != num_inputs) || call->num_outputs != num_outputs ||
      (call->num_inputs > 0 && call->inputs == nullptr) || call->outputs == nullptr)
    invalid(op, "expected " + std::to_string(num_inputs) + " input(s) and " + std::to_string(num_outputs) +
                    " output(s), got " + std::to_string(call->num_inputs) + " and " +
                    std::to_string(call->num_outputs));
  return s;
}

// ---------------------------------------------------------------- snippets

Value value_kind(int32_t dtype) {
  const DTypeInfo& t = dtype_info(dtype);
  if (dtype == MF_FLOAT64) return Value::kDouble;
  if (t.floating) return Value::kFloat;
  return t.size > 2 ? Value::kIntWide : Value::kIntNarrow;
}

std::string load_expr(int32_t dtype, const std::string& p, const std::string& off) {
  const DTypeInfo& t = dtype_info(dtype);
  if (t.is_half) return "vload_half(" + off + ", (__global half*)" + p + ")";
  if (t.is_bf16) return "as_float(((uint)" + p + "[" + off + "]) << 16)";
  if (t.is_bool) return "((int)(" + p + "[" + off + "] != 0))";
  return p + "[" + off + "]";
}

// Casts as the CPU plugin's cast<>: float -> integer truncates and saturates
// (NaN gives 0), -> bool is != 0, -> half types round to nearest even once
// (from double directly, never through float).
std::string store_stmt(int32_t dtype, Value v, const std::string& p, const std::string& off,
                       const std::string& x) {
  const DTypeInfo& t = dtype_info(dtype);
  const std::string at = p + "[" + off + "]";
  if (v == Value::kRaw) return at + " = " + x + ";";
  if (t.is_bool) return at + " = (uchar)((" + x + ") != 0);";
  const bool wide = v == Value::kDouble || v == Value::kIntWide;
  if (t.is_half) {
    return std::string("vstore_half_rte(") + (wide ? "(WIDE_T)(" : "(float)(") + x + "), " + off + ", (__global half*)" + p + ");";
  }
  if (t.is_bf16) return at + " = " + (wide ? "bf16_from_wide((WIDE_T)(" : "bf16_from_float((float)(") + x + "));";
  if (!t.floating && (v == Value::kFloat || v == Value::kDouble))
    return at + " = convert_" + t.storage + "_sat_rtz(" + x + ");";
  return at + " = (" + t.storage + ")(" + x + ");";
}

// Note [No contraction]
//   OpenCL C contracts a * b + c into one fma by default (FP_CONTRACT is ON),
//   which rounds once where the CPU's kernels round twice: add_alpha, addcmul,
//   sgd_momentum and lerp then differ from the CPU's by an ulp, and from the
//   chain of plain kernels an nn.Graph replays for the same update
//   (nn/graph/optimizer_step.py), so a training graph drifted from eager mode
//   on opencl. Every program starts with contraction off, so an expression
//   rounds as written; the inner products of matmul and convolution turn it
//   back on (their sums are not the CPU's to the bit anyway, and fma is what
//   a BLAS uses).
std::string prelude(const Device& d) {
  std::string s = "#pragma OPENCL FP_CONTRACT OFF\n";
  if (d.fp64) s += "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n#define WIDE_T double\n#define HAVE_FP64 1\n";
  else s += "#define WIDE_T float\n";
  s += "#define MAXD " + std::to_string(kMaxDims) + "\n#define MAXOPS " + std::to_string(kMaxOperands) + "\n";
  s += R"CLC(
typedef struct { long n; long ndim; long shape[MAXD]; long strides[MAXOPS][MAXD]; } Geometry;

/* tanh that saturates to exactly +-1 (some libm tanh stop a few ulp short,
   which turns gelu(-inf) into -inf instead of NaN). */
float __attribute__((overloadable)) mf_tanh(float x) {
  float a = fabs(x);
  if (a > 9.1f) return copysign(1.0f, x);
  float t = expm1(2.0f * a);
  return copysign(t / (t + 2.0f), x);
}
#ifdef HAVE_FP64
double __attribute__((overloadable)) mf_tanh(double x) {
  double a = fabs(x);
  if (a > 19.1) return copysign(1.0, x);
  double t = expm1(2.0 * a);
  return copysign(t / (t + 2.0), x);
}
#endif

#ifdef HAVE_FP64
/* Philox4x32-10 (devices/cpu/kernels_random.cpp, bit for bit). */
void philox(ulong seed, ulong counter, uint* w) {
  uint c0 = (uint)counter, c1 = (uint)(counter >> 32), c2 = 0, c3 = 0;
  uint k0 = (uint)seed, k1 = (uint)(seed >> 32);
  for (int r = 0; r < 10; ++r) {
    ulong p0 = (ulong)0xD2511F53u * c0, p1 = (ulong)0xCD9E8D57u * c2;
    uint n0 = (uint)(p1 >> 32) ^ c1 ^ k0, n2 = (uint)(p0 >> 32) ^ c3 ^ k1;
    c0 = n0; c1 = (uint)p1; c2 = n2; c3 = (uint)p0;
    k0 += 0x9E3779B9u; k1 += 0xBB67AE85u;
  }
  w[0] = c0; w[1] = c1; w[2] = c2; w[3] = c3;
}
/* Uniform in [0, 1) with 53 random bits. */
double u01(const uint* w, int i) { return (double)(((ulong)w[i] << 21) ^ (w[i + 1] >> 11)) * 0x1.0p-53; }
#endif

/* bfloat16: round to nearest even; NaN stays a quiet NaN (the CPU's rule). */
ushort bf16_from_float(float f) {
  uint x = as_uint(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return (ushort)((x >> 16) | 0x40u);
  return (ushort)((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}
/* From double: round to odd into float first, so one correct rounding results. */
ushort bf16_from_wide(WIDE_T d) {
#ifdef HAVE_FP64
  float f = convert_float_rtz(d);
  if (!isnan(d) && (double)f != d) f = as_float(as_uint(f) | 1u);
  return bf16_from_float(f);
#else
  return bf16_from_float(d);
#endif
}
)CLC";
  return s;
}

}  // namespace mfocl
