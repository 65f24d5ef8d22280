// Random number kernels: Philox4x32-10, counter-based, so element i of the
// output is a pure function of (seed, offset + i) (Note [Reproducible
// randomness] in generator.h) and the work splits freely across threads.
#include <cmath>

#include "common/philox.h"
#include "dtype.h"
#include "launch.h"
#include "strided.h"

namespace mfcpu {

namespace {

using mfrandom::Philox;  // devices/common/philox.h

double sample_uniform(const Task& t, const Philox& g) { return t.fval[2] + (t.fval[3] - t.fval[2]) * g.u01(0); }

double sample_normal(const Task& t, const Philox& g) {
  const double r = std::sqrt(-2.0 * std::log(g.u01_open_low(0)));
  return t.fval[2] + t.fval[3] * r * std::cos(6.283185307179586 * g.u01(2));
}

template <class S, double (*Sample)(const Task&, const Philox&)>
void run_real(Task& task) {
  const Operand& out = task.ops[0];
  S* o = reinterpret_cast<S*>(out.data);
  const int64_t n = out.shape[0], stride = out.strides[0];
  const uint64_t seed = uint64_t(task.ival[0]), offset = uint64_t(task.ival[1]);
  const double low = task.fval[2], high = task.fval[3];
  const bool bounded = Sample == &sample_uniform;
  parallel_range(n, 40, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) {
      S v = cast<S>(Sample(task, Philox(seed, offset + uint64_t(i))));
      // Rounding to a narrow type may reach `high`; uniform is half-open.
      if (bounded && high > low && !(load(v) < high)) v = cast<S>(low);
      o[i * stride] = v;
    }
  });
}

template <class S>
void run_randint(Task& task) {
  const Operand& out = task.ops[0];
  S* o = reinterpret_cast<S*>(out.data);
  const int64_t n = out.shape[0], stride = out.strides[0];
  const uint64_t seed = uint64_t(task.ival[0]), offset = uint64_t(task.ival[1]);
  const int64_t low = task.ival[2];
  const uint64_t range = uint64_t(task.ival[3]) - uint64_t(low);
  parallel_range(n, 20, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) {
      const Philox g(seed, offset + uint64_t(i));
      const uint64_t bits = (uint64_t(g.w[0]) << 32) | g.w[1];
      o[i * stride] = cast<S>(int64_t(uint64_t(low) + bits % range));
    }
  });
}

// Output 1 with probability p (the input tensor, or the scalar when there is none).
template <class S>
void run_bernoulli(Task& task) {
  const Operand& out = task.ops[0];
  const bool has_p = task.num_operands == 2;
  S* o = reinterpret_cast<S*>(out.data);
  const int64_t n = out.shape[0], stride = out.strides[0];
  const uint64_t seed = uint64_t(task.ival[0]), offset = uint64_t(task.ival[1]);
  parallel_range(n, 30, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) {
      double p = task.fval[2];
      if (has_p) p = double(load(reinterpret_cast<const S*>(task.ops[1].data)[i * task.ops[1].strides[0]]));
      o[i * stride] = cast<S>(Philox(seed, offset + uint64_t(i)).u01(0) < p ? 1 : 0);
    }
  });
}

template <class S, Task::Fn Run>
MFStatus launch_random(const MFKernelCall* call, const char* op, const char* a2, const char* a3) {
  return guarded([&] {
    const LaunchSpec spec{call->num_inputs, 1, dtype_of<S>, dtype_of<S>, {"seed", "offset", a2, a3}};
    if (call->num_inputs > 1) invalid(op, "takes at most one input");
    check_call(op, call, spec);
    if (call->outputs[0].ndim != 1) invalid(op, "output must be 1-D");
    if (call->num_inputs == 1 && !same_shape(call->inputs[0], call->outputs[0])) invalid(op, "shape mismatch");
    enqueue_call(op, call, spec, Run);
    return MF_OK;
  });
}

template <class S>
MFStatus launch_uniform(const MFKernelCall* c) {
  return launch_random<S, &run_real<S, &sample_uniform>>(c, "uniform", "low", "high");
}
template <class S>
MFStatus launch_normal(const MFKernelCall* c) {
  return launch_random<S, &run_real<S, &sample_normal>>(c, "normal", "mean", "std");
}
template <class S>
MFStatus launch_randint(const MFKernelCall* c) {
  return launch_random<S, &run_randint<S>>(c, "randint", "low", "high");
}
template <class S>
MFStatus launch_bernoulli(const MFKernelCall* c) {
  return launch_random<S, &run_bernoulli<S>>(c, "bernoulli", "p", "unused");
}

}  // namespace

void register_random_kernels(Registrar& r) {
  for_each_dtype([&](auto tag) {
    using S = typename decltype(tag)::type;
    r.add("randint", dtype_of<S>, dtype_of<S>, &launch_randint<S>);
    r.add("bernoulli", dtype_of<S>, dtype_of<S>, &launch_bernoulli<S>);
    if constexpr (is_floating_v<S>) {
      r.add("uniform", dtype_of<S>, dtype_of<S>, &launch_uniform<S>);
      r.add("normal", dtype_of<S>, dtype_of<S>, &launch_normal<S>);
    }
  });
}

}  // namespace mfcpu
