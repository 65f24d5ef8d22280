// Plan::describe: a readable listing of a plan (for debugging and tests).
#include <sstream>

#include "monoflow/graph/plan.h"

namespace monoflow::graph {

namespace {
void operand(std::ostringstream& os, const Plan& p, const PlanOperand& o) {
  const PlanStorage& s = p.storages[o.storage];
  os << "s" << o.storage << "(" << storage_class_name(s.cls) << ")" << shape_str(o.shape);
}
}  // namespace

std::string Plan::describe() const {
  std::ostringstream os;
  int count[4] = {0, 0, 0, 0};
  for (const PlanStorage& s : storages) ++count[static_cast<int>(s.cls)];
  int kinds[3] = {0, 0, 0};
  for (const PlanEdge& e : edges) ++kinds[static_cast<int>(e.kind)];
  os << "plan: " << nodes.size() << " nodes; storages: " << count[0] << " persistent, " << count[1]
     << " transient, " << count[2] << " input, " << count[3] << " output; edges: " << kinds[0] << " intra, "
     << kinds[1] << " carried, " << kinds[2] << " register\n";
  for (size_t i = 0; i < nodes.size(); ++i) {
    const PlanNode& n = nodes[i];
    os << "  %" << i << " = " << n.name() << "." << dtype_name(n.kernel_dtype) << "(";
    for (size_t k = 0; k < n.inputs.size(); ++k) {
      if (k) os << ", ";
      operand(os, *this, n.inputs[k]);
    }
    os << ") -> ";
    for (size_t k = 0; k < n.outputs.size(); ++k) {
      if (k) os << ", ";
      operand(os, *this, n.outputs[k]);
    }
    if (n.generator) os << " [random: " << n.random_count << " counters]";
    if (!n.kernel) os << " [cpu fallback]";
    os << "\n";
  }
  for (const PlanEdge& e : edges)
    if (e.kind != EdgeKind::Intra)
      os << "  %" << e.from << " -> %" << e.to << (e.kind == EdgeKind::Carried ? " (next iteration)" : " (register)")
         << "\n";
  return os.str();
}

}  // namespace monoflow::graph
