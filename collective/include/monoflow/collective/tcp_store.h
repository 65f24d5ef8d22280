// TCPStore: a key-value store served over TCP by one process (rank 0), so that
// ranks on different machines can rendezvous.
//
// Note [TCPStore protocol]
//   One request per round trip on a persistent connection: a command byte,
//   length-prefixed strings, and a reply (a status byte, then the payload or
//   an error message). WAIT is answered by the server only when its keys exist
//   (the server parks the request), so the client blocks in recv() with
//   SO_RCVTIMEO = the timeout, never in a polling loop. The server is one
//   thread with poll(); it binds to the host it is given (the rendezvous passes
//   MASTER_ADDR, so a local job listens on loopback only). Commands: SET, GET,
//   ADD (the value kept as decimal text, as torch keeps counters), CHECK, WAIT,
//   DELETE, NUM_KEYS, COMPARE_SET (torch's rule, Store::compare_set); a
//   request that is the caller's mistake (ADD on a non-integer) gets the
//   status ValueError, which the client throws as std::invalid_argument.
//
// Note [TCPStore handshake]
//   Every connection starts with a handshake before any data command:
//     server -> client  magic "MFST", version, whether a secret is required,
//                       a 32-byte random server nonce;
//     client -> server  HELLO: job id, rank (or none), world size, host, pid,
//                       a 32-byte client nonce and, with a secret,
//                       HMAC(secret, "client" + server nonce + the HELLO bytes);
//     server -> client  ok + HMAC(secret, "server" + client nonce + server
//                       nonce), or an error message.
//   The secret never crosses the wire, the nonces make a recorded handshake
//   useless, and the client checks the server's proof too (a stranger cannot
//   pose as the job's store). The server then refuses, with a message that
//   says which: a bad or missing secret, a rank of another job id, a rank
//   already held by another live process (a duplicate). A rank outside the
//   job's WORLD_SIZE, or one that disagrees about WORLD_SIZE, cannot be part of
//   this job and its real peer will never come: the server aborts the store
//   with that reason, so every rank's pending and later requests fail at
//   once instead of waiting out the timeout.
#pragma once
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "monoflow/collective/store.h"

namespace monoflow::collective {

class TCPStoreServer;

// Who is joining (Note [TCPStore handshake]). rank -1: a plain client that
// claims no rank (torch's TCPStore API); world_size -1: unknown.
struct StoreIdentity {
  std::string job_id;
  int64_t rank = -1;
  int64_t world_size = -1;
  std::string secret;  // empty: no authentication
};

class TCPStore : public Store {
 public:
  // is_server: also serve the store on (bind_host, port) in a background
  // thread; the server's job id, world size and secret are `id`'s. A port in
  // use throws CommError naming it, and what holds it when that is a monoflow
  // store (a duplicate rank 0, another job). port 0 picks a free one.
  TCPStore(const std::string& host, int port, bool is_server, Millis timeout, const std::string& bind_host,
           StoreIdentity id);
  ~TCPStore() override;

  void set(const std::string& key, const Bytes& value) override;
  Bytes get(const std::string& key) override;
  int64_t add(const std::string& key, int64_t delta) override;
  bool check(const std::vector<std::string>& keys) override;
  void wait(const std::vector<std::string>& keys, Millis timeout) override;
  bool delete_key(const std::string& key) override;
  int64_t num_keys() override;
  Bytes compare_set(const std::string& key, const Bytes& expected, const Bytes& desired) override;
  using Store::wait;
  int port() const { return port_; }

 private:
  // Connects and runs the handshake; `probe`: only ask the server what it
  // thinks of this identity (no rank is taken, nothing is aborted).
  int open_connection(Millis timeout, bool probe);
  Bytes request(const Bytes& msg, Millis timeout, const std::string& what);
  std::string host_;
  std::string connect_host_;  // host_, or loopback when the server binds every interface
  int port_;
  StoreIdentity id_;
  int fd_ = -1;
  std::mutex mu_;  // one request at a time on the connection
  std::unique_ptr<TCPStoreServer> server_;
};

}  // namespace monoflow::collective
