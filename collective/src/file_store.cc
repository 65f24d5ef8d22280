#include "monoflow/collective/file_store.h"

#include <dirent.h>
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
#include "store_counter.h"

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

Bytes read_file(const std::string& p) {
  std::ifstream f(p, std::ios::binary);
  return Bytes(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

// The directory's lock file, held for one read-modify-write (add, delete,
// compare_set); set() alone needs none (temp file + rename).
class DirLock {
 public:
  explicit DirLock(const std::string& dir) {
    std::string p = dir + "/lock";
    fd_ = ::open(p.c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0666);
    if (fd_ < 0) throw CommError("FileStore: cannot open '" + p + "': " + std::strerror(errno));
    ::flock(fd_, LOCK_EX);
  }
  ~DirLock() {
    ::flock(fd_, LOCK_UN);
    ::close(fd_);
  }
  DirLock(const DirLock&) = delete;
  DirLock& operator=(const DirLock&) = delete;

 private:
  int fd_;
};
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
  return read_file(path(key));
}

int64_t FileStore::add(const std::string& key, int64_t delta) {
  DirLock lock(dir_);
  int64_t cur = parse_counter(read_file(path(key)), key) + delta;
  set(key, format_counter(cur));
  return cur;
}

bool FileStore::delete_key(const std::string& key) {
  DirLock lock(dir_);
  return ::unlink(path(key).c_str()) == 0;
}

int64_t FileStore::num_keys() {
  DIR* d = ::opendir(dir_.c_str());
  if (d == nullptr) throw CommError("FileStore: cannot list '" + dir_ + "': " + std::strerror(errno));
  int64_t n = 0;
  while (dirent* e = ::readdir(d)) {
    std::string name = e->d_name;
    if (name.size() > 1 && name[0] == 'k' && name.find(".tmp") == std::string::npos) ++n;
  }
  ::closedir(d);
  return n;
}

Bytes FileStore::compare_set(const std::string& key, const Bytes& expected, const Bytes& desired) {
  DirLock lock(dir_);
  std::string p = path(key);
  if (::access(p.c_str(), F_OK) != 0) {
    if (!expected.empty()) return expected;
    set(key, desired);
    return desired;
  }
  Bytes cur = read_file(p);
  if (cur != expected) return cur;
  set(key, desired);
  return desired;
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
