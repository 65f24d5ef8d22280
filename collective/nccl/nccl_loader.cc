#include <dlfcn.h>
#include <unistd.h>

#include <mutex>

#include "monoflow/collective/types.h"
#include "nccl_api.h"

namespace monoflow::collective::nccl {

namespace {
constexpr const char* kLib = "libnccl.so.2";

std::string searched(const std::vector<std::string>& dirs) {
  std::string s;
  for (auto& d : dirs) s += d + "/" + kLib + ", ";
  return s + "the system library path";
}
}  // namespace

std::string find_library(const std::vector<std::string>& dirs) {
  for (auto& d : dirs) {
    std::string p = d + "/" + kLib;
    if (::access(p.c_str(), R_OK) == 0) return p;
  }
  // dlopen's own search: probe without keeping it open.
  if (void* h = ::dlopen(kLib, RTLD_LAZY | RTLD_LOCAL | RTLD_NOLOAD)) {
    ::dlclose(h);
    return kLib;
  }
  if (void* h = ::dlopen(kLib, RTLD_LAZY | RTLD_LOCAL)) {
    ::dlclose(h);
    return kLib;
  }
  return "";
}

const Api& load(const std::vector<std::string>& dirs) {
  static std::mutex mu;
  static Api api;
  std::lock_guard<std::mutex> lock(mu);
  if (api.handle) return api;
  std::string path = find_library(dirs);
  if (path.empty())
    throw CommError(std::string("NCCL backend: ") + kLib + " not found (searched " + searched(dirs) +
                    "); install the nvidia-nccl-cu12 or nvidia-nccl-cu13 wheel, or the system NCCL");
  void* h = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) throw CommError(std::string("NCCL backend: cannot open ") + path + ": " + ::dlerror());
  auto sym = [&](const char* name) {
    void* p = ::dlsym(h, name);
    if (!p) throw CommError(std::string("NCCL backend: ") + path + " lacks " + name + " (NCCL too old?)");
    return p;
  };
#define MF_NCCL_SYM(field, name) api.field = reinterpret_cast<decltype(api.field)>(sym(name))
  MF_NCCL_SYM(GetUniqueId, "ncclGetUniqueId");
  MF_NCCL_SYM(CommInitRank, "ncclCommInitRank");
  MF_NCCL_SYM(CommDestroy, "ncclCommDestroy");
  MF_NCCL_SYM(CommAbort, "ncclCommAbort");
  MF_NCCL_SYM(CommGetAsyncError, "ncclCommGetAsyncError");
  MF_NCCL_SYM(GetErrorString, "ncclGetErrorString");
  MF_NCCL_SYM(AllReduce, "ncclAllReduce");
  MF_NCCL_SYM(Broadcast, "ncclBroadcast");
  MF_NCCL_SYM(Reduce, "ncclReduce");
  MF_NCCL_SYM(AllGather, "ncclAllGather");
  MF_NCCL_SYM(ReduceScatter, "ncclReduceScatter");
  MF_NCCL_SYM(Send, "ncclSend");
  MF_NCCL_SYM(Recv, "ncclRecv");
  MF_NCCL_SYM(GroupStart, "ncclGroupStart");
  MF_NCCL_SYM(GroupEnd, "ncclGroupEnd");
#undef MF_NCCL_SYM
  api.path = path;
  api.handle = h;
  return api;
}

}  // namespace monoflow::collective::nccl
