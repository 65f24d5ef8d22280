// Small blocking-socket helpers shared by the TCP store's client and server.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "monoflow/collective/store.h"
#include "monoflow/collective/types.h"

namespace monoflow::collective::net {

// Connects to host:port, retrying refused connections until `timeout`.
int connect_to(const std::string& host, int port, Millis timeout);
// The port is held by another socket (listen_on's error, so that the caller
// can find out who holds it).
struct AddrInUse : CommError {
  using CommError::CommError;
};
// Binds and listens on host:port (port 0: any); returns the fd and sets *bound.
int listen_on(const std::string& host, int port, int* bound);
// Whole-buffer I/O. recv_all returns false on timeout (SO_RCVTIMEO) and throws
// CommError on a closed or broken connection.
void send_all(int fd, const void* data, size_t n);
bool recv_all(int fd, void* data, size_t n);
void set_recv_timeout(int fd, Millis timeout);

// Length-prefixed framing.
void put_u32(std::vector<char>& b, uint32_t v);
void put_i64(std::vector<char>& b, int64_t v);
void put_str(std::vector<char>& b, const std::string& s);
struct Reader {
  const char* p;
  const char* end;
  uint32_t u32();
  int64_t i64();
  std::string str();
};

}  // namespace monoflow::collective::net
