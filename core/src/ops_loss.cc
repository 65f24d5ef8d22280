// nll_loss and cross_entropy (ops_loss.h).
//
// Class-index targets are one recorded op: the forward works on the input
// viewed as rows [M, C] (class dim last), and the backward writes
// -G * w[t] at each row's target (plus the smoothing term) and, for
// cross_entropy, applies log_softmax's backward, without materialising a
// one-hot matrix in the forward. Probability targets are a composition of
// recorded ops (log_softmax, mul, sum), which is already what the fused
// gradient would compute.
#include "monoflow/ops_loss.h"

#include <cmath>
#include <limits>

#include "monoflow/autograd.h"
#include "monoflow/error.h"
#include "monoflow/ops.h"
#include "monoflow/ops_math.h"
#include "monoflow/ops_reduce_ext.h"
#include "monoflow/ops_shape.h"

namespace monoflow {

namespace {
using autograd::NeedsGrad;
using autograd::SavedTensor;
using autograd::TensorList;

Tensor mul(const Tensor& a, const Tensor& b) { return binary(kOp_mul, a, b); }
Tensor scale(const Tensor& a, double s) { return binary_scalar(kOp_mul_scalar, a, Scalar::from_float(s)); }
Tensor sum_all(const Tensor& t) { return sum(t, Dims{}, false, std::nullopt); }
Tensor zero_unless(const Tensor& cond, const Tensor& t) {
  return where(cond, TensorOrScalar::of(t), TensorOrScalar::of(Scalar::from_int(0)));
}

// Where the class dim is, and the per-element shape (the input without it).
struct Layout {
  Dims in_shape;
  Dims elem_shape;
  int64_t C = 0;
  int64_t M = 0;
};

Layout layout_of(const char* op, const Tensor& input) {
  MF_CHECK(input->dim() >= 1, RuntimeError, op, ": expected an input with 1 or more dimensions (got 0)");
  MF_CHECK(is_floating(input->dtype), RuntimeError, op, ": expected a floating point input, got ",
           dtype_torch_name(input->dtype));
  Layout L;
  L.in_shape = input->shape;
  L.C = input->dim() == 1 ? input->shape[0] : input->shape[1];
  for (int64_t d = 0; d < input->dim(); ++d)
    if (d != (input->dim() == 1 ? 0 : 1)) L.elem_shape.push_back(input->shape[d]);
  L.M = shape_numel(L.elem_shape);
  return L;
}

// The input as rows [M, C]: class dim moved last, then flattened.
Tensor to_rows(const Tensor& t, const Layout& L) {
  if (t->dim() == 1) return reshape(t, Dims{1, L.C});
  Dims order{0};
  for (int64_t d = 2; d < t->dim(); ++d) order.push_back(d);
  order.push_back(1);
  return reshape(permute(t, order), Dims{L.M, L.C});
}

// The inverse of to_rows, for a gradient of the rows.
Tensor from_rows(const Tensor& rows, const Layout& L) {
  if (L.in_shape.size() == 1) return reshape(rows, L.in_shape);
  Dims moved = L.elem_shape;
  moved.push_back(L.C);
  int64_t k = static_cast<int64_t>(L.in_shape.size());
  Dims order{0, k - 1};
  for (int64_t d = 1; d < k - 1; ++d) order.push_back(d);
  return permute(reshape(rows, moved), order);
}

void check_target(const char* op, const Tensor& input, const Tensor& target, const Layout& L) {
  MF_CHECK(target->device() == input->device(), RuntimeError, op, ": expected target on device ",
           input->device().str(), ", got ", target->device().str());
  MF_CHECK(is_integral(target->dtype, false), RuntimeError, op,
           ": expected target of an integer dtype (class indices), got ", dtype_torch_name(target->dtype));
  if (input->dim() >= 2 && target->dim() >= 1 && target->shape[0] != input->shape[0])
    MF_CHECK(false, ValueError, op, ": Expected input batch_size (", input->shape[0],
             ") to match target batch_size (", target->shape[0], ").");
  MF_CHECK(target->shape == L.elem_shape, RuntimeError, op, ": expected target of shape ", shape_str(L.elem_shape),
           " for input of shape ", shape_str(input->shape), ", got ", shape_str(target->shape));
}

Tensor checked_weight(const char* op, const Tensor& weight, const Tensor& input, int64_t C) {
  if (!weight) return nullptr;
  MF_CHECK(weight->dim() == 1 && weight->shape[0] == C, RuntimeError, op,
           ": weight tensor should be defined either for all ", C,
           " classes or no classes but got weight tensor of shape: ", shape_str(weight->shape));
  MF_CHECK(weight->device() == input->device(), RuntimeError, op, ": expected weight on device ",
           input->device().str(), ", got ", weight->device().str());
  return cast(weight, input->dtype);
}

// Refuses a class index outside [0, C) that is not ignore_index (this reads
// one flag back from the device, as PyTorch's CPU kernels do).
void check_range(const char* op, const Tensor& t, const Tensor& valid, int64_t C) {
  if (t->numel() == 0) return;
  Tensor low = binary(kOp_lt, t, scalar_operand(t, Scalar::from_int(0)));
  Tensor high = binary(kOp_ge, t, scalar_operand(t, Scalar::from_int(C)));
  Tensor out_of_range = math_binary(kOp_logical_or, TensorOrScalar::of(low), TensorOrScalar::of(high));
  Tensor bad = math_binary(kOp_logical_and, TensorOrScalar::of(valid), TensorOrScalar::of(out_of_range));
  if (item(any(bad, Dims{}, false)).i == 0) return;
  int64_t v = item(select(masked_select(t, bad), 0, 0)).i;
  MF_CHECK(false, IndexError, op, ": Target ", v, " is out of bounds (expected a class index in [0, ", C,
           ") or ignore_index)");
}

// Class-index targets; `logits`: the input is unnormalised (cross_entropy).
Tensor class_loss(const char* op, const Tensor& input, const Tensor& target, const Tensor& weight,
                  int64_t ignore_index, LossReduction reduction, double eps, bool logits) {
  Layout L = layout_of(op, input);
  check_target(op, input, target, L);
  Tensor w = checked_weight(op, weight, input, L.C);
  // The weight is a constant here (PyTorch has no derivative for it either).
  autograd::Recorder rec(op, {input});
  DType dt = input->dtype;
  Tensor rows = to_rows(input, L);
  Tensor lp = logits ? log_softmax(rows, 1, std::nullopt) : rows;
  Tensor t = reshape(cast(target, DType::Int64), Dims{L.M});
  Tensor valid = binary(kOp_ne, t, scalar_operand(t, Scalar::from_int(ignore_index)));
  check_range(op, t, valid, L.C);
  Tensor idx = unsqueeze(zero_unless(valid, t), 1);  // ignored rows point at class 0, weighted 0
  Tensor vf = cast(valid, dt);
  Tensor wt = w ? mul(index_select(w, 0, reshape(idx, Dims{L.M})), vf) : vf;
  Tensor per = L.C ? zero_unless(valid, unary(kOp_neg, mul(squeeze(gather(lp, 1, idx), 1), wt)))
                   : full(Dims{L.M}, Scalar{}, dt, input->device());
  Tensor smooth;
  if (eps > 0) smooth = zero_unless(valid, unary(kOp_neg, sum(w ? mul(lp, w) : lp, Dims{1}, false, std::nullopt)));
  Tensor total = sum_all(wt);
  double ks = eps / static_cast<double>(L.C);
  Tensor loss;
  switch (reduction) {
    case LossReduction::None:
      loss = eps > 0 ? binary(kOp_add, scale(per, 1 - eps), scale(smooth, ks)) : per;
      loss = reshape(loss, L.elem_shape);
      break;
    case LossReduction::Sum:
      loss = sum_all(per);
      if (eps > 0) loss = binary(kOp_add, scale(loss, 1 - eps), scale(sum_all(smooth), ks));
      break;
    case LossReduction::Mean:
      loss = binary(kOp_div, sum_all(per), total);
      if (eps > 0) loss = binary(kOp_add, scale(loss, 1 - eps), scale(binary(kOp_div, sum_all(smooth), total), ks));
      break;
  }
  if (rec)
    rec.finish({loss}, [L, reduction, eps, ks, logits, si = SavedTensor(idx, false), swt = SavedTensor(wt, false),
                        svf = SavedTensor(vf, false), sw = SavedTensor(w, false), stotal = SavedTensor(total, false),
                        slp = SavedTensor(logits ? lp : nullptr, false),
                        sx = rec.save(input)](const TensorList& g, NeedsGrad) {
      Tensor G;  // d loss / d per-element loss, [M]
      switch (reduction) {
        case LossReduction::None: G = reshape(g[0], Dims{L.M}); break;
        case LossReduction::Sum: G = expand(reshape(g[0], Dims{1}), Dims{L.M}); break;
        case LossReduction::Mean:
          G = expand(reshape(binary(kOp_div, g[0], stotal.unpack()), Dims{1}), Dims{L.M});
          break;
      }
      Tensor at_target = unsqueeze(scale(mul(G, swt.unpack()), -(1 - eps)), 1);
      Tensor glp = scatter(full(Dims{L.M, L.C}, Scalar{}, g[0]->dtype, g[0]->device()), 1, si.unpack(), at_target);
      if (eps > 0) {
        Tensor spread = unsqueeze(scale(mul(G, svf.unpack()), -ks), 1);
        Tensor w = sw.unpack();
        glp = binary(kOp_add, glp, w ? mul(spread, reshape(w, Dims{1, L.C})) : expand(spread, Dims{L.M, L.C}));
      }
      if (logits) {
        // log_softmax backward; recomputed from the input when the backward
        // itself is recorded (create_graph), so that it stays connected.
        Tensor lp = autograd::grad_enabled() ? log_softmax(to_rows(sx.unpack(), L), 1, std::nullopt) : slp.unpack();
        glp = binary(kOp_sub, glp, mul(math_unary(kOp_exp, lp), sum(glp, Dims{1}, true, std::nullopt)));
      }
      // nll_loss's gradient reads its input formally (Note [Formal inputs of piecewise-linear backward])
      return TensorList{logits ? from_rows(glp, L) : autograd::formally_depends_on(from_rows(glp, L), sx.unpack())};
    });
  return loss;
}

// Probability targets: -sum_c w_c t_c log_softmax(x)_c per element.
Tensor prob_loss(const char* op, const Tensor& input, const Tensor& target, const Tensor& weight,
                 LossReduction reduction, double eps) {
  Layout L = layout_of(op, input);
  MF_CHECK(target->shape == input->shape, RuntimeError, op,
           ": expected class-probability targets of the input's shape ", shape_str(input->shape), ", got ",
           shape_str(target->shape));
  MF_CHECK(target->device() == input->device(), RuntimeError, op, ": expected target on device ",
           input->device().str(), ", got ", target->device().str());
  Tensor w = checked_weight(op, weight, input, L.C);
  int64_t cd = input->dim() == 1 ? 0 : 1;
  Tensor lp = log_softmax(input, cd, std::nullopt);
  Tensor tg = cast(target, input->dtype);
  if (eps > 0)
    tg = binary_scalar(kOp_add_scalar, scale(tg, 1 - eps), Scalar::from_float(eps / static_cast<double>(L.C)));
  Tensor terms = mul(lp, tg);
  if (w) {
    Dims ws(static_cast<size_t>(input->dim()), 1);
    ws[cd] = L.C;
    terms = mul(terms, reshape(w, ws));
  }
  switch (reduction) {
    case LossReduction::None: return unary(kOp_neg, sum(terms, Dims{cd}, false, std::nullopt));
    case LossReduction::Sum: return unary(kOp_neg, sum_all(terms));
    case LossReduction::Mean: break;
  }
  Tensor total = unary(kOp_neg, sum_all(terms));
  if (input->numel() == 0) return scale(total, std::numeric_limits<double>::quiet_NaN());
  return binary_scalar(kOp_div_scalar, total, Scalar::from_int(input->numel() / L.C));
}

void check_reduction(const char* op, LossReduction r) {
  auto v = static_cast<int64_t>(r);
  MF_CHECK(v >= 0 && v <= 2, ValueError, op, ": reduction must be 'none', 'mean' or 'sum' (got ", v, ")");
}
}  // namespace

Tensor nll_loss(const Tensor& input, const Tensor& target, const Tensor& weight, int64_t ignore_index,
                LossReduction reduction) {
  check_reduction("nll_loss", reduction);
  return class_loss("nll_loss", input, target, weight, ignore_index, reduction, 0.0, false);
}

Tensor cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight, int64_t ignore_index,
                     LossReduction reduction, double label_smoothing) {
  const char* op = "cross_entropy";
  check_reduction(op, reduction);
  MF_CHECK(label_smoothing >= 0.0 && label_smoothing <= 1.0, RuntimeError, op,
           ": label_smoothing must be between 0.0 and 1.0. Got: ", label_smoothing);
  if (is_floating(target->dtype)) return prob_loss(op, input, target, weight, reduction, label_smoothing);
  return class_loss(op, input, target, weight, ignore_index, reduction, label_smoothing, true);
}

}  // namespace monoflow
