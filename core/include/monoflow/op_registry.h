// Op declarations as data: what every layer (dispatch, bindings, later
// autograd, SBP deduction and graph tracing) needs to know about an op.
#pragma once
#include <string>

#include "monoflow/dtype.h"

namespace monoflow {

enum class OpKind {
  Creation,      // outputs only
  Copy,          // x -> out of another dtype/layout
  Binary,        // broadcasting a (op) b
  BinaryScalar,  // x (op) python number, the number an attribute
  Compare,       // broadcasting, bool output
  Unary,
  Reduce,        // over a set of dims, keepdim
  Matmul,        // batched, broadcasting batch dims
  DimWise,       // along one dim, which the core moves last (softmax, cumsum, sort)
  Index,         // gather/scatter-like: data plus int64 indices
  Random,        // outputs only, seeded from a generator
  Other,
};

enum class DTypeRule {
  Same,        // output dtype = promoted input dtype
  IntToFloat,  // integral/bool inputs compute in the default float dtype
  ToBool,      // output is bool
  IntToInt64,  // integral/bool inputs accumulate into int64
  ToInt64,     // output is int64 (indices)
};

enum OpId : int {
#define MF_OP(name, kind, rule) kOp_##name,
#include "monoflow/op_list.h"
#undef MF_OP
  kNumOps
};

struct OpDef {
  int id;
  const char* name;
  OpKind kind;
  DTypeRule rule;
};

const OpDef& op_def(int id);
int find_op(const std::string& name);  // -1 when unknown

// Compute dtype -> output dtype for op.
DType compute_dtype(const OpDef& op, DType promoted);
DType output_dtype(const OpDef& op, DType compute);

}  // namespace monoflow
