// Shared-memory all-reduce and barrier for groups whose ranks share a host
// (Note [Shared-memory all-reduce] in collective/src/shm_all_reduce.cc).
#pragma once
#include <memory>

#include "monoflow/collective/communicator.h"
#include "monoflow/collective/store.h"

namespace monoflow::collective {

// `inner` itself when the group spans hosts (or MONOFLOW_SHM_COLLECTIVES=0),
// else a communicator that runs all_reduce and barrier through a segment
// shared by the ranks and everything else through `inner`. Collective over
// the group: every rank calls it with the group's store.
std::unique_ptr<Communicator> with_shared_memory(std::unique_ptr<Communicator> inner, std::shared_ptr<Store> store,
                                                 Millis timeout);

}  // namespace monoflow::collective
