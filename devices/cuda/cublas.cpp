#include "cublas.h"

#include <dlfcn.h>

#include <initializer_list>

namespace mfcuda {

namespace {

Cublas* open_cublas() {
  Cublas* c = new Cublas();
  void* lib = nullptr;
  for (const char* name : {"libcublas.so.13", "libcublas.so.12", "libcublas.so"})
    if ((lib = dlopen(name, RTLD_NOW | RTLD_LOCAL))) break;
  if (!lib) return c;
  c->create = reinterpret_cast<decltype(c->create)>(dlsym(lib, "cublasCreate_v2"));
  c->set_stream = reinterpret_cast<decltype(c->set_stream)>(dlsym(lib, "cublasSetStream_v2"));
  c->gemm_strided_batched =
      reinterpret_cast<decltype(c->gemm_strided_batched)>(dlsym(lib, "cublasGemmStridedBatchedEx"));
  c->available = c->create && c->set_stream && c->gemm_strided_batched;
  return c;
}

}  // namespace

const Cublas& cublas() {
  static const Cublas* c = open_cublas();
  return *c;
}

}  // namespace mfcuda
