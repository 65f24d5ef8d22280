// build_plan: nodes, storages and their classes from a recorded trace
// (Note [Storage classes] in graph/plan.h).
#include <algorithm>
#include <map>
#include <unordered_map>

#include "monoflow/backend.h"
#include "monoflow/error.h"
#include "monoflow/graph/pass.h"
#include "monoflow/graph/plan.h"

namespace monoflow::graph {

namespace {

// Union of byte ranges written densely so far, to tell whether a read sees
// only bytes the trace itself wrote.
class Coverage {
 public:
  bool covers(int64_t lo, int64_t hi) const {
    if (lo >= hi) return true;
    for (const auto& [a, b] : ranges_)
      if (a <= lo && hi <= b) return true;
    return false;
  }
  void add(int64_t lo, int64_t hi) {
    if (lo >= hi) return;
    std::vector<std::pair<int64_t, int64_t>> merged;
    for (const auto& r : ranges_) {
      if (r.second < lo || r.first > hi) {
        merged.push_back(r);
      } else {
        lo = std::min(lo, r.first);
        hi = std::max(hi, r.second);
      }
    }
    merged.emplace_back(lo, hi);
    ranges_ = std::move(merged);
  }

 private:
  std::vector<std::pair<int64_t, int64_t>> ranges_;
};

class Builder {
 public:
  Builder(Plan& plan) : plan_(plan) {}

  void add_inputs(const std::vector<Tensor>& inputs) {
    for (size_t j = 0; j < inputs.size(); ++j) {
      const Tensor& t = inputs[j];
      int s = storage_index(t->storage);
      PlanStorage& ps = plan_.storages[s];
      MF_CHECK(ps.cls != StorageClass::Input, ValueError, "graph trace: inputs ", ps.input, " and ", j,
               " share memory; pass separate tensors (e.g. a clone)");
      ps.cls = StorageClass::Input;
      ps.input = static_cast<int>(j);
      ps.input_base = t->offset * static_cast<int64_t>(itemsize(t->dtype));
      plan_.inputs.push_back(InputSpec{t->shape, t->strides, t->dtype, t->device(), s});
      input_ranges_.push_back(byte_range(ps.input_base, t->shape, t->strides, itemsize(t->dtype)));
    }
  }

  void add_call(TracedCall& c) {
    PlanNode n;
    n.op_id = c.op_id;
    n.kernel_dtype = c.kernel_dtype;
    n.coalesce = c.coalesce;
    for (TracedOperand& o : c.inputs) n.inputs.push_back(operand(o));
    for (TracedOperand& o : c.outputs) n.outputs.push_back(operand(o));
    n.host = std::move(c.host);  // host nodes: no kernel (Note [Host nodes] in graph/host_node.h)
    const bool no_operands = c.outputs.empty() && c.inputs.empty();
    MF_CHECK(n.host || !no_operands, RuntimeError, "graph trace: a kernel call without operands");
    const TracedOperand* first = no_operands ? nullptr : c.outputs.empty() ? &c.inputs[0] : &c.outputs[0];
    n.device = first ? first->storage->device : Device{};
    Backend& be = DeviceRegistry::get().backend(n.device);
    DType out_dtype = c.outputs.empty() ? c.kernel_dtype : c.outputs[0].dtype;
    if (!n.host) n.kernel = be.find_kernel(c.op_id, c.kernel_dtype, out_dtype);
    n.stream = be.stream(n.device.index);
    n.attrs = std::move(c.attrs);
    n.ints = std::move(c.ints);
    n.generator = std::move(c.generator);
    n.random_count = c.random_count;
    n.seed_attr = c.seed_attr;
    n.offset_attr = c.offset_attr;
    n.random_draw = c.random_draw;
    const int id = static_cast<int>(plan_.nodes.size());
    for (const PlanOperand& o : n.inputs) read(o);
    if (reads_outputs(n.op_id))
      for (const PlanOperand& o : n.outputs) read(o);
    for (const PlanOperand& o : n.outputs) write(o);
    if (n.generator) plan_.random_nodes.push_back(id);
    if (std::find(plan_.devices.begin(), plan_.devices.end(), n.device) == plan_.devices.end())
      plan_.devices.push_back(n.device);
    plan_.nodes.push_back(std::move(n));
  }

  void add_outputs(const std::vector<Tensor>& outputs) {
    for (const Tensor& t : outputs) {
      PlanOperand o;
      o.storage = storage_index(t->storage);
      o.byte_offset = t->offset * static_cast<int64_t>(itemsize(t->dtype));
      o.dtype = t->dtype;
      o.shape = t->shape;
      o.strides = t->strides;
      check_input_reach(o, "is");
      has_output_view_[o.storage] = true;
      plan_.outputs.push_back(std::move(o));
    }
  }

  // Called once the trace's own references are gone: only the plan (once
  // per storage) and the output tensors may still hold the memory.
  void classify(const std::vector<Tensor>& outputs) {
    // The output tensors and the views they were made from, with the
    // references we know of: one per occurrence in `outputs`, one per view
    // (in this set) whose view_base it is.
    std::map<const TensorImpl*, long> expected;
    std::vector<const TensorImpl*> todo;
    for (const Tensor& t : outputs) {
      if (expected[t.get()]++ == 0) todo.push_back(t.get());
    }
    for (size_t k = 0; k < todo.size(); ++k) {
      const TensorImpl* base = todo[k]->view_base.get();
      if (!base) continue;
      if (expected[base]++ == 0) todo.push_back(base);
    }
    std::unordered_map<const Storage*, long> known_refs;
    std::unordered_map<const Storage*, bool> held_outside;
    for (const TensorImpl* impl : todo) ++known_refs[impl->storage.get()];
    for (const Tensor& t : outputs)
      if (t.use_count() > expected[t.get()]) held_outside[t->storage.get()] = true;
    for (const TensorImpl* impl : todo) {
      if (!impl->view_base) continue;
      const TensorImpl* base = impl->view_base.get();
      if (impl->view_base.use_count() > expected[base]) held_outside[base->storage.get()] = true;
    }
    for (size_t s = 0; s < plan_.storages.size(); ++s) {
      PlanStorage& ps = plan_.storages[s];
      if (ps.cls == StorageClass::Input) {
        ps.storage.reset();
        continue;
      }
      const Storage* st = ps.storage.get();
      auto kr = known_refs.find(st);
      long known = kr == known_refs.end() ? 0 : kr->second;
      bool escapes = ps.storage.use_count() > 1 + known || held_outside[st];
      bool fresh = st->block != nullptr && !st->host_visible && ps.written && !read_first_[s];
      if (!fresh || escapes) continue;  // stays Persistent
      if (has_output_view_[s]) {
        ps.cls = StorageClass::Output;
        ps.storage.reset();  // the traced block belongs to the traced outputs
      } else {
        ps.cls = StorageClass::Transient;
      }
    }
  }

 private:
  int storage_index(const std::shared_ptr<Storage>& st) {
    auto [it, inserted] = index_.emplace(st.get(), static_cast<int>(plan_.storages.size()));
    if (inserted) {
      PlanStorage ps;
      ps.device = st->device;
      ps.nbytes = st->nbytes;
      ps.storage = st;
      plan_.storages.push_back(std::move(ps));
      coverage_.emplace_back();
      read_first_.push_back(false);
      has_output_view_.push_back(false);
    }
    return it->second;
  }

  PlanOperand operand(TracedOperand& t) {
    PlanOperand o;
    o.storage = storage_index(t.storage);
    o.byte_offset = t.offset * static_cast<int64_t>(itemsize(t.dtype));
    o.dtype = t.dtype;
    o.shape = std::move(t.shape);
    o.strides = std::move(t.strides);
    o.kernel_shape = std::move(t.kernel_shape);
    o.kernel_strides = std::move(t.kernel_strides);
    check_input_reach(o, "uses");
    return o;
  }

  // A rebound input only carries the bytes of the example input's view.
  void check_input_reach(const PlanOperand& o, const char* verb) {
    const PlanStorage& ps = plan_.storages[o.storage];
    if (ps.cls != StorageClass::Input) return;
    ByteRange r = byte_range(o.byte_offset, o.shape, o.strides, itemsize(o.dtype));
    const ByteRange& in = input_ranges_[ps.input];
    MF_CHECK(r.lo >= r.hi || (in.lo <= r.lo && r.hi <= in.hi), ValueError, "graph trace: the traced function ", verb,
             " memory of input ", ps.input,
             " outside that input's view (through another view of the same storage); pass that tensor as "
             "the input instead");
  }

  void read(const PlanOperand& o) {
    ByteRange r = byte_range(o.byte_offset, o.shape, o.strides, itemsize(o.dtype));
    if (!coverage_[o.storage].covers(r.lo, r.hi)) read_first_[o.storage] = true;
  }

  void write(const PlanOperand& o) {
    plan_.storages[o.storage].written = true;
    ByteRange r = byte_range(o.byte_offset, o.shape, o.strides, itemsize(o.dtype));
    if (r.dense) coverage_[o.storage].add(r.lo, r.hi);
  }

  Plan& plan_;
  std::unordered_map<const Storage*, int> index_;
  std::vector<Coverage> coverage_;
  std::vector<bool> read_first_;
  std::vector<bool> has_output_view_;
  std::vector<ByteRange> input_ranges_;
};

}  // namespace

bool reads_outputs(int op_id) { return op_id == kOp_index_put || op_id == kOp_sgd_momentum; }

const char* storage_class_name(StorageClass c) {
  switch (c) {
    case StorageClass::Persistent: return "persistent";
    case StorageClass::Transient: return "transient";
    case StorageClass::Input: return "input";
    case StorageClass::Output: return "output";
  }
  return "?";
}

ByteRange byte_range(int64_t byte_offset, const Dims& shape, const Dims& strides, size_t itemsize) {
  ByteRange r;
  int64_t numel = 1, lo = 0, hi = 0;
  for (size_t d = 0; d < shape.size(); ++d) {
    numel *= shape[d];
    if (shape[d] == 0) return ByteRange{byte_offset, byte_offset, true};
    int64_t span = (shape[d] - 1) * strides[d];
    if (span < 0) lo += span;
    else hi += span;
  }
  const int64_t isz = static_cast<int64_t>(itemsize);
  r.lo = byte_offset + lo * isz;
  r.hi = byte_offset + (hi + 1) * isz;
  r.dense = numel == hi - lo + 1;
  return r;
}

std::shared_ptr<Plan> build_plan(std::vector<TracedCall> calls, const std::vector<Tensor>& inputs,
                                 const std::vector<Tensor>& outputs, const std::vector<std::string>& passes,
                                 bool keep_ir) {
  auto plan = std::make_shared<Plan>();
  Builder b(*plan);
  b.add_inputs(inputs);
  for (TracedCall& c : calls) b.add_call(c);
  calls.clear();
  calls.shrink_to_fit();  // drops the trace's references to its storages
  b.add_outputs(outputs);
  b.classify(outputs);
  run_passes(*plan, passes, keep_ir);
  add_dependencies(*plan);
  return plan;
}

}  // namespace monoflow::graph
