// Gloo's rendezvous::Store over monoflow's Store, so that Gloo's full-mesh
// connect uses our TCP/file store (and its timeouts).
#pragma once
#include <gloo/rendezvous/store.h>

#include <memory>

#include "monoflow/collective/store.h"

namespace monoflow::collective {

class GlooStore : public gloo::rendezvous::Store {
 public:
  explicit GlooStore(std::shared_ptr<collective::Store> store) : store_(std::move(store)) {}
  void set(const std::string& key, const std::vector<char>& data) override { store_->set(key, data); }
  std::vector<char> get(const std::string& key) override { return store_->get(key); }
  void wait(const std::vector<std::string>& keys) override { store_->wait(keys); }
  void wait(const std::vector<std::string>& keys, const std::chrono::milliseconds& timeout) override {
    store_->wait(keys, timeout);
  }

 private:
  std::shared_ptr<collective::Store> store_;
};

}  // namespace monoflow::collective
