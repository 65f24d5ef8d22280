#include "monoflow/generator.h"

#include <map>
#include <random>

namespace monoflow {

namespace {
uint64_t nondeterministic_seed() {
  std::random_device rd;
  return (static_cast<uint64_t>(rd()) << 32) ^ rd();
}
}  // namespace

void Generator::manual_seed(uint64_t seed) {
  std::lock_guard<std::mutex> lock(mu_);
  seed_ = seed;
  offset_ = 0;
}

uint64_t Generator::initial_seed() const {
  std::lock_guard<std::mutex> lock(mu_);
  return seed_;
}

uint64_t Generator::seed() {
  const uint64_t s = nondeterministic_seed();
  manual_seed(s);
  return s;
}

namespace {
thread_local ReserveObserver* t_reserve_observer = nullptr;
}

ReserveObserver* set_reserve_observer(ReserveObserver* observer) {
  ReserveObserver* prev = t_reserve_observer;
  t_reserve_observer = observer;
  return prev;
}

uint64_t Generator::reserve(uint64_t n, uint64_t* seed_out) {
  uint64_t start;
  {
    std::lock_guard<std::mutex> lock(mu_);
    start = offset_;
    offset_ += n;
    *seed_out = seed_;
  }
  if (t_reserve_observer) t_reserve_observer->on_reserve(*this, n, *seed_out, start);
  return start;
}

uint64_t Generator::offset() const {
  std::lock_guard<std::mutex> lock(mu_);
  return offset_;
}

void Generator::set_state(uint64_t seed, uint64_t offset) {
  std::lock_guard<std::mutex> lock(mu_);
  seed_ = seed;
  offset_ = offset;
}

namespace {
std::mutex g_mu;
std::map<std::pair<int, int>, GeneratorPtr>& generators() {
  static auto* m = new std::map<std::pair<int, int>, GeneratorPtr>();
  return *m;
}
// Each process starts from a seed of its own, as torch's default generators
// do: ranks of a job and runs of a script that never call manual_seed draw
// different numbers (a new Generator object still starts at its fixed seed).
uint64_t g_seed = nondeterministic_seed();
}  // namespace

GeneratorPtr default_generator(Device device) {
  std::lock_guard<std::mutex> lock(g_mu);
  auto& slot = generators()[{device.type, device.index}];
  if (!slot) slot = std::make_shared<Generator>(g_seed);
  return slot;
}

void manual_seed_all(uint64_t seed) {
  std::lock_guard<std::mutex> lock(g_mu);
  g_seed = seed;
  for (auto& [key, gen] : generators()) gen->manual_seed(seed);
}

}  // namespace monoflow
