// Passes: named transformations of a Plan, run between build_plan's storage
// classification and its dependency analysis.
//
// Note [Plan passes]
//   A pass rewrites plan.nodes (and whatever indexes them, e.g.
//   random_nodes) and returns a one-line summary of what it did ("removed 6
//   of 74 nodes"). Passes run before add_dependencies, so none has to keep
//   edges up to date: the edges are computed once, for the final nodes.
//   Storages are never removed or renumbered (inputs and outputs index
//   them); a storage no node uses any more is simply left alone.
//   The plan records each pass that ran, with its summary, and when asked
//   (keep_ir) the plan listing before and after it, which Plan::describe
//   prints (nn.Graph's debug()).
#pragma once
#include <string>
#include <vector>

#include "monoflow/graph/plan.h"

namespace monoflow::graph {

struct PassInfo {
  const char* name;
  const char* help;
  std::string (*run)(Plan& plan);  // returns the summary
};

// Every pass, in the order the default pipeline runs them.
const std::vector<PassInfo>& all_passes();
std::vector<std::string> default_passes();

// Runs the named passes in order (ValueError on an unknown name) and records
// them in plan.passes.
void run_passes(Plan& plan, const std::vector<std::string>& names, bool keep_ir);

// The passes themselves, one per file (pass_<name>.cc).
std::string dead_code_elimination(Plan& plan);  // "dce" (Note [Dead code elimination] in pass_dce.cc)
std::string fuse_elementwise(Plan& plan);  // "fuse_elementwise" (Note [Elementwise fusion] in pass_fuse_elementwise.cc)
std::string fuse_epilogue(Plan& plan);     // "fuse_epilogue" (Note [Epilogue fusion] in pass_fuse_epilogue.cc)
std::string constant_folding(Plan& plan);       // "constfold" (Note [Constant folding] in pass_constfold.cc)
std::string common_subexpression_elimination(Plan& plan);  // "cse" (Note [Common subexpression elimination])
std::string plan_memory(Plan& plan);            // "memory" (Note [Memory planning] in pass_memory.cc)

}  // namespace monoflow::graph
