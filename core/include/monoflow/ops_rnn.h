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

}  // namespace monoflow
