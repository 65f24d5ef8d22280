// The backward engine: runs the recorded graph from the roots towards the
// leaves, each node once all of its gradient inputs have arrived.
#include <functional>
#include <queue>
#include <unordered_map>
#include <unordered_set>

#include "monoflow/autograd.h"
#include "monoflow/error.h"
#include "monoflow/global_shard.h"
#include "monoflow/ops.h"
#include "monoflow/profiler.h"

namespace monoflow {
namespace autograd {

namespace {
struct ByLatest {
  bool operator()(Node* a, Node* b) const { return a->sequence_nr < b->sequence_nr; }
};

// Makes a node's output gradient fit the input it flows to: broadcast
// dimensions summed away, the input's dtype.
Tensor fit(const Tensor& g, const GradMeta& want, const Node& from, size_t index) {
  Tensor r = g;
  if (r->shape != want.shape) {
    try {
      r = sum_to(r, want.shape);
    } catch (const RuntimeError&) {
      throw RuntimeError(str_cat("backward: ", from.name(), " returned an invalid gradient at index ", index,
                                 " - got ", shape_str(g->shape), " but expected shape compatible with ",
                                 shape_str(want.shape)));
    }
  }
  if (r->dtype != want.dtype) r = cast(r, want.dtype);
  MF_CHECK(r->device() == want.device, RuntimeError, "backward: ", from.name(),
           " returned a gradient on device ", r->device().str(), " for an input on ", want.device.str());
  return r;
}

struct GraphTask {
  bool retain_graph = false;
  std::unordered_map<Node*, int> dependencies;
  std::unordered_map<Node*, TensorList> buffers;
  std::unordered_set<Node*> needed;  // empty: every reachable node runs
  // grad(): (node, input_nr) -> result slot; the node is not run for it.
  std::unordered_map<Node*, std::vector<std::pair<int, size_t>>> captures;
  TensorList captured;

  void add(const Edge& e, const Tensor& g) {
    TensorList& buf = buffers[e.fn.get()];
    buf.resize(e.fn->grad_meta.size());
    Tensor& slot = buf[e.input_nr];
    slot = slot ? binary(kOp_add, slot, g) : g;
  }

  void count_dependencies(const std::vector<Node*>& roots) {
    std::vector<Node*> stack;
    std::unordered_set<Node*> seen;
    for (Node* r : roots)
      if (seen.insert(r).second) stack.push_back(r);
    while (!stack.empty()) {
      Node* n = stack.back();
      stack.pop_back();
      for (const Edge& e : n->next_edges) {
        if (!e.valid()) continue;
        ++dependencies[e.fn.get()];
        if (seen.insert(e.fn.get()).second) stack.push_back(e.fn.get());
      }
    }
  }

  // Nodes from which a captured node can be reached (the only ones grad() runs).
  void mark_needed(const std::vector<Node*>& roots) {
    std::unordered_map<Node*, bool> memo;
    std::function<bool(Node*)> visit = [&](Node* n) -> bool {
      auto it = memo.find(n);
      if (it != memo.end()) return it->second;
      memo[n] = false;  // cycles cannot happen; this only guards re-entry
      bool need = captures.count(n) > 0;
      for (const Edge& e : n->next_edges)
        if (e.valid() && visit(e.fn.get())) need = true;
      memo[n] = need;
      if (need) needed.insert(n);
      return need;
    };
    for (Node* r : roots) visit(r);
  }

  void run(Node* n, TensorList grads) {
    bool skip = !needed.empty() && !needed.count(n);
    auto cap = captures.find(n);
    if (skip && cap == captures.end()) return;
    for (size_t i = 0; i < grads.size(); ++i)
      if (!grads[i]) grads[i] = zeros_like_meta(n->grad_meta[i]);
    for (auto& [index, hook] : n->pre_hooks)
      if (Tensor r = hook.second(grads[index])) grads[index] = fit(r, n->grad_meta[index], *n, index);
    for (auto& [index, weak] : n->retained)
      if (Tensor t = weak.lock()) {
        Tensor g = grad_enabled() ? grads[index] : clone(grads[index]);
        Tensor& slot = ensure_meta(t).grad;
        slot = slot ? binary(kOp_add, slot, g) : g;
      }
    if (cap != captures.end())
      for (auto& [input_nr, slot] : cap->second) captured[slot] = grads[input_nr];
    if (skip) return;
    TensorList outs;
    {
      profiler::Range row(profiler::Kind::Backward, "");
      if (profiler::Event* e = row.event()) e->name = n->name();
      outs = n->apply(grads);
    }
    if (!retain_graph) n->release();
    MF_CHECK(outs.size() <= n->next_edges.size(), RuntimeError, "backward: ", n->name(), " returned ",
             outs.size(), " gradients for ", n->next_edges.size(), " inputs");
    for (size_t i = 0; i < outs.size(); ++i) {
      const Edge& e = n->next_edges[i];
      if (!e.valid() || !outs[i]) continue;
      add(e, fit(outs[i], e.fn->grad_meta[e.input_nr], *n, i));
    }
  }

  void execute(const std::vector<Node*>& roots) {
    std::priority_queue<Node*, std::vector<Node*>, ByLatest> ready;
    std::unordered_set<Node*> queued;
    for (Node* r : roots)
      if (dependencies[r] == 0 && queued.insert(r).second) ready.push(r);
    while (!ready.empty()) {
      Node* n = ready.top();
      ready.pop();
      auto it = buffers.find(n);
      TensorList grads = it == buffers.end() ? TensorList(n->grad_meta.size()) : std::move(it->second);
      if (it != buffers.end()) buffers.erase(it);
      run(n, std::move(grads));
      for (const Edge& e : n->next_edges) {
        if (!e.valid()) continue;
        if (--dependencies[e.fn.get()] == 0 && queued.insert(e.fn.get()).second) ready.push(e.fn.get());
      }
    }
  }
};

// Validates roots and their gradients; seeds the task's buffers.
std::vector<std::shared_ptr<Node>> seed(GraphTask& task, const TensorList& roots, const TensorList& grad_roots,
                                        const char* api) {
  MF_CHECK(grad_roots.empty() || grad_roots.size() == roots.size(), RuntimeError, api, ": got ",
           grad_roots.size(), " gradients for ", roots.size(), " tensors");
  std::vector<std::shared_ptr<Node>> nodes;
  for (size_t i = 0; i < roots.size(); ++i) {
    const Tensor& r = roots[i];
    MF_CHECK(requires_grad(r), RuntimeError, api, ": element ", i,
             " of tensors does not require grad and does not have a grad_fn");
    Tensor g = grad_roots.empty() ? nullptr : grad_roots[i];
    if (!g) {
      MF_CHECK(r->numel() == 1, RuntimeError, api, ": grad can be implicitly created only for scalar outputs (got a "
               "tensor of shape ", shape_str(r->shape), ")");
      g = full(r->shape, Scalar::from_int(1), r->dtype, r->device());
    } else {
      MF_CHECK(g->shape == r->shape, RuntimeError, api, ": mismatch in shape: grad_output[", i, "] has a shape of ",
               shape_str(g->shape), " and output[", i, "] has a shape of ", shape_str(r->shape), ".");
      MF_CHECK(g->device() == r->device(), RuntimeError, api, ": grad_output[", i, "] is on ", g->device().str(),
               " but output[", i, "] is on ", r->device().str());
      if (g->dtype != r->dtype) g = cast(g, r->dtype);
    }
    Edge e = gradient_edge(r);
    task.add(e, g);
    nodes.push_back(e.fn);
  }
  return nodes;
}

std::vector<Node*> raw(const std::vector<std::shared_ptr<Node>>& nodes) {
  std::vector<Node*> out;
  for (auto& n : nodes) out.push_back(n.get());
  return out;
}

void capture_inputs(GraphTask& task, const TensorList& inputs, const char* api) {
  task.captured.assign(inputs.size(), nullptr);
  for (size_t i = 0; i < inputs.size(); ++i) {
    MF_CHECK(requires_grad(inputs[i]), RuntimeError, api, ": input ", i, " does not require grad");
    Edge e = gradient_edge(inputs[i]);
    task.captures[e.fn.get()].emplace_back(e.input_nr, i);
  }
}
}  // namespace

void backward(const TensorList& roots, const TensorList& grad_roots, bool retain_graph, bool create_graph,
              const TensorList& inputs) {
  GradModeGuard mode(create_graph);
  ShardAccess shards;  // replays ops the global layer checked (Note [Global shards])
  GraphTask task;
  task.retain_graph = retain_graph;
  auto nodes = seed(task, roots, grad_roots, "backward");
  std::vector<Node*> r = raw(nodes);
  if (!inputs.empty()) {
    capture_inputs(task, inputs, "backward");
    task.mark_needed(r);
    for (auto& [n, slots] : task.captures) task.needed.insert(n);
  }
  task.count_dependencies(r);
  task.execute(r);
  // Non-leaf `inputs` get their gradient as .grad, as leaves do.
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (is_leaf(inputs[i]) || !task.captured[i]) continue;
    Tensor& slot = ensure_meta(inputs[i]).grad;
    slot = slot ? binary(kOp_add, slot, task.captured[i]) : task.captured[i];
  }
}

TensorList grad(const TensorList& roots, const TensorList& inputs, const TensorList& grad_roots, bool retain_graph,
                bool create_graph, bool allow_unused) {
  GradModeGuard mode(create_graph);
  ShardAccess shards;  // replays ops the global layer checked (Note [Global shards])
  GraphTask task;
  task.retain_graph = retain_graph;
  auto nodes = seed(task, roots, grad_roots, "grad");
  std::vector<Node*> r = raw(nodes);
  capture_inputs(task, inputs, "grad");
  task.mark_needed(r);
  // Capture only: the accumulators of leaf inputs are not run.
  for (const Tensor& in : inputs)
    if (is_leaf(in)) task.needed.erase(gradient_edge(in).fn.get());
  if (task.needed.empty()) task.needed.insert(nullptr);  // nothing to run, but not "run everything"
  task.count_dependencies(r);
  task.execute(r);
  for (size_t i = 0; i < inputs.size(); ++i)
    MF_CHECK(task.captured[i] || allow_unused, RuntimeError, "grad: one of the differentiated Tensors (input ", i,
             ") appears to not have been used in the graph. Set allow_unused=True if this is the desired behavior.");
  return task.captured;
}

}  // namespace autograd
}  // namespace monoflow
