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

std::string Plan::describe(bool with_passes) const {
  std::ostringstream os;
  if (with_passes) {
    for (const PassRecord& r : passes) {
      if (r.before.empty() && r.after.empty()) continue;
      os << "--- before pass " << r.name << " ---\n" << r.before;
      os << "--- after pass " << r.name << ": " << r.summary << " ---\n" << r.after;
    }
    if (!passes.empty()) os << "--- final plan ---\n";
  }
  std::string body = describe_nodes();
  size_t eol = body.find('\n');
  os << body.substr(0, eol + 1);
  os << "  passes:";
  if (passes.empty()) os << " none";
  for (size_t k = 0; k < passes.size(); ++k)
    os << (k ? ";" : "") << " " << passes[k].name << " (" << passes[k].summary << ")";
  const PlanMemory m = memory();  // Note [Memory planning] in pass_memory.cc
  os << "\n  memory: persistent " << format_bytes(m.persistent) << ", transient " << format_bytes(m.transient_traced);
  if (m.transient != m.transient_traced) os << " -> " << format_bytes(m.transient);
  os << " per slot, output " << format_bytes(m.output) << " per iteration";
  os << "\n" << body.substr(eol + 1);
  return os.str();
}

std::string Plan::describe_nodes() const {
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
    os << "  %" << i << " = " << n.name();
    if (!n.host) os << "." << dtype_name(n.kernel_dtype);
    os << "(";
    for (size_t k = 0; k < n.inputs.size(); ++k) {
      if (k) os << ", ";
      operand(os, *this, n.inputs[k]);
    }
    os << ") -> ";
    for (size_t k = 0; k < n.outputs.size(); ++k) {
      if (k) os << ", ";
      operand(os, *this, n.outputs[k]);
    }
    if (n.generator) {
      os << " [random: " << n.random_count << " counters";
      for (size_t j = 0; j < i && n.random_draw >= 0; ++j)  // Note [Shared random draws] (generator.h)
        if (nodes[j].generator && nodes[j].random_draw == n.random_draw) {
          os << ", same draw as %" << j;
          break;
        }
      os << "]";
    }
    if (n.host) os << (n.host->peers_involved() ? " [host, collective order]" : " [host]");
    else if (!n.kernel) os << " [cpu fallback]";
    os << "\n";
  }
  for (const PlanEdge& e : edges)
    if (e.kind != EdgeKind::Intra)
      os << "  %" << e.from << " -> %" << e.to << (e.kind == EdgeKind::Carried ? " (next iteration)" : " (register)")
         << "\n";
  return os.str();
}

}  // namespace monoflow::graph
