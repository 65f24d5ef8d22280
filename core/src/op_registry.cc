#include "monoflow/op_registry.h"

#include <cstring>

namespace monoflow {

static const OpDef kOps[] = {
#define MF_OP(name, kind, rule) {kOp_##name, #name, OpKind::kind, DTypeRule::rule},
#include "monoflow/op_list.h"
#undef MF_OP
};

const OpDef& op_def(int id) { return kOps[id]; }

int find_op(const std::string& name) {
  for (const OpDef& op : kOps)
    if (name == op.name) return op.id;
  return -1;
}

DType compute_dtype(const OpDef& op, DType promoted) {
  if (op.rule == DTypeRule::IntToFloat && !is_floating(promoted) && !is_complex(promoted)) return default_float_dtype();
  return promoted;
}

DType output_dtype(const OpDef& op, DType compute) {
  switch (op.rule) {
    case DTypeRule::ToBool:
      return DType::Bool;
    case DTypeRule::IntToInt64:
      return is_floating(compute) || is_complex(compute) ? compute : DType::Int64;
    case DTypeRule::ToInt64:
      return DType::Int64;
    default:
      return compute;
  }
}

}  // namespace monoflow
