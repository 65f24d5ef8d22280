// What the fusion passes (pass_fuse_elementwise.cc, pass_fuse_epilogue.cc)
// share: which kernel calls are elementwise enough to fuse, the program a
// group of them computes (Note [Fused programs] in monoflow/fused_program.h),
// and when a group may become one node of the plan.
//
// Note [Fusing plan nodes]
//   A group of nodes becomes one node placed where its last member was, so
//   every earlier member moves later, past the non-members in between. That
//   is safe when none of those non-members writes bytes the member reads,
//   or reads or writes bytes it writes (byte ranges, as the dependencies are
//   computed; a host node counts like any other node with its operands).
//   Inside the group, values pass in registers: a member that reads exactly
//   the view an earlier member wrote (same storage, offset, dtype, shape,
//   strides) gets that member's value; a fill is a constant for any view of
//   its output. A view written by a member is stored by the fused node
//   unless it is *internal*: Transient memory that only members read and
//   write (Note [Storage classes]). Anything a member reads that no earlier
//   member wrote is an input of the fused node, broadcast to the group's
//   shape. An input may overlap an output only as the very same view (each
//   block of elements is loaded before it is stored); other overlaps, a
//   member reading a member's output through another view, and outputs
//   overlapping each other make the group invalid, as do more than 8
//   operands (what a node can pass) or registers.
#pragma once
#include <string>
#include <vector>

#include "monoflow/graph/plan.h"

namespace monoflow::graph::fusion {

// Who reads and writes each storage (node indices, ascending).
struct StorageUses {
  std::vector<std::vector<int>> readers, writers;
};
StorageUses storage_uses(const Plan& plan);

bool same_view(const PlanOperand& a, const PlanOperand& b);
bool overlaps(const PlanOperand& a, const PlanOperand& b);

// Removes copies whose source is a Transient result only the copy reads
// (one earlier writer, which wrote exactly the source's bytes), when
// `same_bytes(src, dst)` says byte k of the source is byte k + shift of the
// destination and nothing from the writer to the copy (the writer's inputs
// included) touches the destination: the writer then writes the
// destination directly, with its own view shifted. Returns how many went.
// (Note [Copy elision] in pass_fuse_elementwise.cc, Note [Memory planning]
// "Same-layout copies" in pass_memory.cc: two layout tests, one mechanism.)
size_t redirect_copies(Plan& plan, bool (*same_bytes)(const PlanOperand& src, const PlanOperand& dst));

// Whether `node` is an elementwise kernel call the fused kernels can run.
bool fusible(const PlanNode& node);
bool is_fill(const PlanNode& node);

// The program of a group, ready to become a node's operands and attributes.
struct Program {
  DType dtype = DType::Float32;  // the kernel dtype (floating)
  Dims shape;                    // every operand's shape
  std::vector<PlanOperand> inputs, outputs;
  std::vector<int64_t> code, output_regs, constants;
  int registers = 0;
};

// Builds the program of `members` (ascending node indices; all fusible).
// `preloaded` views count as program inputs 0, 1, ... before any other
// (the epilogue's product). Returns an empty string, or why the group
// cannot be fused (Note [Fusing plan nodes]). Does not check the placement.
std::string build_program(const Plan& plan, const StorageUses& uses, const std::vector<int>& members,
                          const std::vector<PlanOperand>& preloaded, Program& out);

// Whether members may all move to where the last of them is (Note [Fusing
// plan nodes]); `members` ascending.
bool can_place_at_last(const Plan& plan, const std::vector<int>& members);

// Note [Fusion must not hold memory longer]
//   Moving a member to the last member's place also moves its reads: a
//   Transient input whose last reader it was now lives until then. Across
//   a few neighbouring kernels that costs nothing, but a group can span a
//   whole forward and backward: gradient accumulation adds micro-batch k's
//   weight gradient into the sum right after it is made, and one fused
//   `g0 + g1 + ... + g7` at the end would keep all eight gradients alive
//   at once. So a group is refused when moving a member would stretch the
//   life of a Transient input (read by no non-member at or after the last
//   member) past a non-member that writes Transient memory, i.e. past a
//   point where new buffers are live. `members` ascending.
bool holds_memory_longer(const Plan& plan, const StorageUses& uses, const std::vector<int>& members);

// The attributes of a fused node (program, outputs, constants, registers).
void set_program_attrs(PlanNode& node, const Program& p);

// A kernel for (op, dtype) on the node's device, or on the CPU to fall back
// to (the node then keeps kernel == nullptr and replays through launch()).
bool has_kernel(const Device& device, int op_id, DType dtype, MFKernelFn* fn);

// Note [Fusing on a device without fused kernels]
//   A group fused on a device that has no fused kernel runs on the CPU, in
//   the CPU's fused kernel, which gives the CPU's unfused bits. That equals
//   the unfused plan only where the members ran on the CPU too (their own
//   kernel is the CPU fallback: a device with few kernels, as testdev) or
//   compute no arithmetic (fills, same-dtype copies). A member with a native
//   kernel (an OpenCL exp is not the CPU's exp, to the last bit) keeps the
//   group from forming: the plan then replays the device's own kernels, as
//   eager mode runs them, and stays on the device.
bool fuses_like_its_members(const PlanNode& node, MFKernelFn fused_kernel);

// Replaces each group (ascending members, disjoint) by `fused[g]`, placed at
// its last member; renumbers random_nodes. Nodes in no group stay as they are.
void replace_groups(Plan& plan, const std::vector<std::vector<int>>& groups, std::vector<PlanNode> fused);

}  // namespace monoflow::graph::fusion
