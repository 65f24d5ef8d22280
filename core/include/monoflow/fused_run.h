// Running a fused elementwise program (fused_program.h) from eager code: the
// core's hand-written fused passes (the LSTM cell, the backward of the
// activations) launch the graph's fused_elementwise kernel directly.
#pragma once

#include <cstdint>
#include <vector>

#include "monoflow/tensor.h"

namespace monoflow {

// A program and its attributes (Note [Fused programs]); constants are
// doubles, bit-cast when launched.
struct FusedCode {
  std::vector<int64_t> code, outputs;
  int registers = 0;
  std::vector<double> constants;
};

// Does t's device have a fused_elementwise kernel for t's dtype?
bool has_fused_kernel(const Tensor& t);

// One launch of `p` over inputs `ins` into `outs` (all of one dtype and,
// broadcast inputs aside, one shape). Not recorded by autograd. `coalesce`
// lets the launch merge dims that are contiguous in every operand; without
// it a graph records the node in the operands' own shapes, which its
// epilogue fusion needs to put the program after a matmul.
void run_fused(const FusedCode& p, const std::vector<Tensor>& ins, const std::vector<Tensor>& outs,
               bool coalesce = true);

}  // namespace monoflow
