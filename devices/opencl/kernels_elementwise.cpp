// Elementwise ops: fill, copy (casts), arithmetic, comparisons, unary math,
// where/clamp/lerp and the optimizers' fused updates. Each is a body of
// OpenCL C (Note [Elementwise bodies]) following docs/kernels.md and
// docs/kernels/math.md, with the CPU plugin's formulas.
#include <utility>

#include "elementwise.h"
#include "kernels.h"

namespace mfocl {

namespace {

using Body = std::string (*)(const DTypeInfo&);

enum class Out { kSame, kBool, kAny };

constexpr unsigned kBoolMask = 1u << MF_BOOL;
constexpr unsigned kIntMask = (1u << MF_UINT8) | (1u << MF_INT8) | (1u << MF_INT16) | (1u << MF_INT32) | (1u << MF_INT64);
constexpr unsigned kFloatMask = (1u << MF_FLOAT16) | (1u << MF_BFLOAT16) | (1u << MF_FLOAT32) | (1u << MF_FLOAT64);
constexpr unsigned kAll = kBoolMask | kIntMask | kFloatMask;
constexpr unsigned kNumeric = kIntMask | kFloatMask;

struct OpDef {
  const char* name;
  int inputs, outputs;
  unsigned dtypes;
  Out out;
  const char* attrs[4];  // scalar attributes read into SIk (their i) and SFk (their f)
  Body body;
};

bool is_int(const DTypeInfo& t) { return !t.floating && !t.is_bool; }

// Integer arithmetic wraps: computed in the unsigned type.
std::string wrap(const DTypeInfo& t, const char* op) {
  if (is_int(t) || t.is_bool) return std::string("ST0((C)((U)X1 ") + op + " (U)X2));";
  return std::string("ST0(X1 ") + op + " X2);";
}
std::string wrap_scalar(const DTypeInfo& t, const char* op, bool left) {
  const std::string s = t.floating ? "(C)SF0" : t.is_bool ? "(C)(SI0 != 0)" : "(C)SI0";
  if (t.floating) return left ? "ST0(" + s + " " + op + " X1);" : std::string("ST0(X1 ") + op + " " + s + ");";
  return left ? std::string("ST0((C)((U)") + s + " " + op + " (U)X1));" : std::string("ST0((C)((U)X1 ") + op + " (U)" + s + "));";
}

// numpy's npy_floor_divide for floats; Python's for integers (a zero divisor
// writes 0 and fails the stream, -1 negates with wrapping).
std::string floor_divide(const DTypeInfo& t) {
  if (t.floating)
    return "C a = X1, b = X2; C q;\n"
           "if (b == 0) q = a / b; else { C m = fmod(a, b); C dv = (a - m) / b;\n"
           "  if (m != 0 && ((b < 0) != (m < 0))) dv -= (C)1;\n"
           "  if (dv != 0) { C fl = floor(dv); if (dv - fl > (C)0.5) fl += (C)1; q = fl; }\n"
           "  else q = copysign((C)0, a / b); }\nST0(q);";
  std::string s = "C a = X1, b = X2;\nif (b == 0) { FAIL(1); ST0(0); }\n";
  if (t.is_signed) s += "else if (b == (C)-1) ST0((C)((U)0 - (U)a));\n";
  s += "else { C q = a / b; if ((a % b != 0) && ((a < 0) != (b < 0))) q -= 1; ST0(q); }";
  return s;
}

std::string remainder(const DTypeInfo& t) {
  if (t.floating) return "C a = X1, b = X2; C m = fmod(a, b);\nif (m != 0 && ((b < 0) != (m < 0))) m += b;\nST0(m);";
  std::string s = "C a = X1, b = X2;\nif (b == 0) { FAIL(2); ST0(0); }\n";
  if (t.is_signed) s += "else if (b == (C)-1) ST0(0);\n";
  s += "else { C m = a % b; if (m != 0 && ((b < 0) != (m < 0))) m += b; ST0(m); }";
  return s;
}

std::string fmod_body(const DTypeInfo& t) {
  if (t.floating) return "ST0(fmod(X1, X2));";
  std::string s = "C a = X1, b = X2;\nif (b == 0) { FAIL(3); ST0(0); }\n";
  if (t.is_signed) s += "else if (b == (C)-1) ST0(0);\n";
  return s + "else ST0(a % b);";
}

// Integer powers by squaring, wrapping; negative exponents as torch.
std::string pow_body(const DTypeInfo& t) {
  if (t.floating) return "ST0(pow(X1, X2));";
  return "long a = (long)X1, b = (long)X2; long r;\n"
         "if (b < 0) r = (a == 1) ? 1 : (a == -1) ? ((b & 1) ? -1 : 1) : 0;\n"
         "else { ulong acc = 1, base = (ulong)a; ulong e = (ulong)b;\n"
         "  while (e) { if (e & 1) acc *= base; base *= base; e >>= 1; } r = (long)acc; }\n"
         "ST0((C)r);";
}

std::string neg_body(const DTypeInfo& t) { return t.floating ? "ST0(-X1);" : "ST0((C)((U)0 - (U)X1));"; }

#define FLOAT_UNARY(fname, expr) \
  std::string fname(const DTypeInfo&) { return "C x = X1;\nST0(" expr ");"; }
FLOAT_UNARY(exp_b, "exp(x)")
FLOAT_UNARY(exp2_b, "exp2(x)")
FLOAT_UNARY(log_b, "log(x)")
FLOAT_UNARY(log2_b, "log2(x)")
FLOAT_UNARY(log10_b, "log10(x)")
FLOAT_UNARY(log1p_b, "log1p(x)")
FLOAT_UNARY(expm1_b, "expm1(x)")
FLOAT_UNARY(sqrt_b, "sqrt(x)")
FLOAT_UNARY(rsqrt_b, "(C)1 / sqrt(x)")
FLOAT_UNARY(sin_b, "sin(x)")
FLOAT_UNARY(cos_b, "cos(x)")
FLOAT_UNARY(tan_b, "tan(x)")
FLOAT_UNARY(asin_b, "asin(x)")
FLOAT_UNARY(acos_b, "acos(x)")
FLOAT_UNARY(atan_b, "atan(x)")
FLOAT_UNARY(sinh_b, "sinh(x)")
FLOAT_UNARY(cosh_b, "cosh(x)")
FLOAT_UNARY(tanh_b, "mf_tanh(x)")
FLOAT_UNARY(asinh_b, "asinh(x)")
FLOAT_UNARY(acosh_b, "acosh(x)")
FLOAT_UNARY(atanh_b, "atanh(x)")
FLOAT_UNARY(erf_b, "erf(x)")
FLOAT_UNARY(erfc_b, "erfc(x)")
FLOAT_UNARY(reciprocal_b, "(C)1 / x")
FLOAT_UNARY(sigmoid_b, "x < 0 ? exp(x) / ((C)1 + exp(x)) : (C)1 / ((C)1 + exp(-x))")
FLOAT_UNARY(silu_b, "x * (x < 0 ? exp(x) / ((C)1 + exp(x)) : (C)1 / ((C)1 + exp(-x)))")
FLOAT_UNARY(floor_b, "floor(x)")
FLOAT_UNARY(ceil_b, "ceil(x)")
FLOAT_UNARY(trunc_b, "trunc(x)")
FLOAT_UNARY(round_b, "rint(x)")
#undef FLOAT_UNARY

std::string gelu_b(const DTypeInfo&) {
  return "C x = X1;\nif (SI0 != 0) { C k = (C)0.7978845608028654; ST0((C)0.5 * x * ((C)1 + mf_tanh(k * (x + (C)0.044715 * x * x * x)))); }\n"
         "else ST0(x * (C)0.5 * ((C)1 + erf(x * (C)0.7071067811865476)));";
}
std::string softplus_b(const DTypeInfo&) {
  return "C x = X1; C beta = (C)SF0, th = (C)SF1;\nST0(x * beta > th ? x : log1p(exp(x * beta)) / beta);";
}
std::string abs_b(const DTypeInfo& t) {
  if (t.floating) return "ST0(fabs(X1));";
  return t.is_signed ? "C x = X1; ST0(x < 0 ? (C)((U)0 - (U)x) : x);" : "ST0(X1);";
}
std::string relu_b(const DTypeInfo&) { return "C x = X1; ST0(x < 0 ? (C)0 : x);"; }
std::string square_b(const DTypeInfo& t) {
  return t.floating ? "C x = X1; ST0(x * x);" : "C x = X1; ST0((C)((U)x * (U)x));";
}
std::string sign_b(const DTypeInfo&) { return "C x = X1; ST0((C)((0 < x) - (x < 0)));"; }
std::string bitwise_not_b(const DTypeInfo& t) { return t.is_bool ? "ST0(!X1);" : "ST0(~X1);"; }
std::string isnan_b(const DTypeInfo& t) { return t.floating ? "C x = X1; ST0(x != x);" : "ST0(0);"; }
std::string isinf_b(const DTypeInfo& t) { return t.floating ? "ST0(isinf(X1));" : "ST0(0);"; }
std::string isfinite_b(const DTypeInfo& t) { return t.floating ? "ST0(isfinite(X1));" : "ST0(1);"; }
std::string logical_not_b(const DTypeInfo&) { return "ST0(X1 == 0);"; }

std::string add_b(const DTypeInfo& t) { return wrap(t, "+"); }
std::string sub_b(const DTypeInfo& t) { return wrap(t, "-"); }
std::string mul_b(const DTypeInfo& t) { return wrap(t, "*"); }
std::string div_b(const DTypeInfo&) { return "ST0(X1 / X2);"; }
std::string maximum_b(const DTypeInfo&) { return "C a = X1, b = X2; ST0((a >= b || a != a) ? a : b);"; }
std::string minimum_b(const DTypeInfo&) { return "C a = X1, b = X2; ST0((a <= b || a != a) ? a : b);"; }
std::string eq_b(const DTypeInfo&) { return "ST0(X1 == X2);"; }
std::string ne_b(const DTypeInfo&) { return "ST0(X1 != X2);"; }
std::string lt_b(const DTypeInfo&) { return "ST0(X1 < X2);"; }
std::string le_b(const DTypeInfo&) { return "ST0(X1 <= X2);"; }
std::string gt_b(const DTypeInfo&) { return "ST0(X1 > X2);"; }
std::string ge_b(const DTypeInfo&) { return "ST0(X1 >= X2);"; }
std::string atan2_b(const DTypeInfo&) { return "ST0(atan2(X1, X2));"; }
std::string land_b(const DTypeInfo&) { return "ST0((X1 != 0) && (X2 != 0));"; }
std::string lor_b(const DTypeInfo&) { return "ST0((X1 != 0) || (X2 != 0));"; }
std::string lxor_b(const DTypeInfo&) { return "ST0((X1 != 0) != (X2 != 0));"; }
std::string band_b(const DTypeInfo&) { return "ST0(X1 & X2);"; }
std::string bor_b(const DTypeInfo&) { return "ST0(X1 | X2);"; }
std::string bxor_b(const DTypeInfo&) { return "ST0(X1 ^ X2);"; }
std::string clamp_min_b(const DTypeInfo& t) {
  return t.floating ? "C a = X1, b = X2; ST0(a != a ? a : b != b ? b : (a < b ? b : a));"
                    : "C a = X1, b = X2; ST0(a < b ? b : a);";
}
std::string clamp_max_b(const DTypeInfo& t) {
  return t.floating ? "C a = X1, b = X2; ST0(a != a ? a : b != b ? b : (a > b ? b : a));"
                    : "C a = X1, b = X2; ST0(a > b ? b : a);";
}
const char* kLerp =
    "C d = e - s;\nST0(fabs(w) < (C)0.5 ? s + w * d : e - d * ((C)1 - w));";
std::string lerp_scalar_b(const DTypeInfo&) { return std::string("C s = X1, e = X2, w = (C)SF0;\n") + kLerp; }
std::string lerp_b(const DTypeInfo&) { return std::string("C s = X1, e = X2, w = X3;\n") + kLerp; }
std::string clamp_b(const DTypeInfo& t) {
  if (!t.floating) return "C x = X1, lo = X2, hi = X3; C r = x < lo ? lo : x; ST0(r > hi ? hi : r);";
  return "C x = X1, lo = X2, hi = X3;\nC r = lo != lo ? lo : (x < lo ? lo : x);\nST0(hi != hi ? hi : (r > hi ? hi : r));";
}
std::string where_b(const DTypeInfo&) { return "ST0(X1 ? R2 : R3);"; }
std::string masked_fill_b(const DTypeInfo& t) {
  const char* v = t.floating ? "(C)SF0" : t.is_bool ? "(C)(SI0 != 0)" : "(C)SI0";
  return std::string("if (X2) ST0(") + v + "); else ST0(X1);";
}

std::string add_s(const DTypeInfo& t) { return wrap_scalar(t, "+", false); }
std::string sub_s(const DTypeInfo& t) { return wrap_scalar(t, "-", false); }
std::string rsub_s(const DTypeInfo& t) { return wrap_scalar(t, "-", true); }
std::string mul_s(const DTypeInfo& t) { return wrap_scalar(t, "*", false); }
std::string div_s(const DTypeInfo&) { return "ST0(X1 / (C)SF0);"; }
std::string rdiv_s(const DTypeInfo&) { return "ST0((C)SF0 / X1);"; }

// Fused optimizer updates (devices/cpu/kernels_fused.cpp): same rounding.
std::string add_alpha_b(const DTypeInfo&) { return "ST0(X1 + (C)SF0 * X2);"; }
std::string addcmul_b(const DTypeInfo&) { return "ST0(X1 + (C)SF0 * X2 * X3);"; }
std::string addcdiv_b(const DTypeInfo&) { return "ST0(X1 + (C)SF0 * X2 / X3);"; }
// p (operand 0) and buf (1) in place, g (2): buf = m*buf + scale*g, with
// buf*m rounded to storage first (the half types round between the chain's
// kernels); p += -lr * buf.
std::string sgd_momentum_b(const DTypeInfo&) {
  return "ST1(X1 * (C)SF0);\nC b = X1;\nb = (SF1 == 1.0) ? b + X2 : b + (C)SF1 * X2;\nST1(b);\nST0(X0 + (C)(-SF2) * X1);";
}

// Random numbers (devices/cpu/kernels_random.cpp): element i is a pure
// function of (seed, offset + i) through Philox4x32-10, so opencl draws the
// very numbers the CPU draws. Attributes: seed, offset, then the op's two.
#define PHILOX "uint w[4]; philox((ulong)SI0, (ulong)SI1 + (ulong)i, w);\n"
std::string uniform_b(const DTypeInfo&) {
  return PHILOX "double v = SF2 + (SF3 - SF2) * u01(w, 0);\nST0(v);\nif (SF3 > SF2 && !(X0 < SF3)) ST0(SF2);";
}
std::string normal_b(const DTypeInfo&) {
  return PHILOX "double r = sqrt(-2.0 * log(1.0 - u01(w, 0)));\nST0(SF2 + SF3 * r * cos(6.283185307179586 * u01(w, 2)));";
}
std::string randint_b(const DTypeInfo&) {
  return PHILOX "ulong bits = ((ulong)w[0] << 32) | w[1];\nulong range = (ulong)SI3 - (ulong)SI2;\n"
                "ST0((long)((ulong)SI2 + bits % range));";
}
std::string bernoulli_b(const DTypeInfo&) {
  return PHILOX "#if HAS_P\ndouble p = (double)X1;\n#else\ndouble p = SF2;\n#endif\nST0(u01(w, 0) < p ? 1 : 0);";
}
#undef PHILOX

// fill and copy are not bodies of the kernel dtype alone; see launch_op.
std::string none_b(const DTypeInfo&) { return {}; }

const OpDef kOps[] = {
    {"fill", 0, 1, kAll, Out::kSame, {"value"}, none_b},
    {"copy", 1, 1, kAll, Out::kAny, {}, none_b},
    {"arange", 0, 1, kNumeric, Out::kSame, {"start", "step"}, none_b},
    {"add", 2, 1, kAll, Out::kSame, {}, add_b},
    {"sub", 2, 1, kNumeric, Out::kSame, {}, sub_b},
    {"mul", 2, 1, kAll, Out::kSame, {}, mul_b},
    {"div", 2, 1, kFloatMask, Out::kSame, {}, div_b},
    {"floor_divide", 2, 1, kNumeric, Out::kSame, {}, floor_divide},
    {"maximum", 2, 1, kAll, Out::kSame, {}, maximum_b},
    {"minimum", 2, 1, kAll, Out::kSame, {}, minimum_b},
    {"eq", 2, 1, kAll, Out::kBool, {}, eq_b},
    {"ne", 2, 1, kAll, Out::kBool, {}, ne_b},
    {"lt", 2, 1, kAll, Out::kBool, {}, lt_b},
    {"le", 2, 1, kAll, Out::kBool, {}, le_b},
    {"gt", 2, 1, kAll, Out::kBool, {}, gt_b},
    {"ge", 2, 1, kAll, Out::kBool, {}, ge_b},
    {"add_scalar", 1, 1, kAll, Out::kSame, {"other"}, add_s},
    {"sub_scalar", 1, 1, kAll, Out::kSame, {"other"}, sub_s},
    {"rsub_scalar", 1, 1, kAll, Out::kSame, {"other"}, rsub_s},
    {"mul_scalar", 1, 1, kAll, Out::kSame, {"other"}, mul_s},
    {"div_scalar", 1, 1, kFloatMask, Out::kSame, {"other"}, div_s},
    {"rdiv_scalar", 1, 1, kFloatMask, Out::kSame, {"other"}, rdiv_s},
    {"neg", 1, 1, kNumeric, Out::kSame, {}, neg_body},
    {"exp", 1, 1, kFloatMask, Out::kSame, {}, exp_b},
    {"exp2", 1, 1, kFloatMask, Out::kSame, {}, exp2_b},
    {"log", 1, 1, kFloatMask, Out::kSame, {}, log_b},
    {"log2", 1, 1, kFloatMask, Out::kSame, {}, log2_b},
    {"log10", 1, 1, kFloatMask, Out::kSame, {}, log10_b},
    {"log1p", 1, 1, kFloatMask, Out::kSame, {}, log1p_b},
    {"expm1", 1, 1, kFloatMask, Out::kSame, {}, expm1_b},
    {"sqrt", 1, 1, kFloatMask, Out::kSame, {}, sqrt_b},
    {"rsqrt", 1, 1, kFloatMask, Out::kSame, {}, rsqrt_b},
    {"sin", 1, 1, kFloatMask, Out::kSame, {}, sin_b},
    {"cos", 1, 1, kFloatMask, Out::kSame, {}, cos_b},
    {"tan", 1, 1, kFloatMask, Out::kSame, {}, tan_b},
    {"asin", 1, 1, kFloatMask, Out::kSame, {}, asin_b},
    {"acos", 1, 1, kFloatMask, Out::kSame, {}, acos_b},
    {"atan", 1, 1, kFloatMask, Out::kSame, {}, atan_b},
    {"sinh", 1, 1, kFloatMask, Out::kSame, {}, sinh_b},
    {"cosh", 1, 1, kFloatMask, Out::kSame, {}, cosh_b},
    {"tanh", 1, 1, kFloatMask, Out::kSame, {}, tanh_b},
    {"asinh", 1, 1, kFloatMask, Out::kSame, {}, asinh_b},
    {"acosh", 1, 1, kFloatMask, Out::kSame, {}, acosh_b},
    {"atanh", 1, 1, kFloatMask, Out::kSame, {}, atanh_b},
    {"erf", 1, 1, kFloatMask, Out::kSame, {}, erf_b},
    {"erfc", 1, 1, kFloatMask, Out::kSame, {}, erfc_b},
    {"reciprocal", 1, 1, kFloatMask, Out::kSame, {}, reciprocal_b},
    {"sigmoid", 1, 1, kFloatMask, Out::kSame, {}, sigmoid_b},
    {"silu", 1, 1, kFloatMask, Out::kSame, {}, silu_b},
    {"gelu", 1, 1, kFloatMask, Out::kSame, {"approximate"}, gelu_b},
    {"softplus", 1, 1, kFloatMask, Out::kSame, {"beta", "threshold"}, softplus_b},
    {"floor", 1, 1, kFloatMask, Out::kSame, {}, floor_b},
    {"ceil", 1, 1, kFloatMask, Out::kSame, {}, ceil_b},
    {"trunc", 1, 1, kFloatMask, Out::kSame, {}, trunc_b},
    {"round", 1, 1, kFloatMask, Out::kSame, {}, round_b},
    {"abs", 1, 1, kNumeric, Out::kSame, {}, abs_b},
    {"relu", 1, 1, kNumeric, Out::kSame, {}, relu_b},
    {"square", 1, 1, kNumeric, Out::kSame, {}, square_b},
    {"sign", 1, 1, kAll, Out::kSame, {}, sign_b},
    {"bitwise_not", 1, 1, kIntMask | kBoolMask, Out::kSame, {}, bitwise_not_b},
    {"isnan", 1, 1, kAll, Out::kBool, {}, isnan_b},
    {"isinf", 1, 1, kAll, Out::kBool, {}, isinf_b},
    {"isfinite", 1, 1, kAll, Out::kBool, {}, isfinite_b},
    {"logical_not", 1, 1, kAll, Out::kBool, {}, logical_not_b},
    {"pow", 2, 1, kNumeric, Out::kSame, {}, pow_body},
    {"atan2", 2, 1, kFloatMask, Out::kSame, {}, atan2_b},
    {"remainder", 2, 1, kNumeric, Out::kSame, {}, remainder},
    {"fmod", 2, 1, kNumeric, Out::kSame, {}, fmod_body},
    {"logical_and", 2, 1, kAll, Out::kBool, {}, land_b},
    {"logical_or", 2, 1, kAll, Out::kBool, {}, lor_b},
    {"logical_xor", 2, 1, kAll, Out::kBool, {}, lxor_b},
    {"bitwise_and", 2, 1, kIntMask | kBoolMask, Out::kSame, {}, band_b},
    {"bitwise_or", 2, 1, kIntMask | kBoolMask, Out::kSame, {}, bor_b},
    {"bitwise_xor", 2, 1, kIntMask | kBoolMask, Out::kSame, {}, bxor_b},
    {"clamp_min", 2, 1, kNumeric, Out::kSame, {}, clamp_min_b},
    {"clamp_max", 2, 1, kNumeric, Out::kSame, {}, clamp_max_b},
    {"lerp_scalar", 2, 1, kFloatMask, Out::kSame, {"weight"}, lerp_scalar_b},
    {"clamp", 3, 1, kNumeric, Out::kSame, {}, clamp_b},
    {"where", 3, 1, kAll, Out::kSame, {}, where_b},
    {"masked_fill", 2, 1, kAll, Out::kSame, {"value"}, masked_fill_b},
    {"lerp", 3, 1, kFloatMask, Out::kSame, {}, lerp_b},
    {"add_alpha", 2, 1, kFloatMask, Out::kSame, {"alpha"}, add_alpha_b},
    {"addcmul", 3, 1, kFloatMask, Out::kSame, {"value"}, addcmul_b},
    {"addcdiv", 3, 1, kFloatMask, Out::kSame, {"value"}, addcdiv_b},
    {"uniform", 0, 1, kFloatMask, Out::kSame, {"seed", "offset", "low", "high"}, uniform_b},
    {"normal", 0, 1, kFloatMask, Out::kSame, {"seed", "offset", "mean", "std"}, normal_b},
    {"randint", 0, 1, kAll, Out::kSame, {"seed", "offset", "low", "high"}, randint_b},
    {"bernoulli", -1, 1, kAll, Out::kSame, {"seed", "offset", "p"}, bernoulli_b},
    {"sgd_momentum", 1, 2, kFloatMask, Out::kSame, {"momentum", "scale", "lr"}, sgd_momentum_b},
};
constexpr size_t kNumOps = sizeof(kOps) / sizeof(kOps[0]);

// Ops whose kernels are not a plain body of the kernel dtype (built alone).
bool is_special(const std::string& name) {
  return name == "fill" || name == "copy" || name == "arange" || name == "where" || name == "masked_fill" ||
         name == "uniform" || name == "normal" || name == "randint" || name == "bernoulli";
}

template <size_t I>
MFStatus launch_op(const MFKernelCall* call) {
  return guarded([&] {
    const OpDef& op = kOps[I];
    Stream* s = check_call(call, op.name, op.inputs, op.outputs);
    const std::string name = op.name;
    ElementwiseSpec spec;
    spec.op = op.name;
    spec.key = name;
    spec.num_outputs = op.outputs;
    for (int k = 0; k < op.outputs; ++k) spec.dtypes.push_back(call->outputs[k].dtype);
    for (int k = 0; k < call->num_inputs; ++k) spec.dtypes.push_back(call->inputs[k].dtype);
    const bool random = name == "uniform" || name == "normal" || name == "randint" || name == "bernoulli";
    if (random) {
      if (call->num_inputs > 1) invalid(op.name, "takes at most one input");
      if (call->outputs[0].ndim != 1) invalid(op.name, "output must be 1-D");
    }
    const int32_t kd = (name == "fill" || name == "arange" || random) ? call->outputs[0].dtype : name == "where" ? call->inputs[1].dtype
                                                                              : call->inputs[0].dtype;
    spec.kernel_dtype = kd;
    const DTypeInfo& t = dtype_info(kd);
    for (int a = 0; a < 4 && op.attrs[a] != nullptr; ++a) {
      const MFAttr& at = attr(call, op.name, op.attrs[a]);
      spec.sf[a] = at.f;
      spec.si[a] = at.i;
    }
    if (name == "where" && call->inputs[0].dtype != MF_BOOL) invalid(op.name, "the condition must be bool");
    if (op.out == Out::kBool) {
      if (call->outputs[0].dtype != MF_BOOL) invalid(op.name, "the output must be bool");
      spec.result = Value::kIntNarrow;
    } else {
      spec.result = value_kind(kd);
    }
    if (name == "fill") {
      // The value converts straight from the attribute (double / int64), one rounding.
      spec.result = t.floating ? Value::kDouble : Value::kIntWide;
      spec.body = t.floating ? "ST0(SF0);" : "ST0(SI0);";
    } else if (random) {
      spec.result = name == "randint" ? Value::kIntWide : Value::kDouble;
      spec.body = std::string("#define HAS_P ") + (call->num_inputs == 1 ? "1" : "0") + "\n" + op.body(t);
      spec.key += call->num_inputs == 1 ? "_p" : "";
      if (name == "bernoulli") spec.result = Value::kIntWide;
      if (call->num_inputs == 1 && !same_shape(call->inputs[0], call->outputs[0])) invalid(op.name, "shape mismatch");
    } else if (name == "arange") {
      // out[i] = start + i * step: double for floating types, wrapping int64 for integers.
      if (call->outputs[0].ndim != 1) invalid(op.name, "output must be 1-D");
      spec.result = t.floating ? Value::kDouble : Value::kIntWide;
      spec.body = t.floating ? "ST0((WIDE_T)SF0 + (WIDE_T)i * (WIDE_T)SF1);"
                             : "ST0((long)((ulong)SI0 + (ulong)i * (ulong)SI1));";
    } else if (name == "copy") {
      const int32_t od = call->outputs[0].dtype;
      dtype_info(od);
      // One program holds the casts from kd to every dtype (Note [Programs hold families]).
      const Device& dev = device(call->device);
      for (int32_t to = 0; to <= MF_FLOAT64; ++to) {
        if (!supported_dtype(dev, to)) continue;
        // same dtype: move bits (NaN payloads too)
        spec.family.push_back({"k_copy_to_" + std::to_string(to), {to, kd}, to == kd ? Value::kRaw : value_kind(kd),
                               to == kd ? "ST0(R1);" : "ST0(X1);"});
      }
      spec.family_key = "copy_from:" + std::to_string(kd);
      spec.key = "copy_to_" + std::to_string(od);
      spec.result = od == kd ? Value::kRaw : value_kind(kd);
      spec.body = od == kd ? "ST0(R1);" : "ST0(X1);";
    } else if (name == "where") {
      spec.result = Value::kRaw;
      spec.body = op.body(t);
    } else if (name == "masked_fill") {
      if (call->inputs[1].dtype != MF_BOOL) invalid(op.name, "the mask must be bool");
      spec.body = op.body(t);
    } else {
      for (int k = 0; k < op.outputs; ++k)
        if (call->outputs[k].dtype != (op.out == Out::kBool ? MF_BOOL : kd))
          invalid(op.name, std::string("output has dtype ") + dtype_name(call->outputs[k].dtype));
      spec.body = op.body(t);
      // The family: every plain op of this arity and result kind for kd.
      for (const OpDef& other : kOps) {
        if (other.inputs != op.inputs || other.outputs != op.outputs || other.out != op.out ||
            !(other.dtypes & (1u << kd)) || is_special(other.name))
          continue;
        spec.family.push_back({std::string("k_") + other.name, spec.dtypes, spec.result, other.body(t)});
      }
      // Keyed by the operand dtypes too: every member was generated for them.
      spec.family_key = "ops" + std::to_string(op.inputs) + std::to_string(op.outputs) +
                        std::to_string(int(op.out)) + ":" + std::to_string(kd);
      for (int32_t dt : spec.dtypes) spec.family_key += "," + std::to_string(dt);
    }
    launch_elementwise(call, s, spec);
    return MF_OK;
  });
}

template <size_t... I>
constexpr std::array<MFKernelFn, sizeof...(I)> launchers(std::index_sequence<I...>) {
  return {&launch_op<I>...};
}

}  // namespace

void register_elementwise_kernels(Registrar& r) {
  static const auto fns = launchers(std::make_index_sequence<kNumOps>());
  for (size_t i = 0; i < kNumOps; ++i) {
    const OpDef& op = kOps[i];
    for (int32_t dt = 0; dt <= MF_FLOAT64; ++dt) {
      if (!(op.dtypes & (1u << dt)) || !r.supports(dt)) continue;
      if (op.body == uniform_b || op.body == normal_b || op.body == randint_b || op.body == bernoulli_b) {
        if (!r.supports(MF_FLOAT64)) continue;  // Philox's uniforms are doubles
      }
      const int32_t out = op.out == Out::kAny ? MF_DTYPE_ANY : op.out == Out::kBool ? MF_BOOL : dt;
      r.add(op.name, dt, out, fns[i]);
    }
  }
}

}  // namespace mfocl
