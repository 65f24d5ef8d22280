// Built instead of gloo_communicator.cc when CMake did not find Gloo.
#include "monoflow/collective/backends.h"

namespace monoflow::collective {

bool gloo_available() { return false; }

std::unique_ptr<Communicator> make_gloo(std::shared_ptr<Store>, int, int, Millis, const std::string&,
                                        const std::string&) {
  throw CommError("monoflow was built without Gloo: install libgloo-dev and reinstall");
}

}  // namespace monoflow::collective
