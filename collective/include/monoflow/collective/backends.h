// Factories for the engines behind Communicator. Each throws CommError with a
// clear message when its engine is unavailable in this build or at run time.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "monoflow/collective/communicator.h"
#include "monoflow/collective/store.h"

namespace monoflow::collective {

bool gloo_available();
// Connects `size` ranks through `store` (keys live under the store's prefix).
// `local_address`: the address peers reach this rank on ("" = found from the
// route to `peer_hint`, the master's address).
std::unique_ptr<Communicator> make_gloo(std::shared_ptr<Store> store, int rank, int size, Millis timeout,
                                        const std::string& local_address, const std::string& peer_hint);

// NCCL is opened with dlopen: `search_dirs` are tried first (the nvidia/nccl/lib
// folders of the pip wheels), then the system's library path.
bool nccl_available(const std::vector<std::string>& search_dirs);
std::string nccl_library_path(const std::vector<std::string>& search_dirs);  // throws when missing
std::unique_ptr<Communicator> make_nccl(std::shared_ptr<Store> store, int rank, int size, Millis timeout,
                                        int cuda_device, void* stream,
                                        const std::vector<std::string>& search_dirs);

// MPI (collective/mpi): libmpi.so.12 opened at run time (Note [MPI opened at run time]).
bool mpi_available(const std::vector<std::string>& search_dirs);
std::string mpi_library_path(const std::vector<std::string>& search_dirs);  // loads it; throws when missing
std::unique_ptr<Communicator> make_mpi(std::shared_ptr<Store> store, int rank, int size, Millis timeout,
                                       const std::vector<std::string>& search_dirs);

}  // namespace monoflow::collective
