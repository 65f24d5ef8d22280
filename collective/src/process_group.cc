#include "monoflow/collective/process_group.h"

#include "monoflow/collective/types.h"

namespace monoflow::collective {

ProcessGroup::ProcessGroup(std::unique_ptr<Communicator> comm)
    : comm_(std::move(comm)), thread_([this] { loop(); }) {}

ProcessGroup::~ProcessGroup() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
  // p2p threads end by themselves (completion or timeout).
  for (auto& t : p2p_threads_) t.first.join();
}

void ProcessGroup::run(Item& item) {
  std::exception_ptr error;
  try {
    for (auto& f : item.fences)
      if (!f.wait()) throw CommError("collective: waiting for the compute stream of " + f.device().str() + " failed");
    item.fn(*comm_);
  } catch (...) {
    error = std::current_exception();
  }
  item.fences.clear();
  item.work->finish(error);
}

std::shared_ptr<Work> ProcessGroup::enqueue(Fn fn, std::vector<StreamFence> fences) {
  auto work = std::make_shared<Work>();
  {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.push_back(Item{std::move(fn), std::move(fences), work});
  }
  cv_.notify_one();
  return work;
}

std::shared_ptr<Work> ProcessGroup::enqueue_p2p(Fn fn, std::vector<StreamFence> fences) {
  auto work = std::make_shared<Work>();
  auto item = std::make_shared<Item>(Item{std::move(fn), std::move(fences), work});
  std::lock_guard<std::mutex> lock(mu_);
  // Reap finished threads so that a long send/recv loop does not pile them up.
  for (size_t i = 0; i < p2p_threads_.size();) {
    if (p2p_threads_[i].second->is_completed()) {
      p2p_threads_[i].first.join();
      p2p_threads_[i] = std::move(p2p_threads_.back());
      p2p_threads_.pop_back();
    } else {
      ++i;
    }
  }
  p2p_threads_.emplace_back(std::thread([this, item] { run(*item); }), work);
  return work;
}

void ProcessGroup::loop() {
  for (;;) {
    Item item;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [this] { return stop_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stop_ and drained
      item = std::move(queue_.front());
      queue_.pop_front();
    }
    run(item);
  }
}

}  // namespace monoflow::collective
