// Recurrent-network ops: the pointwise part of an LSTM cell (Note [Fused LSTM cell]).
#pragma once

#include <utility>

#include "monoflow/tensor.h"

namespace monoflow {

// The LSTM cell after its matmuls: `gates` (N, 4H) holds the pre-activation
// sums of the input, forget, cell and output gates (torch's order i, f, g,
// o), `c` (N, H) the previous cell state. Returns (h', c'):
//   c' = sigmoid(f) * c + sigmoid(i) * tanh(g),  h' = sigmoid(o) * tanh(c').
// Differentiable in both inputs (to any order).
std::pair<Tensor, Tensor> lstm_cell(const Tensor& gates, const Tensor& c);

// lstm_cell's backward: the gradients of `gates` and `c` from those of h'
// (`gh`) and c' (`gc`), given the cell's inputs and its c'. Fused programs
// (the unfused formulas' bits); with grad mode on, differentiable ops.
std::pair<Tensor, Tensor> lstm_cell_backward(const Tensor& gh, const Tensor& gc, const Tensor& gates, const Tensor& c,
                                             const Tensor& c_new);

}  // namespace monoflow
