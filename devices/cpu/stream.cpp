#include "stream.h"

#include <pthread.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

#include "error.h"
#include "threads.h"
#include "trace.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace mfcpu {
namespace {

// Spinning keeps launch->start and finish->synchronize latencies in the
// sub-microsecond range for back-to-back small ops; after these budgets the
// thread blocks so an idle stream costs no CPU.
constexpr auto kWorkerSpin = std::chrono::microseconds(30);
constexpr auto kWaiterSpin = std::chrono::microseconds(20);
// After this long, spinning yields the core between checks: on an
// oversubscribed machine the thread we wait for may need exactly this core.
constexpr auto kPauseOnly = std::chrono::microseconds(2);

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

template <class Pred>
bool spin_until(Pred pred, std::chrono::nanoseconds budget) {
  const auto start = std::chrono::steady_clock::now();
  for (unsigned i = 1;; ++i) {
    if (pred()) return true;
    if ((i & 15u) != 0) {
      cpu_relax();
      continue;
    }
    const auto spent = std::chrono::steady_clock::now() - start;
    if (spent > budget) return pred();
    if (spent > kPauseOnly) std::this_thread::yield();
  }
}

void run_wait_task(Task& task) { task.wait_progress->wait_for(task.wait_target); }

// Note [Streams and fork]
//   fork() copies only the calling thread, so a child would inherit streams
//   whose worker threads do not exist: its first op would queue a task that
//   nobody runs, and the next sync would hang. Worse, a worker might have held
//   one of the stream's mutexes at the instant of the fork, and that mutex
//   would stay locked forever in the child. (DataLoader workers fork after the
//   parent has run ops, so this is the common case, not a corner.)
//
//   pthread_atfork hooks fix both. `prepare` (in the parent, before fork)
//   takes every live stream's producer lock, so nothing new is queued, drains
//   the stream, so no task (and no OpenBLAS/OpenMP work inside one) is in
//   flight, and takes the error lock. The worker is then idle; the only locks
//   it can still touch are its own sleep mutex and its Progress's mutex.
//   `parent` releases the locks. `child` releases them too, and then gives the
//   stream a fresh Progress (continuing the same count) and no worker: the
//   next enqueue starts a new thread.
//
//   The parent's Worker and Progress are deliberately leaked in the child,
//   never destroyed: the std::thread refers to a thread that does not exist
//   there (destroying a joinable std::thread terminates, joining it is
//   undefined), the sleep mutex or Progress mutex may be held by that phantom
//   thread, and glibc's pthread_cond_destroy waits for the phantom waiters of
//   a condition variable, i.e. forever. One small object per stream per fork.
//
//   Handlers run in reverse order of registration; ours are registered after
//   OpenBLAS (a load-time dependency) registered its own, so our drain runs
//   before OpenBLAS parks its thread pool. OpenMP regions are only entered
//   from stream workers, whose thread pool is per thread and so starts afresh
//   with the new worker.
//
//   The monoflow core needs no hooks of its own: its mutexes (allocator,
//   generators, registry) are only taken by threads calling into the core,
//   which from Python hold the GIL, as does the thread that forks, and no
//   core lock is held across a call back into Python.
struct StreamRegistry {
  std::mutex mutex;  // held from prepare to parent/child
  std::vector<Stream*> streams;
};

StreamRegistry& registry();

void prepare_fork() {
  StreamRegistry& r = registry();
  r.mutex.lock();
  for (Stream* s : r.streams) s->before_fork();
}

void after_fork_in_parent() {
  StreamRegistry& r = registry();
  for (Stream* s : r.streams) s->after_fork_parent();
  r.mutex.unlock();
}

void after_fork_in_child() {
  StreamRegistry& r = registry();
  for (Stream* s : r.streams) s->after_fork_child();
  r.mutex.unlock();
}

StreamRegistry& registry() {
  // Leaked: the static default stream unregisters itself during exit.
  static StreamRegistry* r = [] {
    auto* reg = new StreamRegistry();
    pthread_atfork(prepare_fork, after_fork_in_parent, after_fork_in_child);
    return reg;
  }();
  return *r;
}

}  // namespace

// ---------------------------------------------------------------- Progress

void Progress::wait_for(uint64_t target) {
  if (reached(target)) return;
  if (spin_until([&] { return reached(target); }, kWaiterSpin)) return;
  // Dekker pairing with publish(): we bump waiters_ before re-checking, it
  // stores completed_ before reading waiters_, so one side sees the other.
  waiters_.fetch_add(1, std::memory_order_seq_cst);
  {
    std::unique_lock<std::mutex> lock(mutex_);
    cv_.wait(lock, [&] { return completed_.load(std::memory_order_seq_cst) >= target; });
  }
  waiters_.fetch_sub(1, std::memory_order_relaxed);
}

void Progress::publish(uint64_t completed) {
  completed_.store(completed, std::memory_order_seq_cst);
  if (waiters_.load(std::memory_order_seq_cst) > 0) {
    { std::lock_guard<std::mutex> lock(mutex_); }  // a waiter is either before its check or in wait()
    cv_.notify_all();
  }
}

// ---------------------------------------------------------------- Task

void Task::set_kernel_call(const MFKernelCall* call) {
  set_operands(call->outputs, call->num_outputs, call->inputs, call->num_inputs);
  trace_name = "kernel";
  trace_id = MF_HAS_FIELD(call, MFKernelCall, trace_id) ? call->trace_id : 0;
}

void Task::set_operands(const MFTensorDesc* outputs, int num_outputs, const MFTensorDesc* inputs,
                        int num_inputs) {
  const int n = num_outputs + num_inputs;
  auto desc = [&](int k) -> const MFTensorDesc& {
    return k < num_outputs ? outputs[k] : inputs[k - num_outputs];
  };
  bool fits = n <= kInlineOperands;
  size_t total_dims = 0;
  for (int k = 0; k < n; ++k) {
    const int32_t nd = desc(k).ndim;
    if (nd < 0 || nd > kMaxDims) fail(MF_ERR_UNSUPPORTED, "tensor rank must be in [0, 64]");
    if (nd > kInlineDims) fits = false;
    total_dims += size_t(nd);
  }
  int64_t* dims = nullptr;
  if (fits) {
    ops = inline_ops_;
  } else {  // rare: spill operands and dims to one heap block
    heap_.reset(new unsigned char[n * sizeof(Operand) + 2 * total_dims * sizeof(int64_t)]);
    ops = reinterpret_cast<Operand*>(heap_.get());
    dims = reinterpret_cast<int64_t*>(heap_.get() + n * sizeof(Operand));
  }
  num_operands = n;
  for (int k = 0; k < n; ++k) {
    const MFTensorDesc& d = desc(k);
    const size_t nd = size_t(d.ndim);
    int64_t* shape = fits ? inline_dims_[k] : dims;
    int64_t* strides = fits ? inline_dims_[k] + kInlineDims : dims + nd;
    if (!fits) dims += 2 * nd;
    if (nd) {
      std::memcpy(shape, d.shape, nd * sizeof(int64_t));
      std::memcpy(strides, d.strides, nd * sizeof(int64_t));
    }
    ops[k] = Operand{static_cast<char*>(d.data), d.dtype, d.ndim, shape, strides};
  }
}

// ---------------------------------------------------------------- Stream

Stream::Stream() : progress_(std::make_shared<Progress>()), ring_(new Task[kCapacity]) {
  StreamRegistry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.streams.push_back(this);
}

Stream::~Stream() {
  {
    StreamRegistry& r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    r.streams.erase(std::remove(r.streams.begin(), r.streams.end(), this), r.streams.end());
  }
  progress_->wait_for(enqueued());
  if (!worker_) return;
  {
    std::lock_guard<std::mutex> lock(worker_->sleep_mutex);
    worker_->stop = true;
  }
  worker_->sleep_cv.notify_one();
  worker_->thread.join();
  delete worker_;
}

void Stream::start_worker() {
  auto* w = new Worker();
  Progress* progress = progress_.get();
  const uint64_t done = progress->completed();  // nonzero after a fork
  w->thread = std::thread([this, w, progress, done] { worker_loop(w, progress, done); });
  worker_ = w;
}

void Stream::wake_worker() {
  { std::lock_guard<std::mutex> lock(worker_->sleep_mutex); }  // worker is before its check or waiting
  worker_->sleep_cv.notify_one();
}

void Stream::before_fork() {
  producer_mutex_.lock();
  progress_->wait_for(enqueued());
  error_mutex_.lock();
}

void Stream::after_fork_parent() {
  error_mutex_.unlock();
  producer_mutex_.unlock();
}

void Stream::after_fork_child() {
  // Leaked on purpose, see Note [Streams and fork].
  new std::shared_ptr<Progress>(progress_);
  progress_ = std::make_shared<Progress>(progress_->completed());
  worker_ = nullptr;
  sleeping_.store(false, std::memory_order_relaxed);
  error_mutex_.unlock();
  producer_mutex_.unlock();
}

void Stream::run(Task& task) noexcept {
  try {
    task.fn(task);
  } catch (...) {
    const char* message = nullptr;
    const MFStatus status = classify_current_exception(&message);
    std::lock_guard<std::mutex> lock(error_mutex_);
    if (error_ == MF_OK) {  // keep the first error until it is reported
      error_ = status == MF_ERR_INTERNAL ? MF_ERR_KERNEL : status;
      try {
        error_message_ = message;
      } catch (...) {
        error_message_.clear();  // the status still gets through
      }
    }
  }
  task.clear();
}

void Stream::worker_loop(Worker* w, Progress* progress, uint64_t done) {
  configure_worker_threads();
  for (;;) {
    if (enqueued_.load(std::memory_order_acquire) > done) {
      refresh_worker_threads();
      Task& task = ring_[done & (kCapacity - 1)];
      if (task.trace_name && tracing()) {
        const int64_t start = trace_clock_ns();
        run(task);
        report_trace(reinterpret_cast<MFStream>(this), task, start, trace_clock_ns());
      } else {
        run(task);
      }
      progress->publish(++done);
      continue;
    }
    if (spin_until([&] { return enqueued_.load(std::memory_order_acquire) > done; }, kWorkerSpin))
      continue;
    std::unique_lock<std::mutex> lock(w->sleep_mutex);
    sleeping_.store(true, std::memory_order_seq_cst);
    w->sleep_cv.wait(lock, [&] { return w->stop || enqueued_.load(std::memory_order_seq_cst) > done; });
    sleeping_.store(false, std::memory_order_relaxed);
    if (w->stop && enqueued_.load(std::memory_order_acquire) == done) return;
  }
}

void Stream::enqueue_wait(std::shared_ptr<Progress> progress, uint64_t target) {
  if (progress == progress_ || progress->reached(target)) return;  // already ordered / done
  enqueue([&](Task& task) {
    task.fn = run_wait_task;
    task.wait_progress = std::move(progress);
    task.wait_target = target;
  });
}

MFStatus Stream::take_error() {
  std::lock_guard<std::mutex> lock(error_mutex_);
  const MFStatus status = error_;
  if (status != MF_OK) {
    set_last_error(error_message_.c_str());
    error_ = MF_OK;
    error_message_.clear();
  }
  return status;
}

MFStatus Stream::synchronize() {
  progress_->wait_for(enqueued());
  return take_error();
}

MFStatus Stream::query() {
  if (!progress_->reached(enqueued())) return MF_NOT_READY;
  return take_error();
}

// ---------------------------------------------------------------- Event

std::shared_ptr<Progress> Event::snapshot(uint64_t* target) {
  std::lock_guard<std::mutex> lock(mutex_);
  *target = target_;
  return progress_;
}

void Event::record(Stream& stream) {
  std::lock_guard<std::mutex> lock(mutex_);
  progress_ = stream.progress();
  target_ = stream.enqueued();
}

bool Event::query() {
  uint64_t target;
  const auto progress = snapshot(&target);
  return !progress || progress->reached(target);
}

void Event::synchronize() {
  uint64_t target;
  if (const auto progress = snapshot(&target)) progress->wait_for(target);
}

void Event::make_stream_wait(Stream& stream) {
  uint64_t target;
  if (auto progress = snapshot(&target)) stream.enqueue_wait(std::move(progress), target);
}

Stream* stream_from_handle(MFStream handle) {
  if (handle) return reinterpret_cast<Stream*>(handle);
  static Stream default_stream;  // drained and joined at exit / dlclose
  return &default_stream;
}

}  // namespace mfcpu
