// The one place where graph tracing meets eager dispatch (Note [Graph tracing]
// in graph/trace.h): launch() offers every kernel call to the hook installed
// on its thread before running it.
#pragma once
#include <vector>

#include "monoflow/dispatch.h"

namespace monoflow::graph {

class LaunchHook {
 public:
  virtual ~LaunchHook() = default;
  // Sees a call after launch()'s checks (and after its empty-output early
  // return); returns false when launch() must not run the kernel.
  virtual bool on_launch(const LaunchArgs& a) = 0;
};

// Installs the calling thread's hook (null: none); returns the previous one.
LaunchHook* set_launch_hook(LaunchHook* hook);

// The shapes and strides launch() hands the kernel for each operand (inputs,
// then outputs): merged where a.coalesce allows, as call_kernel does.
void kernel_layout(const LaunchArgs& a, std::vector<Dims>& shapes, std::vector<Dims>& strides);

}  // namespace monoflow::graph
