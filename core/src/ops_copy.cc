// Creation, copies between layouts, dtypes and devices, and host transfers.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <utility>
#include <vector>

#include "monoflow/backend.h"
#include "monoflow/dispatch.h"
#include "monoflow/autograd.h"
#include "monoflow/error.h"
#include "monoflow/graph/trace.h"
#include "monoflow/half.h"
#include "monoflow/ops.h"

namespace monoflow {

namespace {

// Moves the bytes of contiguous `src` into contiguous `dst` of equal size on
// another device; synchronous with respect to the host.
void transfer(const Tensor& dst, const Tensor& src) {
  size_t bytes = static_cast<size_t>(src->numel()) * itemsize(src->dtype);
  if (!bytes) return;
  auto& reg = DeviceRegistry::get();
  Backend& sb = reg.backend(src->device());
  Backend& db = reg.backend(dst->device());
  // A copy between devices is a memcpy, not a kernel: a graph trace does not
  // record it, so its replays would return the traced values. Copies of
  // values a device computed are refused; copies from host memory pass (the
  // graph's constants, e.g. index lists), so an input on the host moved to a
  // device inside the trace would be frozen: see docs/graph_runtime.md.
  MF_CHECK(!graph::tracing() || sb.host_memory(), RuntimeError, "copy from ", src->device().str(), " to ",
           dst->device().str(), ": copies of device values inside a graph trace are not supported yet; move the "
           "data before the graph or after it");
  int si = src->device().index, di = dst->device().index;
  if (sb.host_memory()) {
    sb.synchronize(si);
    db.check(db.api().memcpy_h2d(di, db.stream(di), dst->data_ptr(), src->data_ptr(), bytes), "memcpy_h2d");
    db.synchronize(di);
  } else if (db.host_memory()) {
    db.synchronize(di);
    sb.check(sb.api().memcpy_d2h(si, sb.stream(si), dst->data_ptr(), src->data_ptr(), bytes), "memcpy_d2h");
    sb.synchronize(si);
  } else {  // device -> host staging buffer -> device
    Tensor staging = empty(src->shape, src->dtype, Device{0, 0});
    transfer(staging, src);
    transfer(dst, staging);
  }
}
// Whether t's elements cover [offset, offset + numel) exactly once, in any
// order of dims (PyTorch's is_non_overlapping_and_dense).
bool non_overlapping_and_dense(const Tensor& t) {
  struct Dim {
    int64_t stride, size;
  };
  SmallVector<Dim, 8> dims;
  for (size_t d = 0; d < t->shape.size(); ++d)
    if (t->shape[d] != 1) dims.push_back({t->strides[d], t->shape[d]});
  std::sort(dims.begin(), dims.end(), [](const Dim& x, const Dim& y) { return x.stride < y.stride; });
  int64_t expected = 1;
  for (const Dim& d : dims) {
    if (d.stride != expected) return false;
    expected *= d.size;
  }
  return true;
}
}  // namespace

void check_writable(const char* op, const Tensor& self) {
  MF_CHECK(!self->has_internal_overlap(), RuntimeError, op,
           "_: unsupported operation: more than one element of the written-to tensor refers to a single memory "
           "location. Please clone() the tensor before performing the operation.");
}

void check_result_castable(const char* op, DType result, DType self) {
  MF_CHECK(can_cast(result, self), RuntimeError, op, "_: result type ", dtype_torch_name(result),
           " can't be cast to the desired output type ", dtype_torch_name(self));
}

Tensor unaliased(const char* op, const Tensor& self, const Tensor& input) {
  Overlap ov = overlap(self, input);
  MF_CHECK(ov != Overlap::Partial, RuntimeError, op,
           "_: unsupported operation: some elements of the input tensor and the written-to tensor refer to a "
           "single memory location. Please clone() the tensor before performing the operation.");
  return ov == Overlap::TooHard ? clone(input) : input;
}

namespace {
// Whether a and b (same storage and offset range) address the same elements in
// the same order: the dims of size > 1 agree in size and stride. A size-1 dim's
// stride is never used, and views made by different routes (x[:, :k] by
// getitem or by index_put's target) may leave different values there.
bool same_elements(const Tensor& a, const Tensor& b) {
  if (a->offset != b->offset) return false;
  auto used = [](const Tensor& t) {
    std::vector<std::pair<int64_t, int64_t>> dims;
    for (size_t d = 0; d < t->shape.size(); ++d)
      if (t->shape[d] != 1) dims.emplace_back(t->shape[d], t->strides[d]);
    return dims;
  };
  return used(a) == used(b);
}
}  // namespace

Overlap overlap(const Tensor& a, const Tensor& b) {
  if (a->numel() == 0 || b->numel() == 0 || a->storage != b->storage) return Overlap::No;
  auto byte_range = [](const Tensor& t) {
    int64_t hi = t->offset;
    for (size_t d = 0; d < t->shape.size(); ++d) hi += (t->shape[d] - 1) * t->strides[d];
    int64_t size = static_cast<int64_t>(itemsize(t->dtype));
    return std::make_pair(t->offset * size, (hi + 1) * size);
  };
  auto ra = byte_range(a), rb = byte_range(b);
  if (!(ra.first < rb.second && rb.first < ra.second)) return Overlap::No;
  if (!non_overlapping_and_dense(a) || !non_overlapping_and_dense(b)) return Overlap::TooHard;
  if (ra == rb && same_elements(a, b)) return Overlap::Full;
  return Overlap::Partial;
}

Tensor full(const Dims& shape, Scalar value, DType dtype, Device device) {
  Tensor t = empty(shape, dtype, device);
  fill_(t, value);
  return t;
}

namespace {
// PyTorch's c10::overflows: integers take values in their range (uint8 also
// negative ones down to -255, which wrap), a float converts to an integer
// only when it lies in the range (no NaN or inf), float32 refuses finite
// doubles beyond its range; bool, float16, bfloat16 and float64 take anything.
void check_value_fits(DType dt, Scalar v, const char* op) {
  bool ok = true;
  if (dt == DType::Float32) {
    ok = v.kind != Scalar::Float || !std::isfinite(v.f) || std::fabs(v.f) <= 3.4028234663852886e38;
  } else if (is_integral(dt, false)) {
    int64_t lo = 0, hi = 0;
    switch (dt) {
      case DType::UInt8: lo = 0, hi = 255; break;
      case DType::Int8: lo = -128, hi = 127; break;
      case DType::Int16: lo = -32768, hi = 32767; break;
      case DType::Int32: lo = INT32_MIN, hi = INT32_MAX; break;
      default: lo = INT64_MIN, hi = INT64_MAX; break;
    }
    if (v.kind == Scalar::Float)  // (2^63 is the first double above INT64_MAX; NaN fails both tests)
      ok = v.f >= static_cast<double>(lo) && (dt == DType::Int64 ? v.f < 0x1p63 : v.f <= static_cast<double>(hi));
    else if (dt == DType::UInt8)
      ok = v.i <= hi && v.i >= -hi;
    else
      ok = v.i >= lo && v.i <= hi;
  }
  if (!ok) {
    if (v.kind == Scalar::Float)
      throw RuntimeError(str_cat(op, ": value ", v.f, " cannot be converted to type ", dtype_name(dt),
                                 " without overflow"));
    throw RuntimeError(str_cat(op, ": value ", v.i, " cannot be converted to type ", dtype_name(dt),
                               " without overflow"));
  }
}
}  // namespace

void fill_(const Tensor& t, Scalar value, bool check_range) {
  check_writable("fill", t);
  if (check_range) check_value_fits(t->dtype, value, "fill_");
  autograd::Recorder rec(autograd::Recorder::InPlace{}, "fill", {t});
  if (rec) {
    fill_(t, value, false);
    rec.finish_inplace(t, [](const autograd::TensorList&, autograd::NeedsGrad) -> autograd::TensorList {
      return {nullptr};
    });
    return;
  }
  if (t->dtype == DType::Bool) value = Scalar::from_bool(value.f != 0.0 || value.i != 0);
  launch(kOp_fill, t->dtype, {}, t, {scalar_attr("value", value)}, /*coalesce=*/true);
  t->bump_version();
}

Tensor arange(Scalar start, Scalar end, Scalar step, std::optional<DType> dtype, Device device) {
  bool any_float = start.kind == Scalar::Float || end.kind == Scalar::Float || step.kind == Scalar::Float;
  DType dt = dtype ? *dtype : any_float ? default_float_dtype() : DType::Int64;
  if (!is_floating(dt)) {
    // An integer arange runs on the bounds and step truncated to integers
    // (as PyTorch does for int64): arange(0, 5, 0.5, dtype=int64) has step 0.
    start = Scalar::from_int(start.i);
    end = Scalar::from_int(end.i);
    step = Scalar::from_int(step.i);
  }
  MF_CHECK(step.f != 0.0, RuntimeError, "arange: step must be nonzero");
  double n = std::ceil((end.f - start.f) / step.f);
  MF_CHECK(std::isfinite(n), RuntimeError, "arange: unsupported range: ", start.f, " -> ", end.f);
  MF_CHECK((step.f > 0 && end.f >= start.f) || (step.f < 0 && end.f <= start.f), RuntimeError,
           "arange: upper bound and larger bound inconsistent with step sign");
  Tensor t = empty(Dims{static_cast<int64_t>(std::max(n, 0.0))}, dt, device);
  launch(kOp_arange, dt, {}, t, {scalar_attr("start", start), scalar_attr("step", step)});
  return t;
}

Tensor from_host(const void* src, const Dims& shape, DType dtype, Device device) {
  Tensor t = empty(shape, dtype, device);
  size_t bytes = static_cast<size_t>(t->numel()) * itemsize(dtype);
  if (!bytes) return t;
  Backend& b = DeviceRegistry::get().backend(device);
  MFStream stream = b.stream(device.index);
  if (b.host_memory() && !b.no_data() && b.api().stream_query(device.index, stream) == MF_OK) {
    // Nothing queued can still touch the new block (Note [Stream-ordered reuse]): copy
    // here rather than hand the copy to the stream and wait for it (a thread round trip,
    // ~10 us, most of torch.tensor(list)'s cost).
    std::memcpy(t->data_ptr(), src, bytes);
    return t;
  }
  b.check(b.api().memcpy_h2d(device.index, stream, t->data_ptr(), src, bytes), "memcpy_h2d");
  b.synchronize(device.index);  // `src` belongs to the caller
  return t;
}

void copy_(const Tensor& dst, const Tensor& src) {
  check_writable("copy", dst);
  // clone, contiguous, to and cast are differentiable through this one.
  autograd::Recorder rec(autograd::Recorder::InPlace{}, "CopyBackwards", {dst, src});
  if (rec) {
    copy_(dst, src);
    rec.finish_inplace(dst, [dev = src->device(), dt = src->dtype](const autograd::TensorList& g,
                                                                  autograd::NeedsGrad) -> autograd::TensorList {
      return {nullptr, to(g[0], dev, dt, false)};
    });
    return;
  }
  Tensor s = expand(src, dst->shape);
  if (dst->numel() == 0) {
    dst->bump_version();  // an in-place op, if one without effect
    return;
  }
  // A kernel copying element by element would read elements it has already
  // overwritten (x[1:].copy_(x[:-1])): refused as in PyTorch when both sides
  // are dense; when one is not, their elements may interleave without
  // overlapping (x[::2] and x[1::2]), so the source is copied out first.
  Overlap ov = overlap(dst, src);
  MF_CHECK(ov != Overlap::Partial, RuntimeError,
           "copy_: unsupported operation: some elements of the input tensor and the written-to tensor refer to a "
           "single memory location. Please clone() the tensor before performing the operation.");
  if (ov == Overlap::TooHard) s = expand(clone(src), dst->shape);
  if (dst->device() != s->device()) {
    Tensor staged = empty(s->shape, s->dtype, dst->device());
    transfer(staged, contiguous(s));
    s = staged;
  }
  if (s->storage == dst->storage && s->offset == dst->offset && s->strides == dst->strides &&
      s->dtype == dst->dtype) {
    dst->bump_version();
    return;  // copying a tensor onto itself
  }
  launch(kOp_copy, s->dtype, {s}, dst, {}, /*coalesce=*/true);
  dst->bump_version();
}

Tensor cast(const Tensor& t, DType dtype) { return t->dtype == dtype ? t : to(t, t->device(), dtype, false); }

Tensor contiguous(const Tensor& t) {
  if (t->is_contiguous()) return t;
  return clone(t);
}

Tensor clone(const Tensor& t) {
  Tensor out = empty(t->shape, t->dtype, t->device());
  copy_(out, t);
  return out;
}

Tensor to(const Tensor& t, Device device, DType dtype, bool copy) {
  if (!copy && device == t->device() && dtype == t->dtype) return t;
  Tensor out = empty(t->shape, dtype, device);
  if (device == t->device() || dtype == t->dtype) {
    copy_(out, t);
  } else {  // move first, then cast on the destination
    Tensor moved = empty(t->shape, t->dtype, device);
    copy_(moved, t);
    copy_(out, moved);
  }
  return out;
}

void copy_to_host(const Tensor& t, void* dst) {
  Tensor c = contiguous(t);
  size_t bytes = static_cast<size_t>(c->numel()) * itemsize(c->dtype);
  if (!bytes) return;
  Backend& b = DeviceRegistry::get().backend(c->device());
  int i = c->device().index;
  if (b.host_memory()) {
    b.synchronize(i);
    std::memcpy(dst, c->data_ptr(), bytes);
  } else {
    b.check(b.api().memcpy_d2h(i, b.stream(i), dst, c->data_ptr(), bytes), "memcpy_d2h");
    b.synchronize(i);
  }
}

Scalar item(const Tensor& t) {
  MF_CHECK(t->numel() == 1, RuntimeError, "item: a Tensor with ", t->numel(),
           " elements cannot be converted to Scalar");
  alignas(8) unsigned char buf[8];
  copy_to_host(t, buf);
  switch (t->dtype) {
    case DType::Bool: return Scalar::from_bool(buf[0] != 0);
    case DType::UInt8: return Scalar::from_int(*reinterpret_cast<uint8_t*>(buf));
    case DType::Int8: return Scalar::from_int(*reinterpret_cast<int8_t*>(buf));
    case DType::Int16: return Scalar::from_int(*reinterpret_cast<int16_t*>(buf));
    case DType::Int32: return Scalar::from_int(*reinterpret_cast<int32_t*>(buf));
    case DType::Int64: return Scalar::from_int(*reinterpret_cast<int64_t*>(buf));
    case DType::Float16: return Scalar::from_float(mf_half_to_float(*reinterpret_cast<uint16_t*>(buf)));
    case DType::BFloat16: return Scalar::from_float(mf_bfloat16_to_float(*reinterpret_cast<uint16_t*>(buf)));
    case DType::Float32: return Scalar::from_float(*reinterpret_cast<float*>(buf));
    case DType::Float64: return Scalar::from_float(*reinterpret_cast<double*>(buf));
  }
  throw RuntimeError("item: unknown dtype");
}

void synchronize(Device device) { DeviceRegistry::get().backend(device).synchronize(device.index); }

void relocate_storage(const Tensor& t, Device device) {
  Storage& st = *t->storage;
  if (st.device == device) return;
  MF_CHECK(!graph::tracing(), RuntimeError, "offload/load: a tensor's memory cannot move inside a graph trace");
  // The whole storage as one byte tensor, so bytes outside t's view move too.
  auto whole = std::make_shared<TensorImpl>();
  whole->storage = t->storage;
  whole->shape = {static_cast<int64_t>(st.nbytes)};
  whole->strides = {1};
  whole->dtype = DType::UInt8;
  Tensor moved = empty(whole->shape, DType::UInt8, device);
  transfer(moved, whole);  // synchronous: no queued kernel still uses the old memory
  st.swap_memory(*moved->storage);  // `moved` frees the old memory on its device when it goes
  st.retire_if_exported(moved->storage);  // (unless a numpy array still views it)
}

}  // namespace monoflow
