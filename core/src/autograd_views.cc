// Differentiable views and in-place ops on views (Note [Views and in-place ops]).
#include <algorithm>

#include "monoflow/autograd.h"
#include "monoflow/error.h"
#include "monoflow/indexing.h"
#include "monoflow/ops.h"

namespace monoflow {
namespace autograd {

namespace {
struct Geometry {
  Dims shape, strides;
  int64_t offset = 0;
  static Geometry of(const Tensor& t) { return {t->shape, t->strides, t->offset}; }
  // [lo, hi): the storage elements the geometry addresses.
  std::pair<int64_t, int64_t> extent() const {
    int64_t lo = offset, hi = offset + 1;
    for (size_t i = 0; i < shape.size(); ++i) {
      if (shape[i] == 0) return {offset, offset};
      int64_t span = (shape[i] - 1) * strides[i];
      (span < 0 ? lo : hi) += span;
    }
    return {lo, hi};
  }
  bool overlaps_itself() const {
    // Sorting dims by stride, each stride must step over the previous dims' span.
    std::vector<size_t> order;
    for (size_t i = 0; i < shape.size(); ++i)
      if (shape[i] > 1) order.push_back(i);
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return std::abs(strides[a]) < std::abs(strides[b]); });
    int64_t span = 1;
    for (size_t i : order) {
      if (std::abs(strides[i]) < span) return true;
      span = std::abs(strides[i]) * shape[i];
    }
    return false;
  }
};

// A zero buffer covering `base`'s storage extent, and `g` views of it laid
// out like `base` and like `view` (so they address the same elements as in
// the forward storage).
struct Canvas {
  Tensor buffer;
  int64_t lo = 0;
  Canvas(const Geometry& base, const Geometry& view, DType dtype, Device device) {
    auto [blo, bhi] = base.extent();
    auto [vlo, vhi] = view.extent();
    lo = std::min(blo, vlo);
    buffer = full(Dims{std::max(bhi, vhi) - lo}, Scalar{}, dtype, device);
  }
  Tensor at(const Geometry& g) const { return as_strided(buffer, g.shape, g.strides, g.offset - lo); }
};

// Note [Backward of overlapping views]
//   A view node knows only storage geometry: the base's and the view's
//   (shape, strides, offset). Its backward works in storage: a zero buffer
//   covering both extents receives the view's gradient, ADDED per storage
//   element (a view that aliases an element several times, like unfold with
//   step < size, hands it the sum), and the base reads its gradient back
//   through its own geometry.
//   When the base itself aliases elements (it is an unfold, an expand, an
//   as_strided with overlapping strides...), storage no longer says which of
//   the aliasing base positions a view position came from, and reading the
//   total back at every alias counts it once per alias: chained overlapping
//   views (x.unfold(2,2,1).unfold(3,2,1), unfold then reshape) were off by
//   that factor. As torch's as_strided_backward does, each alias gets the
//   total divided by the number of base positions aliasing that element.
//   That is exact where it matters: the base's own history (a view of a view,
//   an expand) sums its gradient over the aliases, so the leaf gets exactly
//   the total. (Only the gradient of the overlapping intermediate itself, if
//   observed by retain_grad/grad, is this even split rather than the
//   per-position one torch's op-specific backwards give.)

// Writes `values` into the fresh (zero) canvas `c` through `g`; elements `g`
// aliases several times receive the sum of their values.
void scatter_into(const Canvas& c, const Geometry& g, const Tensor& values) {
  if (!g.overlaps_itself()) {
    copy_(c.at(g), values);
    return;
  }
  Tensor positions = arange(Scalar::from_int(0), Scalar::from_int(c.buffer->numel()), Scalar::from_int(1),
                            DType::Int64, values->device());
  Tensor idx = reshape(contiguous(as_strided(positions, g.shape, g.strides, g.offset - c.lo)), Dims{-1});
  index_put_tensors_(c.buffer, {idx}, reshape(contiguous(values), Dims{-1}), /*accumulate=*/true);
}

// Scatters the gradient of a view back into its base's geometry
// (Note [Backward of overlapping views]).
Tensor view_backward(const Geometry& base, const Geometry& view, const Tensor& g) {
  if (base.offset == view.offset && shape_numel(base.shape) == shape_numel(view.shape) &&
      base.strides == contiguous_strides(base.shape) &&
      view.strides == contiguous_strides(view.shape))
    return reshape(g, base.shape);  // a reshape of a contiguous tensor
  Canvas c(base, view, g->dtype, g->device());
  scatter_into(c, view, g);
  if (!base.overlaps_itself()) return c.at(base);
  Canvas aliases(base, view, g->dtype, g->device());
  scatter_into(aliases, base, full(base.shape, Scalar::from_float(1.0), g->dtype, g->device()));
  return binary(kOp_div, c.at(base), aliases.at(base));
}

struct ViewNode : Node {
  ViewNode(Geometry b, Geometry v, const char* n) : base(std::move(b)), view(std::move(v)), label(n) {}
  std::string name() const override { return label; }
  TensorList apply(const TensorList& grads) override { return {view_backward(base, view, grads[0])}; }
  Geometry base, view;
  const char* label;  // a string literal of the view op
};

// The history of a base after an in-place op wrote into one of its views:
// the view's region of the base gradient goes through the op's own node.
struct CopySlices : Node {
  std::string name() const override { return "CopySlices"; }
  TensorList apply(const TensorList& grads) override {
    Canvas c(base, view, grads[0]->dtype, grads[0]->device());
    Tensor result = c.at(base);
    copy_(result, grads[0]);
    Tensor region = c.at(view);
    TensorList op_grads = fn->apply({clone(region)});
    if (op_grads.size() > 0 && op_grads[0])
      copy_(region, op_grads[0]);
    else
      fill_(region, Scalar{});
    op_grads.resize(std::max<size_t>(op_grads.size(), 1));
    op_grads[0] = result;
    return op_grads;
  }
  void release() override { fn->release(); }
  Geometry base, view;
  std::shared_ptr<Node> fn;
};

}  // namespace

void record_view(const Tensor& base, const Tensor& view, const char* grad_name) {
  if (!grad_enabled() || !requires_grad(base)) return;
  auto node = std::make_shared<ViewNode>(Geometry::of(base), Geometry::of(view), grad_name);
  node->sequence_nr = next_sequence_nr();
  node->next_edges.push_back(gradient_edge(base));
  node->grad_meta.push_back({view->shape, view->dtype, view->device()});
  if (!is_floating(view->dtype) && !is_complex(view->dtype)) return;
  view->autograd = std::make_shared<AutogradMeta>();
  view->autograd->grad_fn = node;
  view->autograd->view_version = view->version();
}

// Note [Stale views]
//   A view's history is a view of its base's history as it was when the
//   view got it. An in-place write through another view (or into the base)
//   gives the base a new history; a view made before it must follow, or its
//   gradient would skip the write (y = t.clone(); a = y.view(9); b = y.view(3, 3);
//   b.mul_(0): a.sum()'s gradient is zero). So a view records the storage
//   version its history was made at, and the next use after the version moved
//   rebuilds it over the base's current history. Rebuilding is always right:
//   a view's history is exactly a view of its base's.
void refresh_view(const Tensor& t) {
  const Tensor& base = t->view_base;
  AutogradMeta* m = t->autograd.get();
  // only histories made as views are followed (not a leaf the user made of
  // a view, nor a view made while its base had no history)
  if (!m || m->view_version < 0 || m->view_version == t->version() || !m->grad_fn) return;
  if (!requires_grad(base)) return;
  auto node = std::make_shared<ViewNode>(Geometry::of(base), Geometry::of(t), "AsStridedBackward0");
  node->sequence_nr = next_sequence_nr();
  node->next_edges.push_back(gradient_edge(base));
  node->grad_meta.push_back({t->shape, t->dtype, t->device()});
  AutogradMeta& vm = ensure_meta(t);
  vm.grad_fn = node;
  vm.output_nr = 0;
  vm.view_version = t->version();
}

void Recorder::finish_inplace(const Tensor& self, BackwardFn fn) {
  guard_.reset();
  active_ = false;
  std::shared_ptr<Node> op = make_function_node(name_, std::move(fn), needs_);
  op->next_edges = std::move(edges_);
  op->grad_meta.push_back({self->shape, self->dtype, self->device()});
  const Tensor& base = self->view_base;
  // A view with a history of its own over a base without one (an op's result
  // handed out as a view of the op's internal buffer, like a full reduction's
  // 0-dim result) is written like a plain tensor: going through the base
  // would replace that history by the base's empty one (x = a.sum(); x += 1
  // gave `a` no gradient).
  bool own_history = base && !requires_grad(base) && self->autograd && self->autograd->grad_fn;
  if (!base || own_history) {
    AutogradMeta& m = ensure_meta(self);
    m.grad_fn = op;
    m.output_nr = 0;
    return;
  }
  // The base's new history: its old one, except the view's region, which
  // goes through the op. The view's own history is then a view of that.
  auto cs = std::make_shared<CopySlices>();
  cs->sequence_nr = next_sequence_nr();
  cs->base = Geometry::of(base);
  cs->view = Geometry::of(self);
  cs->next_edges = op->next_edges;
  cs->next_edges[0] = gradient_edge(base);
  cs->grad_meta.push_back({base->shape, base->dtype, base->device()});
  cs->fn = op;
  AutogradMeta& bm = ensure_meta(base);
  bm.grad_fn = cs;
  bm.output_nr = 0;
  auto vn = std::make_shared<ViewNode>(cs->base, cs->view, "AsStridedBackward0");
  vn->sequence_nr = next_sequence_nr();
  vn->next_edges.push_back({cs, 0});
  vn->grad_meta.push_back({self->shape, self->dtype, self->device()});
  AutogradMeta& vm = ensure_meta(self);
  vm.grad_fn = vn;
  vm.output_nr = 0;
  vm.view_version = self->version();
}

}  // namespace autograd
}  // namespace monoflow
