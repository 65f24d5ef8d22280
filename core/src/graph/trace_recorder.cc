// TraceRecorder: the launch hook that turns eager kernel calls into a trace
// (Note [Graph tracing] in graph/trace.h).
#include <cstring>
#include <mutex>
#include <set>
#include <string>

#include "monoflow/autograd.h"
#include "monoflow/error.h"
#include "monoflow/graph/trace.h"

namespace monoflow::graph {

namespace {
thread_local TraceRecorder* t_recorder = nullptr;

// Attribute names live as long as the process: a trace outlives the caller's
// strings, and there are only a few distinct names.
const char* intern(const char* name) {
  static std::mutex mu;
  static std::set<std::string>* names = new std::set<std::string>();
  std::lock_guard<std::mutex> lock(mu);
  return names->insert(name ? name : "").first->c_str();
}


int find_attr(const TracedCall& c, const char* name) {
  for (size_t k = 0; k < c.attrs.size(); ++k)
    if (std::strcmp(c.attrs[k].name, name) == 0) return static_cast<int>(k);
  return -1;
}
}  // namespace

TracedOperand snapshot(const Tensor& t, Dims kernel_shape, Dims kernel_strides) {
  TracedOperand o;
  o.storage = t->storage;
  o.offset = t->offset;
  o.dtype = t->dtype;
  o.shape = t->shape;
  o.strides = t->strides;
  o.kernel_shape = std::move(kernel_shape);
  o.kernel_strides = std::move(kernel_strides);
  return o;
}

TraceRecorder::TraceRecorder(bool execute) : execute_(execute) {
  MF_CHECK(!t_recorder, RuntimeError, "graph trace: this thread is already tracing (traces do not nest)");
  t_recorder = this;
  prev_hook_ = set_launch_hook(this);
  prev_observer_ = set_reserve_observer(this);
  active_ = true;
}

TraceRecorder::~TraceRecorder() { stop(); }

void TraceRecorder::stop() {
  // The plan's storage analysis counts references: the variables' must go.
  variable_.clear();
  read_constants_.clear();
  if (!active_) return;
  set_launch_hook(prev_hook_);
  set_reserve_observer(prev_observer_);
  t_recorder = nullptr;
  active_ = false;
}

std::vector<TracedCall> TraceRecorder::finish() {
  stop();
  reservation_ = Reservation{};
  draws_.clear();
  return std::move(calls_);
}

void TraceRecorder::on_reserve(Generator& gen, uint64_t n, uint64_t seed, uint64_t offset) {
  reservation_.gen = gen.weak_from_this().lock();
  reservation_.n = n;
  reservation_.seed = seed;
  reservation_.offset = offset;
  reservation_.pending = true;
}

// Note [Shared random draws] (generator.h): the draw the pending reservation
// repeats, or a new one.
int TraceRecorder::claim_draw(const char* op_name) {
  const Reservation& r = reservation_;
  for (size_t k = 0; k < draws_.size(); ++k) {
    const Reservation& d = draws_[k];
    if (d.gen != r.gen || d.seed != r.seed || r.n == 0 || d.n == 0) continue;
    if (d.offset == r.offset && d.n == r.n) return static_cast<int>(k);
    const bool overlap = r.offset < d.offset + d.n && d.offset < r.offset + r.n;
    MF_CHECK(!overlap, RuntimeError, op_name, " inside a graph trace: it draws counters [", r.offset, ", ",
             r.offset + r.n, ") of a generator whose counters [", d.offset, ", ", d.offset + d.n,
             ") an earlier random kernel of the trace drew (the generator's state was set back); a graph can "
             "repeat an earlier draw only as a whole (as activation checkpointing does)");
  }
  draws_.push_back(r);
  return static_cast<int>(draws_.size()) - 1;
}

bool TraceRecorder::on_launch(const LaunchArgs& a) {
  // The count that nonzero() reads back to size its output: a replay would
  // keep the traced size whatever the values.
  MF_CHECK(a.op->id != kOp_nonzero_count, DynamicShapeError,
           "nonzero (also masked_select and boolean-mask indexing) inside a graph trace: its output's shape "
           "depends on tensor values, and tensor values are not available while tracing");
  std::vector<Dims> shapes, strides;
  kernel_layout(a, shapes, strides);
  TracedCall c;
  c.op_id = a.op->id;
  c.kernel_dtype = a.kernel_dtype;
  c.coalesce = a.coalesce;
  for (int i = 0; i < a.num_inputs; ++i) c.inputs.push_back(snapshot(a.inputs[i], shapes[i], strides[i]));
  for (int i = 0; i < a.num_outputs; ++i)
    c.outputs.push_back(snapshot(a.outputs[i], shapes[a.num_inputs + i], strides[a.num_inputs + i]));
  c.attrs.assign(a.attrs, a.attrs + a.num_attrs);
  c.ints.resize(a.num_attrs);
  for (int k = 0; k < a.num_attrs; ++k) {
    MFAttr& at = c.attrs[k];
    at.name = intern(at.name);
    if (at.kind == MF_ATTR_INTS && at.ints) c.ints[k].assign(at.ints, at.ints + at.count);
    at.ints = nullptr;
  }
  if (a.op->kind == OpKind::Random) {
    c.seed_attr = find_attr(c, "seed");
    c.offset_attr = find_attr(c, "offset");
    const Reservation& r = reservation_;
    bool tied = r.pending && c.seed_attr >= 0 && c.offset_attr >= 0 &&
                static_cast<uint64_t>(c.attrs[c.seed_attr].i) == r.seed &&
                static_cast<uint64_t>(c.attrs[c.offset_attr].i) == r.offset;
    MF_CHECK(tied, RuntimeError, a.op->name,
             " inside a graph trace: the trace cannot tell which generator this random kernel drew from");
    MF_CHECK(r.gen, RuntimeError, a.op->name,
             " inside a graph trace: its generator is not owned by a shared_ptr, so a replay cannot keep it");
    c.generator = r.gen;
    c.random_count = r.n;
    c.random_draw = claim_draw(a.op->name);
    reservation_ = Reservation{};
  }
  // Note [Constants written in place] (trace.h)
  for (const TracedOperand& o : c.inputs)
    if (forbid_constant_writes_ && !variable_.count(o.storage.get()))
      read_constants_.emplace(o.storage.get(), o.storage);
  for (const TracedOperand& o : c.outputs)
    MF_CHECK(variable_.count(o.storage.get()) || !read_constants_.count(o.storage.get()), graph::ConstantWriteError,
             a.op->name, " inside a graph trace writes in place to a tensor the trace reads as a constant (made from "
             "host data, e.g. flow.tensor(...), or outside the graph, and neither an input nor a parameter or "
             "buffer): a replay would start from the values the previous run left there");
  mark_written(c.outputs);
  calls_.push_back(std::move(c));
  return execute_;
}

void TraceRecorder::on_host_op(TracedCall c) {
  mark_written(c.outputs);
  calls_.push_back(std::move(c));
}

void TraceRecorder::mark_written(const std::vector<TracedOperand>& outputs) {
  for (const TracedOperand& o : outputs) variable_.emplace(o.storage.get(), o.storage);
}

void TraceRecorder::mark_variable(const Tensor& t) { variable_.emplace(t->storage.get(), t->storage); }

bool TraceRecorder::is_variable(const Tensor& t) const { return variable_.count(t->storage.get()) != 0; }

TraceRecorder* TraceRecorder::current() { return t_recorder; }

bool tracing() { return t_recorder != nullptr; }

void check_host_read(const char* what) {
  MF_CHECK(!t_recorder, RuntimeError, what,
           " inside a graph trace: tensor values are not available while tracing (a replay would not repeat "
           "the read; move it out of the traced function, or return the tensor and read the result)");
}

void check_value_read(const char* what, const Tensor& t) {
  if (!t_recorder) return;
  if (autograd::requires_grad(t) || t_recorder->is_variable(t)) check_host_read(what);
}

}  // namespace monoflow::graph
