// ProcessGroup: a Communicator plus its communication thread.
//
// Note [One communication thread per group]
//   Collectives of a group run in the order they were issued, on the group's
//   own thread, so that Python (and the compute stream) keep going while they
//   run; this is the CPU's "communication stream". Each waits for the fences
//   of its buffers first (Note [Collectives and the compute stream]).
//   Point-to-point ops run on a thread of their own: a blocking send must not
//   hold up the matching recv that the same rank issues next.
//
// Note [Collectives and the compute stream]
//   Kernels run asynchronously on the device's stream (a worker thread on the
//   CPU), so a tensor handed to a collective may still be being written. The
//   caller records a StreamFence (monoflow/stream_fence.h) on the tensor's
//   stream when it enqueues the collective (cheap, does not block Python) and
//   the communication thread waits on it before giving the buffer to the
//   engine. Compute queued after the collective is not ordered after it: as
//   in PyTorch, the caller waits on the Work (the synchronous API does so)
//   before touching the buffers again.
#pragma once
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "monoflow/collective/communicator.h"
#include "monoflow/stream_fence.h"
#include "monoflow/collective/work.h"

namespace monoflow::collective {

class ProcessGroup {
 public:
  explicit ProcessGroup(std::unique_ptr<Communicator> comm);
  ~ProcessGroup();  // drains the queue, then joins the threads
  Communicator& comm() { return *comm_; }

  using Fn = std::function<void(Communicator&)>;
  std::shared_ptr<Work> enqueue(Fn fn, std::vector<StreamFence> fences);
  std::shared_ptr<Work> enqueue_p2p(Fn fn, std::vector<StreamFence> fences);

 private:
  struct Item {
    Fn fn;
    std::vector<StreamFence> fences;
    std::shared_ptr<Work> work;
  };
  void run(Item& item);
  void loop();

  std::unique_ptr<Communicator> comm_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Item> queue_;
  bool stop_ = false;
  std::thread thread_;
  std::vector<std::pair<std::thread, std::shared_ptr<Work>>> p2p_threads_;  // guarded by mu_
};

}  // namespace monoflow::collective
