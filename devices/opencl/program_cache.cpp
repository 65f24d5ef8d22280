// Compiled programs, one per (device, kernel key), built on first use.
//
// Note [Program cache]
//   Kernels are generated per op and dtype combination (the source is small
//   and specialised, so the device compiler sees constant types) and built on
//   the first launch that needs them, not at load: an import must stay fast
//   and most combinations are never used. Built programs live for the process;
//   PoCL also keeps its own on-disk cache of compiled kernels, so a second
//   process pays little for the same sources.
#include <cstdlib>
#include <map>

#include "launch.h"

namespace mfocl {

struct CachedKernel {
  std::mutex mu;  // held while arguments are set and the kernel enqueued
  cl_kernel kernel = nullptr;
  size_t group = 64;  // work-group size used by run()
};

namespace {

// Note [Programs hold families]
//   PoCL spends about a second and a half on every clBuildProgram whatever its
//   size (the OpenCL C front end, the builtin library), and then a tenth of
//   one per kernel at its first launch. So a program holds a family of
//   kernels (all unary ops of one dtype, all casts from one dtype, ...) and is
//   built once for the family; only the kernels launched pay the second cost.
struct Cache {
  std::mutex mu;
  std::map<std::pair<int32_t, std::string>, cl_program> programs;
  std::map<std::pair<int32_t, std::string>, CachedKernel*> kernels;  // key "program#kernel"
};

Cache& cache() {
  static Cache* c = new Cache();
  return *c;
}

// MONOFLOW_OPENCL_BUILD_OPTIONS is appended to the options every program is
// built with.
const std::string& build_options() {
  static const std::string options = [] {
    std::string o = "-cl-std=CL1.2 -cl-fp32-correctly-rounded-divide-sqrt";
    if (const char* extra = std::getenv("MONOFLOW_OPENCL_BUILD_OPTIONS")) o += std::string(" ") + extra;
    return o;
  }();
  return options;
}

cl_program build_program(int32_t device_index, const std::string& key, const std::string& src) {
  const Device& d = device(device_index);
  const char* text = src.c_str();
  cl_int err = CL_SUCCESS;
  cl_program program = clCreateProgramWithSource(d.context, 1, &text, nullptr, &err);
  check_cl(err, "clCreateProgramWithSource");
  err = clBuildProgram(program, 1, &d.id, build_options().c_str(), nullptr, nullptr);
  if (err != CL_SUCCESS) {
    size_t n = 0;
    clGetProgramBuildInfo(program, d.id, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n);
    std::string log(n, '\0');
    if (n) clGetProgramBuildInfo(program, d.id, CL_PROGRAM_BUILD_LOG, n, &log[0], nullptr);
    clReleaseProgram(program);
    if (log.size() > 2000) log.resize(2000);
    raise(MF_ERR_INTERNAL, "building kernel '" + key + "' failed (" + cl_error_name(err) + "): " + log);
  }
  return program;
}

cl_program program_for(int32_t device_index, const std::string& key, const std::function<std::string()>& source) {
  Cache& c = cache();
  const auto id = std::make_pair(device_index, key);
  {
    std::lock_guard<std::mutex> lock(c.mu);
    auto it = c.programs.find(id);
    if (it != c.programs.end()) return it->second;
  }
  // Built outside the lock (compiling takes a while); a racing thread may
  // build the same key too, and the first one stored wins.
  cl_program p = build_program(device_index, key, source());
  std::lock_guard<std::mutex> lock(c.mu);
  auto ins = c.programs.emplace(id, p);
  if (!ins.second) clReleaseProgram(p);
  return ins.first->second;
}

}  // namespace

CachedKernel& cached_kernel(int32_t device_index, const std::string& key, const char* kernel_name,
                            const std::function<std::string()>& source) {
  Cache& c = cache();
  const auto id = std::make_pair(device_index, key + "#" + kernel_name);
  {
    std::lock_guard<std::mutex> lock(c.mu);
    auto it = c.kernels.find(id);
    if (it != c.kernels.end()) return *it->second;
  }
  cl_program program = program_for(device_index, key, source);
  cl_int err = CL_SUCCESS;
  cl_kernel kernel = clCreateKernel(program, kernel_name, &err);
  check_cl(err, "clCreateKernel");
  auto* k = new CachedKernel();
  k->kernel = kernel;
  size_t wg = 0;
  if (clGetKernelWorkGroupInfo(kernel, device(device_index).id, CL_KERNEL_WORK_GROUP_SIZE, sizeof(wg), &wg,
                               nullptr) == CL_SUCCESS &&
      wg > 0)
    k->group = std::min<size_t>(64, wg);
  std::lock_guard<std::mutex> lock(c.mu);
  auto ins = c.kernels.emplace(id, k);
  if (!ins.second) {
    clReleaseKernel(k->kernel);
    delete k;
  }
  return *ins.first->second;
}

Launch::Launch(CachedKernel& k, Stream* s) : k_(k), s_(s) { k_.mu.lock(); }
Launch::~Launch() { k_.mu.unlock(); }

void Launch::set(size_t size, const void* value) {
  check_cl(clSetKernelArg(k_.kernel, index_, size, value), "clSetKernelArg");
  ++index_;
}

Launch& Launch::buffer(const Resolved& r) {
  const cl_ulong off = r.offset;
  set(sizeof(cl_mem), &r.mem);
  set(sizeof(off), &off);
  return *this;
}

Launch& Launch::error_flag() {
  set(sizeof(cl_mem), &s_->error_flag);
  return *this;
}

void Launch::run(int64_t n) {
  if (n <= 0) return;
  const size_t local = k_.group;
  const size_t global = (size_t(n) + local - 1) / local * local;
  check_cl(clEnqueueNDRangeKernel(s_->queue, k_.kernel, 1, nullptr, &global, &local, 0, nullptr, nullptr),
           "clEnqueueNDRangeKernel");
  clFlush(s_->queue);
}

void Launch::run_groups(int64_t groups, int64_t group) {
  if (groups <= 0) return;
  const size_t local = size_t(group);
  const size_t global = size_t(groups) * local;
  check_cl(clEnqueueNDRangeKernel(s_->queue, k_.kernel, 1, nullptr, &global, &local, 0, nullptr, nullptr),
           "clEnqueueNDRangeKernel");
  clFlush(s_->queue);
}

void Launch::run_nd(cl_uint dims, const size_t* global, const size_t* local) {
  check_cl(clEnqueueNDRangeKernel(s_->queue, k_.kernel, dims, nullptr, global, local, 0, nullptr, nullptr),
           "clEnqueueNDRangeKernel");
  clFlush(s_->queue);
}

}  // namespace mfocl
