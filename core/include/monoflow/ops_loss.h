// Classification losses as recorded ops (one autograd node each), with
// PyTorch's numbers: nll_loss and cross_entropy (class indices or class
// probabilities as targets, class weights, ignore_index, label smoothing).
//
// Shapes: input [N, C], [N, C, d1, ...] or [C] (one sample); class-index
// targets [N], [N, d1, ...] or [] of an integer dtype; probability targets
// have the input's shape. weight: null or [C].
#pragma once
#include <cstdint>

#include "monoflow/tensor.h"

namespace monoflow {

enum class LossReduction : int64_t { None = 0, Mean = 1, Sum = 2 };

// -weight[t] * input[t] per element (0 where t == ignore_index); Mean divides
// the sum by the sum of the weights of the targets that are not ignored.
Tensor nll_loss(const Tensor& input, const Tensor& target, const Tensor& weight, int64_t ignore_index,
                LossReduction reduction);

// nll_loss(log_softmax(input, class dim), ...), smoothed toward the uniform
// distribution by `label_smoothing` in [0, 1]. A floating target of the
// input's shape holds class probabilities (ignore_index does not apply).
Tensor cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight, int64_t ignore_index,
                     LossReduction reduction, double label_smoothing);

}  // namespace monoflow
