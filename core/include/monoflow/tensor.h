// Tensor: a strided view (shape, strides, offset, dtype) of a Storage.
#pragma once
#include <memory>
#include <string>

#include "monoflow/device.h"
#include "monoflow/dtype.h"
#include "monoflow/small_vector.h"
#include "monoflow/storage.h"

namespace monoflow {

struct TensorImpl;
using Tensor = std::shared_ptr<TensorImpl>;
namespace autograd {
struct AutogradMeta;
}

struct TensorImpl {
  std::shared_ptr<Storage> storage;
  Dims shape;
  Dims strides;        // in elements
  int64_t offset = 0;  // in elements
  DType dtype = DType::Float32;
  // A 0-dim tensor made from a Python number: type promotion counts it as
  // that number (PromotionState::add_scalar), like PyTorch's wrapped numbers.
  bool wrapped_number = false;
  // The local component of a global tensor (Note [Global shards]).
  bool global_shard = false;
  // Autograd state (autograd.h); null for tensors that never needed it.
  std::shared_ptr<autograd::AutogradMeta> autograd;
  // The tensor whose storage this view was made from (null when not a view),
  // so that an in-place op on the view can update the base's history.
  Tensor view_base;
  // Note [Inference tensors]: made inside inference_mode (views and detached
  // aliases inherit it from their base). Outside inference_mode such a tensor
  // may not be written in place, saved for backward or set to require grad.
  bool inference = false;

  int64_t dim() const { return static_cast<int64_t>(shape.size()); }
  int64_t numel() const;
  const Device& device() const { return storage->device; }
  bool is_contiguous() const;
  // Whether two indices of the tensor can address the same element (a
  // broadcast, stride-0 dimension); writing to such a tensor is refused.
  bool has_internal_overlap() const;
  void* data_ptr() const;  // address of element [0, ..., 0]
  int64_t version() const { return storage->version; }
  // Marks an in-place write (every in-place op: inline, the check only for inference tensors);
  // refuses an inference tensor outside inference_mode.
  void bump_version() {
    if (inference) check_inference_write();
    ++storage->version;
  }
  void check_inference_write() const;
};

Dims contiguous_strides(const Dims& shape);
int64_t shape_numel(const Dims& shape);
std::string shape_str(const Dims& shape);  // "[2, 3]"
// Wraps a possibly negative dim; IndexError mentioning `op` when out of range.
int64_t wrap_dim(int64_t dim, int64_t ndim, const char* op);

// Adds an op's tensor operand to a type promotion (a wrapped number as a number).
inline void add_operand(PromotionState& ps, const Tensor& t) {
  if (t->wrapped_number)
    ps.add_scalar(t->dtype);
  else
    ps.add_tensor(t->dtype, t->dim() == 0);
}

// The most dimensions a tensor may have. Kernels keep per-dim state on the
// stack (the CPU plugin sizes it by 64), so a tensor with more dims could be
// made but not computed on; empty() and make_view(), which every tensor
// passes through, refuse it up front instead.
constexpr size_t kMaxTensorDims = 64;

// New uninitialised contiguous tensor.
Tensor empty(const Dims& shape, DType dtype, Device device);
// A view sharing `base`'s storage; differentiable when base requires grad.
// `grad_name` names the view's backward node as torch does (TransposeBackward0, ...).
Tensor make_view(const Tensor& base, Dims shape, Dims strides, int64_t offset,
                 const char* grad_name = "ViewBackward0");

}  // namespace monoflow
