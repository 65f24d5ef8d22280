// Autograd state of tensors, saved tensors, and op recording (autograd.h).
#include "monoflow/autograd.h"

#include <atomic>
#include <cctype>
#include <utility>

#include "monoflow/error.h"
#include "monoflow/graph/trace.h"
#include "monoflow/ops.h"

namespace monoflow {
namespace autograd {

namespace {
// Note [Freeing long graphs]: the nodes a destructor releases wait here; the
// outermost destructor on the thread frees them in a loop. The queue is made
// on first use and never destroyed: nodes still die after a thread's
// thread_local objects are gone (static objects holding tensors, at exit).
thread_local bool draining = false;
thread_local std::vector<std::shared_ptr<void>>* pending = nullptr;

void queue_release(std::shared_ptr<void> p) {
  if (!pending) pending = new std::vector<std::shared_ptr<void>>();
  pending->push_back(std::move(p));
}

void drain() {
  if (draining || !pending) return;  // an outer destructor's loop frees it
  draining = true;
  while (!pending->empty()) {
    std::shared_ptr<void> next = std::move(pending->back());
    pending->pop_back();
    next.reset();  // its destructors queue what they own and return
  }
  if (pending->capacity() > 4096) std::vector<std::shared_ptr<void>>().swap(*pending);  // (after a long chain)
  draining = false;
}
}  // namespace

// (Every reference is queued, not only sole ones: two edges to one node, as
// in y * y, each see a count of two, and the second release recursed.)
Node::~Node() {
  for (Edge& e : next_edges)
    if (e.fn) queue_release(std::move(e.fn));
  drain();
}

AutogradMeta::~AutogradMeta() {
  if (grad_fn) {
    queue_release(std::move(grad_fn));
    drain();
  }
}

namespace {
thread_local bool t_grad_enabled = true;
thread_local bool t_inference_mode = false;
thread_local Node* t_running_node = nullptr;  // the FunctionNode whose backward runs
// Note [Nodes without saved tensors]: set when a SavedTensor holding a tensor is made, consumed by the next
// node recorded (its closure's captures are built just before). A node that saved nothing keeps its closure
// after backward, so a second backward through it works, as in torch (only freed saved values refuse it).
thread_local bool t_saved_since_node = false;
std::atomic<uint64_t> g_sequence{0};
std::atomic<int64_t> g_hook_id{0};

AutogradMeta& meta(const Tensor& t) { return ensure_meta(t); }

bool can_require_grad(DType d) { return is_floating(d) || is_complex(d); }

// The node behind Recorder and custom functions: a closure over saved values.
struct FunctionNode : Node {
  FunctionNode(std::string n, BackwardFn f, NeedsGrad nd) : name_(std::move(n)), fn_(std::move(f)), needs_(nd) {}
  std::string name() const override { return name_; }
  TensorList apply(const TensorList& grads) override {
    MF_CHECK(fn_ != nullptr, RuntimeError,
             "Trying to backward through the graph a second time (or directly access saved tensors after they "
             "have already been freed). Saved intermediate values of the graph are freed when you call "
             ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
             "graph a second time or if you need to access saved tensors after calling backward. (in ",
             name_, ")");
    Node* prev = t_running_node;
    t_running_node = this;
    struct Restore {
      Node* p;
      ~Restore() { t_running_node = p; }
    } restore{prev};
    return fn_(grads, needs_);
  }
  void release() override {
    if (!reusable_) fn_ = nullptr;
  }
  bool reusable_ = false;
  std::string name_;
  BackwardFn fn_;
  NeedsGrad needs_;
};

// Accumulates into a leaf's .grad, after the leaf's hooks.
struct AccumulateGrad : Node {
  explicit AccumulateGrad(const Tensor& leaf) : leaf_(leaf) {
    // Accumulate as soon as the gradient is complete (the engine runs the
    // highest sequence number first): hooks such as DDP's fire early.
    sequence_nr = UINT64_MAX;
    grad_meta.push_back({leaf->shape, leaf->dtype, leaf->device()});
  }
  std::string name() const override { return "AccumulateGrad"; }
  TensorList apply(const TensorList& grads) override {
    Tensor g = grads[0];
    AutogradMeta& m = meta(leaf_);
    for (auto& [id, hook] : m.leaf_hooks)
      if (Tensor r = hook(g)) {
        // (a .grad of another shape, dtype or device would reach every optimizer step)
        MF_CHECK(r->shape == g->shape, RuntimeError, "backward: a hook has changed the size of the gradient of a ",
                 shape_str(g->shape), " leaf to ", shape_str(r->shape));
        MF_CHECK(r->dtype == g->dtype, RuntimeError, "backward: a hook has changed the type of the gradient (was ",
                 dtype_name(g->dtype), ", got ", dtype_name(r->dtype), ")");
        MF_CHECK(r->device() == g->device(), RuntimeError, "backward: a hook has changed the device of the gradient ",
                 "(was ", g->device().str(), ", got ", r->device().str(), ")");
        g = r;
      }
    if (!m.grad) {
      // Steal the incoming gradient when nothing else can see it; otherwise
      // copy it, so that a later in-place accumulation changes only .grad.
      bool private_grad = g.use_count() <= 2 && g->storage.use_count() == 1 && !g->view_base;
      m.grad = grad_enabled() ? g : (private_grad ? detach(g) : clone(g));
    } else if (grad_enabled()) {
      m.grad = binary(kOp_add, m.grad, g);
    } else {
      binary_(kOp_add, m.grad, g);
    }
    if (!m.post_accumulate_hooks.empty()) {
      auto hooks = m.post_accumulate_hooks;  // (a hook may remove itself)
      for (auto& [id, hook] : hooks) hook(leaf_);
    }
    return {};
  }
  Tensor leaf_;
};
}  // namespace

AutogradMeta& ensure_meta(const Tensor& t) {
  if (!t->autograd) t->autograd = std::make_shared<AutogradMeta>();
  return *t->autograd;
}

uint64_t next_sequence_nr() { return ++g_sequence; }

bool grad_enabled() { return t_grad_enabled; }
void set_grad_enabled(bool enabled) { t_grad_enabled = enabled; }
bool inference_mode_enabled() { return t_inference_mode; }
void set_inference_mode_enabled(bool enabled) { t_inference_mode = enabled; }

bool requires_grad(const Tensor& t) {
  if (t->view_base) refresh_view(t);
  const AutogradMeta* m = t->autograd.get();
  return m && (m->requires_grad || m->grad_fn);
}

bool is_leaf(const Tensor& t) {
  if (t->view_base) refresh_view(t);
  return !t->autograd || !t->autograd->grad_fn;
}

void set_requires_grad(const Tensor& t, bool value) {
  if (!is_leaf(t)) {
    MF_CHECK(value, RuntimeError,
             "requires_grad_: you can only change requires_grad flags of leaf variables. If you want to use a "
             "computed variable in a subgraph that doesn't require differentiation use var_no_grad = "
             "var.detach().");
    return;
  }
  MF_CHECK(!value || !t->inference || t_inference_mode, RuntimeError,
           "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed.");
  MF_CHECK(!value || can_require_grad(t->dtype), RuntimeError,
           "requires_grad_: only Tensors of floating point dtype can require gradients, got ",
           dtype_name(t->dtype));
  if (!value && !t->autograd) return;
  meta(t).requires_grad = value;
}

Tensor grad(const Tensor& t) { return t->autograd ? t->autograd->grad : nullptr; }

void set_grad(const Tensor& t, const Tensor& g) {
  if (g) {
    MF_CHECK(g->shape == t->shape, RuntimeError, "assigned grad has data of a different size: ", shape_str(g->shape),
             " vs the tensor's ", shape_str(t->shape));
    MF_CHECK(g->dtype == t->dtype, RuntimeError, "assigned grad has data of a different type: ",
             dtype_name(g->dtype), " vs the tensor's ", dtype_name(t->dtype));
    MF_CHECK(g->device() == t->device(), RuntimeError, "assigned grad has data located on a different device: ",
             g->device().str(), " vs the tensor's ", t->device().str());
  }
  if (!g && !t->autograd) return;
  meta(t).grad = g;
}

std::shared_ptr<Node> grad_fn(const Tensor& t) {
  if (t->view_base) refresh_view(t);
  return t->autograd ? t->autograd->grad_fn : nullptr;
}
int output_nr(const Tensor& t) { return t->autograd ? t->autograd->output_nr : 0; }

Tensor detach(const Tensor& t) {
  // A trace may not read a tensor that requires grad (a parameter): nor its
  // detached alias (Note [Constants read while tracing] in graph/trace.h).
  if (graph::tracing() && requires_grad(t)) graph::TraceRecorder::current()->mark_variable(t);
  auto d = std::make_shared<TensorImpl>();
  d->storage = t->storage;
  d->shape = t->shape;
  d->strides = t->strides;
  d->offset = t->offset;
  d->dtype = t->dtype;
  d->inference = t->inference;
  return d;
}

void detach_(const Tensor& t) {
  MF_CHECK(!t->view_base || !requires_grad(t->view_base), RuntimeError,
           "detach_: can't detach views in-place. Use detach() instead.");
  if (!t->autograd) return;
  t->autograd->grad_fn = nullptr;
  t->autograd->requires_grad = false;
  t->autograd->output_nr = 0;
}

void retain_grad(const Tensor& t) {
  MF_CHECK(requires_grad(t), RuntimeError, "retain_grad: can't retain_grad on Tensor that has requires_grad=False");
  if (is_leaf(t) || t->autograd->retains_grad) return;
  t->autograd->retains_grad = true;
  t->autograd->grad_fn->retained.emplace_back(t->autograd->output_nr, t);
}

bool retains_grad(const Tensor& t) { return t->autograd && t->autograd->retains_grad; }

int64_t register_hook(const Tensor& t, GradHook hook) {
  MF_CHECK(requires_grad(t), RuntimeError,
           "register_hook: cannot register a hook on a tensor that doesn't require gradient");
  int64_t id = ++g_hook_id;
  AutogradMeta& m = meta(t);
  if (m.grad_fn)
    m.grad_fn->pre_hooks.push_back({m.output_nr, {id, std::move(hook)}});
  else
    m.leaf_hooks.emplace_back(id, std::move(hook));
  return id;
}

int64_t register_post_accumulate_hook(const Tensor& leaf, GradHook hook) {
  MF_CHECK(requires_grad(leaf) && is_leaf(leaf), RuntimeError,
           "post accumulate grad hooks cannot be registered on non-leaf tensors or tensors that do not require grad");
  int64_t id = ++g_hook_id;
  meta(leaf).post_accumulate_hooks.emplace_back(id, std::move(hook));
  return id;
}

void remove_hook(const Tensor& t, int64_t id) {
  if (!t->autograd) return;
  for (auto* hooks : {&t->autograd->leaf_hooks, &t->autograd->post_accumulate_hooks})
    for (auto it = hooks->begin(); it != hooks->end(); ++it)
      if (it->first == id) {
        hooks->erase(it);
        return;
      }
  if (auto& fn = t->autograd->grad_fn) {
    auto& ph = fn->pre_hooks;
    for (auto it = ph.begin(); it != ph.end(); ++it)
      if (it->second.first == id) {
        ph.erase(it);
        return;
      }
  }
}

Edge gradient_edge(const Tensor& t) {
  if (t->view_base) refresh_view(t);
  AutogradMeta* m = t->autograd.get();
  if (!m) return {};
  if (m->grad_fn) return {m->grad_fn, m->output_nr};
  if (!m->requires_grad) return {};
  std::shared_ptr<Node> acc = m->grad_accumulator.lock();
  if (!acc) {
    acc = std::make_shared<AccumulateGrad>(t);
    m->grad_accumulator = acc;
  }
  return {acc, 0};
}

// ---- saved tensors

namespace {
thread_local std::vector<std::shared_ptr<SavedTensorHooks>> t_saved_hooks;  // Note [Saved-tensor hooks]
}  // namespace

void push_saved_tensor_hooks(std::shared_ptr<SavedTensorHooks> hooks) { t_saved_hooks.push_back(std::move(hooks)); }

void pop_saved_tensor_hooks() {
  MF_CHECK(!t_saved_hooks.empty(), RuntimeError, "saved_tensors_hooks: no hooks to pop on this thread");
  t_saved_hooks.pop_back();
}

SavedTensor::SavedTensor(const Tensor& t, bool is_output, int output_nr)
    : output_nr_(output_nr), is_output_(is_output) {
  if (!t) return;
  // (one that requires grad is let through: torch would save it only for another input's gradient,
  // which monoflow's ops cannot tell apart from saving it unconditionally)
  MF_CHECK(!t->inference || t_inference_mode || requires_grad(t), RuntimeError,
           "Inference tensors cannot be saved for backward. A tensor made inside inference_mode may not be used "
           "in computation tracked by autograd: clone() it to get a normal tensor, or use no_grad() instead of "
           "inference_mode().");
  t_saved_since_node = true;
  version_ = t->version();
  if (is_output) {
    // Keep the data, not the tensor: the tensor's grad_fn is the node that
    // saves it, and a strong reference would make a cycle.
    data_ = detach(t);
  } else {
    data_ = t;
  }
  if (!t_saved_hooks.empty()) {
    hooks_ = t_saved_hooks.back();
    packed_ = hooks_->pack(data_);
    data_ = nullptr;  // only the packed value is kept (save_on_cpu frees the device copy)
  }
}

Tensor SavedTensor::unpack() const {
  if (packed_) {
    Tensor t = hooks_->unpack(packed_);
    MF_CHECK(t, RuntimeError, "saved_tensors_hooks: unpack_hook returned no tensor");
    if (!is_output_ || !grad_enabled() || !t_running_node || !can_require_grad(t->dtype)) return t;
    Tensor out = detach(t);  // create_graph: reconnected to the node that made it, as below
    AutogradMeta& m = meta(out);
    m.grad_fn = t_running_node->shared_from_this();
    m.output_nr = output_nr_;
    return out;
  }
  if (!data_) return nullptr;
  MF_CHECK(data_->version() == version_, RuntimeError,
           "one of the variables needed for gradient computation has been modified by an inplace operation: "
           "a tensor of shape ", shape_str(data_->shape), " and dtype ", dtype_name(data_->dtype),
           " is at version ", data_->version(), "; expected version ", version_,
           " instead. Hint: the operation that modified it came after the one that saved it; clone() the "
           "tensor before modifying it.");
  if (!is_output_ || !grad_enabled() || !t_running_node || !can_require_grad(data_->dtype)) return data_;
  // create_graph: the output again, connected to the node that made it.
  Tensor t = detach(data_);
  AutogradMeta& m = meta(t);
  m.grad_fn = t_running_node->shared_from_this();
  m.output_nr = output_nr_;
  return t;
}

// ---- recording

namespace {
// PyTorch's node names: "log_softmax" -> "LogSoftmaxBackward0".
std::string backward_name(const std::string& op) {
  if (op.find("Backward") != std::string::npos) return op;
  std::string base = op;
  const std::string scalar = "_scalar";  // mul_scalar is Mul, as torch names it
  if (base.size() > scalar.size() && base.compare(base.size() - scalar.size(), scalar.size(), scalar) == 0)
    base.resize(base.size() - scalar.size());
  std::string out;
  bool upper = true;
  for (char c : base) {
    if (c == '_') {
      upper = true;
      continue;
    }
    out += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
    upper = false;
  }
  return out + "Backward0";
}
}  // namespace

std::shared_ptr<Node> make_function_node(std::string name, BackwardFn fn, NeedsGrad needs) {
  auto node = std::make_shared<FunctionNode>(backward_name(name), std::move(fn), needs);
  node->reusable_ = !std::exchange(t_saved_since_node, false);
  node->sequence_nr = ++g_sequence;
  return node;
}

Recorder::Recorder(const char* name, std::initializer_list<Tensor> inputs) : name_(name) {
  init(inputs.begin(), inputs.size(), false);
}

Recorder::Recorder(const char* name, const TensorList& inputs) : name_(name) {
  init(inputs.data(), inputs.size(), false);
}

Tensor Recorder::value_before(const Tensor& self) {
  GradModeGuard on(true);
  return clone(self);
}

Recorder::Recorder(InPlace, const char* name, std::initializer_list<Tensor> inputs) : name_(name) {
  init(inputs.begin(), inputs.size(), true);
}

void Recorder::init(const Tensor* inputs, size_t n, bool inplace) {
  if (!t_grad_enabled) return;
  for (size_t i = 0; i < n; ++i)
    if (inputs[i] && requires_grad(inputs[i])) needs_.set(i);
  if (inplace) {
    const Tensor& self = inputs[0];
    const Tensor& base = self->view_base;
    MF_CHECK(!(is_leaf(self) && requires_grad(self)) || base, RuntimeError, name_,
             ": a leaf Tensor that requires grad is being used in an in-place operation.");
    if (base) {
      MF_CHECK(!(is_leaf(base) && requires_grad(base)), RuntimeError, name_,
               ": a view of a leaf Tensor that requires grad is being used in an in-place operation.");
    }
  }
  if (!needs_.any()) return;
  active_ = true;
  edges_.resize(n);
  for (size_t i = 0; i < n; ++i)
    if (needs_[i]) edges_[i] = gradient_edge(inputs[i]);
  guard_.emplace(false);
}

void Recorder::finish(const TensorList& outputs, BackwardFn fn) {
  guard_.reset();
  auto node = make_function_node(name_, std::move(fn), needs_);
  node->next_edges = std::move(edges_);
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Tensor& out = outputs[i];
    node->grad_meta.push_back({out->shape, out->dtype, out->device()});
    // An input handed back unchanged keeps its own history.
    if (!can_require_grad(out->dtype) || requires_grad(out)) continue;
    AutogradMeta& m = meta(out);
    m.grad_fn = node;
    m.output_nr = static_cast<int>(i);
    if (out->view_base) m.view_version = out->version();  // Note [Stale views]
  }
  active_ = false;
}

TensorList record_custom(const std::string& name, const TensorList& inputs, const TensorList& outputs,
                         BackwardFn fn) {
  TensorList outs = outputs;
  if (!t_grad_enabled) return outs;
  NeedsGrad needs;
  for (size_t i = 0; i < inputs.size(); ++i)
    if (requires_grad(inputs[i])) needs.set(i);
  if (!needs.any()) return outs;
  auto node = make_function_node(name, std::move(fn), needs);
  static_cast<FunctionNode&>(*node).reusable_ = false;  // (a custom function's closure owns what it saved)
  for (size_t i = 0; i < inputs.size(); ++i)
    node->next_edges.push_back(needs[i] ? gradient_edge(inputs[i]) : Edge{});
  for (size_t i = 0; i < outs.size(); ++i) {
    Tensor& out = outs[i];
    for (const Tensor& in : inputs)
      if (in == out) out = detach(in);
    node->grad_meta.push_back({out->shape, out->dtype, out->device()});
    if (!can_require_grad(out->dtype)) continue;
    AutogradMeta& m = meta(out);
    m.requires_grad = false;
    m.grad_fn = node;
    m.output_nr = static_cast<int>(i);
  }
  return outs;
}

// t aliased, connected to t's history (when it has one) and to `x_edge` with a zero derivative.
Tensor formally_depends_on(const Tensor& t, const Edge& x_edge, const GradMeta& x_meta) {
  if (!t_grad_enabled || !t || !x_edge.valid() || !can_require_grad(t->dtype)) return t;
  bool t_needs = requires_grad(t);
  NeedsGrad needs;
  if (t_needs) needs.set(0);
  needs.set(1);
  auto node = make_function_node("FormalInput", [x_meta](const TensorList& g, NeedsGrad) -> TensorList {
    return {g[0], zeros_like_meta(x_meta)};
  }, needs);
  node->next_edges = {t_needs ? gradient_edge(t) : Edge{}, x_edge};
  Tensor out = detach(t);
  node->grad_meta.push_back({out->shape, out->dtype, out->device()});
  AutogradMeta& m = meta(out);
  m.grad_fn = node;
  m.output_nr = 0;
  return out;
}

Tensor formally_depends_on(const Tensor& t, const Tensor& x) {
  if (!t_grad_enabled || !t || !x || !requires_grad(x)) return t;
  return formally_depends_on(t, gradient_edge(x), {x->shape, x->dtype, x->device()});
}

Tensor formal_input(const std::string& op, const Tensor& out, const Tensor& x) {
  if (!t_grad_enabled || !requires_grad(x) || !requires_grad(out)) return out;
  Edge x_edge = gradient_edge(x);
  GradMeta x_meta{x->shape, x->dtype, x->device()};
  // The gradient of out passes through unchanged; under create_graph it is formally linked to x.
  // (x's edge is held by the closure, not x: its data is not kept alive.)
  return record_custom(op, {out}, {out}, [x_edge, x_meta](const TensorList& g, NeedsGrad) -> TensorList {
    return {formally_depends_on(g[0], x_edge, x_meta)};
  })[0];
}

Tensor sum_to(const Tensor& g, const Dims& shape) {
  if (g->shape == shape) return g;
  int64_t lead = g->dim() - static_cast<int64_t>(shape.size());
  MF_CHECK(lead >= 0, RuntimeError, "sum_to: gradient of shape ", shape_str(g->shape),
           " cannot be reduced to shape ", shape_str(shape));
  Dims dims;
  for (int64_t d = 0; d < g->dim(); ++d) {
    if (d < lead) {
      dims.push_back(d);
      continue;
    }
    int64_t want = shape[d - lead];
    MF_CHECK(want == g->shape[d] || want == 1, RuntimeError, "sum_to: gradient of shape ", shape_str(g->shape),
             " cannot be reduced to shape ", shape_str(shape));
    if (want == 1 && g->shape[d] != 1) dims.push_back(d);
  }
  Tensor r = dims.empty() ? g : sum(g, dims, /*keepdim=*/true, std::nullopt);
  return reshape(r, shape);
}

Tensor unsqueeze_reduced(const Tensor& g, const Dims& in_shape, const Dims& dims, bool keepdim) {
  if (keepdim || in_shape.empty()) return reshape(g, keepdim ? g->shape : in_shape);
  Dims shape = in_shape;
  int64_t nd = static_cast<int64_t>(in_shape.size());
  if (dims.empty())
    for (auto& s : shape) s = 1;
  for (int64_t d : dims) shape[wrap_dim(d, nd, "backward")] = 1;
  return reshape(g, shape);
}

Tensor zeros_like_meta(const GradMeta& m) { return full(m.shape, Scalar{}, m.dtype, m.device); }

}  // namespace autograd
}  // namespace monoflow
