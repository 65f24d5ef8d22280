// Store: the key-value service that ranks rendezvous through.
//
// Note [Store timeouts]
//   Every blocking call takes the store's timeout (set at construction, changed
//   with set_timeout) and throws CommError naming the keys it waited for when
//   it expires; nothing in the store blocks forever, so a rank that never
//   arrives turns into an error on every rank that waits for it.
#pragma once
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace monoflow::collective {

using Bytes = std::vector<char>;
using Millis = std::chrono::milliseconds;

class Store {
 public:
  explicit Store(Millis timeout) : timeout_(timeout) {}
  virtual ~Store() = default;

  virtual void set(const std::string& key, const Bytes& value) = 0;
  // Waits (up to the timeout) for the key to exist, then returns its value.
  virtual Bytes get(const std::string& key) = 0;
  // Atomically adds `delta` to the integer stored at key (0 when absent).
  virtual int64_t add(const std::string& key, int64_t delta) = 0;
  // True when all keys exist, without waiting.
  virtual bool check(const std::vector<std::string>& keys) = 0;
  virtual void wait(const std::vector<std::string>& keys, Millis timeout) = 0;
  void wait(const std::vector<std::string>& keys) { wait(keys, timeout_); }
  // Removes the key; false when it was absent.
  virtual bool delete_key(const std::string& key) = 0;
  // How many keys the store holds (over every prefix, as torch counts).
  virtual int64_t num_keys() = 0;
  // Sets key to `desired` when it holds `expected`, or when it is absent and
  // `expected` is empty; returns the value the key holds afterwards (torch's
  // rule, including its answer `expected` for an absent key).
  virtual Bytes compare_set(const std::string& key, const Bytes& expected, const Bytes& desired) = 0;

  Millis timeout() const { return timeout_; }
  void set_timeout(Millis t) { timeout_ = t; }

 protected:
  Millis timeout_;
};

// Prepends "prefix/" to every key: one namespace per process group.
class PrefixStore : public Store {
 public:
  PrefixStore(std::string prefix, std::shared_ptr<Store> base);
  void set(const std::string& key, const Bytes& value) override;
  Bytes get(const std::string& key) override;
  int64_t add(const std::string& key, int64_t delta) override;
  bool check(const std::vector<std::string>& keys) override;
  void wait(const std::vector<std::string>& keys, Millis timeout) override;
  using Store::wait;
  bool delete_key(const std::string& key) override;
  int64_t num_keys() override;
  Bytes compare_set(const std::string& key, const Bytes& expected, const Bytes& desired) override;

 private:
  std::string k(const std::string& key) const { return prefix_ + "/" + key; }
  std::vector<std::string> k(const std::vector<std::string>& keys) const;
  std::string prefix_;
  std::shared_ptr<Store> base_;
};

}  // namespace monoflow::collective
