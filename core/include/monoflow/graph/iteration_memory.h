// IterationMemory: where each storage of a plan lives at each iteration of
// one run (Note [Storage classes] in graph/plan.h), and the random draws of
// that run.
#pragma once
#include <memory>
#include <vector>

#include "monoflow/graph/plan.h"

namespace monoflow::graph {

class IterationMemory {
 public:
  // replicas[s]: the copies of Transient storage s (at least `slots`);
  // feeds: validated graph inputs, one set per iteration or one for all.
  // Allocates the fresh Output blocks and draws the random kernels' (seed,
  // offset) for every iteration, in iteration then node order, as eager
  // execution of the same steps would.
  IterationMemory(const Plan& plan, std::vector<std::vector<std::shared_ptr<Storage>>> replicas,
                  std::vector<std::vector<Tensor>> feeds, int64_t iterations, int slots);

  // The address byte 0 of storage s maps to at iteration it.
  char* base(int s, int64_t it) const;
  // The Storage behind s at iteration it, and the byte shift to add to a
  // plan operand's byte_offset (non-zero for rebound inputs).
  const std::shared_ptr<Storage>& storage(int s, int64_t it, int64_t* shift) const;
  // A view of plan operand o at iteration it (fallback calls and outputs).
  Tensor view(const PlanOperand& o, int64_t it) const;
  // (seed, offset) of random node `node` at iteration it.
  std::pair<uint64_t, uint64_t> draw(int node, int64_t it) const;

 private:
  const Tensor& feed(int input, int64_t it) const { return feeds_[feeds_.size() == 1 ? 0 : it][input]; }

  const Plan& plan_;
  std::vector<std::vector<std::shared_ptr<Storage>>> replicas_;
  std::vector<std::vector<Tensor>> feeds_;
  int slots_;
  std::vector<int> output_index_;                             // storage -> index into fresh_[it]
  std::vector<std::vector<std::shared_ptr<Storage>>> fresh_;  // [it][k]: Output blocks
  std::vector<int> random_index_;                             // node -> index into draws_[it]
  std::vector<std::vector<std::pair<uint64_t, uint64_t>>> draws_;
};

}  // namespace monoflow::graph
