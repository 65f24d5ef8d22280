// Guarding the local components of global tensors.
//
// Note [Global shards]
//   A global tensor (python/monoflow/_global) is a local tensor, its shard,
//   plus a placement and an SBP. The global layer runs an op on shards only
//   after it has deduced an SBP signature and boxed the inputs. The shard is
//   marked (TensorImpl::global_shard) so that nothing else can compute on it
//   by accident: an op without an SBP rule, or one mixing local and global
//   tensors, would otherwise return one rank's piece as if it were the whole.
//   Kernel launches and views refuse a marked operand unless a ShardAccess
//   guard is open on this thread: the global layer opens one around the local
//   op it has checked, and the autograd engine opens one while it replays the
//   backward of ops that were checked on the way forward.
#pragma once
#include "monoflow/tensor.h"

namespace monoflow {

class ShardAccess {
 public:
  ShardAccess();
  ~ShardAccess();
  ShardAccess(const ShardAccess&) = delete;
  ShardAccess& operator=(const ShardAccess&) = delete;

 private:
  bool previous_;
};

bool shard_access_allowed();
// For bindings that cannot hold a guard across calls: returns the previous state.
bool set_shard_access(bool allowed);
[[noreturn]] void throw_global_operand(const char* op);

// RuntimeError naming `op` when `t` is a marked shard and no guard is open.
inline void check_local(const Tensor& t, const char* op) {
  if (t && t->global_shard && !shard_access_allowed()) throw_global_operand(op);
}

}  // namespace monoflow
