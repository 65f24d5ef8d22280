// ActorSystem: the worker threads and mailboxes that actors run on.
//
// Note [Actor runtime]
//   There is no scheduler loop over the plan. A run posts one start message
//   to every actor; from then on actors only react to messages. Handling a
//   message (on the worker that owns the actor) counts it, then fires the
//   actor for as many iterations as are ready (graph/actor.h), each firing
//   enqueueing one kernel and posting one message per out-link. A message
//   to an actor of the same worker goes to that worker's local queue; to
//   another worker's, into its mailbox (a mutex, a vector, a condition
//   variable).
//
//   "Fired" means "enqueued on the device's stream": every node of a device
//   uses that device's default stream, which runs kernels in the order they
//   were enqueued, so a consumer enqueued after its producer's message also
//   runs after it, and a writer enqueued after the readers of an earlier
//   iteration runs after them (the same reasoning that lets eager code free
//   and reuse memory without waiting, Note [Stream-ordered reuse]). Eager
//   ops before and after a run are ordered with it the same way. The run
//   synchronises the streams at its end, which is where errors that kernels
//   report while running surface.
//
//   Completion and failure: `pending` counts messages posted but not yet
//   handled, decremented only after the handler has posted its own, so it
//   is zero exactly when no message is queued and no handler is running:
//   nothing can happen any more. At that point the run has succeeded (every
//   actor fired every iteration), failed (an actor threw: the first error is
//   kept, the others actors stop firing and drain their messages), or
//   stalled (some actor can never fire: reported at once, with the actors
//   that wait). A worker stuck inside a kernel call keeps `pending` above
//   zero: the supervisor (the calling thread, when there is a pool) gives up
//   after `timeout` without progress, asks the actors to stop, and if a
//   worker still does not come back within the grace period, the system is
//   abandoned: its threads are detached (they own what they touch through
//   shared pointers) and the runtime reports itself dead. A host node
//   (a collective waiting for its peers) may legitimately block longer than
//   `timeout`: while one runs, the supervisor waits up to the longest host
//   timeout (the group's, plus a grace period) since the last progress, and
//   the collective's own timeout is what fails the run. With one thread
//   the calling thread runs the actors itself (no hand-offs at all), and a
//   kernel that never returns cannot be interrupted; only stalls and errors
//   are caught then.
#pragma once
#include <atomic>
#include <condition_variable>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "monoflow/graph/actor.h"
#include "monoflow/graph/iteration_memory.h"
#include "monoflow/graph/runtime.h"

namespace monoflow::graph {

// One run in flight. Owned by the call that runs it (and, if a worker gets
// stuck, kept by the abandoned system).
struct RunState {
  std::shared_ptr<const Plan> plan;
  std::unique_ptr<IterationMemory> memory;
  std::vector<Actor> actors;
  int64_t iterations = 0;
  RunDebug debug;

  std::atomic<int64_t> pending{0};     // messages posted and not yet handled
  std::atomic<int64_t> unfinished{0};  // actors with iterations left
  std::atomic<int64_t> progress{0};    // messages handled (the watchdog's clock)
  // Host nodes running now, and the longest any may block (Note [Host nodes]
  // in graph/host_node.h): the watchdog waits that long while one runs.
  std::atomic<int> hosts_running{0};
  double host_timeout_s = 0;
  // Per host node (null for kernels), per in-link: the StreamFences its kernel
  // producers recorded with each message, oldest first (Note [Host nodes]).
  struct HostMarks {
    std::mutex mu;
    std::vector<std::deque<std::shared_ptr<StreamFence>>> links;
  };
  std::vector<std::unique_ptr<HostMarks>> host_marks;
  // Recorded on every device's stream when the run starts: what eager code
  // enqueued before the run (e.g. writes to the inputs) is done before a
  // host node fires.
  std::vector<std::shared_ptr<StreamFence>> start_marks;
  std::atomic<bool> abort{false};
  std::mutex mu;  // guards error
  std::exception_ptr error;

  void fail(std::exception_ptr e);
};

// Releases actors held by RunDebug::hold_node.
struct HoldGate {
  std::mutex mu;
  std::condition_variable cv;
  bool released = false;
};

// The same exception type, its message prefixed with `where` (a Python error
// raised by a warning filter passes unchanged).
std::exception_ptr annotate_error(std::exception_ptr e, const std::string& where);

class ActorSystem {
 public:
  ActorSystem(int threads, std::shared_ptr<HoldGate> gate);
  ~ActorSystem();  // joins the workers (unless abandoned)
  ActorSystem(const ActorSystem&) = delete;
  ActorSystem& operator=(const ActorSystem&) = delete;

  int threads() const;
  // Runs `run` to completion. Throws the first actor error, or RuntimeError
  // on a stall or timeout; sets *abandoned when a worker did not come back
  // (the system must not be used again).
  void execute(const std::shared_ptr<RunState>& run, double timeout_s, bool* abandoned);

 private:
  struct Shared;
  std::shared_ptr<Shared> shared_;
};

}  // namespace monoflow::graph
