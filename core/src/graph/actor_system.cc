// ActorSystem: workers, mailboxes, message handling, the supervisor's watchdog
// (Note [Actor runtime] in graph/actor_system.h).
#include "monoflow/graph/actor_system.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <sstream>

#include "monoflow/backend.h"
#include "monoflow/error.h"
#include "monoflow/profiler.h"

namespace monoflow::graph {

namespace {

struct Message {
  int actor;
  int link;  // index into the actor's `in`; -1: the run's start
};

}  // namespace

std::exception_ptr annotate_error(std::exception_ptr e, const std::string& where) {
  try {
    std::rethrow_exception(e);
  } catch (const OutOfMemoryError& x) {
    return std::make_exception_ptr(OutOfMemoryError(where + x.what()));
  } catch (const TypeError& x) {
    return std::make_exception_ptr(TypeError(where + x.what()));
  } catch (const ValueError& x) {
    return std::make_exception_ptr(ValueError(where + x.what()));
  } catch (const IndexError& x) {
    return std::make_exception_ptr(IndexError(where + x.what()));
  } catch (const ZeroDivisionError& x) {
    return std::make_exception_ptr(ZeroDivisionError(where + x.what()));
  } catch (const NotImplementedError& x) {
    return std::make_exception_ptr(NotImplementedError(where + x.what()));
  } catch (const std::exception& x) {
    return std::make_exception_ptr(RuntimeError(where + x.what()));
  } catch (...) {
    return e;
  }
}

namespace {

std::string stall_report(const RunState& st) {
  std::ostringstream os;
  int shown = 0;
  for (const Actor& a : st.actors) {
    if (a.next >= st.iterations) continue;
    if (shown++ == 5) {
      os << "; ...";
      break;
    }
    os << (shown > 1 ? "; " : "") << "%" << a.node << " (" << st.plan->nodes[a.node].name() << ") at iteration "
       << a.next;
    for (const Actor::In& l : a.in)
      if (l.received + l.distance <= a.next) {
        os << " waits for %" << l.producer << " (" << st.plan->nodes[l.producer].name() << ", fired " << l.received
           << " times)";
        break;
      }
  }
  return os.str();
}

}  // namespace

void RunState::fail(std::exception_ptr e) {
  std::lock_guard<std::mutex> lock(mu);
  if (!error) error = e;
  abort.store(true);
}

struct ActorSystem::Shared {
  struct Mailbox {
    std::mutex mu;
    std::condition_variable cv;
    std::vector<Message> queue;
    RunState* run = nullptr;  // the run its messages belong to
    bool stop = false;
  };

  int threads = 1;
  std::vector<std::unique_ptr<Mailbox>> boxes;
  std::vector<std::thread> workers;
  std::shared_ptr<HoldGate> gate;
  // The supervisor waits here for a run's `pending` to reach zero. Not in
  // RunState: the worker that brings it to zero must not touch the run
  // after that, so the caller may free it (on its own thread: the run holds
  // tensors whose release may need the GIL the caller will take back).
  std::mutex done_mu;
  std::condition_variable done_cv;
  bool abandoned = false;
  std::shared_ptr<RunState> abandoned_run;  // kept for the stuck worker (freed on its thread, if it returns)

  void post(RunState& st, Message m);
  void handle(RunState& st, Message m);
  void act(RunState& st, Actor& a);
  void drain(RunState& st, std::vector<Message>& local);
  static void worker_main(std::shared_ptr<Shared> self, int w);
};

namespace {
// A host node's producers are done; a kernel's own error stays with its
// stream (the run's final synchronize reports it).
void wait_for_stream(StreamFence& fence) {
  MF_CHECK(fence.wait(), RuntimeError, "graph host node: waiting for the compute stream of ", fence.device().str(),
           " failed");
}

// The worker the calling thread is, for this system (local delivery).
struct WorkerContext {
  const void* system = nullptr;  // the ActorSystem::Shared it works for
  int index = -1;
  std::vector<Message>* local = nullptr;
};
thread_local WorkerContext t_worker;
}  // namespace

void ActorSystem::Shared::post(RunState& st, Message m) {
  st.pending.fetch_add(1);
  const int w = st.actors[m.actor].thread;
  if (t_worker.system == this && t_worker.index == w) {
    t_worker.local->push_back(m);
    return;
  }
  Mailbox& b = *boxes[w];
  {
    std::lock_guard<std::mutex> lock(b.mu);
    b.queue.push_back(m);
  }
  b.cv.notify_one();
}

void ActorSystem::Shared::act(RunState& st, Actor& a) {
  profiler::Range row(profiler::Kind::Actor, st.plan->nodes[a.node].name());
  if (profiler::Event* e = row.event()) {
    e->extra = a.next;  // the iteration (micro-batch) it fires
    e->device = str_cat(DeviceRegistry::get().backend(st.plan->nodes[a.node].device).name(), ":",
                        st.plan->nodes[a.node].device.index);
  }
  if (a.node == st.debug.fail_node) throw RuntimeError(st.debug.fail_message);
  if (a.node == st.debug.hold_node) {
    std::unique_lock<std::mutex> lock(gate->mu);
    gate->cv.wait(lock, [&] { return gate->released; });
  }
  if (st.plan->nodes[a.node].host) {  // may block for long: the watchdog must know
    st.hosts_running.fetch_add(1);
    struct Done {
      std::atomic<int>& n;
      ~Done() { n.fetch_sub(1); }
    } done{st.hosts_running};
    // The producers of this firing are done (Note [Host nodes]): one mark per
    // in-link from a kernel, the one sent with firing next - distance.
    std::vector<std::shared_ptr<StreamFence>> marks;
    {
      RunState::HostMarks& hm = *st.host_marks[a.node];
      std::lock_guard<std::mutex> lock(hm.mu);
      for (size_t l = 0; l < a.in.size(); ++l) {
        if (a.next < a.in[l].distance || st.plan->nodes[a.in[l].producer].host) continue;
        std::deque<std::shared_ptr<StreamFence>>& q = hm.links[l];
        MF_CHECK(!q.empty(), RuntimeError, "graph run: host node %", a.node, " has no stream mark from %",
                 a.in[l].producer);
        marks.push_back(std::move(q.front()));
        q.pop_front();
      }
    }
    for (const auto& m : st.start_marks) wait_for_stream(*m);
    for (const auto& m : marks) wait_for_stream(*m);
    launch_node(*st.plan, a.node, a.next, *st.memory);
    return;
  }
  launch_node(*st.plan, a.node, a.next, *st.memory);
}

void ActorSystem::Shared::handle(RunState& st, Message m) {
  Actor& a = st.actors[m.actor];
  if (m.link >= 0) ++a.in[m.link].received;
  while (!st.abort.load(std::memory_order_relaxed) && a.next < st.iterations && a.ready()) {
    try {
      act(st, a);
    } catch (...) {
      st.fail(annotate_error(std::current_exception(), str_cat("graph run: node %", a.node, " (",
                                                         st.plan->nodes[a.node].name(), ", iteration ", a.next,
                                                         "): ")));
      break;
    }
    if (!st.host_marks.empty() && !st.plan->nodes[a.node].host) {
      // A kernel feeding host nodes marks its stream for them (Note [Host nodes]).
      std::shared_ptr<StreamFence> mark;
      for (const Actor::Out& o : a.out) {
        if (a.next + o.distance >= st.iterations || !st.host_marks[o.consumer]) continue;
        try {
          if (!mark) mark = std::make_shared<StreamFence>(st.plan->nodes[a.node].device, st.plan->nodes[a.node].stream);
        } catch (...) {
          st.fail(std::current_exception());
          break;
        }
        RunState::HostMarks& hm = *st.host_marks[o.consumer];
        std::lock_guard<std::mutex> lock(hm.mu);
        hm.links[o.link].push_back(mark);
      }
    }
    for (const Actor::Out& o : a.out)
      if (a.next + o.distance < st.iterations) post(st, Message{o.consumer, o.link});
    if (++a.next == st.iterations) st.unfinished.fetch_sub(1);
  }
  st.progress.fetch_add(1, std::memory_order_relaxed);
  if (st.pending.fetch_sub(1) == 1) {  // nothing queued or running any more; `st` may go now
    std::lock_guard<std::mutex> lock(done_mu);
    done_cv.notify_all();
  }
}

void ActorSystem::Shared::drain(RunState& st, std::vector<Message>& local) {
  for (size_t i = 0; i < local.size(); ++i) handle(st, local[i]);  // handle() may append
  local.clear();
}

void ActorSystem::Shared::worker_main(std::shared_ptr<Shared> self, int w) {
  std::vector<Message> local, batch;
  t_worker = WorkerContext{self.get(), w, &local};
  Mailbox& b = *self->boxes[w];
  for (;;) {
    RunState* run;
    {
      std::unique_lock<std::mutex> lock(b.mu);
      b.cv.wait(lock, [&] { return b.stop || !b.queue.empty(); });
      // Stopped: the system is shutting down (nothing is queued) or was
      // abandoned (the run is aborted and the boxes unbound: what a stuck
      // worker posts once it comes back must not be handled).
      if (b.stop) return;
      batch.swap(b.queue);
      run = b.run;
    }
    for (const Message& m : batch) {
      self->handle(*run, m);
      self->drain(*run, local);
    }
    batch.clear();
  }
}

ActorSystem::ActorSystem(int threads, std::shared_ptr<HoldGate> gate) : shared_(std::make_shared<Shared>()) {
  shared_->threads = std::max(threads, 1);
  shared_->gate = std::move(gate);
  for (int w = 0; w < shared_->threads; ++w) shared_->boxes.push_back(std::make_unique<Shared::Mailbox>());
  if (shared_->threads > 1)
    for (int w = 0; w < shared_->threads; ++w) shared_->workers.emplace_back(Shared::worker_main, shared_, w);
}

ActorSystem::~ActorSystem() {
  if (shared_->abandoned) return;  // its threads were detached
  for (auto& b : shared_->boxes) {
    {
      std::lock_guard<std::mutex> lock(b->mu);
      b->stop = true;
    }
    b->cv.notify_all();
  }
  for (std::thread& t : shared_->workers) t.join();
}

int ActorSystem::threads() const { return shared_->threads; }

void ActorSystem::execute(const std::shared_ptr<RunState>& run, double timeout_s, bool* abandoned) {
  using Clock = std::chrono::steady_clock;
  Shared& sh = *shared_;
  RunState& st = *run;
  *abandoned = false;
  st.unfinished.store(static_cast<int64_t>(st.actors.size()));
  if (st.actors.empty() || st.iterations <= 0) return;
  st.host_marks.clear();
  for (const Actor& a : st.actors) {
    if (!st.plan->nodes[a.node].host) continue;
    if (st.host_marks.empty()) st.host_marks.resize(st.actors.size());
    st.host_marks[a.node] = std::make_unique<RunState::HostMarks>();
    st.host_marks[a.node]->links.resize(a.in.size());
  }
  st.start_marks.clear();
  if (!st.host_marks.empty())
    for (const Device& d : st.plan->devices)
      st.start_marks.push_back(std::make_shared<StreamFence>(d, DeviceRegistry::get().backend(d).stream(d.index)));
  auto bind = [&](RunState* r) {
    for (auto& b : sh.boxes) {
      std::lock_guard<std::mutex> lock(b->mu);
      b->run = r;
    }
  };
  bind(&st);
  struct Unbind {
    std::function<void()> f;
    ~Unbind() { f(); }
  } unbind{[&] { bind(nullptr); }};
  if (sh.threads == 1) {  // the calling thread is the only worker
    std::vector<Message> local;
    struct Restore {
      WorkerContext saved = t_worker;
      ~Restore() { t_worker = saved; }
    } restore;
    t_worker = WorkerContext{&sh, 0, &local};
    for (size_t a = 0; a < st.actors.size(); ++a) sh.post(st, Message{static_cast<int>(a), -1});
    sh.drain(st, local);
  } else {
    for (size_t a = 0; a < st.actors.size(); ++a) sh.post(st, Message{static_cast<int>(a), -1});
    std::unique_lock<std::mutex> lock(sh.done_mu);
    auto idle = [&] { return st.pending.load() == 0; };
    if (timeout_s <= 0) {
      sh.done_cv.wait(lock, idle);
    } else {
      const auto limit = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_s));
      int64_t seen = st.progress.load();
      auto last_progress = Clock::now();
      auto deadline = last_progress + limit;
      for (const PlanNode& n : st.plan->nodes)
        if (n.host) st.host_timeout_s = std::max(st.host_timeout_s, n.host->timeout_s());
      // A host node may block for its own timeout, plus time to report it.
      const auto host_limit = std::chrono::duration_cast<Clock::duration>(
          std::chrono::duration<double>(st.host_timeout_s + 10.0));
      while (!sh.done_cv.wait_until(lock, deadline, idle)) {
        int64_t now_seen = st.progress.load();
        if (now_seen != seen) {  // slow, not stuck
          seen = now_seen;
          last_progress = Clock::now();
          deadline = last_progress + limit;
          continue;
        }
        if (st.hosts_running.load() > 0 && st.host_timeout_s > 0 && last_progress + host_limit > Clock::now()) {
          deadline = last_progress + host_limit;  // a collective waiting for its peers, within its timeout
          continue;
        }
        st.abort.store(true);
        const auto grace = std::min(limit, std::chrono::duration_cast<Clock::duration>(std::chrono::seconds(2)));
        if (sh.done_cv.wait_for(lock, grace, idle))
          throw RuntimeError(str_cat("graph run: no progress for ", timeout_s,
                                     " s; the actors were stopped (the runtime stays usable)"));
        // A worker is stuck inside an actor: leave the threads behind.
        *abandoned = true;
        sh.abandoned = true;
        sh.abandoned_run = run;
        for (auto& b : sh.boxes) {
          std::lock_guard<std::mutex> box_lock(b->mu);
          b->stop = true;
          b->cv.notify_all();
        }
        for (std::thread& t : sh.workers) t.detach();
        throw RuntimeError(str_cat("graph run: no progress for ", timeout_s,
                                   " s and a worker is stuck inside an actor (a kernel call that does not return); "
                                   "the graph runtime is dead"));
      }
    }
  }
  if (st.error) std::rethrow_exception(st.error);
  MF_CHECK(st.unfinished.load() == 0, RuntimeError,
           "graph run stalled: no actor can fire (a dependency cycle in the plan): ", stall_report(st));
}

}  // namespace monoflow::graph
