// Kernels of the graph-only fused ops (ops/graph.def): fused_elementwise runs
// a small program (Note [Fused programs] in monoflow/fused_program.h) over
// blocks of elements; matmul_epilogue runs matmul's GEMM and then the
// program on each slice of the product while that slice is in cache;
// conv_epilogue does the same after each chunk of images of conv2d.
//
// Note [Fused kernels are the unfused chain]
//   A fusion pass may only change how often memory is touched, never a
//   result. So every instruction below is the unfused kernel's formula on
//   the same compute type (kernels_elementwise.cpp, kernels_math_unary.cpp,
//   kernels_math_ternary.cpp, kernels_fused.cpp: keep them in step), each
//   result is rounded to the kernel dtype as the unfused kernel's store
//   would (float16/bfloat16; exact otherwise), and the build has no FMA
//   contraction (Note [Wide contiguous loops]). matmul_epilogue calls the
//   GEMM exactly as kernels_matmul.cpp does, with the same split over the
//   OpenMP team, so the product is the matmul kernel's to the bit.
//   The tests compare fused and unfused plans bit for bit.
#include <cblas.h>
#include <monoflow/fused_program.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "conv.h"
#include "dtype.h"
#include "fast_math.h"
#include "gemm.h"
#include "launch.h"
#include "loops.h"
#include "strided.h"

namespace mfcpu {
namespace {

constexpr int kMaxFusedOperands = 8;  // what a graph node can pass (actor.cc)
constexpr int64_t kBlock = 1024;      // elements per register
constexpr size_t kMaxConstants = 64;
// Runs up to this long go several to a block (Note [Short rows]); longer
// ones one at a time, so that their inputs can be read in place.
constexpr int64_t kShortRow = kBlock / 4;
constexpr int64_t kMaxRowsPerBlock = 128;

// ------------------------------------------------------------ programs

// A validated program. Interned (Note [Interned programs]): a task keeps a
// pointer to it, since the attributes only live during the launching call.
struct Program {
  std::vector<int64_t> code, outputs, constants;  // constants: double bits
  int registers = 0;
  int num_loads = 0;  // 1 + the highest input a LOAD reads
  // For Note [Direct operands]: per instruction, the output whose final
  // value it computes (-1: none); per output, that instruction; per input,
  // its last LOAD (-1: none).
  std::vector<int> defines_output, final_def, last_load;
  std::vector<int> last_use;  // per input: the last instruction reading a value LOADed from it (-1: none)
};

bool is_unary(int64_t op) { return op >= MF_FUSED_NEG && op <= MF_FUSED_LOG1P; }
bool is_binary(int64_t op) { return op >= MF_FUSED_ADD && op <= MF_FUSED_MINIMUM; }
bool is_compare(int64_t op) { return op >= MF_FUSED_EQ && op <= MF_FUSED_GE; }

// Why a program is malformed, or empty when it is fine. Registers must be
// written before they are read, so no instruction reads stack garbage.
std::string check_program(const Program& p) {
  if (p.registers < 1 || p.registers > MF_FUSED_MAX_REGISTERS) return "bad register count";
  if (p.code.size() % MF_FUSED_WIDTH != 0) return "program length is not a whole number of instructions";
  if (p.constants.size() > kMaxConstants) return "too many constants";
  std::vector<bool> defined(size_t(p.registers), false);
  auto reg = [&](int64_t r) { return r >= 0 && r < p.registers; };
  auto ready = [&](int64_t r) { return reg(r) && defined[size_t(r)]; };
  const int64_t nconst = int64_t(p.constants.size());
  for (size_t k = 0; k < p.code.size(); k += MF_FUSED_WIDTH) {
    const int64_t op = p.code[k], dst = p.code[k + 1], a = p.code[k + 2], b = p.code[k + 3], c = p.code[k + 4];
    bool ok;
    if (op == MF_FUSED_LOAD) ok = a >= 0 && a < kMaxFusedOperands;
    else if (op == MF_FUSED_CONST || op == MF_FUSED_CONST_STORED) ok = a >= 0 && a < nconst;
    else if (op == MF_FUSED_MOVE || is_unary(op)) ok = ready(a);
    else if (is_binary(op) || is_compare(op)) ok = ready(a) && ready(b);
    else if (op == MF_FUSED_WHERE) ok = ready(a) && ready(b) && ready(c);
    else if (op == MF_FUSED_AXPY) ok = ready(a) && ready(b) && c >= 0 && c < nconst;
    else return "unknown opcode " + std::to_string(op);
    // run_code() declares the destination unaliased: it may not be an operand
    const bool reads_dst = op != MF_FUSED_LOAD && op != MF_FUSED_CONST && op != MF_FUSED_CONST_STORED &&
                           (a == dst || ((is_binary(op) || is_compare(op) || op == MF_FUSED_WHERE ||
                                          op == MF_FUSED_AXPY) && b == dst) || (op == MF_FUSED_WHERE && c == dst));
    if (!ok || !reg(dst) || reads_dst) return "bad operand in instruction " + std::to_string(k / MF_FUSED_WIDTH);
    defined[size_t(dst)] = true;
  }
  for (int64_t r : p.outputs)
    if (!ready(r)) return "an output names a register no instruction writes";
  return "";
}

// Note [Interned programs]
//   Each distinct program is kept once for the life of the process (plans
//   have few, and they are small), found by content. A stream task then
//   carries a plain pointer. A few recent programs per thread make the
//   common case (a plan replaying its nodes) a comparison without a lock.
const MFAttr* ints_attr_of(const char* op, const MFKernelCall* call, const char* name) {
  const MFAttr* a = find_attr(call, name);
  if (!a || a->kind != MF_ATTR_INTS || a->count < 0 || (a->count > 0 && !a->ints))
    invalid(op, (std::string("missing ints attribute '") + name + "'").c_str());
  return a;
}

bool same_ints(const std::vector<int64_t>& v, const MFAttr* a) {
  return v.size() == size_t(a->count) && (v.empty() || std::memcmp(v.data(), a->ints, v.size() * 8) == 0);
}

const Program* intern_program(const char* op, const MFKernelCall* call) {
  const MFAttr* code = ints_attr_of(op, call, "program");
  const MFAttr* outs = ints_attr_of(op, call, "outputs");
  const MFAttr* consts = ints_attr_of(op, call, "constants");
  const MFAttr* regs = find_attr(call, "registers");
  if (!regs || regs->kind != MF_ATTR_SCALAR) invalid(op, "missing scalar attribute 'registers'");
  auto matches = [&](const Program& p) {
    return p.registers == regs->i && same_ints(p.code, code) && same_ints(p.outputs, outs) &&
           same_ints(p.constants, consts);
  };
  thread_local const Program* recent[8] = {};  // a plan's few programs, one launch after another
  thread_local unsigned next = 0;
  for (const Program* p : recent)
    if (p && matches(*p)) return p;
  auto remember = [&](const Program* p) { return recent[next++ % 8] = p; };

  static std::mutex mu;
  static std::unordered_map<uint64_t, std::vector<std::unique_ptr<Program>>> table;
  uint64_t h = 1469598103934665603ull ^ uint64_t(regs->i);
  for (const MFAttr* a : {code, outs, consts})
    for (int32_t k = 0; k < a->count; ++k) h = (h ^ uint64_t(a->ints[k])) * 1099511628211ull;
  std::lock_guard<std::mutex> lock(mu);
  for (const auto& p : table[h])
    if (matches(*p)) return remember(p.get());
  auto p = std::make_unique<Program>();
  p->code.assign(code->ints, code->ints + code->count);
  p->outputs.assign(outs->ints, outs->ints + outs->count);
  p->constants.assign(consts->ints, consts->ints + consts->count);
  p->registers = int(regs->i);
  for (size_t k = 0; k < p->code.size(); k += MF_FUSED_WIDTH)
    if (p->code[k] == MF_FUSED_LOAD) p->num_loads = std::max(p->num_loads, int(p->code[k + 2]) + 1);
  const std::string why = check_program(*p);
  if (!why.empty()) invalid(op, ("malformed program: " + why).c_str());
  const int ninstr = int(p->code.size() / MF_FUSED_WIDTH);
  p->defines_output.assign(size_t(ninstr), -1);
  p->final_def.assign(p->outputs.size(), -1);
  p->last_load.assign(size_t(p->num_loads), -1);
  for (int i = 0; i < ninstr; ++i) {
    const int64_t* ins = &p->code[size_t(i) * MF_FUSED_WIDTH];
    if (ins[0] == MF_FUSED_LOAD) p->last_load[size_t(ins[2])] = i;
    for (size_t o = 0; o < p->outputs.size(); ++o)
      if (p->outputs[o] == ins[1]) p->final_def[o] = i;
  }
  // The last read of each loaded value (until its register is written
  // again); a value that is an output is read by the final store.
  p->last_use.assign(size_t(p->num_loads), -1);
  for (int i = 0; i < ninstr; ++i) {
    const int64_t* ins = &p->code[size_t(i) * MF_FUSED_WIDTH];
    if (ins[0] != MF_FUSED_LOAD) continue;
    int& last = p->last_use[size_t(ins[2])];
    last = std::max(last, i);
    bool live = true;
    for (int j = i + 1; j < ninstr && live; ++j) {
      const int64_t* use = &p->code[size_t(j) * MF_FUSED_WIDTH];
      const int64_t op = use[0];
      const int nread = op == MF_FUSED_LOAD || op == MF_FUSED_CONST || op == MF_FUSED_CONST_STORED ? 0
                        : op == MF_FUSED_WHERE                                                      ? 3
                        : (is_binary(op) || is_compare(op) || op == MF_FUSED_AXPY)                  ? 2
                                                                                                    : 1;
      for (int f = 0; f < nread; ++f)
        if (use[2 + f] == ins[1]) last = std::max(last, j);
      live = use[1] != ins[1];
    }
    if (live)
      for (int64_t r : p->outputs)
        if (r == ins[1]) last = ninstr;
  }
  for (size_t o = 0; o < p->outputs.size(); ++o) {
    const int i = p->final_def[o];
    const int64_t code = p->code[size_t(i) * MF_FUSED_WIDTH];
    const bool computes = code != MF_FUSED_LOAD && code != MF_FUSED_CONST && code != MF_FUSED_CONST_STORED &&
                          code != MF_FUSED_MOVE;
    if (computes && p->defines_output[size_t(i)] < 0) p->defines_output[size_t(i)] = int(o);
  }
  table[h].push_back(std::move(p));
  return remember(table[h].back().get());
}

double constant(const Program& p, int64_t k) {
  double d;
  std::memcpy(&d, &p.constants[size_t(k)], sizeof d);
  return d;
}

// ------------------------------------------------------------ the interpreter

// The unfused kernels' formulas (Note [Fused kernels are the unfused chain]).
template <class C>
inline __attribute__((always_inline)) C silu(C x) {
  return silu_of(x);
}
// gelu's two forms (kernels_math_erf.cpp), inlined into the map loops: a
// call per element left the exact form's loop 12x slower than the kernel.
template <class C>
inline __attribute__((always_inline)) C gelu_tanh(C x) {
  const C kBeta = C(M_SQRT2 * M_2_SQRTPI * 0.5), kKappa = C(0.044715);
  return C(0.5) * x * (C(1) + tanh_of(kBeta * (x + kKappa * x * x * x)));
}
template <class C>
inline __attribute__((always_inline)) C gelu_erf(C x) {
  return x * C(0.5) * (C(1) + erf_of(x * C(M_SQRT1_2)));
}

// The register rows of the calling thread (MF_FUSED_MAX_REGISTERS x kBlock
// values: too big for a worker's stack), made on first use.
template <class C>
C (*register_rows())[kBlock] {
  struct alignas(64) Rows {
    C r[MF_FUSED_MAX_REGISTERS][kBlock];
  };
  thread_local std::unique_ptr<Rows> rows;
  if (!rows) rows.reset(new Rows);
  return rows->r;
}

// One block's operands: where each element of input/output k starts and the
// byte distance between elements.
// A block is `rows` runs of `cols` elements (Note [Short rows]); in_rows[k]
// holds where each run of input k starts.
struct BlockOperands {
  int64_t rows = 1, cols = 0;
  char* const* in_rows[kMaxFusedOperands];
  int64_t in_stride[kMaxFusedOperands];
  bool in_flat[kMaxFusedOperands];    // the runs follow each other: one run of rows * cols
  bool in_bool[kMaxFusedOperands];
  bool in_direct[kMaxFusedOperands];  // a flat contiguous LOAD may read the input in place
  char* out_direct[kMaxFusedOperands];  // where output k's final value may be computed in place, or null
  bool wrote[kMaxFusedOperands];        // ... and was
};

// n elements of one input into d (compute type).
template <class S>
inline void load_run(compute_t<S>* d, const char* src, int64_t s, bool is_bool, int64_t n) {
  using C = compute_t<S>;
  if (is_bool) {
    for (int64_t i = 0; i < n; ++i) d[i] = C(src[i * s] != 0);
  } else if (s == int64_t(sizeof(S))) {
    const S* x = reinterpret_cast<const S*>(src);
    for (int64_t i = 0; i < n; ++i) d[i] = load(x[i]);
  } else if (s == 0) {
    const C v = load(*reinterpret_cast<const S*>(src));
    for (int64_t i = 0; i < n; ++i) d[i] = v;
  } else {
    for (int64_t i = 0; i < n; ++i) d[i] = load(*reinterpret_cast<const S*>(src + i * s));
  }
}

template <class S>
inline void store_run(char* dst, int64_t s, bool is_bool, const compute_t<S>* r, int64_t n) {
  using C = compute_t<S>;
  if (is_bool) {
    for (int64_t i = 0; i < n; ++i) dst[i * s] = char(r[i] != C(0));
  } else if (s == int64_t(sizeof(S))) {
    S* y = reinterpret_cast<S*>(dst);
    for (int64_t i = 0; i < n; ++i) y[i] = store<S>(r[i]);
  } else {
    for (int64_t i = 0; i < n; ++i) *reinterpret_cast<S*>(dst + i * s) = store<S>(r[i]);
  }
}

template <class S>
struct Constants {
  using C = compute_t<S>;
  C scalar[kMaxConstants], stored[kMaxConstants];  // C(value) and load(store(value))
};

// Loops over one instruction's registers. Restrict-qualified parameters
// (which inlining keeps) tell the compiler what the pass guarantees: an
// instruction never writes a register it reads (fusion.cc), so they vectorise.
template <class C, class F>
inline void map1(C* __restrict d, const C* __restrict a, int64_t m, F f) {
  for (int64_t i = 0; i < m; ++i) d[i] = f(a[i]);
}
template <class C, class F>
inline void map2(C* __restrict d, const C* __restrict a, const C* __restrict b, int64_t m, F f) {
  for (int64_t i = 0; i < m; ++i) d[i] = f(a[i], b[i]);
}
template <class C>
inline void select(C* __restrict d, const C* __restrict c, const C* __restrict x, const C* __restrict y, int64_t m) {
  for (int64_t i = 0; i < m; ++i) d[i] = c[i] != C(0) ? x[i] : y[i];
}
template <class C>
inline void broadcast(C* __restrict d, C v, int64_t m) {
  for (int64_t i = 0; i < m; ++i) d[i] = v;
}
template <class S>
inline void load_contig(compute_t<S>* __restrict d, const S* __restrict x, int64_t m) {
  for (int64_t i = 0; i < m; ++i) d[i] = load(x[i]);
}

// Runs the program on m <= kBlock elements into registers.
// where[r]: the elements of register r's current value (its scratch row,
// an input read in place, or an output written in place).
template <class S>
MFCPU_SIMD_CLONES void run_code(const Program& p, const Constants<S>& k, BlockOperands& ops, int64_t m,
                                compute_t<S> (*regs)[kBlock], compute_t<S>** where) {
  using C = compute_t<S>;
  const int64_t* code = p.code.data();
  const size_t len = p.code.size();
  for (size_t at = 0; at < len; at += MF_FUSED_WIDTH) {
    const int64_t op = code[at], dst = code[at + 1];
    // Fields that are not registers (an input, a constant, a flag) give null.
    auto reg = [&](int64_t r) -> const C* { return r >= 0 && r < p.registers ? where[r] : nullptr; };
    const C* a = reg(code[at + 2]);
    const C* b = reg(code[at + 3]);
    const C* c = reg(code[at + 4]);
    C* d = regs[dst];
    const int out = p.defines_output[at / MF_FUSED_WIDTH];
    if (out >= 0 && ops.out_direct[out]) {
      d = reinterpret_cast<C*>(ops.out_direct[out]);
      ops.wrote[out] = true;
    }
    where[dst] = d;
    bool rounds = true;  // the result is a floating value the unfused kernel stores
    switch (op) {
      case MF_FUSED_LOAD: {
        const int64_t in = code[at + 2], s = ops.in_stride[in];
        char* const* rows = ops.in_rows[in];
        if (ops.rows == 1 || ops.in_flat[in]) {
          if (ops.in_direct[in] && s == int64_t(sizeof(S)))
            where[dst] = reinterpret_cast<C*>(rows[0]);  // S is C here: no copy
          else if (s == int64_t(sizeof(S)) && !ops.in_bool[in])
            load_contig<S>(d, reinterpret_cast<const S*>(rows[0]), m);
          else
            load_run<S>(d, rows[0], s, ops.in_bool[in], m);
        } else {
          for (int64_t r = 0; r < ops.rows; ++r) load_run<S>(d + r * ops.cols, rows[r], s, ops.in_bool[in], ops.cols);
        }
        rounds = false;
        break;
      }
      case MF_FUSED_CONST:
      case MF_FUSED_CONST_STORED:
        broadcast(d, op == MF_FUSED_CONST ? k.scalar[code[at + 2]] : k.stored[code[at + 2]], m);
        rounds = false;
        break;
      case MF_FUSED_MOVE:
        map1(d, a, m, [](C x) { return x; });
        rounds = false;
        break;
      case MF_FUSED_NEG: map1(d, a, m, [](C x) { return -x; }); break;
      case MF_FUSED_EXP: map1(d, a, m, [](C x) { return exp_of(x); }); break;
      case MF_FUSED_LOG: map1(d, a, m, [](C x) { return std::log(x); }); break;
      case MF_FUSED_SQRT: map1(d, a, m, [](C x) { return std::sqrt(x); }); break;
      case MF_FUSED_RSQRT: map1(d, a, m, [](C x) { return C(1) / std::sqrt(x); }); break;
      case MF_FUSED_TANH: map1(d, a, m, [](C x) { return tanh_of(x); }); break;
      case MF_FUSED_SIGMOID: map1(d, a, m, [](C x) { return sigmoid_of(x); }); break;
      case MF_FUSED_RELU: map1(d, a, m, [](C x) { return x < C(0) ? C(0) : x; }); break;
      case MF_FUSED_GELU:
        if (code[at + 3] != 0) map1(d, a, m, [](C x) __attribute__((always_inline)) { return gelu_tanh(x); });
        else map1(d, a, m, [](C x) __attribute__((always_inline)) { return gelu_erf(x); });
        break;
      case MF_FUSED_SILU: map1(d, a, m, [](C x) { return silu(x); }); break;
      case MF_FUSED_ABS: map1(d, a, m, [](C x) { return std::fabs(x); }); break;
      case MF_FUSED_SQUARE: map1(d, a, m, [](C x) { return x * x; }); break;
      case MF_FUSED_RECIPROCAL: map1(d, a, m, [](C x) { return C(1) / x; }); break;
      case MF_FUSED_ERF: map1(d, a, m, [](C x) { return erf_of(x); }); break;
      case MF_FUSED_EXPM1: map1(d, a, m, [](C x) { return std::expm1(x); }); break;
      case MF_FUSED_LOG1P: map1(d, a, m, [](C x) { return std::log1p(x); }); break;
      case MF_FUSED_ADD: map2(d, a, b, m, [](C x, C y) { return x + y; }); break;
      case MF_FUSED_SUB: map2(d, a, b, m, [](C x, C y) { return x - y; }); break;
      case MF_FUSED_MUL: map2(d, a, b, m, [](C x, C y) { return x * y; }); break;
      case MF_FUSED_DIV: map2(d, a, b, m, [](C x, C y) { return x / y; }); break;
      case MF_FUSED_MAXIMUM: map2(d, a, b, m, [](C x, C y) { return (x >= y || x != x) ? x : y; }); break;
      case MF_FUSED_MINIMUM: map2(d, a, b, m, [](C x, C y) { return (x <= y || x != x) ? x : y; }); break;
      case MF_FUSED_EQ: map2(d, a, b, m, [](C x, C y) { return C(x == y); }); rounds = false; break;
      case MF_FUSED_NE: map2(d, a, b, m, [](C x, C y) { return C(x != y); }); rounds = false; break;
      case MF_FUSED_LT: map2(d, a, b, m, [](C x, C y) { return C(x < y); }); rounds = false; break;
      case MF_FUSED_LE: map2(d, a, b, m, [](C x, C y) { return C(x <= y); }); rounds = false; break;
      case MF_FUSED_GT: map2(d, a, b, m, [](C x, C y) { return C(x > y); }); rounds = false; break;
      case MF_FUSED_GE: map2(d, a, b, m, [](C x, C y) { return C(x >= y); }); rounds = false; break;
      case MF_FUSED_WHERE:  // selects stored values: nothing to round
        select(d, a, b, c, m);
        rounds = false;
        break;
      case MF_FUSED_AXPY: {
        const C alpha = k.scalar[code[at + 4]];
        map2(d, a, b, m, [alpha](C x, C y) { return x + alpha * y; });
        break;
      }
      default: break;  // check_program rejected anything else
    }
    if constexpr (!std::is_same<C, S>::value) {  // float16/bfloat16: the unfused store's rounding
      if (rounds)
        for (int64_t i = 0; i < m; ++i) d[i] = load(store<S>(d[i]));
    }
  }
}

// The inner functor run_loop() drives: p/s hold the outputs, then the
// inputs, then padding (stride 0).
template <class S>
struct ProgramLoop {
  using C = compute_t<S>;
  const Program* program;
  Constants<S> constants;
  int num_outputs, num_inputs;
  bool out_bool[kMaxFusedOperands], in_bool[kMaxFusedOperands];
  bool in_direct[kMaxFusedOperands], out_direct[kMaxFusedOperands];  // Note [Direct operands]

  // One block: rows[k][r] is where run r of operand k (outputs, then inputs) starts.
  void block(char* const* const* rows, const int64_t* s, int64_t nrows, int64_t cols, C (*regs)[kBlock],
             C** where) const {
    BlockOperands ops;
    ops.rows = nrows;
    ops.cols = cols;
    auto flat = [&](int k) {
      for (int64_t r = 1; r < nrows; ++r)
        if (rows[k][r] != rows[k][0] + r * cols * s[k]) return false;
      return true;
    };
    for (int k = 0; k < num_inputs; ++k) {
      const int j = num_outputs + k;
      ops.in_rows[k] = rows[j];
      ops.in_stride[k] = s[j];
      ops.in_flat[k] = nrows == 1 || flat(j);
      ops.in_bool[k] = in_bool[k];
      ops.in_direct[k] = in_direct[k];
    }
    bool out_flat[kMaxFusedOperands];
    for (int o = 0; o < num_outputs; ++o) {
      out_flat[o] = nrows == 1 || flat(o);
      ops.out_direct[o] = out_direct[o] && out_flat[o] && s[o] == int64_t(sizeof(S)) ? rows[o][0] : nullptr;
      ops.wrote[o] = false;
    }
    for (int r = 0; r < program->registers; ++r) where[r] = regs[r];
    run_code<S>(*program, constants, ops, nrows * cols, regs, where);
    for (int o = 0; o < num_outputs; ++o) {  // every load of the block came first
      if (ops.wrote[o]) continue;             // computed in place
      const C* r = where[program->outputs[size_t(o)]];
      if (out_flat[o]) {
        store_run<S>(rows[o][0], s[o], out_bool[o], r, nrows * cols);
      } else {
        for (int64_t i = 0; i < nrows; ++i) store_run<S>(rows[o][i], s[o], out_bool[o], r + i * cols, cols);
      }
    }
  }

  // run_loop()'s inner functor: one run of n elements.
  void operator()(char* const* p, const int64_t* s, int64_t n) const {
    C (*regs)[kBlock] = register_rows<C>();
    C* where[MF_FUSED_MAX_REGISTERS];
    const int count = num_outputs + num_inputs;
    char* start[kMaxFusedOperands];
    char* const* rows[kMaxFusedOperands];
    for (int k = 0; k < count; ++k) rows[k] = &start[k];
    for (int64_t base = 0; base < n; base += kBlock) {
      for (int k = 0; k < count; ++k) start[k] = p[k] + base * s[k];
      block(rows, s, 1, std::min(kBlock, n - base), regs, where);
    }
  }
};

template <class S>
ProgramLoop<S> make_loop(const Program& program, const Operand* ops, int num_outputs, int num_inputs) {
  ProgramLoop<S> loop;
  loop.program = &program;
  loop.num_outputs = num_outputs;
  loop.num_inputs = num_inputs;
  for (int k = 0; k < num_outputs; ++k) loop.out_bool[k] = ops[k].dtype == MF_BOOL;
  for (int k = 0; k < num_inputs; ++k) loop.in_bool[k] = ops[num_outputs + k].dtype == MF_BOOL;
  // Note [Direct operands]
  //   For float32/float64 (registers are the storage type) an instruction
  //   may read a contiguous input in place and the one computing an
  //   output's final value may write it in place, saving a copy through the
  //   register rows. Safe when no input overlaps an output, as the pass
  //   arranges except for an input that is the very same view as an output
  //   (an in-place op; matmul_epilogue's product in output 0): the output
  //   is written in place only if every load of that input comes before
  //   the instruction computing it, and the input is read in place only if
  //   every read of what was loaded from it does.
  constexpr bool same_type = std::is_same<S, compute_t<S>>::value;
  auto extent = [](const Operand& o, int64_t* lo, int64_t* hi) {
    int64_t a = 0, b = 0;
    for (int d = 0; d < o.ndim; ++d) {
      if (o.shape[d] == 0) {
        *lo = *hi = 0;
        return;
      }
      b += (o.shape[d] - 1) * o.strides[d];
    }
    const int64_t e = int64_t(dtype_size(o.dtype));
    *lo = int64_t(reinterpret_cast<intptr_t>(o.data)) + a * e;
    *hi = int64_t(reinterpret_cast<intptr_t>(o.data)) + (b + 1) * e;
  };
  int64_t lo[kMaxFusedOperands], hi[kMaxFusedOperands];
  for (int k = 0; k < num_outputs + num_inputs; ++k) extent(ops[k], &lo[k], &hi[k]);
  auto overlap = [&](int x, int y) { return lo[x] < hi[y] && lo[y] < hi[x]; };
  auto same_view = [&](int j, int o) {
    const Operand &in = ops[num_outputs + j], &out = ops[o];
    bool same = in.data == out.data && in.ndim == out.ndim;
    for (int d = 0; same && d < in.ndim; ++d) same = in.strides[d] == out.strides[d];
    return same;
  };
  auto at = [](const std::vector<int>& v, int j) { return j < int(v.size()) ? v[size_t(j)] : -1; };
  for (int j = 0; j < num_inputs; ++j) {
    bool ok = same_type && !loop.in_bool[j];
    for (int o = 0; o < num_outputs && ok; ++o)
      if (overlap(num_outputs + j, o))
        ok = same_view(j, o) && at(program.last_use, j) < program.final_def[size_t(o)];
    loop.in_direct[j] = ok;
  }
  for (int o = 0; o < num_outputs; ++o) {
    bool ok = same_type && !loop.out_bool[o];
    for (int j = 0; j < num_inputs && ok; ++j)
      if (overlap(num_outputs + j, o)) ok = same_view(j, o) && at(program.last_load, j) < program.final_def[size_t(o)];
    loop.out_direct[o] = ok;
  }
  for (size_t k = 0; k < program.constants.size(); ++k) {
    const double v = constant(program, int64_t(k));
    loop.constants.scalar[k] = compute_t<S>(v);  // scalar_attr() in kernels_elementwise.cpp
    loop.constants.stored[k] = load(cast<S>(v));  // what fill stores, read back
  }
  return loop;
}

// Note [Short rows]
//   A bias add over (batch, 10) logits, or over (batch, 128) when the bias
//   keeps the dims from merging, reaches the kernel as many short runs;
//   interpreting the program once per run of 10 elements would cost more
//   than the work. So such shapes go in blocks of several rows: each input
//   is loaded row by row into the registers (or read in place when the
//   rows follow each other in memory) and the program runs once over
//   rows * cols elements.
template <class S>
void run_short_rows(const Geometry<kMaxFusedOperands>& g, const ProgramLoop<S>& loop, int count) {
  using C = compute_t<S>;
  const int last = g.ndim - 1;
  const int64_t cols = g.shape[last], per = std::clamp<int64_t>(kBlock / cols, 1, kMaxRowsPerBlock);
  const int64_t total = g.numel() / cols, units = (total + per - 1) / per;
  int64_t s[kMaxFusedOperands];
  for (int k = 0; k < count; ++k) s[k] = g.strides[k][last];
  parallel_range(units, per * cols, [&](int64_t lo, int64_t hi) {
    C (*regs)[kBlock] = register_rows<C>();
    C* where[MF_FUSED_MAX_REGISTERS];
    char* starts[kMaxFusedOperands][kMaxRowsPerBlock];
    char* const* rows[kMaxFusedOperands];
    for (int k = 0; k < count; ++k) rows[k] = starts[k];
    int64_t idx[kMaxDims];
    char* row[kMaxFusedOperands];
    for (int64_t u = lo; u < hi; ++u) {
      const int64_t t0 = u * per, t1 = std::min(total, t0 + per);
      int64_t rem = t0;  // the multi-index of row t0 over the outer dims
      for (int d = last - 1; d >= 0; --d) {
        idx[d] = rem % g.shape[d];
        rem /= g.shape[d];
      }
      for (int k = 0; k < count; ++k) {
        row[k] = g.data[k];
        for (int d = 0; d < last; ++d) row[k] += idx[d] * g.strides[k][d];
      }
      for (int64_t t = t0; t < t1; ++t) {
        for (int k = 0; k < count; ++k) starts[k][t - t0] = row[k];
        for (int d = last - 1; d >= 0; --d) {  // next row, with carry
          for (int k = 0; k < count; ++k) row[k] += g.strides[k][d];
          if (++idx[d] < g.shape[d]) break;
          for (int k = 0; k < count; ++k) row[k] -= g.shape[d] * g.strides[k][d];
          idx[d] = 0;
        }
      }
      loop.block(rows, s, t1 - t0, cols, regs, where);
    }
  });
}

// Runs the program over operands [outputs..., inputs...] of one shape.
template <class S>
void run_program(const Program& program, const Operand* ops, int num_outputs, int num_inputs) {
  const int n = num_outputs + num_inputs;
  Operand padded[kMaxFusedOperands];
  static const int64_t zeros[kMaxDims] = {};
  size_t sizes[kMaxFusedOperands];
  for (int k = 0; k < kMaxFusedOperands; ++k) {
    if (k < n) {
      padded[k] = ops[k];
    } else {  // stride 0 everywhere: never blocks merging dims, never read
      padded[k] = ops[0];
      padded[k].strides = zeros;
    }
    sizes[k] = dtype_size(padded[k].dtype);
  }
  const auto g = make_geometry<kMaxFusedOperands>(padded, sizes);
  ProgramLoop<S> loop = make_loop<S>(program, ops, num_outputs, num_inputs);
  const int last = g.ndim - 1;
  if (last >= 1 && g.shape[last] <= kShortRow && !wants_tiling(g)) return run_short_rows(g, loop, n);
  run_loop(g, loop);
}

// Operand dtypes: the kernel dtype or bool.
template <class S>
void check_operand_dtypes(const char* op, const MFKernelCall* call, int first_input) {
  for (int32_t k = first_input; k < call->num_inputs; ++k)
    if (call->inputs[k].dtype != dtype_of<S> && call->inputs[k].dtype != MF_BOOL)
      invalid(op, "input dtype does not match the kernel");
  for (int32_t k = 0; k < call->num_outputs; ++k)
    if (call->outputs[k].dtype != dtype_of<S> && call->outputs[k].dtype != MF_BOOL)
      invalid(op, "output dtype does not match the kernel");
}

void check_counts(const char* op, const MFKernelCall* call, const Program& p, int program_inputs) {
  if (!call || call->struct_size < sizeof(MFKernelCall)) invalid(op, "bad MFKernelCall");
  if (call->device != 0) invalid(op, "no such cpu device");
  if (call->num_outputs < 1 || call->num_inputs < 0 || call->num_inputs + call->num_outputs > kMaxFusedOperands)
    invalid(op, "wrong number of operands");
  if (size_t(call->num_outputs) != p.outputs.size()) invalid(op, "the program stores a different number of outputs");
  if (p.num_loads > program_inputs) invalid(op, "the program loads an input the call does not pass");
}

void enqueue_program(const MFKernelCall* call, const Program* program, Task::Fn fn) {
  stream_from_handle(call->stream)->enqueue([&](Task& task) {
    task.fn = fn;
    task.set_kernel_call(call);
    task.ival[0] = int64_t(reinterpret_cast<intptr_t>(program));
    task.ival[1] = call->num_outputs;
  });
}

const Program& task_program(const Task& task) { return *reinterpret_cast<const Program*>(intptr_t(task.ival[0])); }

// ------------------------------------------------------------ fused_elementwise

template <class S>
void run_fused(Task& task) {
  const int num_outputs = int(task.ival[1]);
  run_program<S>(task_program(task), task.ops, num_outputs, task.num_operands - num_outputs);
}

template <class S>
MFStatus launch_fused(const MFKernelCall* call) {
  return guarded([&] {
    constexpr const char* op = "fused_elementwise";
    const Program* program = intern_program(op, call);
    check_counts(op, call, *program, call->num_inputs);
    check_operand_dtypes<S>(op, call, 0);
    for (int32_t k = 0; k < call->num_outputs; ++k)
      if (!same_shape(call->outputs[k], call->outputs[0])) invalid(op, "operand shapes differ");
    check_same_shapes(op, call);
    enqueue_program(call, program, &run_fused<S>);
    return MF_OK;
  });
}

// ------------------------------------------------------------ matmul_epilogue

// The GEMM as kernels_matmul.cpp calls it (Note [Fused kernels are the
// unfused chain]): same BLAS views and packing (gemm.h), and split over the team.
// One batch of the node: the product lands in output 0 (row-major), then
// the program runs on the rows [r0, r1) x columns [c0, c1) it just made.
template <class S>
struct EpilogueBatch {
  const Program* program;
  const Operand* ops;  // the task's: outputs, a, b, epilogue inputs
  int num_outputs, num_extra;
  int64_t offset[kMaxFusedOperands];  // this batch's element offset of each operand

  void apply(int64_t r0, int64_t r1, int64_t c0, int64_t c1) const {
    // The program's operands: outputs, the product (= output 0), the extra inputs.
    Operand view[kMaxFusedOperands];
    int64_t shape[2] = {r1 - r0, c1 - c0};
    int64_t strides[kMaxFusedOperands][2];
    const int nd = ops[0].ndim;
    auto slice = [&](int dst, int src) {
      const Operand& o = ops[src];
      strides[dst][0] = o.strides[nd - 2];
      strides[dst][1] = o.strides[nd - 1];
      view[dst] = o;
      view[dst].ndim = 2;
      view[dst].shape = shape;
      view[dst].strides = strides[dst];
      view[dst].data = o.data + (offset[src] + r0 * strides[dst][0] + c0 * strides[dst][1]) *
                                    int64_t(dtype_size(o.dtype));
    };
    for (int k = 0; k < num_outputs; ++k) slice(k, k);
    slice(num_outputs, 0);
    for (int k = 0; k < num_extra; ++k) slice(num_outputs + 1 + k, num_outputs + 2 + k);
    run_program<S>(*program, view, num_outputs, 1 + num_extra);
  }
};

template <class S>
void run_epilogue(Task& task) {
  const int num_outputs = int(task.ival[1]);
  const Operand* ops = task.ops;
  const Operand &out = ops[0], &a = ops[num_outputs], &b = ops[num_outputs + 1];
  const int num_extra = task.num_operands - num_outputs - 2;
  const int nd = out.ndim, nb = nd - 2;
  const int64_t n = out.shape[nd - 1], k = a.shape[nd - 1];
  int64_t m = out.shape[nd - 2], batches = 1;
  for (int d = 0; d < nb; ++d) batches *= out.shape[d];
  if (batches == 0 || m == 0 || n == 0) return;
  bool fold = batches > 1 && k > 0 && m > 1 && batches * m <= INT_MAX && shared_matrix(b, nb);  // Note [One GEMM for a shared right operand]
  for (int j = 0; fold && j < task.num_operands; ++j)
    fold = j == num_outputs + 1 || rows_fold(ops[j], nb);
  if (fold) m *= batches, batches = 1;  // one batch at offset 0, rows through the batch dims

  EpilogueBatch<S> batch{&task_program(task), ops, num_outputs, num_extra, {}};
  std::vector<S> pa, pb;            // packed operands (float/double)
  std::vector<float> fa, fb, fc;    // float16/bfloat16 go through float
  int64_t idx[kMaxDims] = {0};
  for (int64_t t = 0; t < batches; ++t) {
    for (int j = 0; j < task.num_operands; ++j) {
      batch.offset[j] = 0;
      for (int d = 0; d < nb; ++d) batch.offset[j] += idx[d] * ops[j].strides[d];
    }
    const int ia = num_outputs, ib = num_outputs + 1;
    const Mat<S> c{reinterpret_cast<S*>(out.data) + batch.offset[0], m, n, out.strides[nd - 2], out.strides[nd - 1]};
    const Mat<const S> am{reinterpret_cast<const S*>(a.data) + batch.offset[ia], m, k, a.strides[nd - 2],
                          a.strides[nd - 1]};
    const Mat<const S> bm{reinterpret_cast<const S*>(b.data) + batch.offset[ib], k, n, b.strides[nd - 2],
                          b.strides[nd - 1]};
    if (k == 0) {  // empty inner dim: the product is 0
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) c(i, j) = cast<S>(0);
      batch.apply(0, m, 0, n);
    } else if constexpr (std::is_same<S, float>::value || std::is_same<S, double>::value) {
      CBLAS_TRANSPOSE tc, ta, tb;
      blasint ldc, lda, ldb;
      blas_view(c, &tc, &ldc);  // NoTrans: checked at launch
      const S* ap = am.p;
      const S* bp = bm.p;
      if (!blas_view(am, &ta, &lda)) {
        pa.resize(size_t(m * k));
        pack(am, pa.data());
        ap = pa.data(), ta = CblasNoTrans, lda = blasint(k);
      }
      if (!blas_view(bm, &tb, &ldb)) {
        pb.resize(size_t(k * n));
        pack(bm, pb.data());
        bp = pb.data(), tb = CblasNoTrans, ldb = blasint(n);
      }
      const double flops = 2.0 * double(m) * double(n) * double(k);
      const bool by_rows = m >= n;
      const int64_t total = by_rows ? m : n;
      const int64_t parts = std::min<int64_t>(partition_width(), total);  // the nominal team's cut, as matmul's
      if (parts <= 1 || flops < kParallelGemmFlops) {
        gemm_call(ta, tb, blasint(m), blasint(n), blasint(k), ap, lda, bp, ldb, c.p, ldc);
        batch.apply(0, m, 0, n);
      } else {
        parallel_range(parts, kParallelGrain, [&](int64_t first, int64_t last) {
          for (int64_t part = first; part < last; ++part) {
            const int64_t lo = total * part / parts, hi = total * (part + 1) / parts;
            const blasint len = blasint(hi - lo);
            if (by_rows) {
              gemm_call(ta, tb, len, blasint(n), blasint(k), ap + (ta == CblasNoTrans ? lo * lda : lo), lda, bp,
                        ldb, c.p + lo * ldc, ldc);
              batch.apply(lo, hi, 0, n);
            } else {
              gemm_call(ta, tb, blasint(m), len, blasint(k), ap, lda, bp + (tb == CblasNoTrans ? lo : lo * ldb),
                        ldb, c.p + lo, ldc);
              batch.apply(0, m, lo, hi);
            }
          }
        });
      }
    } else {  // float16/bfloat16: widen, sgemm, round once on store (kernels_matmul.cpp)
      fa.resize(size_t(m * k));
      fb.resize(size_t(k * n));
      fc.resize(size_t(m * n));
      pack(am, fa.data());
      pack(bm, fb.data());
      gemm_call(CblasNoTrans, CblasNoTrans, blasint(m), blasint(n), blasint(k), fa.data(), blasint(k), fb.data(),
                blasint(n), fc.data(), blasint(n));
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) c(i, j) = store<S>(fc[size_t(i * n + j)]);
      batch.apply(0, m, 0, n);
    }
    for (int d = nb - 1; d >= 0; --d) {
      if (++idx[d] < out.shape[d]) break;
      idx[d] = 0;
    }
  }
}

template <class S>
MFStatus launch_epilogue(const MFKernelCall* call) {
  return guarded([&] {
    constexpr const char* op = "matmul_epilogue";
    const Program* program = intern_program(op, call);
    check_counts(op, call, *program, call->num_inputs - 1);
    if (call->num_inputs < 2) invalid(op, "wrong number of operands");
    check_operand_dtypes<S>(op, call, 2);
    const MFTensorDesc &a = call->inputs[0], &b = call->inputs[1], &out = call->outputs[0];
    if (a.dtype != dtype_of<S> || b.dtype != dtype_of<S> || out.dtype != dtype_of<S>)
      invalid(op, "the matrices and output 0 must have the kernel dtype");
    const int32_t nd = out.ndim;
    if (nd < 2 || a.ndim != nd || b.ndim != nd) invalid(op, "operands must share a rank >= 2");
    for (int32_t d = 0; d < nd - 2; ++d)
      if (a.shape[d] != out.shape[d] || b.shape[d] != out.shape[d])
        invalid(op, "batch dims must be broadcast to out's");
    const int64_t m = out.shape[nd - 2], n = out.shape[nd - 1], k = a.shape[nd - 1];
    if (a.shape[nd - 2] != m || b.shape[nd - 1] != n || b.shape[nd - 2] != k)
      invalid(op, "matrix dims do not line up");
    if (m > INT_MAX || n > INT_MAX || k > INT_MAX) invalid(op, "matrix dims beyond what BLAS can index");
    const Mat<const S> c{nullptr, m, n, out.strides[nd - 2], out.strides[nd - 1]};
    CBLAS_TRANSPOSE tc;
    blasint ldc;
    if (m > 0 && n > 0 && (!blas_view(c, &tc, &ldc) || tc != CblasNoTrans))
      invalid(op, "output 0 must be row-major");
    for (int32_t j = 1; j < call->num_outputs; ++j)
      if (!same_shape(call->outputs[j], out)) invalid(op, "operand shapes differ");
    for (int32_t j = 2; j < call->num_inputs; ++j)
      if (!same_shape(call->inputs[j], out)) invalid(op, "operand shapes differ");
    enqueue_program(call, program, &run_epilogue<S>);
    return MF_OK;
  });
}

// ------------------------------------------------------------ conv_epilogue

// Note [Conv epilogue operands]
//   inputs: x [N,C,H,W], w [O,C/groups,kh,kw], bias [O] when the "bias"
//   attribute is 1, then the program's inputs 1..; outputs: output 0 holds
//   the convolution (contiguous, the kernel dtype, N*O*OH*OW elements: any
//   shape of them whose dim 0 is N, like conv1d's squeezed [N,O,L]), then
//   the program's other outputs. Every program operand has output 0's
//   shape; program input 0 is output 0 itself. The convolution is
//   kernels_conv.cpp's loop (conv2d_forward, Note [Conv epilogues]), so
//   output 0 is conv2d's result to the bit before the program reads it.
//   With "transpose" 1 the node is conv_transpose2d (conv2d's input
//   gradient) instead: inputs y [N,O,OH,OW], w, bias [C]; output 0 is
//   x [N,C,H,W] itself (4-D: output_padding makes its size an input of
//   the geometry), run by conv_transpose2d_forward.
//   Task scalars: ival[0..2] the conv attributes packed as conv2d's,
//   ival[3] = groups << 32 | num_outputs << 2 | transpose << 1 | has_bias,
//   src = the program.
template <class S>
struct ConvEpilogueRun {
  const Program* program;
  const Operand* ops;  // the task's: outputs, x, w, (bias), extras
  int num_outputs, first_extra, num_extra;

  // The program over images [first, first + count): every operand sliced along dim 0.
  static void apply(const void* ctx, int64_t first, int64_t count) {
    const ConvEpilogueRun& r = *static_cast<const ConvEpilogueRun*>(ctx);
    Operand view[kMaxFusedOperands];
    int64_t shape[kMaxDims];
    const Operand& out = r.ops[0];
    for (int d = 0; d < out.ndim; ++d) shape[d] = out.shape[d];
    shape[0] = count;
    auto slice = [&](int dst, int src) {
      view[dst] = r.ops[src];
      view[dst].shape = shape;
      view[dst].data = r.ops[src].data + first * r.ops[src].strides[0] * int64_t(dtype_size(r.ops[src].dtype));
    };
    for (int k = 0; k < r.num_outputs; ++k) slice(k, k);
    slice(r.num_outputs, 0);
    for (int k = 0; k < r.num_extra; ++k) slice(r.num_outputs + 1 + k, r.first_extra + k);
    run_program<S>(*r.program, view, r.num_outputs, 1 + r.num_extra);
  }
};

template <class S>
void run_conv_epilogue(Task& task) {
  const int64_t groups = hi32(task.ival[3]), flags = lo32(task.ival[3]);
  const int num_outputs = int(flags >> 2);
  const bool transpose = flags & 2, has_bias = flags & 1;
  const Operand* ops = task.ops;
  const Operand &out = ops[0], &in = ops[num_outputs], &w = ops[num_outputs + 1];
  ConvAttrs a;
  a.stride[0] = hi32(task.ival[0]), a.stride[1] = lo32(task.ival[0]);
  a.padding[0] = hi32(task.ival[1]), a.padding[1] = lo32(task.ival[1]);
  a.dilation[0] = hi32(task.ival[2]), a.dilation[1] = lo32(task.ival[2]);
  a.groups = groups;
  const ConvGeom g = transpose ? conv_geom(a, out.shape, in.shape, w.shape) : forward_geom(a, in.shape, w.shape);
  const int first_extra = num_outputs + 2 + (has_bias ? 1 : 0);
  const ConvEpilogueRun<S> run{static_cast<const Program*>(task.src), ops, num_outputs, first_extra,
                               task.num_operands - first_extra};
  S* dst = reinterpret_cast<S*>(out.data);
  const S* src = reinterpret_cast<const S*>(in.data);
  const S* wp = reinterpret_cast<const S*>(w.data);
  const S* bias = has_bias ? reinterpret_cast<const S*>(ops[num_outputs + 2].data) : nullptr;
  if (g.N == 0 || numel(out) == 0) return;
  const ConvEpilogue epilogue{&ConvEpilogueRun<S>::apply, &run};
  if (transpose) conv_transpose2d_forward<S>(g, src, wp, bias, dst, &epilogue);
  else conv2d_forward<S>(g, src, wp, bias, dst, &epilogue);
}

template <class S>
MFStatus launch_conv_epilogue(const MFKernelCall* call) {
  return guarded([&] {
    constexpr const char* op = "conv_epilogue";
    const Program* program = intern_program(op, call);
    if (!call || call->struct_size < sizeof(MFKernelCall)) invalid(op, "bad MFKernelCall");
    int64_t has_bias = 0, transpose = 0;
    read_ints(op, call, "bias", 1, &has_bias);
    read_ints(op, call, "transpose", 1, &transpose);
    if ((has_bias != 0 && has_bias != 1) || (transpose != 0 && transpose != 1))
      invalid(op, "attributes 'bias' and 'transpose' must be 0 or 1");
    const int fixed = 2 + int(has_bias);
    if (call->num_inputs < fixed) invalid(op, "wrong number of operands");
    check_counts(op, call, *program, call->num_inputs - fixed + 1);
    check_operand_dtypes<S>(op, call, fixed);
    const MFTensorDesc &in = call->inputs[0], &w = call->inputs[1], &out = call->outputs[0];
    for (int k = 0; k < fixed; ++k)
      if (call->inputs[k].dtype != dtype_of<S>) invalid(op, "the conv's operands must have the kernel dtype");
    if (out.dtype != dtype_of<S>) invalid(op, "output 0 must have the kernel dtype");
    if (in.ndim != 4 || w.ndim != 4) invalid(op, "the conv's input and weight must be 4-D");
    const ConvAttrs a = read_conv_attrs(op, call);
    const MFTensorDesc* bias = has_bias ? &call->inputs[2] : nullptr;
    if (transpose) {  // output 0 is x itself, checked as conv_transpose2d checks it
      if (out.ndim != 4) invalid(op, "output 0 must be 4-D");
      check_conv_operands(op, a, out, in, w, bias, out.shape[1]);
    } else {
      const ConvGeom g = forward_geom(a, in.shape, w.shape);
      // The convolution's own [N, O, OH, OW] view of output 0, checked as conv2d checks it.
      int64_t y_shape[4] = {g.N, g.O, g.OH, g.OW}, y_strides[4] = {g.O * g.OH * g.OW, g.OH * g.OW, g.OW, 1};
      MFTensorDesc y = out;
      y.ndim = 4;
      y.shape = y_shape;
      y.strides = y_strides;
      check_conv_operands(op, a, in, y, w, bias, g.O);
      if (g.OH < 1 || g.OW < 1) invalid(op, "spatial sizes do not line up");
      int64_t n = 1;
      for (int32_t d = 0; d < out.ndim; ++d) n *= out.shape[d];
      if (out.ndim < 1 || out.shape[0] != g.N || n != g.N * g.O * g.OH * g.OW || !contiguous(out))
        invalid(op, "output 0 must be the contiguous convolution, N first");
    }
    for (int32_t j = 1; j < call->num_outputs; ++j)
      if (!same_shape(call->outputs[j], out)) invalid(op, "operand shapes differ");
    for (int32_t j = fixed; j < call->num_inputs; ++j)
      if (!same_shape(call->inputs[j], out)) invalid(op, "operand shapes differ");
    stream_from_handle(call->stream)->enqueue([&](Task& task) {
      task.fn = &run_conv_epilogue<S>;
      task.set_kernel_call(call);
      task.ival[0] = pack2(a.stride[0], a.stride[1]);
      task.ival[1] = pack2(a.padding[0], a.padding[1]);
      task.ival[2] = pack2(a.dilation[0], a.dilation[1]);
      task.ival[3] = pack2(a.groups, int64_t(call->num_outputs) << 2 | transpose << 1 | has_bias);
      task.src = program;
    });
    return MF_OK;
  });
}

}  // namespace

void register_graph_fused_kernels(Registrar& r) {
  for_each_dtype([&](auto tag) {
    using S = typename decltype(tag)::type;
    if constexpr (is_floating_v<S>) {
      r.add("fused_elementwise", dtype_of<S>, MF_DTYPE_ANY, &launch_fused<S>);
      r.add("matmul_epilogue", dtype_of<S>, MF_DTYPE_ANY, &launch_epilogue<S>);
      if constexpr (std::is_same<S, float>::value || std::is_same<S, double>::value)
        r.add("conv_epilogue", dtype_of<S>, MF_DTYPE_ANY, &launch_conv_epilogue<S>);  // conv2d's dtypes
    }
  });
}

}  // namespace mfcpu
