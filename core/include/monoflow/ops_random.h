// Random creation and in-place sampling. `gen` may be null: the device's
// default generator is used.
#pragma once
#include "monoflow/generator.h"
#include "monoflow/scalar.h"
#include "monoflow/tensor.h"

namespace monoflow {

void uniform_(const Tensor& t, double low, double high, Generator* gen);
void normal_(const Tensor& t, double mean, double std, Generator* gen);
void random_int_(const Tensor& t, int64_t low, int64_t high, Generator* gen);  // [low, high)
void bernoulli_scalar_(const Tensor& t, double p, Generator* gen);
Tensor bernoulli(const Tensor& p, Generator* gen);  // same dtype as p
Tensor normal_tensor(const Tensor& mean, const Tensor& std, Generator* gen);
Tensor linspace(Scalar start, Scalar end, int64_t steps, DType dtype, Device device);
Tensor eye(int64_t n, int64_t m, DType dtype, Device device);

}  // namespace monoflow
