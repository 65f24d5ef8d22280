// Asynchronous in-order streams.
//
// Each stream owns one worker thread that runs tasks in FIFO order from a
// bounded ring. Launching is on the per-op hot path, so a task is written in
// place into a preallocated ring slot (operand shapes/strides are copied into
// the slot's inline storage; only >4 operands or >8 dims spill to the heap),
// and the producer touches the worker's mutex only when the worker sleeps.
//
// Progress is a monotonically increasing "completed tasks" counter. Events
// capture (progress, enqueue count) and are done once completed >= target, so
// they outlive the stream they were recorded on.
//
// Streams survive fork(): see Note [Streams and fork] in stream.cpp.
#pragma once

#include <monoflow/plugin.h>

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace mfcpu {

constexpr int kMaxDims = 64;  // kernels keep per-dim state on the stack
constexpr int kInlineOperands = 4;
constexpr int kInlineDims = 8;
constexpr int kTaskScalars = 4;  // scalar attributes a task carries

// A task's private copy of an MFTensorDesc.
struct Operand {
  char* data;
  int32_t dtype;
  int32_t ndim;
  const int64_t* shape;
  const int64_t* strides;  // in elements
};

// Completed-task counter plus the means to block on it.
class Progress {
 public:
  explicit Progress(uint64_t completed = 0) : completed_(completed) {}
  uint64_t completed() const { return completed_.load(std::memory_order_acquire); }
  bool reached(uint64_t target) const { return completed() >= target; }
  void wait_for(uint64_t target);    // spins briefly, then blocks
  void publish(uint64_t completed);  // called by the worker only

 private:
  alignas(64) std::atomic<uint64_t> completed_{0};
  alignas(64) std::atomic<int> waiters_{0};
  std::mutex mutex_;
  std::condition_variable cv_;
};

// One ring slot. Cache-line aligned so the slot the producer writes never
// shares a line with the one the worker is reading.
struct alignas(64) Task {
  using Fn = void (*)(Task&);  // may throw mfcpu::Error; runs on the worker thread

  Fn fn = nullptr;
  int32_t num_operands = 0;
  Operand* ops = nullptr;  // outputs first, then inputs
  int64_t ival[kTaskScalars] = {};
  double fval[kTaskScalars] = {};
  // Raw memory tasks (memcpy/memset).
  void* dst = nullptr;
  const void* src = nullptr;
  size_t nbytes = 0;
  // stream_wait_event: block until *wait_progress reaches wait_target.
  std::shared_ptr<Progress> wait_progress;
  uint64_t wait_target = 0;
  // What the tracer reports (trace.h): null name = not reported.
  const char* trace_name = nullptr;
  uint64_t trace_id = 0;

  // Copies the descriptors (which are only valid during the launching call).
  void set_operands(const MFTensorDesc* outputs, int num_outputs, const MFTensorDesc* inputs,
                    int num_inputs);
  // A kernel's task: its operands (outputs first) and its trace identity.
  void set_kernel_call(const MFKernelCall* call);
  void clear() {
    if (heap_) heap_.reset();
    if (wait_progress) wait_progress.reset();
  }

 private:
  Operand inline_ops_[kInlineOperands];
  int64_t inline_dims_[kInlineOperands][2 * kInlineDims];
  std::unique_ptr<unsigned char[]> heap_;
};

class Stream {
 public:
  static constexpr uint64_t kCapacity = 512;  // pending tasks before launch blocks

  Stream();
  ~Stream();  // drains the stream, then stops the worker
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  // Writes one task via fill(Task&) and publishes it. Thread-safe.
  template <class Fill>
  void enqueue(Fill&& fill);

  // Makes later work on this stream wait until `progress` reaches `target`.
  void enqueue_wait(std::shared_ptr<Progress> progress, uint64_t target);

  uint64_t enqueued() const { return enqueued_.load(std::memory_order_acquire); }
  const std::shared_ptr<Progress>& progress() const { return progress_; }

  // Blocks until everything enqueued so far has run; returns and clears the
  // first error recorded since the last synchronize/query (message via last_error).
  MFStatus synchronize();
  // MF_NOT_READY while work is pending, else like synchronize().
  MFStatus query();

  // pthread_atfork hooks (Note [Streams and fork]); called for every live stream.
  void before_fork();        // drains the stream and takes its locks
  void after_fork_parent();  // releases them
  void after_fork_child();   // releases them and forgets the parent's worker thread

 private:
  // The worker thread and what it sleeps on. Heap-allocated so that a forked
  // child can drop it without destroying it (Note [Streams and fork]).
  struct Worker {
    std::mutex sleep_mutex;
    std::condition_variable sleep_cv;
    bool stop = false;  // guarded by sleep_mutex
    std::thread thread;
  };

  void start_worker();  // with producer_mutex_ held
  void worker_loop(Worker* w, Progress* progress, uint64_t done);
  void run(Task& task) noexcept;
  void wake_worker();
  MFStatus take_error();

  std::mutex producer_mutex_;  // serialises producers (uncontended in practice)
  alignas(64) std::atomic<uint64_t> enqueued_{0};
  alignas(64) std::atomic<bool> sleeping_{false};
  Worker* worker_ = nullptr;  // written under producer_mutex_; started by the first enqueue

  std::shared_ptr<Progress> progress_;
  std::unique_ptr<Task[]> ring_;

  std::mutex error_mutex_;
  MFStatus error_ = MF_OK;
  std::string error_message_;
};

template <class Fill>
void Stream::enqueue(Fill&& fill) {
  std::lock_guard<std::mutex> lock(producer_mutex_);
  const uint64_t e = enqueued_.load(std::memory_order_relaxed);
  // Backpressure: the slot is free once the task kCapacity places back completed.
  if (e - progress_->completed() >= kCapacity) progress_->wait_for(e - kCapacity + 1);
  if (!worker_) start_worker();
  Task& task = ring_[e & (kCapacity - 1)];
  task.trace_name = nullptr;
  task.trace_id = 0;
  try {
    fill(task);
  } catch (...) {
    task.clear();
    throw;
  }
  // seq_cst store/load pair with the worker's sleeping_ store/enqueued_ load:
  // either the worker sees the new task or we see it asleep and wake it.
  enqueued_.store(e + 1, std::memory_order_seq_cst);
  if (sleeping_.load(std::memory_order_seq_cst)) wake_worker();
}

// A marker in a stream: done once the tasks enqueued before record() completed.
// Never recorded means done (as in CUDA).
class Event {
 public:
  void record(Stream& stream);
  bool query();
  void synchronize();
  void make_stream_wait(Stream& stream);

 private:
  std::shared_ptr<Progress> snapshot(uint64_t* target);

  std::mutex mutex_;
  std::shared_ptr<Progress> progress_;
  uint64_t target_ = 0;
};

// The stream a handle names; NULL is a plugin-owned default stream.
Stream* stream_from_handle(MFStream handle);

}  // namespace mfcpu
