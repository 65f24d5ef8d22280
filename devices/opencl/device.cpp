#include "runtime.h"

namespace mfocl {

namespace {

std::string device_string(cl_device_id id, cl_device_info what) {
  size_t n = 0;
  if (clGetDeviceInfo(id, what, 0, nullptr, &n) != CL_SUCCESS || n == 0) return {};
  std::string s(n, '\0');
  if (clGetDeviceInfo(id, what, n, &s[0], nullptr) != CL_SUCCESS) return {};
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}

std::vector<Device> discover() {
  std::vector<Device> out;
  cl_uint np = 0;
  if (clGetPlatformIDs(0, nullptr, &np) != CL_SUCCESS || np == 0) return out;
  std::vector<cl_platform_id> platforms(np);
  if (clGetPlatformIDs(np, platforms.data(), nullptr) != CL_SUCCESS) return out;
  for (cl_platform_id p : platforms) {
    cl_uint nd = 0;
    if (clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, nullptr, &nd) != CL_SUCCESS || nd == 0) continue;
    std::vector<cl_device_id> ids(nd);
    if (clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, nd, ids.data(), nullptr) != CL_SUCCESS) continue;
    for (cl_device_id id : ids) {
      Device d;
      d.platform = p;
      d.id = id;
      cl_int err = CL_SUCCESS;
      // One context per device: copies between devices stage through the host.
      d.context = clCreateContext(nullptr, 1, &id, nullptr, nullptr, &err);
      if (err != CL_SUCCESS || d.context == nullptr) continue;
      d.name = device_string(id, CL_DEVICE_NAME);
      cl_ulong mem = 0;
      clGetDeviceInfo(id, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof(mem), &mem, nullptr);
      d.total_memory = mem;
      cl_uint cu = 1;
      clGetDeviceInfo(id, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof(cu), &cu, nullptr);
      d.compute_units = int32_t(cu);
      d.fp64 = device_string(id, CL_DEVICE_EXTENSIONS).find("cl_khr_fp64") != std::string::npos;
      cl_device_type type = 0;
      clGetDeviceInfo(id, CL_DEVICE_TYPE, sizeof(type), &type, nullptr);
      d.host_cpu = (type & CL_DEVICE_TYPE_CPU) != 0;
      out.push_back(std::move(d));
    }
  }
  return out;
}

}  // namespace

const std::vector<Device>& devices() {
  // Never destroyed: contexts may be in use by other threads at exit.
  static const std::vector<Device>* list = new std::vector<Device>(discover());
  return *list;
}

const Device& device(int32_t index) {
  const auto& list = devices();
  if (index < 0 || size_t(index) >= list.size())
    raise(MF_ERR_INVALID_ARGUMENT, "invalid device index " + std::to_string(index) + " (device_count is " +
                                       std::to_string(list.size()) + ")");
  return list[size_t(index)];
}

}  // namespace mfocl
