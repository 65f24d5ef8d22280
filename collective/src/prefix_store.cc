#include "monoflow/collective/store.h"

namespace monoflow::collective {

PrefixStore::PrefixStore(std::string prefix, std::shared_ptr<Store> base)
    : Store(base->timeout()), prefix_(std::move(prefix)), base_(std::move(base)) {}

std::vector<std::string> PrefixStore::k(const std::vector<std::string>& keys) const {
  std::vector<std::string> out;
  for (auto& key : keys) out.push_back(k(key));
  return out;
}
void PrefixStore::set(const std::string& key, const Bytes& value) { base_->set(k(key), value); }
Bytes PrefixStore::get(const std::string& key) { return base_->get(k(key)); }
int64_t PrefixStore::add(const std::string& key, int64_t delta) { return base_->add(k(key), delta); }
bool PrefixStore::check(const std::vector<std::string>& keys) { return base_->check(k(keys)); }
void PrefixStore::wait(const std::vector<std::string>& keys, Millis timeout) { base_->wait(k(keys), timeout); }
bool PrefixStore::delete_key(const std::string& key) { return base_->delete_key(k(key)); }
int64_t PrefixStore::num_keys() { return base_->num_keys(); }
Bytes PrefixStore::compare_set(const std::string& key, const Bytes& expected, const Bytes& desired) {
  return base_->compare_set(k(key), expected, desired);
}

}  // namespace monoflow::collective
