// Random sampling (Note [Reproducible randomness]) and linspace/eye.
#include "monoflow/ops_random.h"

#include <algorithm>

#include "monoflow/dispatch.h"
#include "monoflow/error.h"
#include "monoflow/ops.h"

namespace monoflow {

namespace {

// Kernels fill a contiguous 1-D output; element i depends only on
// (seed, offset + i). Non-contiguous targets get a copy.
void sample(int op_id, const Tensor& t, MFAttr a2, MFAttr a3, Generator* gen, const Tensor* input = nullptr) {
  const OpDef& op = op_def(op_id);
  MF_CHECK(!t->has_internal_overlap(), RuntimeError, op.name,
           ": unsupported operation: more than one element of the written-to tensor refers to a single memory "
           "location. Please clone() the tensor before performing the operation.");
  int64_t n = t->numel();
  if (n == 0) return;
  GeneratorPtr fallback;
  if (!gen) {
    fallback = default_generator(t->device());
    gen = fallback.get();
  }
  uint64_t seed = 0;
  uint64_t offset = gen->reserve(static_cast<uint64_t>(n), &seed);
  Tensor out = t->is_contiguous() ? make_view(t, Dims{n}, Dims{1}, t->offset) : empty(Dims{n}, t->dtype, t->device());
  MFAttr attrs[4] = {int_attr("seed", static_cast<int64_t>(seed)), int_attr("offset", static_cast<int64_t>(offset)),
                     a2, a3};
  Tensor in;
  LaunchArgs a{&op, input ? (*input)->dtype : t->dtype};
  if (input) {
    in = reshape(contiguous(*input), Dims{n});
    a.inputs = &in;
    a.num_inputs = 1;
  }
  a.outputs = &out;
  a.num_outputs = 1;
  a.attrs = attrs;
  a.num_attrs = 4;
  launch(a);
  if (out->storage != t->storage) copy_(t, view(out, t->shape));
  t->bump_version();
}

void require_floating(const char* op, DType t) {
  MF_CHECK(is_floating(t), TypeError, op, ": expected a floating point dtype, got ", dtype_name(t));
}
}  // namespace

void uniform_(const Tensor& t, double low, double high, Generator* gen) {
  require_floating("uniform_", t->dtype);
  MF_CHECK(low <= high, RuntimeError, "uniform_: expects low <= high, but got low=", low, " and high=", high);
  sample(kOp_uniform, t, float_attr("low", low), float_attr("high", high), gen);
}

void normal_(const Tensor& t, double mean, double std, Generator* gen) {
  require_floating("normal_", t->dtype);
  MF_CHECK(std >= 0.0, RuntimeError, "normal_: expects std >= 0.0, but found std ", std);
  sample(kOp_normal, t, float_attr("mean", mean), float_attr("std", std), gen);
}

void random_int_(const Tensor& t, int64_t low, int64_t high, Generator* gen) {
  MF_CHECK(low < high, RuntimeError, "randint: random_ expects 'from' to be less than 'to', but got from=", low,
           " >= to=", high);
  MF_CHECK(t->dtype != DType::Bool || (low >= 0 && high <= 2), RuntimeError,
           "randint: the range [", low, ", ", high, ") does not fit dtype bool");
  sample(kOp_randint, t, int_attr("low", low), int_attr("high", high), gen);
}

void bernoulli_scalar_(const Tensor& t, double p, Generator* gen) {
  MF_CHECK(p >= 0.0 && p <= 1.0, RuntimeError, "bernoulli_: expects 0 <= p <= 1, but got p=", p);
  sample(kOp_bernoulli, t, float_attr("p", p), float_attr("unused", 0), gen);
}

Tensor bernoulli(const Tensor& p, Generator* gen) {
  require_floating("bernoulli", p->dtype);
  Tensor out = empty(p->shape, p->dtype, p->device());
  sample(kOp_bernoulli, out, float_attr("p", -1.0), float_attr("unused", 0), gen, &p);
  return out;
}

Tensor normal_tensor(const Tensor& mean, const Tensor& std, Generator* gen) {
  Dims shape = broadcast_shapes(mean->shape, std->shape, "normal");
  DType dt = promote_types(mean->dtype, std->dtype);
  require_floating("normal", dt);
  Tensor z = empty(shape, dt, mean->device());
  normal_(z, 0.0, 1.0, gen);
  return binary(kOp_add, binary(kOp_mul, z, std), mean);
}

Tensor linspace(Scalar start, Scalar end, int64_t steps, DType dtype, Device device) {
  MF_CHECK(steps >= 0, RuntimeError, "linspace: number of steps must be non-negative");
  double step = steps > 1 ? (end.f - start.f) / static_cast<double>(steps - 1) : 0.0;
  DType work = is_floating(dtype) ? dtype : DType::Float64;
  Tensor t = empty(Dims{steps}, work, device);
  launch(kOp_arange, work, {}, t, {float_attr("start", start.f), float_attr("step", step)});
  // The last element is exactly `end`, as in PyTorch.
  if (steps > 1) fill_(select(t, 0, steps - 1), end);
  return work == dtype ? t : to(t, device, dtype, false);
}

Tensor eye(int64_t n, int64_t m, DType dtype, Device device) {
  MF_CHECK(n >= 0 && m >= 0, RuntimeError, "eye: n and m must be non-negative, got ", n, " and ", m);
  Tensor t = full(Dims{n, m}, Scalar::from_int(0), dtype, device);
  int64_t k = std::min(n, m);
  if (k > 0) fill_(make_view(t, Dims{k}, Dims{m + 1}, 0), Scalar::from_int(1));
  return t;
}

}  // namespace monoflow
