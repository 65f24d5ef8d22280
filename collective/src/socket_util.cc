#include "socket_util.h"

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include "monoflow/collective/types.h"

namespace monoflow::collective::net {

namespace {
std::string err() { return std::strerror(errno); }

struct AddrInfo {
  addrinfo* head = nullptr;
  AddrInfo(const std::string& host, int port, bool passive) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    if (passive) hints.ai_flags = AI_PASSIVE;
    std::string p = std::to_string(port);
    int rc = getaddrinfo(host.empty() ? nullptr : host.c_str(), p.c_str(), &hints, &head);
    if (rc != 0) throw CommError("TCPStore: cannot resolve '" + host + "': " + gai_strerror(rc));
  }
  ~AddrInfo() { if (head) freeaddrinfo(head); }
};
}  // namespace

int connect_to(const std::string& host, int port, Millis timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  std::string last = "timed out";
  for (;;) {
    AddrInfo ai(host, port, false);
    for (addrinfo* a = ai.head; a; a = a->ai_next) {
      int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
      if (fd < 0) { last = err(); continue; }
      if (::connect(fd, a->ai_addr, a->ai_addrlen) == 0) {
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
        return fd;
      }
      last = err();
      ::close(fd);
    }
    if (std::chrono::steady_clock::now() >= deadline)
      throw CommError("TCPStore: could not connect to " + host + ":" + std::to_string(port) + " within " +
                      std::to_string(timeout.count() / 1000.0) + " s (" + last +
                      "); is rank 0 running and MASTER_ADDR/MASTER_PORT right?");
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

int listen_on(const std::string& host, int port, int* bound) {
  AddrInfo ai(host, port, true);
  std::string last = "no address";
  for (addrinfo* a = ai.head; a; a = a->ai_next) {
    int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) { last = err(); continue; }
    int one = 1;
    // Lets a restarted job reuse a port in TIME_WAIT; a live listener still
    // makes bind() fail with EADDRINUSE.
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (::bind(fd, a->ai_addr, a->ai_addrlen) != 0) {
      int e = errno;
      ::close(fd);
      if (e == EADDRINUSE)
        throw AddrInUse("TCPStore: port " + std::to_string(port) + " on " + host +
                        " is already in use (EADDRINUSE); pick another MASTER_PORT or stop the process using it");
      errno = e;
      last = err();
      continue;
    }
    if (::listen(fd, 1024) != 0) { last = err(); ::close(fd); continue; }
    sockaddr_storage ss{};
    socklen_t len = sizeof(ss);
    getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len);
    *bound = ntohs(ss.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&ss)->sin6_port
                                            : reinterpret_cast<sockaddr_in*>(&ss)->sin_port);
    return fd;
  }
  throw CommError("TCPStore: cannot listen on " + host + ":" + std::to_string(port) + ": " + last);
}

void send_all(int fd, const void* data, size_t n) {
  auto* p = static_cast<const char*>(data);
  while (n > 0) {
    ssize_t k = ::send(fd, p, n, MSG_NOSIGNAL);
    if (k < 0) {
      if (errno == EINTR) continue;
      throw CommError("TCPStore: send failed: " + err());
    }
    p += k;
    n -= size_t(k);
  }
}

bool recv_all(int fd, void* data, size_t n) {
  auto* p = static_cast<char*>(data);
  while (n > 0) {
    ssize_t k = ::recv(fd, p, n, 0);
    if (k == 0) throw CommError("TCPStore: connection closed by the store server (rank 0 gone?)");
    if (k < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) return false;
      throw CommError("TCPStore: recv failed: " + err());
    }
    p += k;
    n -= size_t(k);
  }
  return true;
}

void set_recv_timeout(int fd, Millis timeout) {
  timeval tv{};
  auto ms = timeout.count() <= 0 ? 1 : timeout.count();
  tv.tv_sec = ms / 1000;
  tv.tv_usec = (ms % 1000) * 1000;
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
}

void put_u32(std::vector<char>& b, uint32_t v) {
  char c[4];
  std::memcpy(c, &v, 4);
  b.insert(b.end(), c, c + 4);
}
void put_i64(std::vector<char>& b, int64_t v) {
  char c[8];
  std::memcpy(c, &v, 8);
  b.insert(b.end(), c, c + 8);
}
void put_str(std::vector<char>& b, const std::string& s) {
  put_u32(b, uint32_t(s.size()));
  b.insert(b.end(), s.begin(), s.end());
}

uint32_t Reader::u32() {
  if (end - p < 4) throw CommError("TCPStore: truncated message");
  uint32_t v;
  std::memcpy(&v, p, 4);
  p += 4;
  return v;
}
int64_t Reader::i64() {
  if (end - p < 8) throw CommError("TCPStore: truncated message");
  int64_t v;
  std::memcpy(&v, p, 8);
  p += 8;
  return v;
}
std::string Reader::str() {
  uint32_t n = u32();
  if (uint32_t(end - p) < n) throw CommError("TCPStore: truncated message");
  std::string s(p, n);
  p += n;
  return s;
}

}  // namespace monoflow::collective::net
