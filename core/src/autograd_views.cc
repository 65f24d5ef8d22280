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

// Scatters the gradient of a view back into its base's geometry.
Tensor view_backward(const Geometry& base, const Geometry& view, const Tensor& g) {
  if (base.offset == view.offset && shape_numel(base.shape) == shape_numel(view.shape) &&
      base.strides == contiguous_strides(base.shape) &&
      view.strides == contiguous_strides(view.shape))
    return reshape(g, base.shape);  // a reshape of a contiguous tensor
  Canvas c(base, view, g->dtype, g->device());
  if (!view.overlaps_itself()) {
    copy_(c.at(view), g);
  } else {
    // Several view elements alias one storage element: their gradients add up.
    Tensor positions = arange(Scalar::from_int(0), Scalar::from_int(c.buffer->numel()), Scalar::from_int(1),
                              DType::Int64, g->device());
    Tensor idx = reshape(contiguous(as_strided(positions, view.shape, view.strides, view.offset - c.lo)), Dims{-1});
    index_put_tensors_(c.buffer, {idx}, reshape(contiguous(g), Dims{-1}), /*accumulate=*/true);
  }
  // The buffer holds each storage element's total. A base that aliases its
  // own elements through broadcast (stride-0) dims must not hand that total
  // to every alias: it goes to the first one (index 0 of those dims), which
  // is all the base's own backward (a sum over the aliases) needs.
  Geometry first = base;
  bool broadcast = false;
  for (size_t d = 0; d < first.shape.size(); ++d)
    if (first.strides[d] == 0 && first.shape[d] > 1) {
      first.shape[d] = 1;
      broadcast = true;
    }
  if (!broadcast) return c.at(base);
  Tensor result = full(base.shape, Scalar{}, g->dtype, g->device());
  Tensor region = result;
  for (size_t d = 0; d < first.shape.size(); ++d)
    if (first.shape[d] != base.shape[d]) region = narrow(region, static_cast<int64_t>(d), 0, 1);
  copy_(region, c.at(first));
  return result;
}

struct ViewNode : Node {
  ViewNode(Geometry b, Geometry v) : base(std::move(b)), view(std::move(v)) {}
  std::string name() const override { return "ViewBackward0"; }
  TensorList apply(const TensorList& grads) override { return {view_backward(base, view, grads[0])}; }
  Geometry base, view;
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

void record_view(const Tensor& base, const Tensor& view) {
  if (!grad_enabled() || !requires_grad(base)) return;
  auto node = std::make_shared<ViewNode>(Geometry::of(base), Geometry::of(view));
  node->sequence_nr = next_sequence_nr();
  node->next_edges.push_back(gradient_edge(base));
  node->grad_meta.push_back({view->shape, view->dtype, view->device()});
  if (!is_floating(view->dtype)) return;
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
  auto node = std::make_shared<ViewNode>(Geometry::of(base), Geometry::of(t));
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
  if (!base) {
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
  auto vn = std::make_shared<ViewNode>(cs->base, cs->view);
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
