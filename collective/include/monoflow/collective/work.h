// Work: the handle of one enqueued collective (async_op=True in Python).
#pragma once
#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>

namespace monoflow::collective {

class Work {
 public:
  // Blocks until the operation has finished; rethrows its error.
  void wait();
  bool is_completed();
  // Whether it finished with an error (only meaningful once completed).
  bool failed();

  // Called once by the thread that ran the operation.
  void finish(std::exception_ptr error);

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
  std::exception_ptr error_;
};

}  // namespace monoflow::collective
