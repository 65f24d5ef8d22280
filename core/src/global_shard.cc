#include "monoflow/global_shard.h"

#include "monoflow/error.h"

namespace monoflow {

namespace {
thread_local bool t_shard_access = false;
}

ShardAccess::ShardAccess() : previous_(t_shard_access) { t_shard_access = true; }
ShardAccess::~ShardAccess() { t_shard_access = previous_; }

bool shard_access_allowed() { return t_shard_access; }

bool set_shard_access(bool allowed) {
  bool previous = t_shard_access;
  t_shard_access = allowed;
  return previous;
}

void throw_global_operand(const char* op) {
  throw RuntimeError(str_cat(op,
           ": got a global tensor, but this op has no SBP rule for global tensors, or it mixes local and global "
           "tensors. Convert explicitly with .to_local() or .to_global(placement, sbp)."));
}

}  // namespace monoflow
