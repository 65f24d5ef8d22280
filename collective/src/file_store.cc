#include "monoflow/collective/file_store.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <thread>

#include "monoflow/collective/types.h"

namespace monoflow::collective {

namespace {
// Keys may contain '/', which a file name cannot: hex-encode them.
std::string encode(const std::string& key) {
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (unsigned char c : key) {
    out += hex[c >> 4];
    out += hex[c & 15];
  }
  return out;
}
}  // namespace

FileStore::FileStore(std::string dir, Millis timeout) : Store(timeout), dir_(std::move(dir)) {
  if (::mkdir(dir_.c_str(), 0777) != 0 && errno != EEXIST)
    throw CommError("FileStore: cannot create directory '" + dir_ + "': " + std::strerror(errno));
}

std::string FileStore::path(const std::string& key) const { return dir_ + "/k" + encode(key); }

void FileStore::set(const std::string& key, const Bytes& value) {
  std::string p = path(key);
  std::string tmp = p + ".tmp" + std::to_string(::getpid()) + "_" +
                    std::to_string(std::hash<std::thread::id>()(std::this_thread::get_id()));
  {
    std::ofstream f(tmp, std::ios::binary);
    f.write(value.data(), std::streamsize(value.size()));
    if (!f) throw CommError("FileStore: cannot write '" + tmp + "'");
  }
  if (std::rename(tmp.c_str(), p.c_str()) != 0)
    throw CommError("FileStore: cannot rename '" + tmp + "': " + std::strerror(errno));
}

Bytes FileStore::get(const std::string& key) {
  wait({key}, timeout_);
  std::ifstream f(path(key), std::ios::binary);
  return Bytes(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

int64_t FileStore::add(const std::string& key, int64_t delta) {
  std::string lock_path = dir_ + "/lock";
  int fd = ::open(lock_path.c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0666);
  if (fd < 0) throw CommError("FileStore: cannot open '" + lock_path + "': " + std::strerror(errno));
  ::flock(fd, LOCK_EX);
  int64_t cur = 0;
  {
    std::ifstream f(path(key), std::ios::binary);
    Bytes b((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    if (b.size() == 8) std::memcpy(&cur, b.data(), 8);
  }
  cur += delta;
  Bytes v(8);
  std::memcpy(v.data(), &cur, 8);
  try {
    set(key, v);
  } catch (...) {
    ::flock(fd, LOCK_UN);
    ::close(fd);
    throw;
  }
  ::flock(fd, LOCK_UN);
  ::close(fd);
  return cur;
}

bool FileStore::check(const std::vector<std::string>& keys) {
  for (auto& k : keys)
    if (::access(path(k).c_str(), F_OK) != 0) return false;
  return true;
}

void FileStore::wait(const std::vector<std::string>& keys, Millis timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!check(keys)) {
    if (std::chrono::steady_clock::now() >= deadline) {
      std::string names;
      for (auto& k : keys) names += (names.empty() ? "'" : ", '") + k + "'";
      throw CommError("FileStore: timed out after " + std::to_string(timeout.count() / 1000.0) +
                      " s waiting for keys " + names);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

}  // namespace monoflow::collective
