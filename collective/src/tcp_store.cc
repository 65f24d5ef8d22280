// TCPStore client and server (Notes [TCPStore protocol], [TCPStore handshake]).
#include "monoflow/collective/tcp_store.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <thread>
#include <unordered_map>

#include "hmac_sha256.h"
#include "monoflow/collective/types.h"
#include "socket_util.h"
#include "store_counter.h"

namespace monoflow::collective {

namespace {
enum Cmd : char { kSet = 1, kGet = 2, kAdd = 3, kCheck = 4, kWait = 5, kHello = 6, kDelete = 7, kNumKeys = 8, kCompareSet = 9 };
enum Status : char { kOk = 0, kError = 1, kValueError = 2 };  // kValueError: std::invalid_argument
constexpr char kMagic[4] = {'M', 'F', 'S', 'T'};
constexpr char kVersion = 1;
constexpr size_t kNonceBytes = 32;
constexpr size_t kGreetingBytes = 4 + 1 + 1 + kNonceBytes;
constexpr uint32_t kHelloProbe = 1;  // HELLO flag: only ask, take nothing
// A peer that has not completed the handshake may send only this much: a
// stranger cannot make the server buffer without bound.
constexpr uint32_t kMaxUnauthenticatedFrame = 4096;

std::string hostname() {
  char buf[256] = {0};
  if (gethostname(buf, sizeof(buf) - 1) != 0) return "?";
  return buf;
}

std::string job_name(const std::string& job) { return job.empty() ? "(no job id)" : "'" + job + "'"; }

std::string who(int64_t rank, const std::string& host, int64_t pid) {
  std::string where = "host " + host + ", pid " + std::to_string(pid);
  return rank == -1 ? "a client (" + where + ")" : "rank " + std::to_string(rank) + " (" + where + ")";
}

bool wildcard(const std::string& host) { return host.empty() || host == "0.0.0.0" || host == "::"; }

void send_frame(int fd, const Bytes& payload) {
  Bytes out;
  net::put_u32(out, uint32_t(payload.size()));
  out.insert(out.end(), payload.begin(), payload.end());
  net::send_all(fd, out.data(), out.size());
}
}  // namespace

// ------------------------------------------------------------------ server
class TCPStoreServer {
 public:
  TCPStoreServer(const std::string& host, int port, const StoreIdentity& id)
      : job_id_(id.job_id), world_size_(id.world_size), secret_(id.secret) {
    listen_fd_ = net::listen_on(host, port, &port_);
    if (pipe(wake_) != 0) {
      ::close(listen_fd_);
      throw CommError("TCPStore: pipe() failed");
    }
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
  struct Client {
    Bytes buf;             // bytes received, not yet a frame
    std::string nonce;     // this connection's server nonce
    bool joined = false;   // handshake accepted
    int64_t rank = -1;
    std::string host;
    int64_t pid = 0;
  };
  struct Parked {
    int fd;
    char cmd;  // kGet or kWait
    std::vector<std::string> keys;
  };

  void reply(int fd, Status status, const Bytes& payload) {
    Bytes out{char(status)};
    out.insert(out.end(), payload.begin(), payload.end());
    try {
      send_frame(fd, out);
    } catch (const CommError&) {
      // The client went away; its fd is closed when poll reports it.
    }
  }
  void reply_error(int fd, const std::string& msg) { reply(fd, kError, Bytes(msg.begin(), msg.end())); }

  bool ready(const std::vector<std::string>& keys) const {
    for (auto& k : keys)
      if (!data_.count(k)) return false;
    return true;
  }

  void answer(const Parked& p) {
    if (p.cmd == kGet) reply(p.fd, kOk, data_.at(p.keys[0]));
    else reply(p.fd, kOk, Bytes{1});
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

  // The job cannot complete: every waiting and later request fails with why.
  void abort(const std::string& reason) {
    abort_reason_ = reason;
    for (auto& p : parked_) reply_error(p.fd, reason);
    parked_.clear();
  }

  // Returns false when the connection must be closed (a refused handshake).
  bool hello(int fd, Client& c, const Bytes& msg) {
    net::Reader r{msg.data() + 1, msg.data() + msg.size()};
    std::string job = r.str();
    int64_t rank = r.i64();
    int64_t world = r.i64();
    std::string host = r.str();
    int64_t pid = r.i64();
    uint32_t flags = r.u32();
    std::string client_nonce = r.str();
    std::string signed_part(msg.data(), r.p);
    std::string mac = r.str();
    std::string me = who(rank, host, pid);
    if (!secret_.empty() &&
        !crypto::constant_time_equal(mac, crypto::hmac_sha256(secret_, "client" + c.nonce + signed_part))) {
      reply_error(fd, "TCPStore: " + me + " was refused by the store at port " + std::to_string(port_) +
                          ": authentication failed (its MONOFLOW_STORE_SECRET does not match the job's)");
      return false;
    }
    if (job != job_id_) {
      reply_error(fd, "TCPStore: " + me + " belongs to job " + job_name(job) + ", but the store at port " +
                          std::to_string(port_) + " serves job " + job_name(job_id_) +
                          " (two jobs on one MASTER_PORT?); refused");
      return false;
    }
    auto held = rank == -1 ? rank_fd_.end() : rank_fd_.find(rank);
    bool duplicate = held != rank_fd_.end() && held->second != fd &&
                     !(clients_[held->second].host == host && clients_[held->second].pid == pid);
    std::string duplicate_msg;
    if (duplicate) {
      const Client& o = clients_[held->second];
      duplicate_msg = "TCPStore: duplicate rank " + std::to_string(rank) + " in job " + job_name(job_id_) + ": rank " +
                      std::to_string(rank) + " already joined from host " + o.host + ", pid " +
                      std::to_string(o.pid) + "; refused " + me;
    }
    if (flags & kHelloProbe) {
      reply_error(fd, duplicate ? duplicate_msg
                                : "a store of job " + job_name(job_id_) + " with WORLD_SIZE=" +
                                      std::to_string(world_size_) + " is running there");
      return false;
    }
    if (!abort_reason_.empty()) {
      reply_error(fd, abort_reason_);
      return false;
    }
    if (world_size_ > 0 && world > 0 && world != world_size_) {
      abort("TCPStore: " + me + " has WORLD_SIZE=" + std::to_string(world) + ", but job " + job_name(job_id_) +
            " has WORLD_SIZE=" + std::to_string(world_size_) + " (rank 0's); the job cannot form");
      reply_error(fd, abort_reason_);
      return false;
    }
    if (world_size_ > 0 && rank != -1 && (rank < 0 || rank >= world_size_)) {
      abort("TCPStore: " + me + " is outside WORLD_SIZE=" + std::to_string(world_size_) + " of job " +
            job_name(job_id_) + " (ranks are 0.." + std::to_string(world_size_ - 1) + "); the job cannot form");
      reply_error(fd, abort_reason_);
      return false;
    }
    if (duplicate) {
      reply_error(fd, duplicate_msg);
      return false;
    }
    // A rank that reconnects (same host and pid) takes its slot over.
    c.joined = true;
    c.rank = rank;
    c.host = host;
    c.pid = pid;
    if (rank != -1) rank_fd_[rank] = fd;
    std::string proof = secret_.empty() ? "" : crypto::hmac_sha256(secret_, "server" + client_nonce + c.nonce);
    reply(fd, kOk, Bytes(proof.begin(), proof.end()));
    return true;
  }

  bool handle(int fd, const Bytes& msg) {
    Client& c = clients_[fd];
    char cmd = msg[0];
    if (!c.joined) {
      if (cmd == kHello) return hello(fd, c, msg);
      reply_error(fd, "TCPStore: a request before the handshake (not a monoflow client of this version?)");
      return false;
    }
    if (!abort_reason_.empty()) {
      reply_error(fd, abort_reason_);
      return true;
    }
    net::Reader r{msg.data() + 1, msg.data() + msg.size()};
    if (cmd == kSet) {
      std::string key = r.str();
      std::string val = r.str();
      data_[key] = Bytes(val.begin(), val.end());
      reply(fd, kOk, Bytes{1});
      wake_parked();
    } else if (cmd == kAdd) {
      std::string key = r.str();
      int64_t delta = r.i64();
      auto it = data_.find(key);
      int64_t cur;
      try {
        cur = (it == data_.end() ? 0 : parse_counter(it->second, key)) + delta;
      } catch (const std::invalid_argument& e) {
        reply(fd, kValueError, Bytes(e.what(), e.what() + std::strlen(e.what())));
        return true;
      }
      data_[key] = format_counter(cur);
      Bytes v;
      net::put_i64(v, cur);
      reply(fd, kOk, v);
      wake_parked();
    } else if (cmd == kCheck) {
      uint32_t n = r.u32();
      std::vector<std::string> keys;
      for (uint32_t i = 0; i < n; ++i) keys.push_back(r.str());
      reply(fd, kOk, Bytes{char(ready(keys) ? 1 : 0)});
    } else if (cmd == kDelete) {
      reply(fd, kOk, Bytes{char(data_.erase(r.str()) ? 1 : 0)});
    } else if (cmd == kNumKeys) {
      Bytes v;
      net::put_i64(v, int64_t(data_.size()));
      reply(fd, kOk, v);
    } else if (cmd == kCompareSet) {
      std::string key = r.str();
      std::string expected = r.str();
      std::string desired = r.str();
      auto it = data_.find(key);
      bool absent = it == data_.end();
      if ((absent && expected.empty()) || (!absent && std::string(it->second.begin(), it->second.end()) == expected)) {
        data_[key] = Bytes(desired.begin(), desired.end());
        reply(fd, kOk, data_[key]);
        wake_parked();
      } else {
        reply(fd, kOk, absent ? Bytes(expected.begin(), expected.end()) : it->second);
      }
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
    } else {
      reply_error(fd, "TCPStore: unknown command " + std::to_string(int(cmd)));
      return false;
    }
    return true;
  }

  void accept_one() {
    int c = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (c < 0) return;
    Client& client = clients_[c];
    client.nonce = crypto::random_bytes(kNonceBytes);
    Bytes greeting(kMagic, kMagic + 4);
    greeting.push_back(kVersion);
    greeting.push_back(secret_.empty() ? 0 : 1);
    greeting.insert(greeting.end(), client.nonce.begin(), client.nonce.end());
    try {
      send_frame(c, greeting);
    } catch (const CommError&) {
      drop(c);
    }
  }

  void drop(int fd) {
    ::close(fd);
    auto it = clients_.find(fd);
    if (it != clients_.end() && it->second.rank != -1) {
      auto held = rank_fd_.find(it->second.rank);
      if (held != rank_fd_.end() && held->second == fd) rank_fd_.erase(held);
    }
    clients_.erase(fd);
    for (size_t i = 0; i < parked_.size();) {
      if (parked_[i].fd == fd) parked_.erase(parked_.begin() + long(i));
      else ++i;
    }
  }

  // Handles every complete frame in fd's buffer; false: close the connection.
  bool drain(int fd) {
    for (;;) {
      Client& c = clients_[fd];
      if (c.buf.size() < 4) return true;
      uint32_t len;
      std::memcpy(&len, c.buf.data(), 4);
      if (!c.joined && len > kMaxUnauthenticatedFrame) return false;
      if (c.buf.size() < 4 + size_t(len)) return true;
      Bytes msg(c.buf.begin() + 4, c.buf.begin() + 4 + len);
      c.buf.erase(c.buf.begin(), c.buf.begin() + 4 + len);
      if (msg.empty()) continue;
      try {
        if (!handle(fd, msg)) return false;
      } catch (const CommError&) {
        return false;  // a truncated or malformed frame
      }
    }
  }

  void loop() {
    std::vector<char> tmp(1 << 16);
    for (;;) {
      std::vector<pollfd> fds{{wake_[0], POLLIN, 0}, {listen_fd_, POLLIN, 0}};
      for (auto& kv : clients_) fds.push_back({kv.first, POLLIN, 0});
      if (poll(fds.data(), fds.size(), -1) < 0) continue;
      if (fds[0].revents) return;
      if (fds[1].revents & POLLIN) accept_one();
      for (size_t i = 2; i < fds.size(); ++i) {
        if (!fds[i].revents) continue;
        int fd = fds[i].fd;
        if (!clients_.count(fd)) continue;
        ssize_t k = ::recv(fd, tmp.data(), tmp.size(), 0);
        if (k <= 0) {
          drop(fd);
          continue;
        }
        Bytes& buf = clients_[fd].buf;
        buf.insert(buf.end(), tmp.data(), tmp.data() + k);
        if (!drain(fd)) drop(fd);
      }
    }
  }

  std::string job_id_;
  int64_t world_size_;
  std::string secret_;
  std::string abort_reason_;  // set: the job cannot form (Note [TCPStore handshake])
  int listen_fd_ = -1;
  int port_ = 0;
  int wake_[2] = {-1, -1};
  std::thread thread_;
  std::map<int, Client> clients_;
  std::map<int64_t, int> rank_fd_;  // claimed rank -> the connection holding it
  std::unordered_map<std::string, Bytes> data_;
  std::vector<Parked> parked_;
};

// ------------------------------------------------------------------ client
namespace {
// Reads one reply frame; false on timeout. Error replies throw their message.
bool read_reply(int fd, Bytes* payload) {
  uint32_t len = 0;
  if (!net::recv_all(fd, &len, 4)) return false;
  Bytes frame(len);
  if (len && !net::recv_all(fd, frame.data(), len)) return false;
  if (frame.empty()) throw CommError("TCPStore: empty reply from the store server");
  if (frame[0] == kValueError) throw std::invalid_argument(std::string(frame.begin() + 1, frame.end()));
  if (frame[0] != kOk) throw CommError(std::string(frame.begin() + 1, frame.end()));
  payload->assign(frame.begin() + 1, frame.end());
  return true;
}
}  // namespace

TCPStore::TCPStore(const std::string& host, int port, bool is_server, Millis timeout, const std::string& bind_host,
                   StoreIdentity id)
    : Store(timeout), host_(host), connect_host_(host), port_(port), id_(std::move(id)) {
  if (is_server) {
    if (wildcard(bind_host)) connect_host_ = bind_host == "::" ? "::1" : "127.0.0.1";
    try {
      server_ = std::make_unique<TCPStoreServer>(bind_host, port, id_);
    } catch (const net::AddrInUse& e) {
      // Say what holds the port when it is a monoflow store: a duplicate
      // rank 0, or another job.
      std::string what = e.what();
      try {
        ::close(open_connection(std::min(timeout, Millis(2000)), true));
      } catch (const CommError& verdict) {
        what += "; " + std::string(verdict.what());
      }
      throw CommError(what);
    }
    port_ = server_->port();
  }
  fd_ = open_connection(timeout, false);
}

TCPStore::~TCPStore() {
  if (fd_ >= 0) ::close(fd_);
}

int TCPStore::open_connection(Millis timeout, bool probe) {
  std::string where = connect_host_ + ":" + std::to_string(port_);
  int fd = net::connect_to(connect_host_, port_, timeout);
  try {
    // Something that is not a monoflow store may never speak: bound the wait.
    net::set_recv_timeout(fd, std::min(timeout, Millis(10000)));
    uint32_t len = 0;
    char greeting[kGreetingBytes];
    bool ok = net::recv_all(fd, &len, 4) && len == kGreetingBytes && net::recv_all(fd, greeting, kGreetingBytes) &&
              std::memcmp(greeting, kMagic, 4) == 0;
    if (!ok) throw CommError("TCPStore: " + where + " is not a monoflow store (another program on that port?)");
    if (greeting[4] != kVersion)
      throw CommError("TCPStore: the store at " + where + " speaks protocol version " +
                      std::to_string(int(greeting[4])) + ", this monoflow speaks " + std::to_string(int(kVersion)) +
                      " (mixed monoflow versions in one job?)");
    bool secret_required = greeting[5] != 0;
    std::string server_nonce(greeting + 6, kNonceBytes);
    if (secret_required && id_.secret.empty())
      throw CommError("TCPStore: the store at " + where +
                      " requires the job's shared secret; set MONOFLOW_STORE_SECRET (or MONOFLOW_STORE_SECRET_FILE)");
    if (!secret_required && !id_.secret.empty())
      throw CommError("TCPStore: the store at " + where +
                      " does not ask for a secret, but this process has MONOFLOW_STORE_SECRET set: refusing to join "
                      "a store that cannot prove it is the job's (another job on this port?)");
    std::string client_nonce = crypto::random_bytes(kNonceBytes);
    Bytes m{kHello};
    net::put_str(m, id_.job_id);
    net::put_i64(m, id_.rank);
    net::put_i64(m, id_.world_size);
    net::put_str(m, hostname());
    net::put_i64(m, int64_t(::getpid()));
    net::put_u32(m, probe ? kHelloProbe : 0);
    net::put_str(m, client_nonce);
    std::string mac =
        id_.secret.empty() ? "" : crypto::hmac_sha256(id_.secret, "client" + server_nonce + std::string(m.begin(), m.end()));
    net::put_str(m, mac);
    send_frame(fd, m);
    net::set_recv_timeout(fd, timeout);
    Bytes proof;
    if (!read_reply(fd, &proof))
      throw CommError("TCPStore: the store at " + where + " did not answer the handshake within " +
                      std::to_string(timeout.count() / 1000.0) + " s");
    if (!id_.secret.empty() &&
        !crypto::constant_time_equal(std::string(proof.begin(), proof.end()),
                                     crypto::hmac_sha256(id_.secret, "server" + client_nonce + server_nonce)))
      throw CommError("TCPStore: the store at " + where + " could not prove it knows the job's secret; refusing it");
  } catch (...) {
    ::close(fd);
    throw;
  }
  return fd;
}

Bytes TCPStore::request(const Bytes& msg, Millis timeout, const std::string& what) {
  std::lock_guard<std::mutex> lock(mu_);
  if (fd_ < 0) fd_ = open_connection(timeout_, false);
  send_frame(fd_, msg);
  net::set_recv_timeout(fd_, timeout);
  Bytes out;
  if (!read_reply(fd_, &out)) {
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
  if (r.size() != 8) throw CommError("TCPStore: malformed reply to add('" + key + "')");
  int64_t v;
  std::memcpy(&v, r.data(), 8);
  return v;
}

bool TCPStore::check(const std::vector<std::string>& keys) {
  Bytes m{kCheck};
  net::put_u32(m, uint32_t(keys.size()));
  for (auto& k : keys) net::put_str(m, k);
  Bytes r = request(m, timeout_, "check");
  return !r.empty() && r[0] != 0;
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

bool TCPStore::delete_key(const std::string& key) {
  Bytes m{kDelete};
  net::put_str(m, key);
  Bytes r = request(m, timeout_, "delete_key('" + key + "')");
  return !r.empty() && r[0] != 0;
}

int64_t TCPStore::num_keys() {
  Bytes r = request(Bytes{kNumKeys}, timeout_, "num_keys");
  if (r.size() != 8) throw CommError("TCPStore: malformed reply to num_keys");
  int64_t v;
  std::memcpy(&v, r.data(), 8);
  return v;
}

Bytes TCPStore::compare_set(const std::string& key, const Bytes& expected, const Bytes& desired) {
  Bytes m{kCompareSet};
  net::put_str(m, key);
  net::put_str(m, std::string(expected.begin(), expected.end()));
  net::put_str(m, std::string(desired.begin(), desired.end()));
  return request(m, timeout_, "compare_set('" + key + "')");
}

}  // namespace monoflow::collective
