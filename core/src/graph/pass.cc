// The pass registry and pipeline (Note [Plan passes] in graph/pass.h).
#include "monoflow/graph/pass.h"

#include "monoflow/error.h"

namespace monoflow::graph {

const std::vector<PassInfo>& all_passes() {
  static const std::vector<PassInfo> passes = {
      {"constfold", "runs kernels whose inputs never change once, at compile time", &constant_folding},
      {"cse", "drops kernel calls that repeat an earlier one on the same memory", &common_subexpression_elimination},
      {"dce", "removes kernels none of whose results can be observed", &dead_code_elimination},
      {"fuse_elementwise", "runs chains of elementwise kernels as one kernel, intermediates in registers",
       &fuse_elementwise},
      {"fuse_epilogue", "applies the elementwise node after a matmul to each slice of its product",
       &fuse_epilogue},
      // memory stays last: it places the buffers of the final nodes
      {"memory", "shares memory between intermediates whose lifetimes do not overlap", &plan_memory},
  };
  return passes;
}

std::vector<std::string> default_passes() {
  std::vector<std::string> names;
  for (const PassInfo& p : all_passes()) names.push_back(p.name);
  return names;
}

void run_passes(Plan& plan, const std::vector<std::string>& names, bool keep_ir) {
  for (const std::string& name : names) {
    const PassInfo* info = nullptr;
    for (const PassInfo& p : all_passes())
      if (name == p.name) info = &p;
    std::string known;
    for (const PassInfo& p : all_passes()) known += std::string(known.empty() ? "" : ", ") + p.name;
    MF_CHECK(info, ValueError, "graph passes: unknown pass '", name, "' (known: ", known, ")");
    PassRecord r;
    r.name = name;
    if (keep_ir) r.before = plan.describe_nodes();
    r.summary = info->run(plan);
    if (keep_ir) r.after = plan.describe_nodes();
    plan.passes.push_back(std::move(r));
  }
}

}  // namespace monoflow::graph
