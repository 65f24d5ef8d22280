// Convolution and pooling on NCHW tensors, with PyTorch's semantics, dtypes
// and errors. Spatial parameters are given as one value (used for both dims)
// or two (H, W). Kernel conventions: docs/kernels/nn.md.
#pragma once
#include <utility>

#include "monoflow/ops.h"

namespace monoflow {

// x [N, C, H, W] or unbatched [C, H, W]; w [O, C/groups, kh, kw]; bias [O] or null.
Tensor conv2d(const Tensor& x, const Tensor& w, const Tensor& bias, const Dims& stride, const Dims& padding,
              const Dims& dilation, int64_t groups);
// x [N, Cin, H, W] or unbatched; w [Cin, Cout/groups, kh, kw]; bias [Cout] or null.
Tensor conv_transpose2d(const Tensor& x, const Tensor& w, const Tensor& bias, const Dims& stride,
                        const Dims& padding, const Dims& output_padding, int64_t groups, const Dims& dilation);
// The gradient of conv2d's weight (of shape `weight_shape`) given x and the
// output gradient gy; differentiable (used by the backward formulas).
Tensor conv2d_weight_grad(const Tensor& x, const Tensor& gy, const Dims& weight_shape, const Dims& stride,
                          const Dims& padding, const Dims& dilation, int64_t groups);

// x [N, C, H, W] or [C, H, W]. `stride` empty: the kernel size.
// Returns (values, int64 indices into each H*W plane).
std::pair<Tensor, Tensor> max_pool2d(const Tensor& x, const Dims& kernel_size, const Dims& stride,
                                     const Dims& padding, const Dims& dilation, bool ceil_mode);
// divisor_override 0: none.
Tensor avg_pool2d(const Tensor& x, const Dims& kernel_size, const Dims& stride, const Dims& padding,
                  bool ceil_mode, bool count_include_pad, int64_t divisor_override);
Tensor adaptive_avg_pool2d(const Tensor& x, const Dims& output_size);
std::pair<Tensor, Tensor> adaptive_max_pool2d(const Tensor& x, const Dims& output_size);

// Layer normalisation over the last `normalized_ndim` dims (Note [Fused layer
// norm] in ops_norm.cc); weight and bias (null: none) have those dims' shape.
Tensor layer_norm(const Tensor& x, int64_t normalized_ndim, const Tensor& weight, const Tensor& bias, double eps);

}  // namespace monoflow
