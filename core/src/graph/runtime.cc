// Runtime::run: checks and binds the inputs, sets up the iterations' memory,
// lets the actors run, synchronises, and hands back the outputs.
#include "monoflow/graph/runtime.h"

#include <unordered_map>

#include "monoflow/backend.h"
#include "monoflow/error.h"
#include "monoflow/graph/actor_system.h"
#include "monoflow/ops.h"

namespace monoflow::graph {

namespace {

// Strides that address the same elements (size-1 dims may differ).
bool same_layout(const Dims& shape, const Dims& a, const Dims& b) {
  if (shape_numel(shape) == 0) return true;
  for (size_t d = 0; d < shape.size(); ++d)
    if (shape[d] != 1 && a[d] != b[d]) return false;
  return true;
}

}  // namespace

struct Runtime::Impl {
  std::shared_ptr<const Plan> plan;
  std::vector<std::vector<std::shared_ptr<Storage>>> replicas;  // per storage (Transient only)
  std::unordered_map<const Storage*, int> traced;               // Persistent/Transient memory -> storage
  std::unique_ptr<ActorSystem> system;
  std::shared_ptr<HoldGate> gate = std::make_shared<HoldGate>();
  RunDebug debug;
  std::mutex run_mu;  // one run at a time
  std::string dead_reason;
  // Actors of the last run, reused while slots, threads and debug edges stay.
  std::vector<Actor> actors;
  int actors_slots = -1, actors_threads = -1;
  std::vector<PlanEdge> actors_extra;

  std::vector<std::vector<Tensor>> check_feeds(const std::vector<std::vector<Tensor>>& feeds, int64_t iterations);
  void ensure_replicas(int slots);
  std::vector<Actor> take_actors(int slots, int threads);
};

std::vector<std::vector<Tensor>> Runtime::Impl::check_feeds(const std::vector<std::vector<Tensor>>& feeds,
                                                            int64_t iterations) {
  const Plan& p = *plan;
  MF_CHECK(feeds.size() == 1 || static_cast<int64_t>(feeds.size()) == iterations, ValueError,
           "graph run: expected one set of inputs, or one per iteration (", iterations, "), got ", feeds.size());
  std::vector<std::vector<Tensor>> out;
  for (const std::vector<Tensor>& set : feeds) {
    MF_CHECK(set.size() == p.inputs.size(), ValueError, "graph run: the graph takes ", p.inputs.size(),
             " tensor inputs, got ", set.size());
    std::vector<Tensor> checked;
    std::unordered_map<const Storage*, size_t> seen;
    for (size_t j = 0; j < set.size(); ++j) {
      Tensor t = set[j];
      const InputSpec& spec = p.inputs[j];
      MF_CHECK(t, ValueError, "graph run: input ", j, " is not a tensor");
      MF_CHECK(t->dtype == spec.dtype, TypeError, "graph run: input ", j, " has dtype ", dtype_name(t->dtype),
               ", the graph was traced with ", dtype_name(spec.dtype), " (trace again for another dtype)");
      MF_CHECK(t->shape == spec.shape, ValueError, "graph run: input ", j, " has shape ", shape_str(t->shape),
               ", the graph was traced with ", shape_str(spec.shape), " (trace again for another shape)");
      MF_CHECK(t->device() == spec.device, ValueError, "graph run: input ", j, " is on ", t->device().str(),
               ", the graph was traced with ", spec.device.str());
      if (!same_layout(t->shape, t->strides, spec.strides)) {
        // A rebound input must be laid out as the traced one; a dense copy
        // does for a traced contiguous input.
        MF_CHECK(same_layout(spec.shape, spec.strides, contiguous_strides(spec.shape)), ValueError,
                 "graph run: input ", j, " has strides ", shape_str(t->strides), ", the graph was traced with ",
                 shape_str(spec.strides));
        t = clone(t);
      }
      const bool written = spec.storage >= 0 && p.storages[spec.storage].written;
      auto [it, fresh] = seen.emplace(t->storage.get(), j);
      MF_CHECK(fresh || !(written || p.storages[p.inputs[it->second].storage].written), ValueError,
               "graph run: inputs ", it->second, " and ", j,
               " share memory and the graph writes one of them; pass separate tensors");
      auto tr = traced.find(t->storage.get());
      MF_CHECK(tr == traced.end() || !(written || p.storages[tr->second].written), ValueError, "graph run: input ", j,
               " shares memory with a tensor the traced function uses directly (e.g. a parameter), and the graph "
               "writes one of them");
      checked.push_back(std::move(t));
    }
    out.push_back(std::move(checked));
  }
  // An input the graph writes, fed by views of one storage at different
  // offsets in different iterations, would hide hazards between iterations.
  for (size_t j = 0; j < p.inputs.size() && out.size() > 1; ++j) {
    const InputSpec& spec = p.inputs[j];
    if (spec.storage < 0 || !p.storages[spec.storage].written) continue;
    std::unordered_map<const Storage*, int64_t> offsets;
    for (const auto& set : out) {
      auto [it, fresh] = offsets.emplace(set[j]->storage.get(), set[j]->offset);
      MF_CHECK(fresh || it->second == set[j]->offset, ValueError, "graph run: input ", j,
               " is written by the graph and fed different views of one tensor in different iterations");
    }
  }
  return out;
}

void Runtime::Impl::ensure_replicas(int slots) {
  const Plan& p = *plan;
  for (size_t s = 0; s < p.storages.size(); ++s) {
    const PlanStorage& ps = p.storages[s];
    // No memory of its own: placed in an arena, or used by no node (Note [Memory planning]).
    if (ps.cls != StorageClass::Transient || !ps.storage) continue;
    std::vector<std::shared_ptr<Storage>>& r = replicas[s];
    if (r.empty()) r.push_back(ps.storage);
    while (static_cast<int>(r.size()) < slots) r.push_back(Storage::allocate(ps.device, ps.nbytes));
  }
}

std::vector<Actor> Runtime::Impl::take_actors(int slots, int threads) {
  auto same_edges = [](const std::vector<PlanEdge>& a, const std::vector<PlanEdge>& b) {
    if (a.size() != b.size()) return false;
    for (size_t k = 0; k < a.size(); ++k)
      if (a[k].from != b[k].from || a[k].to != b[k].to || a[k].kind != b[k].kind) return false;
    return true;
  };
  if (actors.empty() || actors_slots != slots || actors_threads != threads ||
      !same_edges(actors_extra, debug.extra_edges)) {
    actors.clear();  // a failed run does not hand its actors back: never reuse older ones
    actors_slots = slots;
    actors_threads = threads;
    actors_extra = debug.extra_edges;
    return make_actors(*plan, debug.extra_edges, slots, threads);
  }
  std::vector<Actor> a = std::move(actors);
  for (Actor& x : a) {
    x.next = 0;
    for (Actor::In& l : x.in) l.received = 0;
  }
  return a;
}

Runtime::Runtime(std::shared_ptr<const Plan> plan) : impl_(std::make_shared<Impl>()) {
  impl_->plan = std::move(plan);
  const Plan& p = *impl_->plan;
  impl_->replicas.resize(p.storages.size());
  for (size_t s = 0; s < p.storages.size(); ++s)
    if (p.storages[s].storage) impl_->traced.emplace(p.storages[s].storage.get(), static_cast<int>(s));
}

Runtime::~Runtime() = default;

const Plan& Runtime::plan() const { return *impl_->plan; }
bool Runtime::dead() const { return !impl_->dead_reason.empty(); }
std::string Runtime::dead_reason() const { return impl_->dead_reason; }
RunDebug& Runtime::debug() { return impl_->debug; }

void Runtime::hold(int node) {
  std::lock_guard<std::mutex> lock(impl_->gate->mu);
  impl_->gate->released = false;
  impl_->debug.hold_node = node;
}

void Runtime::release_hold() {
  {
    std::lock_guard<std::mutex> lock(impl_->gate->mu);
    impl_->gate->released = true;
  }
  impl_->gate->cv.notify_all();
  impl_->debug.hold_node = -1;
}

std::vector<std::vector<Tensor>> Runtime::run(const std::vector<std::vector<Tensor>>& feeds,
                                              const RunOptions& options) {
  Impl& im = *impl_;
  std::unique_lock<std::mutex> running(im.run_mu, std::try_to_lock);
  MF_CHECK(running.owns_lock(), RuntimeError, "graph run: this graph is already running on another thread");
  MF_CHECK(!dead(), RuntimeError, "graph run: the graph runtime is dead (", im.dead_reason, "); compile it again");
  MF_CHECK(!tracing(), RuntimeError, "graph run: cannot run a compiled graph inside a graph trace");
  MF_CHECK(options.iterations >= 0, ValueError, "graph run: iterations must be >= 0, got ", options.iterations);
  MF_CHECK(options.slots >= 1, ValueError, "graph run: slots must be >= 1, got ", options.slots);
  MF_CHECK(options.threads >= 1 && options.threads <= 256, ValueError, "graph run: threads must be in [1, 256], got ",
           options.threads);
  const int64_t n = options.iterations;
  if (n == 0) return {};
  std::vector<std::vector<Tensor>> checked = im.check_feeds(feeds, n);
  im.ensure_replicas(options.slots);

  auto st = std::make_shared<RunState>();
  st->plan = im.plan;
  st->iterations = n;
  st->debug = im.debug;
  st->memory = std::make_unique<IterationMemory>(*im.plan, im.replicas, std::move(checked), n, options.slots);
  st->actors = im.take_actors(options.slots, options.threads);
  if (!im.system || im.system->threads() != options.threads)
    im.system = std::make_unique<ActorSystem>(options.threads, im.gate);
  bool abandoned = false;
  try {
    im.system->execute(st, options.timeout_s, &abandoned);
  } catch (const std::exception& e) {
    if (abandoned) {
      im.dead_reason = e.what();
      im.system.reset();  // its threads were detached; nothing to join
      im.actors.clear();
    }
    throw;
  }
  im.actors = std::move(st->actors);
  // Errors that kernels report while running surface here.
  for (const Device& d : im.plan->devices) {
    try {
      DeviceRegistry::get().backend(d).synchronize(d.index);
    } catch (...) {
      std::rethrow_exception(annotate_error(std::current_exception(), "graph run: a kernel failed: "));
    }
  }
  std::vector<std::vector<Tensor>> outputs(static_cast<size_t>(n));
  for (int64_t it = 0; it < n; ++it)
    for (const PlanOperand& o : im.plan->outputs) outputs[it].push_back(st->memory->view(o, it));
  return outputs;
}

}  // namespace monoflow::graph
