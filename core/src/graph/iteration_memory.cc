// IterationMemory: per-iteration binding of a plan's storages.
#include "monoflow/graph/iteration_memory.h"

#include <cstdint>
#include <unordered_map>

namespace monoflow::graph {

IterationMemory::IterationMemory(const Plan& plan,
                                 std::vector<std::vector<std::shared_ptr<Storage>>> replicas,
                                 std::vector<std::vector<Tensor>> feeds, int64_t iterations, int slots)
    : plan_(plan), replicas_(std::move(replicas)), feeds_(std::move(feeds)), slots_(slots) {
  output_index_.assign(plan.storages.size(), -1);
  int outputs = 0;
  for (size_t s = 0; s < plan.storages.size(); ++s)
    if (plan.storages[s].cls == StorageClass::Output) output_index_[s] = outputs++;
  fresh_.resize(static_cast<size_t>(iterations));
  for (auto& blocks : fresh_)
    for (size_t s = 0; s < plan.storages.size(); ++s)
      if (output_index_[s] >= 0) blocks.push_back(Storage::allocate(plan.storages[s].device, plan.storages[s].nbytes));
  // One fresh reservation per draw, at its first node (Note [Shared random
  // draws] in generator.h); a node without a draw id has its own.
  random_index_.assign(plan.nodes.size(), -1);
  std::unordered_map<int, int> slot_of_draw;
  std::vector<int> first_nodes;  // the node that reserves, per slot
  for (int n : plan.random_nodes) {
    const int draw = plan.nodes[n].random_draw;
    auto [it, fresh] = slot_of_draw.emplace(draw, static_cast<int>(first_nodes.size()));
    if (draw < 0 || fresh) {
      random_index_[n] = static_cast<int>(first_nodes.size());
      first_nodes.push_back(n);
    } else {
      random_index_[n] = it->second;
    }
  }
  draws_.resize(static_cast<size_t>(iterations));
  for (auto& row : draws_)
    for (int n : first_nodes) {
      const PlanNode& node = plan.nodes[n];
      uint64_t seed = 0;
      uint64_t offset = node.generator->reserve(node.random_count, &seed);
      row.emplace_back(seed, offset);
    }
}

const std::shared_ptr<Storage>& IterationMemory::storage(int s, int64_t it, int64_t* shift) const {
  const PlanStorage& ps = plan_.storages[s];
  *shift = 0;
  switch (ps.cls) {
    case StorageClass::Input: {
      const Tensor& t = feed(ps.input, it);
      *shift = t->offset * static_cast<int64_t>(itemsize(t->dtype)) - ps.input_base;
      return t->storage;
    }
    case StorageClass::Output: return fresh_[it][output_index_[s]];
    case StorageClass::Transient: return replicas_[s][it % slots_];
    case StorageClass::Persistent: break;
  }
  return ps.storage;
}

char* IterationMemory::base(int s, int64_t it) const {
  int64_t shift;
  const std::shared_ptr<Storage>& st = storage(s, it, &shift);
  return reinterpret_cast<char*>(reinterpret_cast<uintptr_t>(st->data) + shift);
}

Tensor IterationMemory::view(const PlanOperand& o, int64_t it) const {
  int64_t shift;
  auto t = std::make_shared<TensorImpl>();
  t->storage = storage(o.storage, it, &shift);
  t->shape = o.shape;
  t->strides = o.strides;
  t->dtype = o.dtype;
  t->offset = (o.byte_offset + shift) / static_cast<int64_t>(itemsize(o.dtype));
  return t;
}

std::pair<uint64_t, uint64_t> IterationMemory::draw(int node, int64_t it) const {
  return draws_[it][random_index_[node]];
}

}  // namespace monoflow::graph
