// The op declarations: one line per op (grouped by family in ops/*.def),
// expanded wherever a table of ops is needed (ids, names, dtype rules). Kernel conventions: docs/kernels.md.
//
//     MF_OP(name, kind, dtype rule)
//
// kind  : how the core prepares operands (see OpKind in op_registry.h)
// rule  : how the output dtype follows from the promoted input dtype
#include "monoflow/ops/foundation.def"
#include "monoflow/ops/math.def"
#include "monoflow/ops/reduce.def"
#include "monoflow/ops/shape.def"
#include "monoflow/ops/random.def"
#include "monoflow/ops/linalg.def"
#include "monoflow/ops/nn.def"
#include "monoflow/ops/fused.def"
#include "monoflow/ops/graph.def"
