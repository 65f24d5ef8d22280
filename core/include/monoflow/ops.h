// The C++ op API: what the bindings call. Each function validates its
// arguments (errors name the op), picks dtypes and shapes and dispatches.
#pragma once
#include <optional>

#include "monoflow/op_registry.h"
#include "monoflow/scalar.h"
#include "monoflow/tensor.h"

namespace monoflow {

// creation
Tensor full(const Dims& shape, Scalar value, DType dtype, Device device);
Tensor arange(Scalar start, Scalar end, Scalar step, std::optional<DType> dtype, Device device);
Tensor from_host(const void* src, const Dims& shape, DType dtype, Device device);

// copies and conversions
Tensor to(const Tensor& t, Device device, DType dtype, bool copy);
Tensor contiguous(const Tensor& t);
Tensor cast(const Tensor& t, DType dtype);  // t itself when it already has dtype
Tensor clone(const Tensor& t);
void copy_(const Tensor& dst, const Tensor& src);  // broadcasts; any devices and dtypes
// Refuses a value the dtype can't hold, as PyTorch does ("value cannot be
// converted to type int8 without overflow"); `check_range` false lets an
// integer value wrap and a float one round to inf (for internal operands).
void fill_(const Tensor& t, Scalar value, bool check_range = true);
// Synchronises and copies t's elements, contiguous, to host memory.
void copy_to_host(const Tensor& t, void* dst);
Scalar item(const Tensor& t);
void synchronize(Device device);
// Moves t's whole storage to `device` in place: t and every view of it
// (their device is their storage's) now address the new memory, and the old
// memory is freed. OneFlow's Tensor.offload()/load() (Note [Offloaded storage]).
void relocate_storage(const Tensor& t, Device device);

// elementwise
Tensor binary(int op, const Tensor& a, const Tensor& b);
void binary_(int op, const Tensor& self, const Tensor& b);
Tensor binary_scalar(int op, const Tensor& a, Scalar s);
void binary_scalar_(int op, const Tensor& self, Scalar s);
Tensor unary(int op, const Tensor& x);
// A Python number as a 0-dim tensor operand for ops that have no scalar form
// (floor_divide, comparisons): on `other`'s device, of the dtype `other` and
// the number promote to, so that, like PyTorch's wrapped numbers, it never
// raises the result dtype above what a scalar operand would give.
Tensor scalar_operand(const Tensor& other, Scalar s);

// reductions; empty dims = all dims
Tensor sum(const Tensor& x, const Dims& dims, bool keepdim, std::optional<DType> dtype);

// linear algebra
Tensor matmul(const Tensor& a, const Tensor& b);

// views (share storage)
Tensor view(const Tensor& t, const Dims& shape);
Tensor reshape(const Tensor& t, const Dims& shape);
Tensor transpose(const Tensor& t, int64_t d0, int64_t d1);
Tensor permute(const Tensor& t, const Dims& dims);
Tensor expand(const Tensor& t, const Dims& shape);
Tensor squeeze(const Tensor& t, std::optional<int64_t> dim);
Tensor unsqueeze(const Tensor& t, int64_t dim);
Tensor narrow(const Tensor& t, int64_t dim, int64_t start, int64_t length);
Tensor slice(const Tensor& t, int64_t dim, std::optional<int64_t> start, std::optional<int64_t> stop,
             int64_t step);
Tensor select(const Tensor& t, int64_t dim, int64_t index);
Tensor unfold(const Tensor& t, int64_t dim, int64_t size, int64_t step);
Tensor flatten(const Tensor& t, int64_t start, int64_t end);
Tensor as_strided(const Tensor& t, const Dims& shape, const Dims& strides, int64_t offset);

// Shape helpers shared by ops.
Dims broadcast_shapes(const Dims& a, const Dims& b, const char* op);
// In-place ops: the shape `other` broadcasts to against `self`, which must be self's shape. The errors
// name the in-place op and give torch's wording, then OneFlow's.
Dims inplace_broadcast_shape(const char* op, const Tensor& self, const Dims& other);
void check_inplace_shape(const char* op, const Tensor& self, const Dims& shape);
Dims infer_view_shape(const Dims& shape, int64_t numel, const char* op);  // resolves one -1
// Memory overlap of two tensors, as PyTorch classifies it: No, Full (the same
// elements in the same order), Partial, or TooHard (one of them is not dense,
// so an overlap of their extents says nothing about their elements).
enum class Overlap { No, Full, Partial, TooHard };
Overlap overlap(const Tensor& a, const Tensor& b);

// Checks of an in-place op `op`_ (messages name it with the underscore):
// self must not have elements sharing memory, and an input sharing memory
// with self is refused on partial overlap and read from a copy when the
// overlap cannot be decided (one of them is not dense), as in copy_.
void check_writable(const char* op, const Tensor& self);
// The result type of an in-place op must cast to self's dtype.
void check_result_castable(const char* op, DType result, DType self);
Tensor unaliased(const char* op, const Tensor& self, const Tensor& input);

}  // namespace monoflow
