// Generator: the state of a counter-based random stream (Philox4x32-10).
//
// Note [Reproducible randomness]
//   A random op reserves `n` counters from its generator and passes (seed,
//   offset) to the kernel; element i of the output is a pure function of
//   (seed, offset + i). Results therefore do not depend on the device's
//   thread count or on how a kernel splits its work, and the same seed gives
//   the same numbers on every device that implements the same function.
//
// Note [Random kernels in graph traces]
//   A traced random kernel must draw fresh (seed, offset) at every replay, from
//   the generator it drew from while traced. The trace learns which one, and
//   how many counters, by observing reserve() on the tracing thread; it keeps
//   the generator alive through shared_from_this.
//
// Note [Shared random draws]
//   Eager code may put a generator back and draw the same counters again:
//   activation checkpointing restores the state before it recomputes a
//   block in backward, so dropout redraws the forward's mask, and then
//   restores the later state, so the generator's net advance is the
//   forward's draws only. A trace sees this as a reservation whose
//   (generator, seed, offset, count) repeats one an earlier random kernel
//   of the same trace claimed; it records the later kernel as using that
//   earlier draw (TracedCall/PlanNode::random_draw). At each iteration the
//   runtime reserves fresh counters once per draw, at the draw's first node
//   in node order, and gives every node of the draw the same (seed,
//   offset): the numbers repeat as eagerly, and the generator advances as
//   eagerly. A reservation that overlaps an earlier one only in part has no
//   such replay and is refused. Passes keep such nodes as they keep every
//   random kernel (and never merge two of them).
#pragma once
#include <cstdint>
#include <memory>
#include <mutex>

#include "monoflow/device.h"

namespace monoflow {

class Generator : public std::enable_shared_from_this<Generator> {
 public:
  explicit Generator(uint64_t seed = 67280421310721ull) : seed_(seed) {}
  void manual_seed(uint64_t seed);
  uint64_t initial_seed() const;
  uint64_t seed();  // reseeds from a non-deterministic source; returns the seed
  // Returns the first counter of a block of n and advances past it.
  uint64_t reserve(uint64_t n, uint64_t* seed_out);
  uint64_t offset() const;
  void set_state(uint64_t seed, uint64_t offset);

 private:
  mutable std::mutex mu_;
  uint64_t seed_;
  uint64_t offset_ = 0;
};

using GeneratorPtr = std::shared_ptr<Generator>;

class ReserveObserver {
 public:
  virtual ~ReserveObserver() = default;
  virtual void on_reserve(Generator& gen, uint64_t n, uint64_t seed, uint64_t offset) = 0;
};
// The observer of reserve() calls on the calling thread (null: none); returns the previous one.
ReserveObserver* set_reserve_observer(ReserveObserver* observer);

// One default generator per device type and index.
GeneratorPtr default_generator(Device device);
// Seeds every default generator (monoflow.manual_seed).
void manual_seed_all(uint64_t seed);

}  // namespace monoflow
