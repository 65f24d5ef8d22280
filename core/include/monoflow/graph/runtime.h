// Runtime: runs a Plan with one actor per node (Note [Actor runtime] in
// graph/actor_system.h).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "monoflow/graph/plan.h"

namespace monoflow::graph {

struct RunOptions {
  int64_t iterations = 1;
  // Copies (registers) of each Transient storage: how many iterations may be
  // in flight through the actors that use it (Note [Storage classes]).
  int slots = 1;
  // Worker threads that run the actors. 1: the calling thread runs them
  // itself; more: a pool, while the calling thread supervises.
  int threads = 1;
  // A run with no progress for this long fails (and, if an actor is still
  // stuck in a kernel call, leaves the runtime dead); <= 0: no limit.
  double timeout_s = 60.0;
};

// Test-only controls, copied into each run when it starts.
struct RunDebug {
  int fail_node = -1;  // this node throws RuntimeError(fail_message) when it fires
  std::string fail_message;
  int hold_node = -1;  // set by Runtime::hold
  std::vector<PlanEdge> extra_edges;  // e.g. a cycle, to provoke a stall
};

class Runtime {
 public:
  explicit Runtime(std::shared_ptr<const Plan> plan);
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  // Runs the plan options.iterations times. feeds holds the graph inputs,
  // one set per iteration or one set for all; returns the graph outputs of
  // every iteration. Kernel errors (at launch, or reported by the device
  // when the run synchronises at its end) are rethrown here; afterwards the
  // runtime is reusable, unless a timeout left an actor stuck (dead()).
  std::vector<std::vector<Tensor>> run(const std::vector<std::vector<Tensor>>& feeds, const RunOptions& options);

  const Plan& plan() const;
  bool dead() const;
  std::string dead_reason() const;

  RunDebug& debug();
  // Test-only: actors of `node` block when they fire until release_hold().
  void hold(int node);
  void release_hold();

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace monoflow::graph
