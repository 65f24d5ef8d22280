// FileStore: a key-value store in one shared directory, for ranks on one
// machine (or a shared file system). One file per key, written atomically
// (temp file + rename); add() takes an flock on a lock file.
#pragma once
#include <string>

#include "monoflow/collective/store.h"

namespace monoflow::collective {

class FileStore : public Store {
 public:
  FileStore(std::string dir, Millis timeout);
  void set(const std::string& key, const Bytes& value) override;
  Bytes get(const std::string& key) override;
  int64_t add(const std::string& key, int64_t delta) override;
  bool check(const std::vector<std::string>& keys) override;
  void wait(const std::vector<std::string>& keys, Millis timeout) override;
  bool delete_key(const std::string& key) override;
  int64_t num_keys() override;
  Bytes compare_set(const std::string& key, const Bytes& expected, const Bytes& desired) override;
  using Store::wait;

 private:
  std::string path(const std::string& key) const;
  std::string dir_;
};

}  // namespace monoflow::collective
