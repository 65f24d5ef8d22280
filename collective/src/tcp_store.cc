// TCPStore client and server (Note [TCPStore protocol]).
#include "monoflow/collective/tcp_store.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <map>
#include <thread>
#include <unordered_map>

#include "monoflow/collective/types.h"
#include "socket_util.h"

namespace monoflow::collective {

namespace {
enum Cmd : char { kSet = 1, kGet = 2, kAdd = 3, kCheck = 4, kWait = 5 };
}

// ------------------------------------------------------------------ server
class TCPStoreServer {
 public:
  TCPStoreServer(const std::string& host, int port) {
    listen_fd_ = net::listen_on(host, port, &port_);
    if (pipe(wake_) != 0) throw CommError("TCPStore: pipe() failed");
    thread_ = std::thread([this] { loop(); });
  }
  ~TCPStoreServer() {
    char c = 0;
    (void)!write(wake_[1], &c, 1);
    thread_.join();
    for (auto& kv : clients_) ::close(kv.first);
    ::close(listen_fd_);
    ::close(wake_[0]);
    ::close(wake_[1]);
  }
  int port() const { return port_; }

 private:
  struct Parked {
    int fd;
    char cmd;  // kGet or kWait
    std::vector<std::string> keys;
  };

  void reply(int fd, const Bytes& payload) {
    Bytes out;
    net::put_u32(out, uint32_t(payload.size()));
    out.insert(out.end(), payload.begin(), payload.end());
    try {
      net::send_all(fd, out.data(), out.size());
    } catch (const CommError&) {
      // The client went away; its fd is closed when poll reports it.
    }
  }

  bool ready(const std::vector<std::string>& keys) const {
    for (auto& k : keys)
      if (!data_.count(k)) return false;
    return true;
  }

  void answer(const Parked& p) {
    Bytes out;
    if (p.cmd == kGet) {
      auto& v = data_.at(p.keys[0]);
      out.assign(v.begin(), v.end());
    } else {
      out.push_back(1);
    }
    reply(p.fd, out);
  }

  void wake_parked() {
    for (size_t i = 0; i < parked_.size();) {
      if (ready(parked_[i].keys)) {
        answer(parked_[i]);
        parked_.erase(parked_.begin() + long(i));
      } else {
        ++i;
      }
    }
  }

  void handle(int fd, const Bytes& msg) {
    net::Reader r{msg.data() + 1, msg.data() + msg.size()};
    char cmd = msg[0];
    if (cmd == kSet) {
      std::string key = r.str();
      std::string val = r.str();
      data_[key] = Bytes(val.begin(), val.end());
      reply(fd, Bytes{1});
      wake_parked();
    } else if (cmd == kAdd) {
      std::string key = r.str();
      int64_t delta = r.i64();
      int64_t cur = 0;
      auto it = data_.find(key);
      if (it != data_.end() && it->second.size() == 8) std::memcpy(&cur, it->second.data(), 8);
      cur += delta;
      Bytes v(8);
      std::memcpy(v.data(), &cur, 8);
      data_[key] = v;
      reply(fd, v);
      wake_parked();
    } else if (cmd == kCheck) {
      uint32_t n = r.u32();
      std::vector<std::string> keys;
      for (uint32_t i = 0; i < n; ++i) keys.push_back(r.str());
      reply(fd, Bytes{char(ready(keys) ? 1 : 0)});
    } else if (cmd == kGet || cmd == kWait) {
      Parked p{fd, cmd, {}};
      if (cmd == kGet) {
        p.keys.push_back(r.str());
      } else {
        uint32_t n = r.u32();
        for (uint32_t i = 0; i < n; ++i) p.keys.push_back(r.str());
      }
      if (ready(p.keys)) answer(p);
      else parked_.push_back(std::move(p));
    }
  }

  void drop(int fd) {
    ::close(fd);
    clients_.erase(fd);
    for (size_t i = 0; i < parked_.size();) {
      if (parked_[i].fd == fd) parked_.erase(parked_.begin() + long(i));
      else ++i;
    }
  }

  void loop() {
    std::vector<char> tmp(1 << 16);
    for (;;) {
      std::vector<pollfd> fds{{wake_[0], POLLIN, 0}, {listen_fd_, POLLIN, 0}};
      for (auto& kv : clients_) fds.push_back({kv.first, POLLIN, 0});
      if (poll(fds.data(), fds.size(), -1) < 0) continue;
      if (fds[0].revents) return;
      if (fds[1].revents & POLLIN) {
        int c = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
        if (c >= 0) clients_[c];
      }
      for (size_t i = 2; i < fds.size(); ++i) {
        if (!fds[i].revents) continue;
        int fd = fds[i].fd;
        ssize_t k = ::recv(fd, tmp.data(), tmp.size(), 0);
        if (k <= 0) {
          drop(fd);
          continue;
        }
        Bytes& buf = clients_[fd];
        buf.insert(buf.end(), tmp.data(), tmp.data() + k);
        // Handle every complete frame in the buffer.
        for (;;) {
          if (buf.size() < 4) break;
          uint32_t len;
          std::memcpy(&len, buf.data(), 4);
          if (buf.size() < 4 + size_t(len)) break;
          Bytes msg(buf.begin() + 4, buf.begin() + 4 + len);
          buf.erase(buf.begin(), buf.begin() + 4 + len);
          if (!msg.empty()) {
            try {
              handle(fd, msg);
            } catch (const CommError&) {
              drop(fd);
              break;
            }
          }
        }
      }
    }
  }

  int listen_fd_ = -1;
  int port_ = 0;
  int wake_[2] = {-1, -1};
  std::thread thread_;
  std::map<int, Bytes> clients_;  // fd -> bytes received, not yet a frame
  std::unordered_map<std::string, Bytes> data_;
  std::vector<Parked> parked_;
};

// ------------------------------------------------------------------ client
TCPStore::TCPStore(const std::string& host, int port, bool is_server, Millis timeout,
                   const std::string& bind_host)
    : Store(timeout), host_(host), port_(port) {
  if (is_server) {
    server_ = std::make_unique<TCPStoreServer>(bind_host, port);
    port_ = server_->port();
  }
  fd_ = net::connect_to(is_server ? "127.0.0.1" : host_, port_, timeout);
}

TCPStore::~TCPStore() {
  if (fd_ >= 0) ::close(fd_);
}

Bytes TCPStore::request(const Bytes& msg, Millis timeout, const std::string& what) {
  std::lock_guard<std::mutex> lock(mu_);
  if (fd_ < 0) fd_ = net::connect_to(server_ ? "127.0.0.1" : host_, port_, timeout_);
  Bytes frame;
  net::put_u32(frame, uint32_t(msg.size()));
  frame.insert(frame.end(), msg.begin(), msg.end());
  net::send_all(fd_, frame.data(), frame.size());
  net::set_recv_timeout(fd_, timeout);
  uint32_t len = 0;
  bool ok = net::recv_all(fd_, &len, 4);
  Bytes out(ok ? len : 0);
  if (ok && len) ok = net::recv_all(fd_, out.data(), len);
  if (!ok) {
    // The late reply would desynchronise the connection: start a fresh one.
    ::close(fd_);
    fd_ = -1;
    throw CommError("TCPStore: timed out after " + std::to_string(timeout.count() / 1000.0) + " s waiting for " +
                    what);
  }
  return out;
}

void TCPStore::set(const std::string& key, const Bytes& value) {
  Bytes m{kSet};
  net::put_str(m, key);
  net::put_str(m, std::string(value.begin(), value.end()));
  request(m, timeout_, "set('" + key + "')");
}

Bytes TCPStore::get(const std::string& key) {
  Bytes m{kGet};
  net::put_str(m, key);
  return request(m, timeout_, "key '" + key + "'");
}

int64_t TCPStore::add(const std::string& key, int64_t delta) {
  Bytes m{kAdd};
  net::put_str(m, key);
  net::put_i64(m, delta);
  Bytes r = request(m, timeout_, "add('" + key + "')");
  int64_t v;
  std::memcpy(&v, r.data(), 8);
  return v;
}

bool TCPStore::check(const std::vector<std::string>& keys) {
  Bytes m{kCheck};
  net::put_u32(m, uint32_t(keys.size()));
  for (auto& k : keys) net::put_str(m, k);
  return request(m, timeout_, "check")[0] != 0;
}

void TCPStore::wait(const std::vector<std::string>& keys, Millis timeout) {
  Bytes m{kWait};
  net::put_u32(m, uint32_t(keys.size()));
  std::string names;
  for (auto& k : keys) {
    net::put_str(m, k);
    names += (names.empty() ? "'" : ", '") + k + "'";
  }
  request(m, timeout, "keys " + names);
}

}  // namespace monoflow::collective
