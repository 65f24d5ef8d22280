// Elementwise kernels: fill, copy (with casts), binary and scalar arithmetic,
// comparisons and logical ops, unary math, where, masked_fill, clamp. One
// launcher per op (its code is a template argument, the dtype comes from the
// call), one CUDA kernel per family and dtype (kernels.cu).
#include "kernel_args.h"
#include "launch.h"

namespace mfcuda {
namespace {

void require_dtype(const char* op, const MFTensorDesc& t, int32_t dtype) {
  if (t.dtype != dtype) invalid(op, "dtype does not match the kernel");
}

template <int Op, bool kScalar>
MFStatus binary(const MFKernelCall* call) noexcept {
  return guarded([&] {
    static const char* op = "binary";
    Device& d = check_call(op, call, kScalar ? 1 : 2, 1);
    const int32_t dt = call->inputs[0].dtype;
    ElemArgs a;
    if (!pack_call(op, call, &a)) return MF_OK;
    a.op = Op;
    if (Op == MFC_LERP) {
      a.fval[0] = scalar_attr("lerp_scalar", call, "weight").f;
    } else if (kScalar) {
      const MFAttr& s = scalar_attr(op, call, "other");
      a.ival[0] = s.i;
      a.fval[0] = s.f;
    }
    launch(d, call->stream, kernel_name("binary", dtype_suffix(dt)).c_str(), &a, a.numel);
    return MF_OK;
  });
}

template <int Op>
MFStatus compare(const MFKernelCall* call) noexcept {
  return guarded([&] {
    Device& d = check_call("compare", call, 2, 1);
    require_dtype("compare", call->outputs[0], MF_BOOL);
    ElemArgs a;
    if (!pack_call("compare", call, &a)) return MF_OK;
    a.op = Op;
    launch(d, call->stream, kernel_name("compare", dtype_suffix(call->inputs[0].dtype)).c_str(), &a, a.numel);
    return MF_OK;
  });
}

template <int Op>
MFStatus unary(const MFKernelCall* call) noexcept {
  return guarded([&] {
    Device& d = check_call("unary", call, 1, 1);
    ElemArgs a;
    if (!pack_call("unary", call, &a)) return MF_OK;
    a.op = Op;
    if (Op == MFC_GELU) {
      const MFAttr* ap = find_attr(call, "approximate");
      if (ap && ap->i != 0) a.op = MFC_GELU_TANH;
    }
    launch(d, call->stream, kernel_name("unary", dtype_suffix(call->inputs[0].dtype)).c_str(), &a, a.numel);
    return MF_OK;
  });
}

template <int Op>
MFStatus predicate(const MFKernelCall* call) noexcept {
  return guarded([&] {
    Device& d = check_call("predicate", call, 1, 1);
    require_dtype("predicate", call->outputs[0], MF_BOOL);
    ElemArgs a;
    if (!pack_call("predicate", call, &a)) return MF_OK;
    a.op = Op;
    launch(d, call->stream, kernel_name("predicate", dtype_suffix(call->inputs[0].dtype)).c_str(), &a, a.numel);
    return MF_OK;
  });
}

MFStatus fill(const MFKernelCall* call) noexcept {
  return guarded([&] {
    Device& d = check_call("fill", call, 0, 1);
    const int32_t dt = call->outputs[0].dtype;
    ElemArgs a;
    if (!pack_call("fill", call, &a)) return MF_OK;
    a.ival[0] = scalar_bits(dt, scalar_attr("fill", call, "value"));
    launch(d, call->stream, kernel_name("fill", size_suffix(dtype_size(dt))).c_str(), &a, a.numel);
    return MF_OK;
  });
}

MFStatus copy(const MFKernelCall* call) noexcept {
  return guarded([&] {
    Device& d = check_call("copy", call, 1, 1);
    const int32_t in = call->inputs[0].dtype, out = call->outputs[0].dtype;
    ElemArgs a;
    if (!pack_call("copy", call, &a)) return MF_OK;
    a.in_dtype = in;
    dtype_suffix(in);
    launch(d, call->stream, kernel_name("copy", dtype_suffix(out)).c_str(), &a, a.numel);
    return MF_OK;
  });
}

MFStatus where(const MFKernelCall* call) noexcept {
  return guarded([&] {
    Device& d = check_call("where", call, 3, 1);
    require_dtype("where", call->inputs[0], MF_BOOL);
    ElemArgs a;
    if (!pack_call("where", call, &a)) return MF_OK;
    a.op = MFC_WHERE;
    launch(d, call->stream, kernel_name("select", size_suffix(dtype_size(call->outputs[0].dtype))).c_str(), &a,
           a.numel);
    return MF_OK;
  });
}

MFStatus masked_fill(const MFKernelCall* call) noexcept {
  return guarded([&] {
    Device& d = check_call("masked_fill", call, 2, 1);
    require_dtype("masked_fill", call->inputs[1], MF_BOOL);
    const int32_t dt = call->outputs[0].dtype;
    ElemArgs a;
    if (!pack_call("masked_fill", call, &a)) return MF_OK;
    a.op = MFC_MASKED_FILL;
    a.ival[0] = scalar_bits(dt, scalar_attr("masked_fill", call, "value"));
    launch(d, call->stream, kernel_name("select", size_suffix(dtype_size(dt))).c_str(), &a, a.numel);
    return MF_OK;
  });
}

MFStatus clamp(const MFKernelCall* call) noexcept {
  return guarded([&] {
    Device& d = check_call("clamp", call, 3, 1);
    ElemArgs a;
    if (!pack_call("clamp", call, &a)) return MF_OK;
    launch(d, call->stream, kernel_name("clamp", dtype_suffix(call->inputs[0].dtype)).c_str(), &a, a.numel);
    return MF_OK;
  });
}

MFStatus arange(const MFKernelCall* call) noexcept {
  return guarded([&] {
    Device& d = check_call("arange", call, 0, 1);
    const MFTensorDesc& out = call->outputs[0];
    if (out.ndim != 1) invalid("arange", "output must be 1-D");
    ElemArgs a;
    std::memset(&a, 0, sizeof a);
    a.ptr[0] = out.data;
    a.numel = out.shape[0];
    a.strides[0][0] = out.strides[0];
    a.op = is_floating(out.dtype);
    const MFAttr &start = scalar_attr("arange", call, "start"), &step = scalar_attr("arange", call, "step");
    a.ival[0] = start.i, a.ival[1] = step.i, a.fval[0] = start.f, a.fval[1] = step.f;
    launch(d, call->stream, kernel_name("arange", dtype_suffix(out.dtype)).c_str(), &a, a.numel);
    return MF_OK;
  });
}

template <bool kLower>
MFStatus triangle(const MFKernelCall* call) noexcept {
  const char* op = kLower ? "tril" : "triu";
  return guarded([&] {
    Device& d = check_call(op, call, 1, 1);
    const MFTensorDesc &x = call->inputs[0], &out = call->outputs[0];
    if (x.ndim < 2 || x.ndim != out.ndim) invalid(op, "needs at least 2 dims");
    if (x.ndim > MFC_MAX_DIMS) fail(MF_ERR_UNSUPPORTED, std::string(op) + ": too many dims");
    ElemArgs a;
    std::memset(&a, 0, sizeof a);
    a.ptr[0] = out.data, a.ptr[1] = x.data;
    a.ndim = x.ndim;
    a.numel = 1;
    for (int k = 0; k < x.ndim; ++k) {
      if (x.shape[k] != out.shape[k]) invalid(op, "operand shapes differ");
      a.shape[k] = x.shape[k], a.strides[0][k] = out.strides[k], a.strides[1][k] = x.strides[k];
      a.numel *= x.shape[k];
    }
    a.op = kLower;
    a.ival[0] = scalar_attr(op, call, "diagonal").i;
    if (a.numel == 0) return MF_OK;
    launch(d, call->stream, kernel_name("triangle", size_suffix(dtype_size(x.dtype))).c_str(), &a, a.numel);
    return MF_OK;
  });
}

}  // namespace

void register_elementwise_kernels(const MFHostApi* host) {
  Registrar r(host);
  for (int32_t t = MF_BOOL; t <= MF_FLOAT64; ++t) {
    const bool fp = is_floating(t), b = t == MF_BOOL, integral = !fp && !b;
    r.add("fill", t, t, &fill);
    for (int32_t o = MF_BOOL; o <= MF_FLOAT64; ++o) r.add("copy", t, o, &copy);  // complex: CPU fallback
    r.add("where", t, t, &where);
    r.add("masked_fill", t, t, &masked_fill);
    r.add("tril", t, t, &triangle<true>);
    r.add("triu", t, t, &triangle<false>);
    if (!b) r.add("arange", t, t, &arange);

    r.add("add", t, t, &binary<MFC_ADD, false>);
    r.add("sub", t, t, &binary<MFC_SUB, false>);
    r.add("mul", t, t, &binary<MFC_MUL, false>);
    r.add("maximum", t, t, &binary<MFC_MAXIMUM, false>);
    r.add("minimum", t, t, &binary<MFC_MINIMUM, false>);
    r.add("add_scalar", t, t, &binary<MFC_ADD, true>);
    r.add("sub_scalar", t, t, &binary<MFC_SUB, true>);
    r.add("rsub_scalar", t, t, &binary<MFC_RSUB, true>);
    r.add("mul_scalar", t, t, &binary<MFC_MUL, true>);
    r.add("eq", t, MF_BOOL, &compare<MFC_EQ>);
    r.add("ne", t, MF_BOOL, &compare<MFC_NE>);
    r.add("lt", t, MF_BOOL, &compare<MFC_LT>);
    r.add("le", t, MF_BOOL, &compare<MFC_LE>);
    r.add("gt", t, MF_BOOL, &compare<MFC_GT>);
    r.add("ge", t, MF_BOOL, &compare<MFC_GE>);
    r.add("logical_and", t, MF_BOOL, &compare<MFC_LOGICAL_AND>);
    r.add("logical_or", t, MF_BOOL, &compare<MFC_LOGICAL_OR>);
    r.add("logical_xor", t, MF_BOOL, &compare<MFC_LOGICAL_XOR>);
    r.add("isnan", t, MF_BOOL, &predicate<MFC_ISNAN>);
    r.add("isinf", t, MF_BOOL, &predicate<MFC_ISINF>);
    r.add("isfinite", t, MF_BOOL, &predicate<MFC_ISFINITE>);
    r.add("logical_not", t, MF_BOOL, &predicate<MFC_LOGICAL_NOT>);
    r.add("sign", t, t, &unary<MFC_SIGN>);
    if (!b) {
      r.add("floor_divide", t, t, &binary<MFC_FLOOR_DIVIDE, false>);
      r.add("remainder", t, t, &binary<MFC_REMAINDER, false>);
      r.add("fmod", t, t, &binary<MFC_FMOD, false>);
      r.add("pow", t, t, &binary<MFC_POW, false>);
      r.add("clamp_min", t, t, &binary<MFC_MAXIMUM, false>);
      r.add("clamp_max", t, t, &binary<MFC_MINIMUM, false>);
      r.add("clamp", t, t, &clamp);
      r.add("neg", t, t, &unary<MFC_NEG>);
      r.add("abs", t, t, &unary<MFC_ABS>);
      r.add("relu", t, t, &unary<MFC_RELU>);
      r.add("square", t, t, &unary<MFC_SQUARE>);
    }
    if (integral || b) {
      r.add("bitwise_and", t, t, &binary<MFC_BITWISE_AND, false>);
      r.add("bitwise_or", t, t, &binary<MFC_BITWISE_OR, false>);
      r.add("bitwise_xor", t, t, &binary<MFC_BITWISE_XOR, false>);
      r.add("bitwise_not", t, t, &unary<MFC_BITWISE_NOT>);
    }
    if (fp) {
      r.add("div", t, t, &binary<MFC_DIV, false>);
      r.add("div_scalar", t, t, &binary<MFC_DIV, true>);
      r.add("rdiv_scalar", t, t, &binary<MFC_RDIV, true>);
      r.add("atan2", t, t, &binary<MFC_ATAN2, false>);
      r.add("lerp_scalar", t, t, &binary<MFC_LERP, false>);
      r.add("exp", t, t, &unary<MFC_EXP>);
      r.add("exp2", t, t, &unary<MFC_EXP2>);
      r.add("log", t, t, &unary<MFC_LOG>);
      r.add("log2", t, t, &unary<MFC_LOG2>);
      r.add("log10", t, t, &unary<MFC_LOG10>);
      r.add("log1p", t, t, &unary<MFC_LOG1P>);
      r.add("expm1", t, t, &unary<MFC_EXPM1>);
      r.add("sqrt", t, t, &unary<MFC_SQRT>);
      r.add("rsqrt", t, t, &unary<MFC_RSQRT>);
      r.add("sin", t, t, &unary<MFC_SIN>);
      r.add("cos", t, t, &unary<MFC_COS>);
      r.add("tan", t, t, &unary<MFC_TAN>);
      r.add("asin", t, t, &unary<MFC_ASIN>);
      r.add("acos", t, t, &unary<MFC_ACOS>);
      r.add("atan", t, t, &unary<MFC_ATAN>);
      r.add("sinh", t, t, &unary<MFC_SINH>);
      r.add("cosh", t, t, &unary<MFC_COSH>);
      r.add("tanh", t, t, &unary<MFC_TANH>);
      r.add("asinh", t, t, &unary<MFC_ASINH>);
      r.add("acosh", t, t, &unary<MFC_ACOSH>);
      r.add("atanh", t, t, &unary<MFC_ATANH>);
      r.add("sigmoid", t, t, &unary<MFC_SIGMOID>);
      r.add("erf", t, t, &unary<MFC_ERF>);
      r.add("erfc", t, t, &unary<MFC_ERFC>);
      r.add("reciprocal", t, t, &unary<MFC_RECIPROCAL>);
      r.add("gelu", t, t, &unary<MFC_GELU>);
      r.add("silu", t, t, &unary<MFC_SILU>);
      r.add("floor", t, t, &unary<MFC_FLOOR>);
      r.add("ceil", t, t, &unary<MFC_CEIL>);
      r.add("trunc", t, t, &unary<MFC_TRUNC>);
      r.add("round", t, t, &unary<MFC_ROUND>);
    }
  }
  r.done();
}

}  // namespace mfcuda
