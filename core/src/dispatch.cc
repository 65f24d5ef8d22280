#include "monoflow/dispatch.h"

#include <mutex>
#include <set>

#include "monoflow/backend.h"
#include "monoflow/error.h"
#include "monoflow/global_shard.h"
#include "monoflow/graph/launch_hook.h"
#include "monoflow/launch_log.h"
#include "monoflow/profiler.h"

namespace monoflow {

namespace {
constexpr int kMaxOperands = 8;

WarningHandler& warning_handler() {
  static WarningHandler handler;
  return handler;
}

// Shapes/strides of every operand, with contiguous dims merged for
// elementwise ops so that kernels see the fewest, longest loops.
struct Layout {
  int n = 0;
  int ndim = 0;
  int64_t shape[kMaxOperands][16];
  int64_t strides[kMaxOperands][16];
};

bool build_coalesced(const Tensor* ops[], int n, Layout& out) {
  const Dims& shape = (*ops[0])->shape;
  if (shape.size() > 16) return false;
  out.n = n;
  int nd = 0;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1) continue;  // size-1 dims carry no iteration
    bool merge = nd > 0;
    for (int k = 0; k < n && merge; ++k)
      merge = out.strides[k][nd - 1] == (*ops[k])->strides[d] * shape[d];
    if (merge) {
      for (int k = 0; k < n; ++k) {
        out.shape[k][nd - 1] *= shape[d];
        out.strides[k][nd - 1] = (*ops[k])->strides[d];
      }
    } else {
      for (int k = 0; k < n; ++k) {
        out.shape[k][nd] = shape[d];
        out.strides[k][nd] = (*ops[k])->strides[d];
      }
      ++nd;
    }
  }
  out.ndim = nd;
  return true;
}

// "[[2, 3], [3]]": the operands' shapes, inputs then outputs, for the profiler.
std::string shapes_of(const LaunchArgs& a) {
  std::string s = "[";
  auto add = [&](const Tensor& t) {
    if (s.size() > 1) s += ", ";
    s += "[";
    for (size_t d = 0; d < t->shape.size(); ++d) s += (d ? ", " : "") + std::to_string(t->shape[d]);
    s += "]";
  };
  for (int i = 0; i < a.num_inputs; ++i) add(a.inputs[i]);
  for (int i = 0; i < a.num_outputs; ++i) add(a.outputs[i]);
  return s + "]";
}

MFTensorDesc desc_of(const Tensor& t) {
  return MFTensorDesc{t->data_ptr(), static_cast<int32_t>(t->dtype), static_cast<int32_t>(t->dim()),
                      t->shape.data(), t->strides.data()};
}

void call_kernel(Backend& be, const Device& dev, MFKernelFn fn, const LaunchArgs& a) {
  int n = a.num_inputs + a.num_outputs;
  MF_CHECK(n <= kMaxOperands, RuntimeError, a.op->name, ": too many operands");
  MFTensorDesc descs[kMaxOperands];
  const Tensor* ops[kMaxOperands];
  for (int i = 0; i < a.num_inputs; ++i) ops[i] = &a.inputs[i];
  for (int i = 0; i < a.num_outputs; ++i) ops[a.num_inputs + i] = &a.outputs[i];
  Layout layout;
  bool coalesced = a.coalesce && build_coalesced(ops, n, layout);
  for (int k = 0; k < n; ++k) {
    descs[k] = desc_of(*ops[k]);
    if (coalesced) {
      descs[k].ndim = layout.ndim;
      descs[k].shape = layout.shape[k];
      descs[k].strides = layout.strides[k];
    }
  }
  MFKernelCall call{sizeof(MFKernelCall), dev.index,  be.stream(dev.index), a.num_inputs, descs,
                    a.num_outputs,        descs + a.num_inputs, a.num_attrs,  a.attrs};
  profiler::Range row(profiler::Kind::Op, a.op->name);
  if (profiler::Event* e = row.event()) {
    e->correlation = call.trace_id = profiler::next_correlation();
    e->device = str_cat(be.name(), ":", dev.index);
    if (profiler::record_shapes()) e->shapes = shapes_of(a);
  }
  be.check(fn(&call), a.op->name);
  launch_log::record(&be, dev.index, a.op->name);
  if (launch_log::blocking()) be.synchronize(dev.index);  // the kernel's error is this op's
}

// Element span [0, extent) a strided view covers, relative to its first element.
int64_t extent_of(const Tensor& t) {
  if (t->numel() == 0) return 0;
  int64_t e = 1;
  for (size_t d = 0; d < t->shape.size(); ++d) e += (t->shape[d] - 1) * t->strides[d];
  return e;
}

// A CPU tensor with room for the bytes `t` covers, laid out with t's strides.
Tensor host_buffer_for(const Tensor& t) {
  Tensor host = empty(Dims{extent_of(t)}, t->dtype, Device{0, 0});
  host->shape = t->shape;
  host->strides = t->strides;
  return host;
}

// Copies the bytes `t` covers into `host` (from host_buffer_for(t)).
void fetch_to_host(Backend& be, const Tensor& t, const Tensor& host) {
  size_t bytes = static_cast<size_t>(extent_of(t)) * itemsize(t->dtype);
  if (!bytes) return;
  be.check(be.api().memcpy_d2h(t->device().index, be.stream(t->device().index), host->data_ptr(), t->data_ptr(),
                               bytes),
           "memcpy_d2h");
  be.synchronize(t->device().index);
}

void store_from_host(Backend& be, const Tensor& host, const Tensor& t) {
  size_t bytes = static_cast<size_t>(extent_of(t)) * itemsize(t->dtype);
  if (!bytes) return;
  be.check(be.api().memcpy_h2d(t->device().index, be.stream(t->device().index), t->data_ptr(), host->data_ptr(),
                               bytes),
           "memcpy_h2d");
  be.synchronize(t->device().index);  // the host buffer dies with this scope
}

void run_on_cpu_fallback(Backend& be, const Device& dev, const LaunchArgs& a, DType out_dtype) {
  Backend& cpu = DeviceRegistry::get().backend(0);
  MFKernelFn fn = cpu.find_kernel(a.op->id, a.kernel_dtype, out_dtype);
  MF_CHECK(fn, NotImplementedError, a.op->name, ": no kernel for dtype ", dtype_name(a.kernel_dtype), " on ",
           be.name(), " and none on the CPU to fall back to");
  static std::mutex mu;
  static std::set<std::pair<int, int>> warned;
  const std::pair<int, int> key{dev.type, a.op->id};
  bool first;
  {
    std::lock_guard<std::mutex> lock(mu);
    first = warned.insert(key).second;
  }
  if (first) {
    try {
      warn(str_cat(be.name(), " has no kernel for '", a.op->name, "' (", dtype_name(a.kernel_dtype),
                   "); running it on the CPU with copies (reported once per op)"));
    } catch (...) {
      // The warning became an error (a warnings filter): the op did not run,
      // so the next attempt must warn, and fail, again.
      std::lock_guard<std::mutex> lock(mu);
      warned.erase(key);
      throw;
    }
  }
  DeviceRegistry::get().count_fallback(dev, a.op->id);
  profiler::Range row(profiler::Kind::Fallback, a.op->name);
  if (profiler::Event* e = row.event()) e->device = str_cat(be.name(), ":", dev.index);

  Tensor hin[kMaxOperands], hout[kMaxOperands];
  for (int i = 0; i < a.num_inputs; ++i) hin[i] = host_buffer_for(a.inputs[i]);
  for (int i = 0; i < a.num_outputs; ++i) hout[i] = host_buffer_for(a.outputs[i]);
  // The host buffers come from the CPU's stream-ordered cache: a block freed
  // a moment ago may still be read or written by kernels queued on the CPU
  // stream (Note [Stream-ordered reuse]). The device's memcpy_d2h writes them
  // from outside that stream, so the CPU stream must be idle first. (An
  // error of an earlier CPU kernel stays for the CPU's next sync point.)
  cpu.synchronize_deferring_errors(0);
  for (int i = 0; i < a.num_inputs; ++i) fetch_to_host(be, a.inputs[i], hin[i]);
  for (int i = 0; i < a.num_outputs; ++i) fetch_to_host(be, a.outputs[i], hout[i]);
  LaunchArgs host_args = a;
  host_args.inputs = hin;
  host_args.outputs = hout;
  call_kernel(cpu, Device{0, 0}, fn, host_args);
  cpu.synchronize(0);
  for (int i = 0; i < a.num_outputs; ++i) store_from_host(be, hout[i], a.outputs[i]);
}

thread_local graph::LaunchHook* t_launch_hook = nullptr;

bool touches_host_visible(const LaunchArgs& a) {
  for (int i = 0; i < a.num_inputs; ++i)
    if (a.inputs[i]->storage->host_visible) return true;
  for (int i = 0; i < a.num_outputs; ++i)
    if (a.outputs[i]->storage->host_visible) return true;
  return false;
}
}  // namespace

void launch(int op_id, DType kernel_dtype, std::initializer_list<Tensor> inputs, const Tensor& out,
            std::initializer_list<MFAttr> attrs, bool coalesce) {
  LaunchArgs a{&op_def(op_id), kernel_dtype};
  a.inputs = inputs.begin();
  a.num_inputs = static_cast<int>(inputs.size());
  a.outputs = &out;
  a.num_outputs = 1;
  a.attrs = attrs.begin();
  a.num_attrs = static_cast<int>(attrs.size());
  a.coalesce = coalesce;
  launch(a);
}

MFAttr scalar_attr(const char* name, Scalar s) { return MFAttr{name, MF_ATTR_SCALAR, 1, s.i, s.f, nullptr}; }
MFAttr int_attr(const char* name, int64_t v) { return scalar_attr(name, Scalar::from_int(v)); }
MFAttr ints_attr(const char* name, const int64_t* v, int32_t count) {
  return MFAttr{name, MF_ATTR_INTS, count, 0, 0.0, v};
}
MFAttr float_attr(const char* name, double v) { return scalar_attr(name, Scalar::from_float(v)); }

void set_warning_handler(WarningHandler handler) { warning_handler() = std::move(handler); }

void warn(const std::string& message) {
  if (warning_handler())
    warning_handler()(message);
  else
    fprintf(stderr, "monoflow warning: %s\n", message.c_str());
}

namespace {
// An integer division (floor_divide, remainder, fmod) raises on a zero divisor from inside the
// kernel; on a device whose memory is the host's (the CPU) waiting for it reports the error at
// the call that divided, as torch does, instead of at a later, unrelated op (the wait is cheap
// there; a GPU's stream is not stalled for it).
bool integer_division(const LaunchArgs& a, const Backend& be) {
  return (a.op->id == kOp_floor_divide || a.op->id == kOp_remainder || a.op->id == kOp_fmod) &&
         !is_floating(a.kernel_dtype) && !is_complex(a.kernel_dtype) && be.host_memory();
}
}  // namespace

void launch(const LaunchArgs& a) {
  for (int i = 0; i < a.num_inputs; ++i) check_local(a.inputs[i], a.op->name);
  for (int i = 0; i < a.num_outputs; ++i) check_local(a.outputs[i], a.op->name);
  const Tensor& first = a.num_outputs ? a.outputs[0] : a.inputs[0];
  for (int i = 0; i < a.num_outputs; ++i)
    if (a.outputs[i]->numel() == 0) return;  // nothing to compute
  const Device& dev = first->device();
  Backend& be = DeviceRegistry::get().backend(dev);
  if (be.no_data()) return;  // the outputs' metadata is all there is (Note [The meta device])
  if (t_launch_hook && !t_launch_hook->on_launch(a)) return;  // a graph trace took the call
  DType out_dtype = a.num_outputs ? a.outputs[0]->dtype : a.kernel_dtype;
  if (MFKernelFn fn = be.find_kernel(a.op->id, a.kernel_dtype, out_dtype)) {
    call_kernel(be, dev, fn, a);
    if (integer_division(a, be)) {
      launch_log::OwnKernelWait own;
      be.synchronize(dev.index);
    } else if (touches_host_visible(a)) {
      be.synchronize(dev.index);  // Note [Host-visible memory]
    }
    return;
  }
  // torch's wording for complex, the dtypes most ops lack kernels for
  MF_CHECK(!dev.is_cpu() || !is_complex(a.kernel_dtype), NotImplementedError, a.op->name,
           "(): not implemented for '", dtype_torch_name(a.kernel_dtype), "'");
  MF_CHECK(!dev.is_cpu(), NotImplementedError, a.op->name, ": not implemented for dtype ",
           dtype_name(a.kernel_dtype), " on cpu");
  run_on_cpu_fallback(be, dev, a, out_dtype);
}

namespace graph {

LaunchHook* set_launch_hook(LaunchHook* hook) {
  LaunchHook* prev = t_launch_hook;
  t_launch_hook = hook;
  return prev;
}

void kernel_layout(const LaunchArgs& a, std::vector<Dims>& shapes, std::vector<Dims>& strides) {
  int n = a.num_inputs + a.num_outputs;
  MF_CHECK(n <= kMaxOperands, RuntimeError, a.op->name, ": too many operands");
  const Tensor* ops[kMaxOperands];
  for (int i = 0; i < a.num_inputs; ++i) ops[i] = &a.inputs[i];
  for (int i = 0; i < a.num_outputs; ++i) ops[a.num_inputs + i] = &a.outputs[i];
  Layout layout;
  bool coalesced = a.coalesce && build_coalesced(ops, n, layout);
  shapes.resize(n);
  strides.resize(n);
  for (int k = 0; k < n; ++k) {
    if (coalesced) {
      shapes[k] = Dims(layout.shape[k], layout.shape[k] + layout.ndim);
      strides[k] = Dims(layout.strides[k], layout.strides[k] + layout.ndim);
    } else {
      shapes[k] = (*ops[k])->shape;
      strides[k] = (*ops[k])->strides;
    }
  }
}

}  // namespace graph
}  // namespace monoflow
