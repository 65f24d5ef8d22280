// Backend: one loaded device plugin, and the registry of all of them.
//
// Note [Plugins are loaded, never linked]
//   The CPU device is a plugin like any other: libmonoflow_cpu.so is dlopen()ed
//   through the same entry point a third-party library exports, so the ABI is
//   exercised on every run. A plugin that cannot be loaded (missing file,
//   corrupt, wrong ABI major, failing init) raises a RuntimeError naming the
//   path and the reason; the Python layer turns discovery failures into
//   warnings and keeps them in flow.devices.failed().
#pragma once
#include <array>
#include <atomic>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "monoflow/allocator.h"
#include "monoflow/device.h"
#include "monoflow/dtype.h"
#include "monoflow/plugin.h"

namespace monoflow {

class Backend {
 public:
  Backend(int16_t type_id, std::string path, void* handle, const MFDevicePlugin* api, bool no_data = false);
  ~Backend();

  const std::string& name() const { return name_; }
  const std::string& path() const { return path_; }
  void* handle() const { return handle_; }
  int16_t type_id() const { return type_id_; }
  bool host_memory() const { return api_->flags & MF_DEVICE_HOST_MEMORY; }
  // Tensors here have metadata and no bytes: kernels are skipped (Note [The meta device]).
  bool no_data() const { return no_data_; }
  int device_count() const { return device_count_; }
  const MFDevicePlugin& api() const { return *api_; }
  MFDeviceProperties properties(int index) const;

  // The default stream of a device, created on first use.
  MFStream stream(int index);
  CachingAllocator& allocator(int index);
  void synchronize(int index);  // throws the first pending kernel error
  void synchronize_all();
  // Waits like synchronize() but never throws: a kernel error it collects is
  // kept and thrown by the next synchronize() of that device (Note [Deferred
  // kernel errors]). For waits that are not sync points of the user's
  // program: destructors, the allocator's empty_cache and OOM retry.
  void synchronize_deferring_errors(int index) noexcept;

  // Throws the matching core exception when status != MF_OK, with the
  // plugin's last_error message, prefixed by `what`.
  void check(MFStatus status, const char* what) const;

  // Kernel table: kernels_[op][in_dtype] holds the ANY kernel and per-output ones.
  MFKernelFn find_kernel(int op_id, DType in, DType out) const;
  // The host thread team of the plugin's kernels (plugin ABI 1.1, optional).
  bool has_thread_control() const;
  int num_threads() const;      // NotImplementedError without thread control
  void set_num_threads(int n);  // likewise; ValueError for n <= 0
  MFStatus add_kernel(const char* op_name, int32_t in_dtype, int32_t out_dtype, MFKernelFn fn);

 private:
  struct PerDevice {
    std::once_flag once;
    MFStream stream = nullptr;
    std::unique_ptr<CachingAllocator> allocator;
    std::mutex error_mu;
    std::exception_ptr deferred_error;  // guarded by error_mu
  };
  struct KernelSlot {
    MFKernelFn any = nullptr;
    std::array<MFKernelFn, kNumDTypes> by_out{};
  };
  void init_device(int index);

  int16_t type_id_;
  std::string path_;
  std::string name_;
  void* handle_;
  const MFDevicePlugin* api_;
  bool no_data_;
  int device_count_;
  std::vector<std::unique_ptr<PerDevice>> devices_;
  std::vector<std::array<KernelSlot, kNumDTypes>> kernels_;  // indexed by op id
};

class DeviceRegistry {
 public:
  static DeviceRegistry& get();

  // Loads a plugin library; returns its device type name. Throws RuntimeError
  // (naming path and reason) when it cannot be loaded; never crashes.
  std::string load(const std::string& path);
  Backend& backend(int16_t type_id) const;
  Backend& backend(const Device& d) const { return backend(d.type); }
  // The device type `name`, loading its deferred plugin first (Note [Deferred plugins]);
  // nullptr when there is none or its deferred load failed (see deferred_failure).
  Backend* find(const std::string& name) const;
  std::vector<std::string> names() const;  // the loaded device types with data (not "meta")

  // Note [Deferred plugins]
  //   A built-in accelerator plugin whose runtime starts threads when it is
  //   initialised (PoCL's OpenCL platform) is not loaded at import: defer()
  //   records its path, and the first find() of its name (a device string, a
  //   device count, monoflow.devices.available()) loads it. A failed deferred
  //   load is remembered, not thrown: find() returns nullptr and
  //   deferred_failure() says why, for the caller's "unknown device type" error.
  void defer(const std::string& name, const std::string& path);
  void load_deferred();  // loads every deferred plugin now (failures remembered)
  std::string deferred_failure(const std::string& name) const;
  bool has_cpu() const { return !backends_.empty(); }

  // The CPU fallback: how many times op ran on the CPU for want of a kernel.
  void count_fallback(const Device& device, int op_id);
  std::map<std::pair<std::string, std::string>, int64_t> fallback_counts() const;

 private:
  static constexpr size_t kMaxBackends = 64;  // backends_'s reserved capacity (it never reallocates)
  void load_deferred_locked(const std::string& name) const;

  mutable std::mutex mu_;
  std::vector<std::unique_ptr<Backend>> backends_;
  // Note [Deferred plugins]: held across a deferred load (recursive: the load may warn, and the
  // warning's Python code may look a device type up again)
  mutable std::recursive_mutex deferred_mu_;
  mutable std::map<std::string, std::string> deferred_;         // name -> path, not yet loaded
  mutable std::map<std::string, std::string> deferred_failed_;  // name -> why its load failed
  std::map<std::pair<int16_t, int>, int64_t> fallbacks_;
};

}  // namespace monoflow
