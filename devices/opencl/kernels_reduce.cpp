// Reductions (sum, mean, prod, amax/amin, max/min with indices, var/std,
// vector_norm, logsumexp, all/any) and the dim-wise row ops (softmax,
// log_softmax, cumsum, cumprod), per docs/kernels/reduce.md.
//
// Note [One work-item per output]
//   A reduction runs one work-item per output element, looping over its
//   reduced elements in order and accumulating as the CPU does (double for
//   floating sums, wrapping 64-bit for integers), so results match the CPU to
//   rounding. That is the right shape for PoCL on a CPU, whose work-items are
//   loop iterations over a few cores; a GPU would want a tree per output, but
//   the dispatch here stays the same. Row ops likewise take one row each.
#include <cmath>
#include <utility>

#include "kernels.h"

namespace mfocl {

namespace {

enum class Red { kSum, kMean, kProd, kAmax, kAmin, kMax, kMin, kVar, kStd, kNorm, kLogsumexp, kAll, kAny };

struct RedDef {
  const char* name;
  Red op;
  unsigned dtypes;  // 1: all, 2: floating only, 3: all but bool
};

constexpr RedDef kReds[] = {
    {"sum", Red::kSum, 1},   {"mean", Red::kMean, 2}, {"prod", Red::kProd, 1},  {"amax", Red::kAmax, 1},
    {"amin", Red::kAmin, 1}, {"max", Red::kMax, 1},   {"min", Red::kMin, 1},    {"var", Red::kVar, 2},
    {"std", Red::kStd, 2},   {"vector_norm", Red::kNorm, 2}, {"logsumexp", Red::kLogsumexp, 2},
    {"all", Red::kAll, 1},   {"any", Red::kAny, 1},
};
constexpr size_t kNumReds = sizeof(kReds) / sizeof(kReds[0]);

// Body of the reduction for one output. ACC is the accumulation type (double
// for floating dtypes, ulong for integers); FOR_X { v } visits the reduced
// elements in order with v the element as C.
std::string red_body(Red op, int32_t dtype, Value& result) {
  const DTypeInfo& t = dtype_info(dtype);
  const bool fl = t.floating;
  result = fl ? Value::kDouble : Value::kIntWide;
  switch (op) {
    case Red::kSum:
      return fl ? "ACC a = 0; FOR_X { a += (ACC)v; } ST0(a);" : "ulong a = 0; FOR_X { a += (ulong)(long)v; } ST0((long)a);";
    case Red::kMean:
      return "ACC a = 0; FOR_X { a += (ACC)v; } ST0(a / (ACC)gr.n);";
    case Red::kProd:
      return fl ? "ACC a = 1; FOR_X { a *= (ACC)v; } ST0(a);" : "ulong a = 1; FOR_X { a *= (ulong)(long)v; } ST0((long)a);";
    case Red::kAmax:
    case Red::kAmin:
    case Red::kMax:
    case Red::kMin: {
      result = value_kind(dtype);
      const bool mx = op == Red::kAmax || op == Red::kMax;
      std::string s = std::string("C best = 0; long at = -1;\nFOR_X {\n  if (at < 0 || (v ") + (mx ? ">" : "<") +
                      " best)" + (fl ? " || v != v" : "") + ") { best = v; at = j; }\n" +
                      (fl ? "  if (v != v) break;\n" : "") + "}\nST0(best);";
      if (op == Red::kMax || op == Red::kMin) s += "\nST1L(at);";
      return s;
    }
    case Red::kVar:
    case Red::kStd:
      return std::string("ACC m = 0; FOR_X { m += (ACC)v; } m /= (ACC)gr.n;\n"
                         "ACC q = 0; FOR_X { ACC d = (ACC)v - m; q += d * d; }\n"
                         "ACC den = (ACC)gr.n - (ACC)SF0; if (den < 0) den = 0;\nACC r = q / den;\n") +
             (op == Red::kStd ? "ST0(sqrt(r));" : "ST0(r);");
    case Red::kNorm:
      return "ACC p = (ACC)SF0; ACC a = 0;\n"
             "if (p == 0) { FOR_X { a += (v != 0) ? 1 : 0; } }\n"
             "else if (isinf(p) && p > 0) { FOR_X { ACC x = fabs((ACC)v); if (x > a || x != x) a = x; if (x != x) break; } }\n"
             "else if (isinf(p)) { a = INFINITY; FOR_X { ACC x = fabs((ACC)v); if (x < a || x != x) a = x; if (x != x) break; } }\n"
             "else if (p == 1) { FOR_X { a += fabs((ACC)v); } }\n"
             "else if (p == 2) { FOR_X { a += (ACC)v * (ACC)v; } a = sqrt(a); }\n"
             "else { FOR_X { a += pow(fabs((ACC)v), p); } a = pow(a, (ACC)1 / p); }\nST0(a);";
    case Red::kLogsumexp:
      return "ACC m = -INFINITY; int nan = 0, pinf = 0;\n"
             "FOR_X { ACC x = (ACC)v; if (x != x) nan = 1; else if (isinf(x)) { if (x > 0) pinf = 1; } else if (x > m) m = x; }\n"
             "if (nan) ST0(NAN); else if (pinf) ST0(INFINITY);\n"
             "else if (isinf(m)) ST0(-INFINITY);\n"
             "else { ACC s = 0; FOR_X { s += exp((ACC)v - m); } ST0(m + log(s)); }";
    case Red::kAll:
      result = Value::kIntNarrow;
      return "int a = 1; FOR_X { if (v == 0) { a = 0; break; } } ST0(a);";
    case Red::kAny:
      result = Value::kIntNarrow;
      return "int a = 0; FOR_X { if (v != 0) { a = 1; break; } } ST0(a);";
  }
  return {};
}

std::string red_source(const Device& d, const std::string& body, int32_t xd, int32_t od, Value result, bool indices) {
  const DTypeInfo& t = dtype_info(xd);
  const DTypeInfo& o = dtype_info(od);
  std::string s = prelude(d);
  s += std::string("#define C ") + t.compute + "\n";
  s += t.floating && d.fp64 ? "#define ACC double\n" : "#define ACC float\n";
  s += R"CLC(
long red_off(const Geometry* g, long base, long j) {
  for (int d = (int)g->ndim - 1; d >= 0; --d) { long c = j % g->shape[d]; j /= g->shape[d]; base += c * g->strides[0][d]; }
  return base;
}
__kernel void k(Geometry go, Geometry gr, WIDE_T sf0, __global uchar* bx, ulong ox, __global uchar* b0, ulong o0,
                __global uchar* b1, ulong o1) {
  long i = get_global_id(0);
  if (i >= go.n) return;
  long e0 = 0, e1 = 0, ex = 0, r = i;
  for (int d = (int)go.ndim - 1; d >= 0; --d) {
    long c = r % go.shape[d]; r /= go.shape[d];
    e0 += c * go.strides[0][d]; e1 += c * go.strides[1][d]; ex += c * go.strides[2][d];
  }
  #define SF0 sf0
)CLC";
  s += std::string("  __global ") + t.storage + "* px = (__global " + t.storage + "*)(bx + ox);\n";
  s += std::string("  __global ") + o.storage + "* p0 = (__global " + o.storage + "*)(b0 + o0);\n";
  s += "  __global long* p1 = (__global long*)(b1 + o1);\n";
  s += "  #define FOR_X for (long j = 0; j < gr.n; ++j)\n";
  s += "  #define VX (" + load_expr(xd, "px", "red_off(&gr, ex, j)") + ")\n";
  s += "  #define ST0(v) do { " + store_stmt(od, result, "p0", "e0", "(v)") + " } while (0)\n";
  s += "  #define ST1L(v) do { p1[e1] = (v); } while (0)\n";
  (void)indices;
  s += "  {\n" + body + "\n  }\n}\n";
  return s;
}

template <size_t I>
MFStatus launch_red(const MFKernelCall* call) {
  return guarded([&] {
    const RedDef& def = kReds[I];
    const bool indices = def.op == Red::kMax || def.op == Red::kMin;
    Stream* s = check_call(call, def.name, 1, indices ? 2 : 1);
    const MFTensorDesc& x = call->inputs[0];
    const MFTensorDesc& out = call->outputs[0];
    if (x.ndim != out.ndim) invalid(def.name, "output rank differs from input rank");
    if (x.ndim > kMaxDims) raise(MF_ERR_UNSUPPORTED, std::string(def.name) + ": too many dims for opencl");
    if (indices && (!same_shape(call->outputs[1], out) || call->outputs[1].dtype != MF_INT64))
      invalid(def.name, "indices must be int64 shaped like the values");
    Geometry go{}, gr{};
    go.ndim = gr.ndim = x.ndim;
    go.n = numel(out);
    gr.n = 1;
    for (int32_t d = 0; d < x.ndim; ++d) {
      if (out.shape[d] != x.shape[d] && out.shape[d] != 1) invalid(def.name, "output shape does not fit the input");
      const bool reduced = out.shape[d] == 1;
      go.shape[d] = out.shape[d];
      go.strides[0][d] = out.strides[d];
      go.strides[1][d] = indices ? call->outputs[1].strides[d] : 0;
      go.strides[2][d] = reduced ? 0 : x.strides[d];
      gr.shape[d] = reduced ? x.shape[d] : 1;
      gr.strides[0][d] = reduced ? x.strides[d] : 0;
      gr.n *= gr.shape[d];
    }
    const Resolved rx = resolve_desc(x, call->device, def.name, "input");
    const Resolved r0 = resolve_desc(out, call->device, def.name, "output 0");
    const Resolved r1 = indices ? resolve_desc(call->outputs[1], call->device, def.name, "output 1") : r0;
    if (go.n == 0) return MF_OK;
    Value result;
    std::string body = red_body(def.op, x.dtype, result);
    for (size_t at = body.find("FOR_X {"); at != std::string::npos; at = body.find("FOR_X {", at + 1))
      body.insert(at + 7, " C v = VX;");
    const Device& dev = device(call->device);
    if (result == Value::kDouble && !dev.fp64) result = Value::kFloat;
    double sf0 = 0;
    if (def.op == Red::kVar || def.op == Red::kStd) sf0 = attr(call, def.name, "correction").f;
    if (def.op == Red::kNorm) sf0 = attr(call, def.name, "p").f;
    const std::string key = std::string("red_") + def.name + ":" + std::to_string(x.dtype) + "," + std::to_string(out.dtype);
    CachedKernel& k = cached_kernel(call->device, key, "k",
                                    [&] { return red_source(dev, body, x.dtype, out.dtype, result, indices); });
    Launch l(k, s);
    l.arg(go).arg(gr);
    if (dev.fp64) l.arg(cl_double(sf0));
    else l.arg(cl_float(float(sf0)));
    l.buffer(rx).buffer(r0).buffer(r1);
    l.run(go.n);
    return MF_OK;
  });
}

// ---------------------------------------------------------------- row ops

enum class Row { kSoftmax, kLogSoftmax, kCumsum, kCumprod };
struct RowDef {
  const char* name;
  Row op;
  bool floating_only;
};
constexpr RowDef kRows[] = {
    {"softmax", Row::kSoftmax, true},
    {"log_softmax", Row::kLogSoftmax, true},
    {"cumsum", Row::kCumsum, false},
    {"cumprod", Row::kCumprod, false},
};
constexpr size_t kNumRows = sizeof(kRows) / sizeof(kRows[0]);

std::string row_body(Row op, const DTypeInfo& t) {
  switch (op) {
    case Row::kSoftmax:
    case Row::kLogSoftmax: {
      // The maximum first; a NaN or +inf anywhere, or a row of -inf, makes it NaN (torch).
      std::string s =
          "C m = -INFINITY; int bad = 0;\n"
          "for (long j = 0; j < L; ++j) { C x = LDX(j); if (x != x || (isinf(x) && x > 0)) bad = 1; else if (x > m) m = x; }\n"
          "if (isinf(m)) bad = 1;\n"
          "if (bad) { for (long j = 0; j < L; ++j) ST0(j, NAN); return; }\n"
          "ACC sum = 0; for (long j = 0; j < L; ++j) sum += (ACC)exp(LDX(j) - m);\n";
      if (op == Row::kSoftmax) s += "for (long j = 0; j < L; ++j) ST0(j, (ACC)exp(LDX(j) - m) / sum);";
      else s += "ACC ls = log(sum);\nfor (long j = 0; j < L; ++j) ST0(j, (ACC)(LDX(j) - m) - ls);";
      return s;
    }
    case Row::kCumsum:
      return t.floating ? "ACC a = 0; for (long j = 0; j < L; ++j) { a += (ACC)LDX(j); ST0(j, a); }"
                        : "ulong a = 0; for (long j = 0; j < L; ++j) { a += (ulong)(long)LDX(j); ST0(j, (long)a); }";
    case Row::kCumprod:
      return t.floating ? "ACC a = 1; for (long j = 0; j < L; ++j) { a *= (ACC)LDX(j); ST0(j, a); }"
                        : "ulong a = 1; for (long j = 0; j < L; ++j) { a *= (ulong)(long)LDX(j); ST0(j, (long)a); }";
  }
  return {};
}

template <size_t I>
MFStatus launch_row(const MFKernelCall* call) {
  return guarded([&] {
    const RowDef& def = kRows[I];
    Stream* s = check_call(call, def.name, 1, 1);
    const MFTensorDesc& x = call->inputs[0];
    const MFTensorDesc& out = call->outputs[0];
    if (!same_shape(x, out)) invalid(def.name, "output shape differs from input shape");
    if (x.ndim > kMaxDims + 1) raise(MF_ERR_UNSUPPORTED, std::string(def.name) + ": too many dims for opencl");
    Geometry g{};
    const int32_t lead = x.ndim > 0 ? x.ndim - 1 : 0;
    g.ndim = lead;
    g.n = 1;
    for (int32_t d = 0; d < lead; ++d) {
      g.shape[d] = x.shape[d];
      g.strides[0][d] = out.strides[d];
      g.strides[1][d] = x.strides[d];
      g.n *= x.shape[d];
    }
    const cl_long L = x.ndim > 0 ? x.shape[x.ndim - 1] : 1;
    const cl_long sx = x.ndim > 0 ? x.strides[x.ndim - 1] : 0;
    const cl_long so = x.ndim > 0 ? out.strides[x.ndim - 1] : 0;
    const Resolved rx = resolve_desc(x, call->device, def.name, "input");
    const Resolved r0 = resolve_desc(out, call->device, def.name, "output");
    if (g.n == 0 || L == 0) return MF_OK;
    const Device& dev = device(call->device);
    const DTypeInfo& t = dtype_info(x.dtype);
    Value result = t.floating ? (dev.fp64 ? Value::kDouble : Value::kFloat) : Value::kIntWide;
    const std::string key = std::string("row_") + def.name + ":" + std::to_string(x.dtype) + "," + std::to_string(out.dtype);
    CachedKernel& k = cached_kernel(call->device, key, "k", [&] {
      const DTypeInfo& o = dtype_info(out.dtype);
      std::string src = prelude(dev);
      src += std::string("#define C ") + t.compute + "\n";
      src += t.floating && dev.fp64 ? "#define ACC double\n" : "#define ACC float\n";
      src += "__kernel void k(Geometry g, long L, long sx, long so, __global uchar* bx, ulong ox, __global uchar* b0, ulong o0) {\n"
             "  long i = get_global_id(0);\n  if (i >= g.n) return;\n  long e0 = 0, ex = 0, r = i;\n"
             "  for (int d = (int)g.ndim - 1; d >= 0; --d) { long c = r % g.shape[d]; r /= g.shape[d];\n"
             "    e0 += c * g.strides[0][d]; ex += c * g.strides[1][d]; }\n";
      src += std::string("  __global ") + t.storage + "* px = (__global " + t.storage + "*)(bx + ox);\n";
      src += std::string("  __global ") + o.storage + "* p0 = (__global " + o.storage + "*)(b0 + o0);\n";
      src += "  #define LDX(j) (" + load_expr(x.dtype, "px", "(ex + (j) * sx)") + ")\n";
      src += "  #define ST0(j, v) do { " + store_stmt(out.dtype, result, "p0", "(e0 + (j) * so)", "(v)") + " } while (0)\n";
      src += "  {\n" + row_body(def.op, t) + "\n  }\n}\n";
      return src;
    });
    Launch l(k, s);
    l.arg(g).arg(L).arg(sx).arg(so).buffer(rx).buffer(r0);
    l.run(g.n);
    return MF_OK;
  });
}

template <size_t... I>
constexpr std::array<MFKernelFn, sizeof...(I)> red_launchers(std::index_sequence<I...>) {
  return {&launch_red<I>...};
}
template <size_t... I>
constexpr std::array<MFKernelFn, sizeof...(I)> row_launchers(std::index_sequence<I...>) {
  return {&launch_row<I>...};
}

}  // namespace

void register_reduce_kernels(Registrar& r) {
  static const auto reds = red_launchers(std::make_index_sequence<kNumReds>());
  static const auto rows = row_launchers(std::make_index_sequence<kNumRows>());
  for (int32_t dt = 0; dt <= MF_FLOAT64; ++dt) {
    if (!r.supports(dt)) continue;
    const DTypeInfo& t = dtype_info(dt);
    for (size_t i = 0; i < kNumReds; ++i) {
      const RedDef& def = kReds[i];
      if (def.dtypes == 2 && !t.floating) continue;
      int32_t out = dt;
      if (def.op == Red::kSum || def.op == Red::kProd) out = t.floating ? dt : MF_INT64;
      if (def.op == Red::kAll || def.op == Red::kAny) out = MF_BOOL;
      r.add(def.name, dt, out, reds[i]);
    }
    for (size_t i = 0; i < kNumRows; ++i) {
      const RowDef& def = kRows[i];
      if (def.floating_only && !t.floating) continue;
      const int32_t out = def.floating_only || t.floating ? dt : MF_INT64;
      r.add(def.name, dt, out, rows[i]);
    }
  }
}

}  // namespace mfocl
