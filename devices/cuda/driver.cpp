#include "driver.h"

#include <dlfcn.h>

#include <cstdlib>

namespace mfcuda {

namespace {

// Resolves `symbol` (cuda.h's versioned name, e.g. "cuMemAlloc_v2").
template <class F>
bool resolve(void* lib, const char* symbol, F* out, std::string* missing) {
  *out = reinterpret_cast<F>(dlsym(lib, symbol));
  if (!*out) *missing = symbol;
  return *out != nullptr;
}

#define MFC_STR2(x) #x
#define MFC_STR(x) MFC_STR2(x)

Driver* open_driver() {
  Driver* d = new Driver();  // never freed: used until exit
  if (const char* off = std::getenv("MONOFLOW_CUDA_DISABLE"); off && *off && *off != '0') {
    d->unavailable = "MONOFLOW_CUDA_DISABLE is set";
    return d;
  }
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* e = dlerror();
    d->unavailable = std::string("no CUDA driver: ") + (e ? e : "libcuda.so.1 not found");
    return d;
  }
  std::string missing;
  bool ok = true;
  // MFC_STR(name) expands cuda.h's macro first: "cuMemAlloc_v2".
#define MFC_RESOLVE(name) ok = ok && resolve(lib, MFC_STR(name), &d->name, &missing);
  MFC_DRIVER_FNS(MFC_RESOLVE)
#undef MFC_RESOLVE
  if (!ok) {
    d->unavailable = "the CUDA driver is too old: it lacks " + missing;
    return d;
  }
  CUresult r = d->cuInit(0);
  int n = 0;
  if (r == CUDA_SUCCESS) r = d->cuDeviceGetCount(&n);
  if (r != CUDA_SUCCESS) {
    const char* s = nullptr;
    d->cuGetErrorString(r, &s);
    d->unavailable = std::string("cuInit failed: ") + (s ? s : "unknown error");
    return d;
  }
  d->device_count = n;
  if (n == 0) d->unavailable = "the CUDA driver reports no device";
  return d;
}

}  // namespace

const Driver& driver() {
  static const Driver* d = open_driver();  // thread-safe once
  return *d;
}

}  // namespace mfcuda
