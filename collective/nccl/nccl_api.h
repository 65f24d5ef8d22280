// The few NCCL declarations monoflow uses, written out here so that no NCCL
// header is needed to build: libnccl.so.2 is opened with dlopen at run time
// (nccl_loader.cc). Values follow nccl.h (stable since NCCL 2.0; bfloat16
// and avg since 2.10).
#pragma once
#include <cstddef>
#include <string>
#include <vector>

namespace monoflow::collective::nccl {

typedef struct ncclComm* ncclComm_t;
struct ncclUniqueId {
  char internal[128];
};
using ncclResult_t = int;  // 0 = ncclSuccess
using ncclDataType_t = int;
using ncclRedOp_t = int;
using cudaStream_t = void*;
enum : int { ncclInt8 = 0, ncclUint8 = 1, ncclInt32 = 2, ncclUint32 = 3, ncclInt64 = 4, ncclUint64 = 5,
             ncclFloat16 = 6, ncclFloat32 = 7, ncclFloat64 = 8, ncclBfloat16 = 9 };
enum : int { ncclSum = 0, ncclProd = 1, ncclMax = 2, ncclMin = 3, ncclAvg = 4 };

struct Api {
  void* handle = nullptr;
  std::string path;
  ncclResult_t (*GetUniqueId)(ncclUniqueId*);
  ncclResult_t (*CommInitRank)(ncclComm_t*, int, ncclUniqueId, int);
  ncclResult_t (*CommDestroy)(ncclComm_t);
  ncclResult_t (*CommAbort)(ncclComm_t);
  ncclResult_t (*CommGetAsyncError)(ncclComm_t, ncclResult_t*);
  const char* (*GetErrorString)(ncclResult_t);
  ncclResult_t (*AllReduce)(const void*, void*, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t, cudaStream_t);
  ncclResult_t (*Broadcast)(const void*, void*, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t);
  ncclResult_t (*Reduce)(const void*, void*, size_t, ncclDataType_t, ncclRedOp_t, int, ncclComm_t, cudaStream_t);
  ncclResult_t (*AllGather)(const void*, void*, size_t, ncclDataType_t, ncclComm_t, cudaStream_t);
  ncclResult_t (*ReduceScatter)(const void*, void*, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t, cudaStream_t);
  ncclResult_t (*Send)(const void*, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t);
  ncclResult_t (*Recv)(void*, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t);
  ncclResult_t (*GroupStart)();
  ncclResult_t (*GroupEnd)();
};

// Opens libnccl.so.2 (search_dirs first, then the system) once; throws
// CommError with the places searched when it is not found.
const Api& load(const std::vector<std::string>& search_dirs);
// The path that load() would open, or "" when none.
std::string find_library(const std::vector<std::string>& search_dirs);

}  // namespace monoflow::collective::nccl
