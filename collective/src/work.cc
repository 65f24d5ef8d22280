#include "monoflow/collective/work.h"

namespace monoflow::collective {

void Work::wait() {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [this] { return done_; });
  if (error_) std::rethrow_exception(error_);
}

bool Work::is_completed() {
  std::lock_guard<std::mutex> lock(mu_);
  return done_;
}

bool Work::failed() {
  std::lock_guard<std::mutex> lock(mu_);
  return done_ && error_ != nullptr;
}

void Work::finish(std::exception_ptr error) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    done_ = true;
    error_ = error;
  }
  cv_.notify_all();
}

}  // namespace monoflow::collective
