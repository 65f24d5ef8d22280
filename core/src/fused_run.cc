// Eager launches of fused elementwise programs (fused_run.h).
#include "monoflow/fused_run.h"

#include <cstring>

#include "monoflow/backend.h"
#include "monoflow/dispatch.h"
#include "monoflow/op_registry.h"

namespace monoflow {

bool has_fused_kernel(const Tensor& t) {
  return DeviceRegistry::get().backend(t->device()).find_kernel(kOp_fused_elementwise, t->dtype, t->dtype) != nullptr;
}

void run_fused(const FusedCode& p, const std::vector<Tensor>& ins, const std::vector<Tensor>& outs, bool coalesce) {
  std::vector<int64_t> bits(p.constants.size());
  for (size_t k = 0; k < bits.size(); ++k) std::memcpy(&bits[k], &p.constants[k], sizeof(double));
  MFAttr attrs[4] = {ints_attr("program", p.code.data(), static_cast<int32_t>(p.code.size())),
                     ints_attr("outputs", p.outputs.data(), static_cast<int32_t>(p.outputs.size())),
                     ints_attr("constants", bits.data(), static_cast<int32_t>(bits.size())),
                     int_attr("registers", p.registers)};
  LaunchArgs a{&op_def(kOp_fused_elementwise), ins[0]->dtype};
  a.inputs = ins.data();
  a.num_inputs = static_cast<int>(ins.size());
  a.outputs = outs.data();
  a.num_outputs = static_cast<int>(outs.size());
  a.attrs = attrs;
  a.num_attrs = 4;
  a.coalesce = coalesce;
  launch(a);
}

}  // namespace monoflow
