// All-reduce and barrier through shared memory between the ranks of one host
// (Note [Shared-memory all-reduce]).
//
// Note [Shared-memory all-reduce]
//   When every rank of a group runs on the same host (same hostname and boot
//   id, exchanged through the group's store), the group's engine is wrapped:
//   all_reduce and barrier go through one POSIX shared-memory segment, the
//   rest through the engine. Loopback TCP costs two kernel copies per byte
//   and a wake-up per message; here a rank copies its input into its slot,
//   reduces its 1/N of the chunk from every slot, and copies the result back.
//   - Segment: N arrival counters (one cache line each), then two buffer sets
//     (chunks alternate between them) of N input slots and one result slot of
//     kChunk bytes. Chunk k: write input into set k%2, arrive (2k+1), wait for
//     everyone's 2k+1, reduce this rank's part of every slot into the result
//     slot (rank order: every rank computes the same bits), arrive (2k+2), wait
//     for 2k+2, copy the result out. Writing set k%2 again at chunk k+2 is safe:
//     every rank passed arrival 2(k+1)+1, after it copied chunk k out.
//   - Waiting spins briefly, then yields; past the group's timeout it raises,
//     naming the ranks that did not arrive, and a rank whose process is gone
//     (kill(pid, 0)) is reported at once. The counters only grow, so a
//     failed call leaves the segment unusable: later calls raise too.
//   - Rank 0 creates the segment and unlinks its name as soon as every rank
//     has mapped it, so nothing is left in /dev/shm after a crash.
//   - Each call first publishes (count, dtype, op) beside the rank's counter and
//     checks everyone's between two arrivals: ranks passing different sizes or
//     dtypes made the chunk loops pair the wrong bytes (garbage, then every
//     later call out of step); now every rank raises the same error and the
//     group stays usable.
//   MONOFLOW_SHM_COLLECTIVES=0 turns it off.
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <thread>

#include "monoflow/collective/shm_all_reduce.h"

namespace monoflow::collective {
namespace {

constexpr size_t kLine = 64;
constexpr size_t kChunk = size_t(1) << 20;  // bytes per slot

struct alignas(kLine) Arrival {
  std::atomic<uint64_t> count;
  int32_t pid;
  uint32_t sig_aux;    // this rank's all_reduce call: dtype and op ...
  uint64_t sig_count;  // ... and element count (Note [Shared-memory all-reduce])
};

std::string host_identity() {
  char name[256] = {0};
  ::gethostname(name, sizeof(name) - 1);
  std::string boot;
  std::ifstream f("/proc/sys/kernel/random/boot_id");
  std::getline(f, boot);
  return std::string(name) + "/" + boot;
}

Bytes to_bytes(const std::string& s) { return Bytes(s.begin(), s.end()); }
std::string from_bytes(const Bytes& b) { return std::string(b.begin(), b.end()); }

class ShmCommunicator final : public Communicator {
 public:
  ShmCommunicator(std::unique_ptr<Communicator> inner, std::shared_ptr<Store> store, Millis timeout)
      : Communicator(inner->rank(), inner->size()), inner_(std::move(inner)), timeout_(timeout) {
    const int n = size_;
    bytes_ = kLine * n + 2 * (n + 1) * kChunk;
    std::string name;
    if (rank_ == 0) {
      std::random_device rd;
      name = "/monoflow-" + std::to_string(::getpid()) + "-" + std::to_string(rd());
      int fd = ::shm_open(name.c_str(), O_CREAT | O_EXCL | O_RDWR, 0600);
      if (fd < 0) throw CommError("shared-memory collectives: shm_open(" + name + ") failed: " + std::strerror(errno));
      if (::ftruncate(fd, static_cast<off_t>(bytes_)) != 0) {
        ::close(fd);
        ::shm_unlink(name.c_str());
        throw CommError("shared-memory collectives: cannot size the segment: " + std::string(std::strerror(errno)));
      }
      map(fd, name);
      store->set("shm/name", to_bytes(name));
    } else {
      store->wait({"shm/name"}, timeout);
      name = from_bytes(store->get("shm/name"));
      int fd = ::shm_open(name.c_str(), O_RDWR, 0600);
      if (fd < 0) throw CommError("shared-memory collectives: cannot open rank 0's segment " + name + ": " +
                                  std::strerror(errno));
      map(fd, name);
    }
    arrivals()[rank_].pid = static_cast<int32_t>(::getpid());
    // Everyone mapped it: the name can go (the mapping stays).
    store->add("shm/mapped", 1);
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (store->add("shm/mapped", 0) < n) {
      if (std::chrono::steady_clock::now() > deadline)
        throw CommError("shared-memory collectives: not every rank mapped the segment in time");
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    if (rank_ == 0) ::shm_unlink(name.c_str());
  }

  ~ShmCommunicator() override {
    if (base_) ::munmap(base_, bytes_);
  }

  const char* backend() const override { return inner_->backend(); }

 protected:
  void do_all_reduce(void* buf, size_t count, DType dtype, ReduceOp op) override {
    check_same_call(count, dtype, op);
    if (count == 0) return;
    const size_t item = itemsize(dtype);
    const size_t per_chunk = kChunk / item;
    const ReduceOp elem_op = op == ReduceOp::Avg ? ReduceOp::Sum : op;
    char* data = static_cast<char*>(buf);
    for (size_t done = 0; done < count; done += per_chunk) {
      const size_t m = std::min(per_chunk, count - done);
      char* set = sets() + (step_ / 2 % 2) * (size_ + 1) * kChunk;
      std::memcpy(set + rank_ * kChunk, data + done * item, m * item);
      arrive_and_wait("all_reduce");
      // this rank's part of the chunk: [lo, hi)
      const size_t lo = m * rank_ / size_, hi = m * (rank_ + 1) / size_;
      if (hi > lo) {
        char* out = set + size_ * kChunk + lo * item;
        std::memcpy(out, set + lo * item, (hi - lo) * item);
        for (int r = 1; r < size_; ++r) reduce_into(out, out, set + r * kChunk + lo * item, hi - lo, dtype, elem_op);
      }
      arrive_and_wait("all_reduce");
      std::memcpy(data + done * item, set + size_ * kChunk, m * item);
    }
    if (op == ReduceOp::Avg) divide_by(buf, count, dtype, size_);
  }

  void do_barrier() override {
    arrive_and_wait("barrier");
    arrive_and_wait("barrier");  // two arrivals per call, as a chunk takes: the buffer sets keep alternating
  }

  // Everything else: the engine's.
  void do_broadcast(void* buf, size_t count, DType dtype, int root) override {
    inner_->broadcast(buf, count, dtype, root);
  }
  void do_reduce(void* buf, size_t count, DType dtype, ReduceOp op, int root) override {
    inner_->reduce(buf, count, dtype, op, root);
  }
  void do_all_gather(const void* in, void* out, const std::vector<size_t>& counts, DType dtype) override {
    inner_->all_gather(in, out, counts, dtype);
  }
  void do_gather(const void* in, void* out, size_t count, DType dtype, int root) override {
    inner_->gather(in, out, count, dtype, root);
  }
  void do_scatter(const void* in, void* out, size_t count, DType dtype, int root) override {
    inner_->scatter(in, out, count, dtype, root);
  }
  void do_reduce_scatter(const void* in, void* out, const std::vector<size_t>& counts, DType dtype,
                         ReduceOp op) override {
    inner_->reduce_scatter(in, out, counts, dtype, op);
  }
  void do_all_to_all(const void* in, const std::vector<size_t>& in_counts, void* out,
                     const std::vector<size_t>& out_counts, DType dtype) override {
    inner_->all_to_all(in, in_counts, out, out_counts, dtype);
  }
  void do_send(const void* buf, size_t count, DType dtype, int peer, uint64_t slot) override {
    inner_->send(buf, count, dtype, peer, slot);
  }
  void do_recv(void* buf, size_t count, DType dtype, int peer, uint64_t slot) override {
    inner_->recv(buf, count, dtype, peer, slot);
  }

 private:
  void map(int fd, const std::string& name) {
    void* p = ::mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    ::close(fd);
    if (p == MAP_FAILED) {
      if (rank_ == 0) ::shm_unlink(name.c_str());
      throw CommError("shared-memory collectives: mmap failed: " + std::string(std::strerror(errno)));
    }
    base_ = static_cast<char*>(p);
  }

  Arrival* arrivals() { return reinterpret_cast<Arrival*>(base_); }

  // Two arrivals (the buffer sets keep alternating): everyone's signature is written before
  // the first and read before the second, so the next call may overwrite it.
  void check_same_call(size_t count, DType dtype, ReduceOp op) {
    Arrival* a = arrivals();
    a[rank_].sig_count = count;
    a[rank_].sig_aux = (static_cast<uint32_t>(dtype) << 8) | static_cast<uint32_t>(op);
    arrive_and_wait("all_reduce");
    bool same = true;
    for (int r = 0; r < size_; ++r) same = same && a[r].sig_count == count && a[r].sig_aux == a[rank_].sig_aux;
    std::string table;
    if (!same)
      for (int r = 0; r < size_; ++r)
        table += " rank " + std::to_string(r) + ": " + std::to_string(a[r].sig_count) + " x " +
                 dtype_name(static_cast<DType>(a[r].sig_aux >> 8)) + (r + 1 < size_ ? "," : "");
    arrive_and_wait("all_reduce");
    if (!same)
      throw CommError(label("all_reduce") + ": the ranks passed tensors of different sizes, dtypes or reduce "
                      "ops (" + table.substr(1) + "); every rank must pass the same");
  }
  char* sets() { return base_ + kLine * size_; }

  void arrive_and_wait(const char* what) {
    if (broken_) throw CommError(label(what) + ": an earlier call of this group failed");
    const uint64_t target = ++step_;
    Arrival* a = arrivals();
    a[rank_].count.store(target, std::memory_order_release);
    const auto deadline = std::chrono::steady_clock::now() + timeout_;
    for (int r = 0; r < size_; ++r) {
      for (uint64_t spins = 0; a[r].count.load(std::memory_order_acquire) < target; ++spins) {
        if (spins < 2000) continue;
        std::this_thread::yield();
        if (spins % 4096 != 0) continue;
        const int32_t pid = a[r].pid;
        if (pid > 0 && !alive(pid)) {
          broken_ = true;
          throw CommError(label(what) + ": rank " + std::to_string(r) + " (pid " + std::to_string(pid) +
                          ") died during the call; a peer died");
        }
        if (std::chrono::steady_clock::now() > deadline) {
          broken_ = true;
          throw CommError(label(what) + " timed out after " + std::to_string(timeout_.count() / 1000.0) +
                          " s waiting for rank " + std::to_string(r));
        }
      }
    }
  }

  // "gloo all_reduce (shared memory)": the engine the user chose, and the path taken.
  std::string label(const char* what) const {
    return std::string(inner_->backend()) + " " + what + " (shared memory)";
  }

  // Whether process `pid` runs: gone, or a zombie its parent has not reaped yet, is dead.
  static bool alive(int32_t pid) {
    if (::kill(pid, 0) != 0) return errno != ESRCH;
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!std::getline(stat, line)) return true;  // no /proc: kill's answer stands
    const size_t paren = line.rfind(')');
    return !(paren != std::string::npos && paren + 2 < line.size() && line[paren + 2] == 'Z');
  }

  std::unique_ptr<Communicator> inner_;
  Millis timeout_;
  char* base_ = nullptr;
  size_t bytes_ = 0;
  uint64_t step_ = 0;
  bool broken_ = false;
};

bool enabled() {
  const char* v = std::getenv("MONOFLOW_SHM_COLLECTIVES");
  return !(v && std::strcmp(v, "0") == 0);
}

}  // namespace

std::unique_ptr<Communicator> with_shared_memory(std::unique_ptr<Communicator> inner, std::shared_ptr<Store> store,
                                                 Millis timeout) {
  if (!enabled() || inner->size() < 2) return inner;
  // Every rank publishes its host; the group is local when they all match.
  const std::string me = host_identity();
  store->set("shm/host/" + std::to_string(inner->rank()), to_bytes(me));
  for (int r = 0; r < inner->size(); ++r) {
    const std::string key = "shm/host/" + std::to_string(r);
    store->wait({key}, timeout);
    if (from_bytes(store->get(key)) != me) return inner;
  }
  return std::make_unique<ShmCommunicator>(std::move(inner), std::move(store), timeout);
}

}  // namespace monoflow::collective
