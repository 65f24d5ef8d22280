// Common-subexpression elimination: a kernel call that repeats an earlier
// one on the same memory is dropped, its readers read the earlier results.
//
// Note [Common subexpression elimination]
//   Nodes i < j compute the same thing when they call the same op with the
//   same kernel dtype, coalesce flag, device and attributes (numbers
//   bitwise, ints lists element by element), on identical input operands
//   (storage, byte offset, dtype, shape, strides, kernel layout), and no node
//   from i to j writes bytes those inputs read. Then j's outputs hold what
//   i's hold, and j can go if its readers are pointed at i's outputs:
//   - both write only Transient memory (nothing outside sees it), with
//     outputs laid out alike (dtype, shape, strides), so an operand of j's
//     output maps onto i's by a byte shift;
//   - each output storage of i and of j has that node as its only writer,
//     so i's results stay until j's last reader, and every reader of j's
//     storage reads bytes j wrote (Transient memory is read only where it
//     was written), which the shift maps into i's output;
//   - neither node reads its own outputs (in-place kernels, index_put,
//     sgd_momentum), and neither is random (two draws are two different
//     numbers) or a host node (Note [Passes and host nodes] in plan.h).
//   One forward scan: the inputs of each node are redirected first, so a
//   chain that repeats (exp(x) * 2 twice) folds one node at a time. Nodes are
//   looked up by a key of everything compared above; the write check walks
//   the nodes between the two. j's storage is left without users (memory
//   planning releases it).
#include <cstring>
#include <sstream>
#include <unordered_map>

#include "monoflow/graph/pass.h"

namespace monoflow::graph {

namespace {

ByteRange range_of(const PlanOperand& o) { return byte_range(o.byte_offset, o.shape, o.strides, itemsize(o.dtype)); }

bool overlap(const ByteRange& a, const ByteRange& b) { return a.lo < b.hi && b.lo < a.hi; }

template <typename T>
void put(std::string& key, const T& v) {
  key.append(reinterpret_cast<const char*>(&v), sizeof v);
}

void put_dims(std::string& key, const Dims& d) {
  put(key, d.size());
  for (int64_t v : d) put(key, v);
}

void put_operand(std::string& key, const PlanOperand& o) {
  put(key, o.storage);
  put(key, o.byte_offset);
  put(key, o.dtype);
  put_dims(key, o.shape);
  put_dims(key, o.strides);
  put_dims(key, o.kernel_shape);
  put_dims(key, o.kernel_strides);
}

// Everything two calls must share to compute the same thing from the same memory.
std::string key_of(const PlanNode& n) {
  std::string key;
  put(key, n.op_id);
  put(key, n.kernel_dtype);
  put(key, n.coalesce);
  put(key, n.device.type);
  put(key, n.device.index);
  put(key, n.outputs.size());
  put(key, n.attrs.size());
  for (size_t k = 0; k < n.attrs.size(); ++k) {
    const MFAttr& a = n.attrs[k];
    key.append(a.name ? a.name : "");
    key.push_back('\0');
    put(key, a.kind);
    put(key, a.count);
    put(key, a.i);
    uint64_t f;
    std::memcpy(&f, &a.f, sizeof f);
    put(key, f);
    if (a.kind == MF_ATTR_INTS)
      for (int64_t v : n.ints[k]) put(key, v);
  }
  put(key, n.inputs.size());
  for (const PlanOperand& o : n.inputs) put_operand(key, o);
  return key;
}

bool same_view(const PlanOperand& a, const PlanOperand& b) {
  return a.dtype == b.dtype && a.shape == b.shape && a.strides == b.strides;
}

}  // namespace

std::string common_subexpression_elimination(Plan& plan) {
  const size_t n = plan.nodes.size(), ns = plan.storages.size();
  std::vector<int> writer_count(ns, 0);
  for (const PlanNode& node : plan.nodes)
    for (const PlanOperand& o : node.outputs) ++writer_count[o.storage];
  auto eligible = [&](const PlanNode& node) {
    if (node.generator || node.host || node.outputs.empty() || reads_outputs(node.op_id)) return false;
    for (const PlanOperand& o : node.outputs) {
      const PlanStorage& ps = plan.storages[o.storage];
      if (ps.cls != StorageClass::Transient || ps.arena || writer_count[o.storage] != 1) return false;
      for (const PlanOperand& in : node.inputs)
        if (in.storage == o.storage) return false;  // reads its own output storage
    }
    return true;
  };
  // j's output storage -> (i's output storage, byte shift)
  std::vector<std::pair<int, int64_t>> redirect(ns, {-1, 0});
  std::unordered_map<std::string, std::vector<int>> seen;
  std::vector<bool> removed(n, false);
  int count = 0;
  for (size_t j = 0; j < n; ++j) {
    PlanNode& node = plan.nodes[j];
    for (PlanOperand& o : node.inputs) {
      const auto [to, shift] = redirect[o.storage];
      if (to < 0) continue;
      o.storage = to;
      o.byte_offset += shift;
    }
    if (!eligible(node)) continue;
    std::vector<int>& earlier = seen[key_of(node)];
    int match = -1;
    for (size_t c = earlier.size(); c-- > 0 && match < 0;) {
      const int i = earlier[c];
      const PlanNode& first = plan.nodes[i];
      bool ok = true;
      for (size_t k = 0; k < node.outputs.size() && ok; ++k)
        ok = same_view(first.outputs[k], node.outputs[k]) && first.outputs[k].storage != node.outputs[k].storage;
      // Nothing between them writes what they read.
      for (size_t m = i + 1; m < j && ok; ++m) {
        if (removed[m]) continue;
        for (const PlanOperand& w : plan.nodes[m].outputs)
          for (const PlanOperand& r : node.inputs)
            if (w.storage == r.storage && overlap(range_of(w), range_of(r))) ok = false;
      }
      if (ok) match = i;
    }
    if (match < 0) {
      earlier.push_back(static_cast<int>(j));
      continue;
    }
    const PlanNode& first = plan.nodes[match];
    for (size_t k = 0; k < node.outputs.size(); ++k)
      redirect[node.outputs[k].storage] = {first.outputs[k].storage,
                                           first.outputs[k].byte_offset - node.outputs[k].byte_offset};
    removed[j] = true;
    ++count;
  }
  std::vector<int> index(n, -1);
  std::vector<PlanNode> kept;
  for (size_t i = 0; i < n; ++i) {
    if (removed[i]) continue;
    index[i] = static_cast<int>(kept.size());
    kept.push_back(std::move(plan.nodes[i]));
  }
  for (int& r : plan.random_nodes) r = index[r];  // random nodes are never removed
  plan.nodes = std::move(kept);
  std::ostringstream os;
  os << "merged " << count << " of " << n << " nodes into earlier identical ones";
  return os.str();
}

}  // namespace monoflow::graph
