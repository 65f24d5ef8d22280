#include "monoflow/backend.h"

#include <dlfcn.h>

#include <signal.h>

#include <cctype>
#include <cstring>

#include "monoflow/dispatch.h"
#include "monoflow/error.h"
#include "monoflow/launch_log.h"
#include "monoflow/meta_device.h"
#include "monoflow/op_registry.h"

namespace monoflow {

Backend::Backend(int16_t type_id, std::string path, void* handle, const MFDevicePlugin* api, bool no_data)
    : type_id_(type_id),
      path_(std::move(path)),
      name_(api->device_type),
      handle_(handle),
      api_(api),
      no_data_(no_data) {
  device_count_ = api_->device_count();
  for (int i = 0; i < device_count_; ++i) devices_.push_back(std::make_unique<PerDevice>());
  kernels_.resize(kNumOps);
}

Backend::~Backend() {
  // Process teardown: leave streams and the library alone. Plugins may run
  // threads, and tensors owned by Python may still be collected later.
}

void Backend::check(MFStatus status, const char* what) const {
  if (status == MF_OK) return;
  const char* msg = api_->last_error ? api_->last_error() : nullptr;
  std::string text = str_cat(what, " failed on ", name_, ": ", msg && *msg ? msg : "unknown error",
                             " (status ", static_cast<int>(status), ")");
  switch (status) {
    case MF_ERR_OUT_OF_MEMORY:
      throw OutOfMemoryError(text);
    case MF_ERR_ZERO_DIVISION:
      throw ZeroDivisionError(msg && *msg ? std::string(msg) : text);
    case MF_ERR_INVALID_ARGUMENT:
      throw ValueError(text);
    case MF_ERR_UNSUPPORTED:
      throw NotImplementedError(text);
    default:
      throw RuntimeError(text);
  }
}

namespace {
// Rethrows the exception in flight as the same type with `note` appended.
[[noreturn]] void rethrow_with(const std::string& note) {
  try {
    throw;
  } catch (const OutOfMemoryError& e) {
    throw OutOfMemoryError(e.what() + note);
  } catch (const ZeroDivisionError& e) {
    throw ZeroDivisionError(e.what() + note);
  } catch (const ValueError& e) {
    throw ValueError(e.what() + note);
  } catch (const NotImplementedError& e) {
    throw NotImplementedError(e.what() + note);
  } catch (const TypeError& e) {
    throw TypeError(e.what() + note);
  } catch (const IndexError& e) {
    throw IndexError(e.what() + note);
  } catch (const Error& e) {
    throw RuntimeError(e.what() + note);
  }
}

// Throws the kernel error `status` reports for a sync of `be`'s device, with a
// note naming the op it belongs to (Note [Deferred kernel errors]).
void check_kernel_errors(const Backend& be, MFStatus status, int index) {
  if (status != MF_OK) {
    try {
      be.check(status, "a kernel");
    } catch (const Error& e) {
      std::string note = launch_log::describe(&be, index, be.name(), e.what());
      launch_log::mark_synced(&be, index);
      rethrow_with(note);
    }
  }
  launch_log::mark_synced(&be, index);
}
}  // namespace

MFDeviceProperties Backend::properties(int index) const {
  MFDeviceProperties p{};
  p.struct_size = sizeof(p);
  check(api_->get_properties(index, &p), "get_properties");
  return p;
}

bool Backend::has_thread_control() const {
  return MF_HAS_FIELD(api_, MFDevicePlugin, get_num_threads) && api_->set_num_threads && api_->get_num_threads;
}

int Backend::num_threads() const {
  MF_CHECK(has_thread_control(), NotImplementedError, "the '", name_,
           "' device plugin does not report its thread count (plugin ABI 1.1 get_num_threads)");
  return api_->get_num_threads();
}

void Backend::set_num_threads(int n) {
  MF_CHECK(has_thread_control(), NotImplementedError, "the '", name_,
           "' device plugin does not control its thread count (plugin ABI 1.1 set_num_threads)");
  check(api_->set_num_threads(n), "set_num_threads");
}

void Backend::init_device(int index) {
  MF_CHECK(index >= 0 && index < device_count_, RuntimeError, name_, ": invalid device index ", index, " (",
           device_count_, " device(s))");
  PerDevice& d = *devices_[index];
  std::call_once(d.once, [&] {
    check(api_->stream_create(index, &d.stream), "stream_create");
    const MFDevicePlugin* api = api_;
    d.allocator = std::make_unique<CachingAllocator>(
        str_cat(name_, ":", index),
        [api, index](size_t n, void** out) { return api->allocate(index, n, out); },
        [api, index](void* p) { api->deallocate(index, p); },
        [this, index] { synchronize_deferring_errors(index); },
        [api]() -> std::string {
          const char* m = api->last_error ? api->last_error() : nullptr;
          return m ? m : "";
        });
  });
}

MFStream Backend::stream(int index) {
  if (index < 0 || index >= device_count_ || !devices_[index]->allocator) init_device(index);
  return devices_[index]->stream;
}

CachingAllocator& Backend::allocator(int index) {
  if (index < 0 || index >= device_count_ || !devices_[index]->allocator) init_device(index);
  return *devices_[index]->allocator;
}

// Note [Deferred kernel errors]
//   stream_synchronize returns a kernel's error once and then forgets it. A
//   wait that is not a sync point of the user's program (a Storage freeing
//   borrowed memory, the allocator emptying its cache) must not swallow that
//   error, nor raise it from a destructor or an unrelated allocation: it is
//   parked here and thrown by the device's next synchronize(), so it reaches
//   Python at the next flow.synchronize()/.numpy()/.item() as if never taken.
//   Only the first error is kept, as a stream keeps only its first.
void Backend::synchronize(int index) {
  MFStream s = stream(index);
  MFStatus st = api_->stream_synchronize(index, s);
  PerDevice& d = *devices_[index];
  std::exception_ptr parked;
  {
    std::lock_guard<std::mutex> lock(d.error_mu);
    parked = std::move(d.deferred_error);
    d.deferred_error = nullptr;
  }
  if (parked) std::rethrow_exception(parked);  // older than any error `st` reports
  check_kernel_errors(*this, st, index);
}

void Backend::synchronize_deferring_errors(int index) noexcept {
  try {
    MFStream s = stream(index);
    MFStatus st = api_->stream_synchronize(index, s);
    if (st == MF_OK) {
      launch_log::mark_synced(this, index);
      return;
    }
    try {
      check_kernel_errors(*this, st, index);
    } catch (...) {
      PerDevice& d = *devices_[index];
      std::lock_guard<std::mutex> lock(d.error_mu);
      if (!d.deferred_error) d.deferred_error = std::current_exception();
    }
  } catch (...) {
    // The device itself is unusable (no stream): nothing to wait for.
  }
}

void Backend::synchronize_all() {
  for (int i = 0; i < device_count_; ++i)
    if (devices_[i]->allocator) synchronize(i);
}

MFKernelFn Backend::find_kernel(int op_id, DType in, DType out) const {
  const KernelSlot& slot = kernels_[op_id][static_cast<int>(in)];
  MFKernelFn fn = slot.by_out[static_cast<int>(out)];
  return fn ? fn : slot.any;
}

MFStatus Backend::add_kernel(const char* op_name, int32_t in_dtype, int32_t out_dtype, MFKernelFn fn) {
  int op = op_name ? find_op(op_name) : -1;
  if (op < 0 || !fn || in_dtype < 0 || in_dtype >= kNumDTypes || out_dtype < MF_DTYPE_ANY ||
      out_dtype >= kNumDTypes)
    return MF_ERR_INVALID_ARGUMENT;
  KernelSlot& slot = kernels_[op][in_dtype];
  if (out_dtype == MF_DTYPE_ANY)
    slot.any = fn;
  else
    slot.by_out[out_dtype] = fn;
  return MF_OK;
}

// ---------------------------------------------------------------- registry

DeviceRegistry& DeviceRegistry::get() {
  static DeviceRegistry* registry = [] {
    auto* r = new DeviceRegistry();  // never destroyed: see ~Backend
    // backends_ never reallocates: a deferred plugin loads while other threads look device types up
    // without the lock (Note [Deferred plugins]), so the vector's storage must not move under them
    r->backends_.reserve(kMaxBackends);
    return r;
  }();
  return *registry;
}

Backend& DeviceRegistry::backend(int16_t type_id) const {
  MF_CHECK(type_id >= 0 && static_cast<size_t>(type_id) < backends_.size(), RuntimeError,
           "no device type with id ", type_id, " (is the CPU plugin loaded?)");
  return *backends_[type_id];
}

Backend* DeviceRegistry::find(const std::string& name) const {
  for (auto& b : backends_)
    if (b->name() == name) return b.get();
  std::lock_guard<std::recursive_mutex> lock(deferred_mu_);
  for (auto& b : backends_)  // another thread's deferred load may have finished while this one waited
    if (b->name() == name) return b.get();
  if (deferred_.count(name) == 0) return nullptr;
  load_deferred_locked(name);
  for (auto& b : backends_)
    if (b->name() == name) return b.get();
  return nullptr;
}

void DeviceRegistry::load_deferred_locked(const std::string& name_ref) const {
  const std::string name = name_ref;  // a copy: the caller's may be the entry erased below
  auto it = deferred_.find(name);
  if (it == deferred_.end()) return;
  const std::string path = it->second;
  deferred_.erase(it);
  try {
    // load() is not const: it is the registry's, and find() is const only for its callers
    const std::string loaded = const_cast<DeviceRegistry*>(this)->load(path);
    if (loaded != name) deferred_failed_[name] = str_cat("'", path, "' provides device type '", loaded, "'");
  } catch (const std::exception& e) {
    deferred_failed_[name] = e.what();
  }
}

void DeviceRegistry::defer(const std::string& name, const std::string& path) {
  std::lock_guard<std::recursive_mutex> lock(deferred_mu_);
  for (auto& b : backends_)
    if (b->name() == name) return;  // already loaded (an explicit path won)
  deferred_failed_.erase(name);
  deferred_[name] = path;
}

void DeviceRegistry::load_deferred() {
  std::lock_guard<std::recursive_mutex> lock(deferred_mu_);
  while (!deferred_.empty()) {
    const std::string name = deferred_.begin()->first;  // a copy: the load erases the entry
    load_deferred_locked(name);
  }
}

std::string DeviceRegistry::deferred_failure(const std::string& name) const {
  std::lock_guard<std::recursive_mutex> lock(deferred_mu_);
  auto it = deferred_failed_.find(name);
  return it == deferred_failed_.end() ? std::string() : it->second;
}

std::vector<std::string> DeviceRegistry::names() const {
  std::vector<std::string> out;
  for (auto& b : backends_)
    if (!b->no_data()) out.push_back(b->name());
  return out;
}

namespace {
struct RegistrationContext {
  Backend* backend;
  int rejected = 0;
  std::string first_rejected;
};

MFStatus register_kernel_cb(void* registry, const char* op_name, int32_t in_dtype, int32_t out_dtype,
                            MFKernelFn fn) {
  auto* ctx = static_cast<RegistrationContext*>(registry);
  MFStatus st = ctx->backend->add_kernel(op_name, in_dtype, out_dtype, fn);
  if (st != MF_OK && ctx->rejected++ == 0) ctx->first_rejected = op_name ? op_name : "(null)";
  return st;
}

bool valid_type_name(const char* s) {
  if (!s || !*s || std::strlen(s) > 32) return false;
  for (const char* p = s; *p; ++p)
    if (!(std::islower(static_cast<unsigned char>(*p)) || std::isdigit(static_cast<unsigned char>(*p)) || *p == '_'))
      return false;
  return true;
}
}  // namespace

namespace {
// Note [Plugins keep the process's signal handlers]
//   A plugin's runtime may install handlers for fatal signals while it loads:
//   PoCL (the OpenCL plugin's) and the LLVM it compiles kernels with do, and
//   their handlers swallowed the first SIGSEGV/SIGFPE/SIGABRT of the whole
//   process afterwards (a DataLoader worker that crashed kept running, a
//   real integer division by zero returned garbage). The process's handlers
//   (Python's, faulthandler's, the defaults) are put back once load returns.
class SignalHandlersKept {
 public:
  SignalHandlersKept() {
    for (size_t i = 0; i < kCount; ++i) sigaction(kSignals[i], nullptr, &saved_[i]);
  }
  ~SignalHandlersKept() {
    for (size_t i = 0; i < kCount; ++i) sigaction(kSignals[i], &saved_[i], nullptr);
  }
  SignalHandlersKept(const SignalHandlersKept&) = delete;
  SignalHandlersKept& operator=(const SignalHandlersKept&) = delete;

 private:
  static constexpr int kSignals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGQUIT, SIGTRAP, SIGSYS,
                                     SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGUSR1, SIGUSR2, SIGCHLD};
  static constexpr size_t kCount = sizeof(kSignals) / sizeof(kSignals[0]);
  struct sigaction saved_[kCount];
};
}  // namespace

std::string DeviceRegistry::load(const std::string& path) {
  std::unique_lock<std::mutex> lock(mu_);
  SignalHandlersKept keep_signals;  // Note [Plugins keep the process's signal handlers]
  auto fail = [&](const std::string& why) -> RuntimeError {
    return RuntimeError(str_cat("cannot load device plugin '", path, "': ", why));
  };
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* err = dlerror();
    throw fail(err ? err : "dlopen failed");
  }
  // The same library again, maybe under another spelling of its path
  // (relative, symlink, "dir/./lib.so"): dlopen() hands back the same
  // handle, so loading it twice is a no-op whatever the string.
  for (auto& b : backends_)
    if (b->handle() == handle) {
      dlclose(handle);  // drop the reference this call added
      return b->name();
    }
  auto entry = reinterpret_cast<MFPluginEntryFn>(dlsym(handle, MF_PLUGIN_ENTRY_SYMBOL));
  if (!entry) {
    dlclose(handle);
    throw fail(str_cat("the library does not export '", MF_PLUGIN_ENTRY_SYMBOL, "'"));
  }
  const MFDevicePlugin* api = entry();
  // From here on the library stays loaded even on failure: it may have
  // started threads or registered atexit handlers that point into it.
  if (!api) throw fail(str_cat("'", MF_PLUGIN_ENTRY_SYMBOL, "' returned no plugin table"));
  if (api->struct_size < offsetof(MFDevicePlugin, abi_minor) + sizeof(api->abi_minor))
    throw fail("the plugin table is too small to hold a version");
  if (api->abi_major != MF_ABI_MAJOR)
    throw fail(str_cat("it was built for plugin ABI ", api->abi_major, ".", api->abi_minor,
                       " but this monoflow speaks ABI ", MF_ABI_MAJOR, ".", MF_ABI_MINOR,
                       "; rebuild the plugin against this monoflow's plugin.h"));
  if (!MF_HAS_FIELD(api, MFDevicePlugin, register_kernels))
    throw fail(str_cat("the plugin table (", api->struct_size, " bytes) lacks required entries"));
  if (!valid_type_name(api->device_type))
    throw fail("its device type name must be a short lower-case identifier");
  const void* required[] = {
      reinterpret_cast<const void*>(api->device_count),      reinterpret_cast<const void*>(api->get_properties),
      reinterpret_cast<const void*>(api->allocate),          reinterpret_cast<const void*>(api->deallocate),
      reinterpret_cast<const void*>(api->memcpy_h2d),        reinterpret_cast<const void*>(api->memcpy_d2h),
      reinterpret_cast<const void*>(api->memcpy_d2d),        reinterpret_cast<const void*>(api->memset),
      reinterpret_cast<const void*>(api->stream_create),     reinterpret_cast<const void*>(api->stream_destroy),
      reinterpret_cast<const void*>(api->stream_synchronize), reinterpret_cast<const void*>(api->stream_query),
      reinterpret_cast<const void*>(api->event_create),      reinterpret_cast<const void*>(api->event_destroy),
      reinterpret_cast<const void*>(api->event_record),      reinterpret_cast<const void*>(api->stream_wait_event),
      reinterpret_cast<const void*>(api->event_query),       reinterpret_cast<const void*>(api->event_synchronize),
      reinterpret_cast<const void*>(api->register_kernels)};
  for (const void* fn : required)
    if (!fn) throw fail("the plugin table has a null function pointer");
  std::string name = api->device_type;
  for (auto& b : backends_)
    if (b->name() == name) {
      if (b->path() == path) return name;  // loading the same library twice is a no-op
      throw fail(str_cat("device type '", name, "' is already provided by '", b->path(), "'"));
    }
  MF_CHECK(backends_.empty() ? name == "cpu" : true, RuntimeError,
           "cannot load device plugin '", path, "': the first plugin must be the CPU device");
  if (api->device_count() <= 0) throw fail("it reports no devices");

  if (backends_.size() + 1 >= kMaxBackends) throw fail(str_cat("at most ", kMaxBackends - 1, " device plugins can be loaded"));
  auto backend = std::make_unique<Backend>(static_cast<int16_t>(backends_.size()), path, handle, api);
  RegistrationContext ctx{backend.get(), 0, {}};
  MFHostApi host{sizeof(MFHostApi), MF_ABI_MAJOR, MF_ABI_MINOR, &ctx, &register_kernel_cb};
  MFStatus st = api->register_kernels(&host);
  if (st != MF_OK) {
    const char* msg = api->last_error ? api->last_error() : nullptr;
    throw fail(str_cat("register_kernels failed: ", msg && *msg ? msg : "unknown error"));
  }
  backends_.push_back(std::move(backend));
  if (backends_.size() == 1)  // the built-in meta device comes with the CPU
    backends_.push_back(std::make_unique<Backend>(1, "<built-in>", nullptr, meta_device_plugin(), true));
  // A plugin built for a newer core may know ops this core does not: not
  // fatal. Warned after registering and unlocking: the warning runs Python
  // code (which may call back into the registry, or raise when warnings are
  // errors) and must not undo a load that succeeded.
  lock.unlock();
  if (ctx.rejected)
    warn(str_cat("device plugin '", path, "': ignored ", ctx.rejected, " kernel registration(s) with an unknown op ",
                 "name or dtype, the first for op '", ctx.first_rejected, "'"));
  return name;
}

void DeviceRegistry::count_fallback(const Device& device, int op_id) {
  std::lock_guard<std::mutex> lock(mu_);
  ++fallbacks_[{device.type, op_id}];
}

std::map<std::pair<std::string, std::string>, int64_t> DeviceRegistry::fallback_counts() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::map<std::pair<std::string, std::string>, int64_t> out;
  for (auto& [key, n] : fallbacks_) out[{backends_[key.first]->name(), op_def(key.second).name}] = n;
  return out;
}

}  // namespace monoflow
