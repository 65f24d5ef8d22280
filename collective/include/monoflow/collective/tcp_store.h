// TCPStore: a key-value store served over TCP by one process (rank 0), so that
// ranks on different machines can rendezvous.
//
// Note [TCPStore protocol]
//   One request per round trip on a persistent connection: a command byte,
//   length-prefixed strings, and a reply. WAIT is answered by the server only
//   when its keys exist (the server parks the request), so the client blocks
//   in recv() with SO_RCVTIMEO = the timeout, never in a polling loop. The
//   server is one thread with poll(); it binds to the given host (0.0.0.0 by
//   default) so that other machines can connect.
#pragma once
#include <memory>
#include <mutex>
#include <string>

#include "monoflow/collective/store.h"

namespace monoflow::collective {

class TCPStoreServer;

class TCPStore : public Store {
 public:
  // is_server: also serve the store on (bind_host, port) in a background
  // thread. A port in use throws CommError naming it. port 0 picks a free one.
  TCPStore(const std::string& host, int port, bool is_server, Millis timeout,
           const std::string& bind_host = "0.0.0.0");
  ~TCPStore() override;

  void set(const std::string& key, const Bytes& value) override;
  Bytes get(const std::string& key) override;
  int64_t add(const std::string& key, int64_t delta) override;
  bool check(const std::vector<std::string>& keys) override;
  void wait(const std::vector<std::string>& keys, Millis timeout) override;
  using Store::wait;
  int port() const { return port_; }

 private:
  Bytes request(const Bytes& msg, Millis timeout, const std::string& what);
  std::string host_;
  int port_;
  int fd_ = -1;
  std::mutex mu_;  // one request at a time on the connection
  std::unique_ptr<TCPStoreServer> server_;
};

}  // namespace monoflow::collective
