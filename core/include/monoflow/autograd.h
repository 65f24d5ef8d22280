// Reverse-mode automatic differentiation, recorded on the eager dispatch path.
//
// Note [How an op is recorded]
//   An op that has a derivative opens an autograd::Recorder on its inputs
//   before computing. When grad mode is on and some input requires grad, the
//   recorder switches grad mode off for the op's body (the internal ops it
//   calls are not recorded), and `finish` then creates one Node for the whole
//   op: its edges point to the inputs' gradient edges, its backward is a
//   closure written with the differentiable op API itself, so running it with
//   grad mode on (create_graph) records the backward and gives higher-order
//   gradients. Ops without a recorder are compositions: their pieces record.
//
// Note [Views and in-place ops]
//   Every view remembers its base (TensorImpl::view_base), and make_view
//   records a generic view node when the base requires grad. An in-place op
//   on a tensor that requires grad rebases that tensor's history onto the
//   new node; on a view it rebases the *base* (CopySlices), so the gradient
//   of the base sees the write. Saved tensors remember their version, and
//   unpacking one that an in-place op has since modified is an error.
#pragma once
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "monoflow/tensor.h"

namespace monoflow {
namespace autograd {

// ---- grad mode (thread-local, like PyTorch's)
bool grad_enabled();
void set_grad_enabled(bool enabled);
struct GradModeGuard {
  explicit GradModeGuard(bool enabled) : prev(grad_enabled()) { set_grad_enabled(enabled); }
  ~GradModeGuard() { set_grad_enabled(prev); }
  GradModeGuard(const GradModeGuard&) = delete;
  GradModeGuard& operator=(const GradModeGuard&) = delete;
  bool prev;
};

// ---- inference mode (thread-local): Note [Inference tensors] in tensor.h
bool inference_mode_enabled();
void set_inference_mode_enabled(bool enabled);
inline bool is_inference(const Tensor& t) { return t->inference; }

using TensorList = std::vector<Tensor>;
struct Node;

// Where a gradient goes: input `input_nr` of node `fn` (null fn: nowhere).
struct Edge {
  std::shared_ptr<Node> fn;
  int input_nr = 0;
  bool valid() const { return fn != nullptr; }
};

// A hook sees a gradient and returns a replacement (or null to keep it).
using GradHook = std::function<Tensor(const Tensor&)>;

// Shape, dtype and device of one of a node's gradient inputs (one forward output).
struct GradMeta {
  Dims shape;
  DType dtype = DType::Float32;
  Device device;
};

// Note [Freeing long graphs]
//   A node owns its next nodes through next_edges, and through the inputs it
//   saved (a tensor owns its grad_fn, the node before), so dropping the last
//   reference to a chain of N nodes (y = y + 1, or y = y * y, a million
//   times) would free them by recursion N deep and overflow the C++ stack.
//   ~Node and ~AutogradMeta instead hand the nodes they release to a
//   per-thread queue, and the outermost of them on the thread frees the
//   queue in a loop: the depth stays one.
struct Node : std::enable_shared_from_this<Node> {
  virtual ~Node();
  virtual std::string name() const = 0;
  // grads[i]: the gradient of forward output i (never null: the engine fills
  // zeros). Returns one gradient per next edge (null where there is none).
  virtual TensorList apply(const TensorList& grads) = 0;
  // Frees saved tensors after a backward without retain_graph.
  virtual void release() {}

  std::vector<Edge> next_edges;
  std::vector<GradMeta> grad_meta;
  // Hooks of non-leaf tensors: output index -> hooks (run before apply).
  std::vector<std::pair<int, std::pair<int64_t, GradHook>>> pre_hooks;
  // retain_grad() of non-leaf outputs: output index -> tensor receiving .grad
  std::vector<std::pair<int, std::weak_ptr<TensorImpl>>> retained;
  uint64_t sequence_nr = 0;
};

// Per-tensor autograd state; created lazily (most tensors never need it).
struct AutogradMeta {
  ~AutogradMeta();  // Note [Freeing long graphs]
  bool requires_grad = false;  // leaves only; a non-leaf requires grad by having grad_fn
  Tensor grad;
  std::shared_ptr<Node> grad_fn;
  int output_nr = 0;
  std::weak_ptr<Node> grad_accumulator;                  // leaves
  std::vector<std::pair<int64_t, GradHook>> leaf_hooks;  // leaves
  // Leaves: run with the leaf after a pass has accumulated into .grad (their result is ignored;
  // they read and may reset .grad themselves, e.g. an optimizer step that sets it to None).
  std::vector<std::pair<int64_t, GradHook>> post_accumulate_hooks;
  bool retains_grad = false;
  // Views: the storage version their grad_fn was made at (Note [Stale views]).
  int64_t view_version = -1;
};

// ---- per-tensor API
AutogradMeta& ensure_meta(const Tensor& t);
// Brings a view's history up to date with its base's (Note [Stale views]).
void refresh_view(const Tensor& t);
uint64_t next_sequence_nr();  // creation order of nodes; the engine runs later ones first
bool requires_grad(const Tensor& t);
bool is_leaf(const Tensor& t);
void set_requires_grad(const Tensor& t, bool value);  // errors as PyTorch's requires_grad_
Tensor grad(const Tensor& t);                          // null when none
void set_grad(const Tensor& t, const Tensor& g);       // null clears; checks shape/dtype/device
std::shared_ptr<Node> grad_fn(const Tensor& t);
int output_nr(const Tensor& t);
// A new tensor sharing t's storage (and version counter) without history.
Tensor detach(const Tensor& t);
void detach_(const Tensor& t);
void retain_grad(const Tensor& t);
bool retains_grad(const Tensor& t);
int64_t register_hook(const Tensor& t, GradHook hook);  // returns an id for remove_hook
int64_t register_post_accumulate_hook(const Tensor& leaf, GradHook hook);  // likewise
void remove_hook(const Tensor& t, int64_t id);
// Where t's gradient flows: its grad_fn, or its leaf accumulator.
Edge gradient_edge(const Tensor& t);

// ---- saved tensors

// Note [Saved-tensor hooks]: autograd.graph.saved_tensors_hooks(pack, unpack)
// (save_on_cpu, offloading, counting what backward keeps). While a pair is
// pushed on this thread, every tensor an op saves for backward goes through
// `pack`, and only the packed value is kept; backward calls the same pair's
// `unpack` to get the tensor back. The pair in force at save time is the one
// used at unpack time, whatever is pushed then. A packed tensor has no
// version check: the saved object is the hook's, not the tensor.
struct SavedTensorHooks {
  std::function<std::shared_ptr<void>(const Tensor&)> pack;
  std::function<Tensor(const std::shared_ptr<void>&)> unpack;
};
void push_saved_tensor_hooks(std::shared_ptr<SavedTensorHooks> hooks);
void pop_saved_tensor_hooks();

class SavedTensor {
 public:
  SavedTensor() = default;
  // `is_output`: t is output `output_nr` of the node saving it (it may be
  // saved before the node exists). Only its data is kept, so that the graph
  // holds no cycle; unpacked under create_graph it is reconnected to the
  // node that is running its backward, which is the node that saved it.
  SavedTensor(const Tensor& t, bool is_output, int output_nr = 0);
  // The saved tensor; with grad mode on, connected to its history again.
  Tensor unpack() const;
  bool defined() const { return data_ != nullptr || packed_ != nullptr; }

 private:
  Tensor data_;
  std::shared_ptr<SavedTensorHooks> hooks_;  // Note [Saved-tensor hooks]: set when packed_ is
  std::shared_ptr<void> packed_;
  int output_nr_ = 0;
  int64_t version_ = 0;
  bool is_output_ = false;
};

// Which inputs of a recorded op need a gradient.
struct NeedsGrad {
  uint64_t mask = 0;                         // inputs 0..63
  std::shared_ptr<std::vector<bool>> more;   // inputs 64.. (rare: e.g. cat of many tensors)
  bool every = false;                        // all inputs (custom nodes)
  bool operator[](size_t i) const {
    if (every) return true;
    if (i < 64) return (mask >> i) & 1;
    return more && i - 64 < more->size() && (*more)[i - 64];
  }
  void set(size_t i) {
    if (i < 64) {
      mask |= uint64_t{1} << i;
      return;
    }
    if (!more) more = std::make_shared<std::vector<bool>>();
    if (more->size() <= i - 64) more->resize(i - 63);
    (*more)[i - 64] = true;
  }
  bool any() const { return every || mask || more; }
};

// grads: one per forward output. Returns one gradient per forward input (null:
// none; a gradient of a broadcast shape is summed down by the engine).
using BackwardFn = std::function<TensorList(const TensorList& grads, NeedsGrad needs)>;

// See Note [How an op is recorded]. Usage:
//   Recorder rec("MulBackward", {a, b});
//   Tensor out = ...;               // grad mode is off here when rec is active
//   if (rec) rec.finish({out}, [sa = rec.save(a), sb = rec.save(b)](auto& g, NeedsGrad n) {...});
class Recorder {
 public:
  Recorder(const char* name, std::initializer_list<Tensor> inputs);
  Recorder(const char* name, const TensorList& inputs);
  // For an in-place op on inputs[0]: refuses a leaf that requires grad (or a
  // view of one); finish with finish_inplace.
  struct InPlace {};
  Recorder(InPlace, const char* name, std::initializer_list<Tensor> inputs);
  Recorder(const Recorder&) = delete;
  Recorder& operator=(const Recorder&) = delete;
  explicit operator bool() const { return active_; }
  NeedsGrad needs() const { return needs_; }
  SavedTensor save(const Tensor& t) const { return SavedTensor(t, false); }
  // For an in-place op whose backward reads self's old value: a copy made
  // with grad mode on (the recorder switched it off), so that the copy keeps
  // self's old history and a create_graph backward differentiates through it.
  static Tensor value_before(const Tensor& self);
  // Outputs of dtypes that cannot carry gradients (indices, masks) are left alone.
  void finish(const TensorList& outputs, BackwardFn fn);
  // For an in-place op on `self` (which must be inputs[0]): rebases self's history.
  void finish_inplace(const Tensor& self, BackwardFn fn);

 private:
  void init(const Tensor* inputs, size_t n, bool inplace);
  const char* name_;  // not copied: an inactive recorder (the common case) costs nothing
  bool active_ = false;
  NeedsGrad needs_;
  std::vector<Edge> edges_;
  std::optional<GradModeGuard> guard_;
};

// Records `view` as a differentiable view of `base` (called by make_view).
void record_view(const Tensor& base, const Tensor& view, const char* grad_name);

// ---- the engine
// Runs backward from `roots` (grad_roots[i] null: ones for a one-element root).
// `inputs` non-empty: accumulate only into those tensors' .grad.
void backward(const TensorList& roots, const TensorList& grad_roots, bool retain_graph, bool create_graph,
              const TensorList& inputs = {});
// Gradients of roots w.r.t. inputs, returned instead of accumulated.
TensorList grad(const TensorList& roots, const TensorList& inputs, const TensorList& grad_roots,
                bool retain_graph, bool create_graph, bool allow_unused);

// A node whose backward is a closure: what Recorder and custom (Python) functions create.
std::shared_ptr<Node> make_function_node(std::string name, BackwardFn fn, NeedsGrad needs = {0, nullptr, true});
// Connects outputs computed by a custom function to `inputs` through `fn`.
// Outputs that are the same tensors as inputs are replaced by aliases first;
// returns the outputs as connected.
TensorList record_custom(const std::string& name, const TensorList& inputs, const TensorList& outputs,
                         BackwardFn fn);

// Note [Formal inputs of piecewise-linear backward]: torch writes the backward
// of relu, leaky_relu, hardtanh, threshold, the shrinks, the pools and
// nll_loss as functions of the gradient *and* of the forward input (or
// output), so under create_graph their gradient is connected to that input
// with a derivative of zero: autograd.grad(dx, x) gives zeros (Hessians of
// ReLU networks, OneFlow's higher-derivative tests). monoflow computes those
// gradients from a mask, which is connected to the gradient only; these two
// functions add the formal connection, and nothing when grad mode is off (a
// backward without create_graph pays nothing).
//   formally_depends_on(t, x): in a backward formula, t aliased with a node
//     whose backward gives t's gradient to t and zeros to x;
//   formal_input(op, out, x): for a composition out = op(x) recorded op by
//     op, out aliased with a node named after op (LeakyReluBackward0) that
//     applies formally_depends_on(g, x) to the gradient g arriving at out
//     during a create_graph backward.
// The edge-and-meta form is for a node that keeps x's edge rather than x's
// data (pooling saves no input).
Tensor formally_depends_on(const Tensor& t, const Tensor& x);
Tensor formally_depends_on(const Tensor& t, const Edge& x_edge, const GradMeta& x_meta);
Tensor formal_input(const std::string& op, const Tensor& out, const Tensor& x);

// Helpers for backward formulas.
Tensor sum_to(const Tensor& g, const Dims& shape);  // sums broadcast dims away
Tensor zeros_like_meta(const GradMeta& m);
// The gradient of a reduction of an input of `in_shape` over `dims` (empty:
// all), reshaped with size-1 reduced dims so that it broadcasts against the input.
Tensor unsqueeze_reduced(const Tensor& g, const Dims& in_shape, const Dims& dims, bool keepdim);

}  // namespace autograd
}  // namespace monoflow
