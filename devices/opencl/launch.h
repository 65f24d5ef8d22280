// Compiling OpenCL C programs once and launching their kernels on a stream.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "runtime.h"

namespace mfocl {

constexpr int kMaxDims = 10;
constexpr int kMaxOperands = 4;

// Note [Geometry by value]
//   Shapes and strides reach a kernel as one struct passed by value
//   (clSetKernelArg copies it at once), so nothing outlives the call and no
//   buffer is allocated per launch, as the ABI asks (descriptors live only
//   during the call). All fields are 64-bit so host and device layouts agree.
//   The kernel turns its linear id into an N-d index and one element offset
//   per operand: broadcasting is a stride of 0, views are any strides.
struct Geometry {
  int64_t n;     // elements in the iteration space
  int64_t ndim;
  int64_t shape[kMaxDims];
  int64_t strides[kMaxOperands][kMaxDims];  // in elements, per operand
};

// The OpenCL C declaration matching Geometry, and shared helpers (bfloat16).
std::string prelude(const Device& d);

// A compiled kernel, cached per (device, key). The source is only built on
// the first request for a key.
struct CachedKernel;
CachedKernel& cached_kernel(int32_t device, const std::string& key, const char* kernel_name,
                            const std::function<std::string()>& source);

// Sets arguments and enqueues one kernel on a stream, holding the cached
// kernel's lock (cl_kernel arguments are shared state).
class Launch {
 public:
  Launch(CachedKernel& k, Stream* s);
  ~Launch();
  Launch(const Launch&) = delete;
  Launch& operator=(const Launch&) = delete;

  template <class T>
  Launch& arg(const T& value) {
    set(sizeof(T), &value);
    return *this;
  }
  Launch& buffer(const Resolved& r);  // two args: the cl_mem and its byte offset (ulong)
  Launch& error_flag();               // the stream's error flag (__global int*)
  // Enqueues `n` work-items (rounded up to the work-group size: kernels guard
  // with their own count) or n_groups * group work-items for a group kernel.
  void run(int64_t n);
  void run_groups(int64_t groups, int64_t group);
  void run_nd(cl_uint dims, const size_t* global, const size_t* local);

 private:
  void set(size_t size, const void* value);
  CachedKernel& k_;
  Stream* s_;
  cl_uint index_ = 0;
};

// ---------------------------------------------------------------- operands

struct DTypeInfo {
  const char* storage;  // OpenCL C type of an element in memory
  const char* compute;  // type the kernels compute in (float for half types)
  size_t size;
  bool floating, is_bool, is_half, is_bf16, is_signed;
};
const DTypeInfo& dtype_info(int32_t dtype);  // raises for complex / unknown
bool supported_dtype(const Device& d, int32_t dtype);
const char* dtype_name(int32_t dtype);

// Checks a descriptor (rank, non-negative strides) and resolves the memory it
// can address. A zero-size descriptor resolves to its allocation only.
Resolved resolve_desc(const MFTensorDesc& t, int32_t device, const char* op, const char* role);
int64_t numel(const MFTensorDesc& t);
bool same_shape(const MFTensorDesc& a, const MFTensorDesc& b);

// The scalar attribute `name` (raises when missing), and optional lookups.
const MFAttr& attr(const MFKernelCall* call, const char* op, const char* name);
const MFAttr* find_attr(const MFKernelCall* call, const char* name);
// `n` integers of attribute `name`: an MF_ATTR_INTS list, or a scalar repeated.
void read_ints(const char* op, const MFKernelCall* call, const char* name, int n, int64_t* out);

// Validates struct_size, device, stream and operand counts; returns the stream.
Stream* check_call(const MFKernelCall* call, const char* op, int num_inputs, int num_outputs);

// OpenCL C snippets loading element `off` of operand k as its compute type and
// storing a value of kind `value` into it.
enum class Value { kFloat, kDouble, kIntNarrow, kIntWide, kRaw };
Value value_kind(int32_t dtype);  // the kind of dtype's compute type
std::string load_expr(int32_t dtype, const std::string& ptr, const std::string& off);
std::string store_stmt(int32_t dtype, Value value, const std::string& ptr, const std::string& off,
                       const std::string& v);

}  // namespace mfocl
