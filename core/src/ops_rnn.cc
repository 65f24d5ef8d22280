// Recurrent-network ops: the LSTM cell's pointwise part.
//
// Note [Fused LSTM cell]
//   Written as separate ops, one LSTM step after its matmul is ten kernels
//   forward (three sigmoids, two tanhs, four products and a sum, each on a
//   strided chunk of the gates) and about twice that backward, each with its
//   own launch, temporaries and autograd node; at the word-model size (20 x
//   200) the launches cost more than the arithmetic. lstm_cell runs the
//   forward as one fused_elementwise program (the instruction set of
//   fused_program.h, which the graph's fusion pass also emits) and records
//   one node whose backward is fused programs too: it recomputes the gate
//   activations from the saved pre-activations, c and c' (cheaper than
//   saving five activations) and writes the four gate gradients straight
//   into one (N, 4H) tensor, the layout the matmul's backward wants; it is
//   three programs, as a kernel takes at most 8 operands. The programs
//   are the unfused chain instruction for instruction, so results equal
//   the composed ops' bit for bit. Devices without a fused_elementwise
//   kernel, and backward under create_graph (which must record its own
//   ops), use the composed ops instead.
#include "monoflow/ops_rnn.h"

#include <vector>

#include "monoflow/autograd.h"
#include "monoflow/dispatch.h"
#include "monoflow/error.h"
#include "monoflow/fused_program.h"
#include "monoflow/fused_run.h"
#include "monoflow/op_registry.h"
#include "monoflow/ops.h"
#include "monoflow/ops_math.h"
#include "monoflow/ops_shape.h"

namespace monoflow {

using autograd::NeedsGrad;
using autograd::Recorder;
using autograd::SavedTensor;
using autograd::TensorList;

namespace {

// ------------------------------------------------------------ the programs

constexpr int64_t LD = MF_FUSED_LOAD, K = MF_FUSED_CONST, SIG = MF_FUSED_SIGMOID, TANH = MF_FUSED_TANH,
                  MUL = MF_FUSED_MUL, ADD = MF_FUSED_ADD, SUB = MF_FUSED_SUB;

// Inputs: 0 i, 1 f, 2 g, 3 o (pre-activation chunks), 4 c. Outputs: h', c'.
const FusedCode kForward = {{
    LD, 0, 0, 0, 0,  SIG, 1, 0, 0, 0,    // r1 = sigmoid(i)
    LD, 2, 1, 0, 0,  SIG, 3, 2, 0, 0,    // r3 = sigmoid(f)
    LD, 4, 2, 0, 0,  TANH, 5, 4, 0, 0,   // r5 = tanh(g)
    LD, 6, 3, 0, 0,  SIG, 7, 6, 0, 0,    // r7 = sigmoid(o)
    LD, 8, 4, 0, 0,                      // r8 = c
    MUL, 9, 3, 8, 0, MUL, 10, 1, 5, 0,   // f c, i g
    ADD, 11, 9, 10, 0,                   // r11 = c'
    TANH, 12, 11, 0, 0, MUL, 13, 7, 12, 0,  // r13 = h' = o tanh(c')
    },
    {13, 11}, 14, {}};

// The backward, in three programs (a kernel takes at most 8 operands):
// Inputs: 0 dh', 1 dc', 2 o (pre-activation), 3 c'. Outputs: d o, the whole
// gradient of c' (dc' + dh' o (1 - tanh(c')^2)).
const FusedCode kBackwardOut = {{
    LD, 0, 2, 0, 0,  SIG, 1, 0, 0, 0,   // r1 = o
    LD, 2, 3, 0, 0,  TANH, 3, 2, 0, 0,  // r3 = tanh(c')
    LD, 4, 0, 0, 0,  LD, 5, 1, 0, 0,  K, 6, 0, 0, 0,  // dh', dc', 1
    MUL, 7, 4, 3, 0, SUB, 8, 6, 1, 0, MUL, 9, 1, 8, 0, MUL, 10, 7, 9, 0,  // r10: dh' tanh(c') o (1 - o)
    MUL, 11, 3, 3, 0, SUB, 12, 6, 11, 0, MUL, 13, 4, 1, 0, MUL, 14, 13, 12, 0,
    ADD, 15, 5, 14, 0,                  // r15: all of c''s gradient
    },
    {10, 15}, 16, {1.0}};

// Inputs: 0 c''s gradient, 1 i, 2 g (pre-activations). Outputs: d i, d g.
const FusedCode kBackwardIG = {{
    LD, 0, 1, 0, 0,  SIG, 1, 0, 0, 0,   // r1 = i
    LD, 2, 2, 0, 0,  TANH, 3, 2, 0, 0,  // r3 = g
    LD, 4, 0, 0, 0,  K, 5, 0, 0, 0,     // dc, 1
    MUL, 6, 4, 3, 0, SUB, 7, 5, 1, 0, MUL, 8, 1, 7, 0, MUL, 9, 6, 8, 0,     // r9: dc g i (1 - i)
    MUL, 10, 4, 1, 0, MUL, 11, 3, 3, 0, SUB, 12, 5, 11, 0, MUL, 13, 10, 12, 0,  // r13: dc i (1 - g^2)
    },
    {9, 13}, 14, {1.0}};

// Inputs: 0 c''s gradient, 1 f (pre-activation), 2 c. Outputs: d f, d c.
const FusedCode kBackwardFC = {{
    LD, 0, 1, 0, 0,  SIG, 1, 0, 0, 0,   // r1 = f
    LD, 2, 2, 0, 0,  LD, 3, 0, 0, 0,  K, 4, 0, 0, 0,  // c, dc, 1
    MUL, 5, 3, 2, 0, SUB, 6, 4, 1, 0, MUL, 7, 1, 6, 0, MUL, 8, 5, 7, 0,  // r8: dc c f (1 - f)
    MUL, 9, 3, 1, 0,                    // r9: dc f
    },
    {8, 9}, 10, {1.0}};

std::vector<Tensor> chunks(const Tensor& gates, int64_t hidden) {
  std::vector<Tensor> v;
  for (int64_t k = 0; k < 4; ++k) v.push_back(narrow(gates, 1, k * hidden, hidden));
  return v;
}

// ------------------------------------------------------------ the composed ops (same formulas)

Tensor sigmoid_of(const Tensor& x) { return math_unary(kOp_sigmoid, x); }
Tensor tanh_of(const Tensor& x) { return math_unary(kOp_tanh, x); }
Tensor mul(const Tensor& a, const Tensor& b) { return binary(kOp_mul, a, b); }
Tensor one_minus(const Tensor& x) { return binary_scalar(kOp_rsub_scalar, x, Scalar::from_float(1.0)); }

std::pair<Tensor, Tensor> cell_composed(const Tensor& gates, const Tensor& c) {
  const std::vector<Tensor> q = chunks(gates, c->shape[1]);
  const Tensor c_new = binary(kOp_add, mul(sigmoid_of(q[1]), c), mul(sigmoid_of(q[0]), tanh_of(q[2])));
  return {mul(sigmoid_of(q[3]), tanh_of(c_new)), c_new};
}

// The backward program's formulas with differentiable ops (create_graph).
std::pair<Tensor, Tensor> cell_backward_composed(const Tensor& gh, const Tensor& gc, const Tensor& gates,
                                                 const Tensor& c) {
  const std::vector<Tensor> q = chunks(gates, c->shape[1]);
  const Tensor i = sigmoid_of(q[0]), f = sigmoid_of(q[1]), g = tanh_of(q[2]), o = sigmoid_of(q[3]);
  const Tensor tc = tanh_of(binary(kOp_add, mul(f, c), mul(i, g)));
  const Tensor d_o = mul(mul(gh, tc), mul(o, one_minus(o)));
  const Tensor dc = binary(kOp_add, gc, mul(mul(gh, o), one_minus(mul(tc, tc))));
  const Tensor d_i = mul(mul(dc, g), mul(i, one_minus(i)));
  const Tensor d_f = mul(mul(dc, c), mul(f, one_minus(f)));
  const Tensor d_g = mul(mul(dc, i), one_minus(mul(g, g)));
  return {cat({d_i, d_f, d_g, d_o}, 1), mul(dc, f)};
}

void check_cell(const Tensor& gates, const Tensor& c) {
  const char* op = "lstm_cell";
  MF_CHECK(gates->shape.size() == 2 && c->shape.size() == 2, ValueError, op,
           "(): expected 2-D gates and cell state, got ", gates->shape.size(), "-D and ", c->shape.size(), "-D");
  MF_CHECK(gates->shape[0] == c->shape[0] && gates->shape[1] == 4 * c->shape[1], ValueError, op,
           "(): gates of shape ", shape_str(gates->shape), " do not match a cell state of shape ",
           shape_str(c->shape), " (expected (N, 4H) and (N, H))");
  MF_CHECK(is_floating(gates->dtype) && gates->dtype == c->dtype, TypeError, op,
           "(): gates and cell state must have one floating dtype, got ", dtype_name(gates->dtype), " and ",
           dtype_name(c->dtype));
  MF_CHECK(gates->device() == c->device(), RuntimeError, op,
           "(): gates and cell state must be on one device");
}

}  // namespace

std::pair<Tensor, Tensor> lstm_cell(const Tensor& gates, const Tensor& c) {
  check_cell(gates, c);
  if (!has_fused_kernel(gates)) return cell_composed(gates, c);
  Recorder rec("lstm_cell", {gates, c});
  const int64_t n = c->shape[0], hidden = c->shape[1];
  Tensor h = empty({n, hidden}, c->dtype, c->device());
  Tensor c_new = empty({n, hidden}, c->dtype, c->device());
  std::vector<Tensor> ins = chunks(gates, hidden);
  ins.push_back(c);
  run_fused(kForward, ins, {h, c_new});
  if (rec) {
    rec.finish({h, c_new}, [sg = rec.save(gates), sc = rec.save(c), sn = SavedTensor(c_new, true, 1)](
                               const TensorList& g, NeedsGrad need) {
      const Tensor c = sc.unpack();
      const Tensor zero = expand(full({}, Scalar::from_float(0.0), c->dtype, c->device()), c->shape);
      auto [d_gates, d_c] = lstm_cell_backward(g[0] ? g[0] : zero, g[1] ? g[1] : zero, sg.unpack(), c, sn.unpack());
      return TensorList{need[0] ? d_gates : Tensor(), need[1] ? d_c : Tensor()};
    });
  }
  return {h, c_new};
}

std::pair<Tensor, Tensor> lstm_cell_backward(const Tensor& gh, const Tensor& gc, const Tensor& gates, const Tensor& c,
                                             const Tensor& c_new) {
  check_cell(gates, c);
  if (autograd::grad_enabled() || !has_fused_kernel(gates)) return cell_backward_composed(gh, gc, gates, c);
  const int64_t n = c->shape[0], hidden = c->shape[1];
  const std::vector<Tensor> q = chunks(gates, hidden);
  Tensor d_gates = empty({n, 4 * hidden}, c->dtype, c->device());
  Tensor d_c = empty({n, hidden}, c->dtype, c->device());
  Tensor dc_total = empty({n, hidden}, c->dtype, c->device());
  const std::vector<Tensor> dq = chunks(d_gates, hidden);
  run_fused(kBackwardOut, {gh, gc, q[3], c_new}, {dq[3], dc_total});
  run_fused(kBackwardIG, {dc_total, q[0], q[2]}, {dq[0], dq[2]});
  run_fused(kBackwardFC, {dc_total, q[1], c}, {dq[1], d_c});
  return {d_gates, d_c};
}

}  // namespace monoflow
