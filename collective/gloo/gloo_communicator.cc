// The Gloo engine: host memory over TCP.
//
// Note [Gloo tags and slots]
//   Gloo matches messages by (peer, slot); a collective's slots derive from
//   its tag, so two collectives in flight with one tag would read each
//   other's bytes without any error. Every collective here takes a fresh tag
//   from a per-communicator counter. All ranks issue a group's collectives in
//   the same order (the communication thread keeps that order), so the k-th
//   collective has the same tag everywhere. Point-to-point messages use slots
//   under their own prefix, numbered per (peer, direction) at issue time.
//
// Note [Reduce-scatter from alltoall]
//   Gloo's new-style API has no reduce-scatter; the old halving-doubling
//   template pins small socket buffers and slows later traffic. Here each
//   rank sends part r of its input to rank r (alltoall(v)) and reduces the
//   `size` parts it receives locally: the same bytes on the wire as a ring
//   reduce-scatter, one round.
//
// Note [Gloo sizes are checked first]
//   Gloo aborts the process (an exception on its transport thread, outside
//   any try) when a message is longer than the buffer posted for it: one
//   rank passing a bigger tensor to all_gather, scatter, reduce_scatter,
//   all_to_all or recv than its peers expect. So those collectives first
//   all-gather a fixed-size signature (which collective, the root, every
//   rank's byte counts) and every rank checks the whole table: a mismatch
//   is the same CommError on every rank instead of an abort on one. A
//   point-to-point message is preceded by its length, and a receiver
//   expecting another length drains the payload and raises. all_reduce,
//   broadcast and reduce cannot overflow, but ranks passing different sizes
//   or dtypes there made Gloo pair the wrong bytes: garbage results on some
//   ranks, and every later collective out of step. They are checked the
//   same way (with the dtype and reduce op in the signature). The cost is one
//   small message per call.
#include <arpa/inet.h>
#include <gloo/allgather.h>
#include <gloo/allgatherv.h>
#include <gloo/allreduce.h>
#include <gloo/alltoall.h>
#include <gloo/alltoallv.h>
#include <gloo/barrier.h>
#include <gloo/broadcast.h>
#include <gloo/gather.h>
#include <gloo/reduce.h>
#include <gloo/rendezvous/context.h>
#include <gloo/scatter.h>
#include <gloo/transport/tcp/device.h>
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <sstream>
#include <vector>

#include "gloo_store.h"
#include "monoflow/collective/backends.h"

namespace monoflow::collective {

namespace {

template <size_t N>
struct Elem {
  char b[N];
};

// Calls f(Elem<itemsize>{}) so that Gloo's templated setters see the element size.
template <typename F>
void with_elem(DType dtype, F&& f) {
  switch (itemsize(dtype)) {
    case 1: return f(Elem<1>{});
    case 2: return f(Elem<2>{});
    case 4: return f(Elem<4>{});
    case 8: return f(Elem<8>{});
  }
  throw CommError("gloo: unsupported element size");
}

// The address peers can reach this host on: the source address of the route
// to the master (a UDP connect sends nothing).
std::string route_address(const std::string& peer) {
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_DGRAM;
  addrinfo* ai = nullptr;
  if (getaddrinfo(peer.c_str(), "9", &hints, &ai) != 0 || !ai) return "127.0.0.1";
  std::string out = "127.0.0.1";
  int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd >= 0 && ::connect(fd, ai->ai_addr, ai->ai_addrlen) == 0) {
    sockaddr_in sa{};
    socklen_t len = sizeof(sa);
    char buf[INET_ADDRSTRLEN];
    if (getsockname(fd, reinterpret_cast<sockaddr*>(&sa), &len) == 0 &&
        inet_ntop(AF_INET, &sa.sin_addr, buf, sizeof(buf)))
      out = buf;
  }
  if (fd >= 0) ::close(fd);
  freeaddrinfo(ai);
  return out;
}

class GlooCommunicator : public Communicator {
 public:
  GlooCommunicator(std::shared_ptr<Store> store, int rank, int size, Millis timeout, const std::string& local,
                   const std::string& hint)
      : Communicator(rank, size), timeout_(timeout) {
    gloo::transport::tcp::attr attr;
    const char* ifname = std::getenv("GLOO_SOCKET_IFNAME");
    if (ifname && *ifname) attr.iface = ifname;
    else attr.hostname = local.empty() ? route_address(hint.empty() ? "127.0.0.1" : hint) : local;
    try {
      auto dev = gloo::transport::tcp::CreateDevice(attr);
      auto ctx = std::make_shared<gloo::rendezvous::Context>(rank, size);
      ctx->setTimeout(timeout);
      GlooStore gs(std::move(store));
      ctx->connectFullMesh(gs, dev);
      ctx_ = ctx;
    } catch (const std::exception& e) {
      throw CommError(std::string("gloo: connecting rank ") + std::to_string(rank) + " of " + std::to_string(size) +
                      " failed: " + e.what());
    }
  }

  const char* backend() const override { return "gloo"; }

 protected:
  void do_all_reduce(void* buf, size_t count, DType dtype, ReduceOp op) override {
    check_sizes("all_reduce", kAllReduce, 0, {count * itemsize(dtype)}, {}, signature_aux(dtype, op));
    if (count == 0) return;
    guard("all_reduce", [&] {
      with_elem(dtype, [&](auto e) {
        using T = decltype(e);
        gloo::AllreduceOptions o(ctx_);
        o.setOutput(static_cast<T*>(buf), count);
        o.setReduceFunction(reducer(dtype, op));
        o.setTag(next_tag());
        o.setTimeout(timeout_);
        gloo::allreduce(o);
      });
      if (op == ReduceOp::Avg) divide_by(buf, count, dtype, size_);
    });
  }

  void do_broadcast(void* buf, size_t count, DType dtype, int root) override {
    check_sizes("broadcast", kBroadcast, root, {count * itemsize(dtype)}, {}, signature_aux(dtype, ReduceOp::Sum));
    if (count == 0) return;
    guard("broadcast", [&] {
      gloo::BroadcastOptions o(ctx_);
      o.setOutput(static_cast<char*>(buf), count * itemsize(dtype));
      o.setRoot(root);
      o.setTag(next_tag());
      o.setTimeout(timeout_);
      gloo::broadcast(o);
    });
  }

  void do_reduce(void* buf, size_t count, DType dtype, ReduceOp op, int root) override {
    check_sizes("reduce", kReduce, root, {count * itemsize(dtype)}, {}, signature_aux(dtype, op));
    if (count == 0) return;
    guard("reduce", [&] {
      // Gloo uses the output as scratch on every rank: keep non-roots' input intact.
      std::vector<char> scratch(rank_ == root ? 0 : count * itemsize(dtype));
      with_elem(dtype, [&](auto e) {
        using T = decltype(e);
        gloo::ReduceOptions o(ctx_);
        if (rank_ != root) {
          o.setInput(static_cast<T*>(buf), count);
          o.setOutput(reinterpret_cast<T*>(scratch.data()), count);
        } else {
          o.setOutput(static_cast<T*>(buf), count);
        }
        o.setRoot(root);
        o.setReduceFunction(reducer(dtype, op));
        o.setTag(next_tag());
        o.setTimeout(timeout_);
        gloo::reduce(o);
      });
      if (op == ReduceOp::Avg && rank_ == root) divide_by(buf, count, dtype, size_);
    });
  }

  void do_all_gather(const void* in, void* out, const std::vector<size_t>& counts, DType dtype) override {
    size_t total = 0;
    bool equal = true;
    for (size_t c : counts) total += c, equal = equal && c == counts[0];
    if (total == 0) return;
    size_t isz = itemsize(dtype);
    check_sizes("all_gather", kAllGather, 0, bytes_of(counts, isz), {});
    guard("all_gather", [&] {
      if (equal) {
        gloo::AllgatherOptions o(ctx_);
        o.setInput(const_cast<char*>(static_cast<const char*>(in)), counts[rank_] * isz);
        o.setOutput(static_cast<char*>(out), total * isz);
        o.setTag(next_tag());
        o.setTimeout(timeout_);
        gloo::allgather(o);
      } else {
        std::vector<size_t> bytes;
        for (size_t c : counts) bytes.push_back(c * isz);
        gloo::AllgathervOptions o(ctx_);
        o.setInput(const_cast<char*>(static_cast<const char*>(in)), counts[rank_] * isz);
        o.setOutput(static_cast<char*>(out), bytes);
        o.setTag(next_tag());
        o.setTimeout(timeout_);
        gloo::allgatherv(o);
      }
    });
  }

  void do_gather(const void* in, void* out, size_t count, DType dtype, int root) override {
    if (count == 0) return;
    size_t n = count * itemsize(dtype);
    check_sizes("gather", kGather, root, {n}, {});
    guard("gather", [&] {
      gloo::GatherOptions o(ctx_);
      o.setInput(const_cast<char*>(static_cast<const char*>(in)), n);
      if (rank_ == root) o.setOutput(static_cast<char*>(out), n * size_);
      o.setRoot(root);
      o.setTag(next_tag());
      o.setTimeout(timeout_);
      gloo::gather(o);
    });
  }

  void do_scatter(const void* in, void* out, size_t count, DType dtype, int root) override {
    if (count == 0) return;
    size_t n = count * itemsize(dtype);
    check_sizes("scatter", kScatter, root, {n}, {});
    guard("scatter", [&] {
      gloo::ScatterOptions o(ctx_);
      if (rank_ == root) {
        std::vector<char*> parts;
        for (int r = 0; r < size_; ++r) parts.push_back(const_cast<char*>(static_cast<const char*>(in)) + r * n);
        o.setInputs(parts, n);
      }
      o.setOutput(static_cast<char*>(out), n);
      o.setRoot(root);
      o.setTag(next_tag());
      o.setTimeout(timeout_);
      gloo::scatter(o);
    });
  }

  void do_reduce_scatter(const void* in, void* out, const std::vector<size_t>& counts, DType dtype,
                         ReduceOp op) override {
    size_t mine = counts[rank_], total = 0;
    for (size_t c : counts) total += c;
    if (total == 0) return;  // counts are the same list on every rank
    size_t isz = itemsize(dtype);
    std::vector<char> parts(mine * size_ * isz);
    all_to_all_impl("reduce_scatter", in, counts, parts.data(), std::vector<size_t>(size_, mine), isz);
    if (mine == 0) return;
    guard("reduce_scatter", [&] {
      std::memcpy(out, parts.data(), mine * isz);
      for (int r = 1; r < size_; ++r) reduce_into(out, out, parts.data() + r * mine * isz, mine, dtype, op);
      if (op == ReduceOp::Avg) divide_by(out, mine, dtype, size_);
    });
  }

  void do_all_to_all(const void* in, const std::vector<size_t>& in_counts, void* out,
                     const std::vector<size_t>& out_counts, DType dtype) override {
    all_to_all_impl("all_to_all", in, in_counts, out, out_counts, itemsize(dtype));
  }

  void do_send(const void* buf, size_t count, DType dtype, int peer, uint64_t slot) override {
    guard("send", [&] {
      uint64_t length = count * itemsize(dtype);  // Note [Gloo sizes are checked first]
      auto head = ctx_->createUnboundBuffer(&length, sizeof(length));
      head->send(peer, slot);
      auto ub = ctx_->createUnboundBuffer(const_cast<void*>(buf), length);
      ub->send(peer, slot);
      head->waitSend(timeout_);
      ub->waitSend(timeout_);
    });
  }

  void do_recv(void* buf, size_t count, DType dtype, int peer, uint64_t slot) override {
    const uint64_t want = count * itemsize(dtype);
    uint64_t length = 0;
    guard("recv", [&] {
      auto head = ctx_->createUnboundBuffer(&length, sizeof(length));
      head->recv(peer, slot);
      head->waitRecv(timeout_);
      if (length == want) {
        auto ub = ctx_->createUnboundBuffer(buf, want);
        ub->recv(peer, slot);
        ub->waitRecv(timeout_);
      } else {  // drained, so the next message from this peer is read whole
        std::vector<char> drain(length ? length : 1);
        auto ub = ctx_->createUnboundBuffer(drain.data(), length);
        ub->recv(peer, slot);
        ub->waitRecv(timeout_);
      }
    });
    if (length != want)
      throw CommError("recv (gloo, rank " + std::to_string(rank_) + "): rank " + std::to_string(peer) + " sent " +
                      std::to_string(length) + " bytes, this rank expected " + std::to_string(want) +
                      " (a tensor of another size or dtype)");
  }

  void do_barrier() override {
    guard("barrier", [&] {
      gloo::BarrierOptions o(ctx_);
      o.setTag(next_tag());
      o.setTimeout(timeout_);
      gloo::barrier(o);
    });
  }

 private:
  uint32_t next_tag() { return tag_++; }

  static gloo::AllreduceOptions::Func reducer(DType dtype, ReduceOp op) {
    return [dtype, op](void* o, const void* a, const void* b, size_t n) { reduce_into(o, a, b, n, dtype, op); };
  }

  void all_to_all_impl(const char* what, const void* in, const std::vector<size_t>& in_counts, void* out,
                       const std::vector<size_t>& out_counts, size_t isz) {
    check_sizes(what, kAllToAll, 0, bytes_of(in_counts, isz), bytes_of(out_counts, isz));
    size_t tin = 0, tout = 0;
    bool equal = true;
    for (int r = 0; r < size_; ++r) {
      tin += in_counts[r], tout += out_counts[r];
      equal = equal && in_counts[r] == in_counts[0] && out_counts[r] == in_counts[0];
    }
    guard(what, [&] {
      // Gloo refuses null buffers: point empty ones at a dummy byte.
      static char dummy;
      char* pin = tin ? const_cast<char*>(static_cast<const char*>(in)) : &dummy;
      char* pout = tout ? static_cast<char*>(out) : &dummy;
      if (equal) {
        gloo::AlltoallOptions o(ctx_);
        o.setInput(pin, tin * isz);
        o.setOutput(pout, tout * isz);
        o.setTag(next_tag());
        o.setTimeout(timeout_);
        gloo::alltoall(o);
      } else {
        std::vector<int64_t> ib, ob;
        for (int r = 0; r < size_; ++r) {
          ib.push_back(int64_t(in_counts[r] * isz));
          ob.push_back(int64_t(out_counts[r] * isz));
        }
        gloo::AlltoallvOptions o(ctx_);
        o.setInput(pin, ib);
        o.setOutput(pout, ob);
        o.setTag(next_tag());
        o.setTimeout(timeout_);
        gloo::alltoallv(o);
      }
    });
  }

  enum Kind : uint64_t { kAllGather = 1, kGather, kScatter, kAllToAll, kAllReduce, kBroadcast, kReduce };

  static uint64_t signature_aux(DType dtype, ReduceOp op) {
    return (static_cast<uint64_t>(dtype) << 8) | static_cast<uint64_t>(op);
  }

  static std::vector<uint64_t> bytes_of(const std::vector<size_t>& counts, size_t isz) {
    std::vector<uint64_t> out;
    for (size_t c : counts) out.push_back(c * isz);
    return out;
  }

  // Note [Gloo sizes are checked first]: every rank's (kind, root, aux: dtype
  // and reduce op where they must agree, sent bytes per rank, received bytes
  // per rank) gathered and checked on every rank. all_gather passes each
  // rank's part (the same list everywhere), gather/scatter/all_reduce/
  // broadcast/reduce the one size, all_to_all what it sends to and receives
  // from each rank.
  void check_sizes(const char* what, Kind kind, int root, const std::vector<uint64_t>& sent,
                   const std::vector<uint64_t>& received, uint64_t aux = 0) {
    constexpr size_t kHead = 3;
    const size_t width = kHead + 2 * size_;
    std::vector<uint64_t> row(width, 0), table(width * size_, 0);
    row[0] = kind;
    row[1] = static_cast<uint64_t>(root);
    row[2] = aux;
    std::copy(sent.begin(), sent.end(), row.begin() + kHead);
    std::copy(received.begin(), received.end(), row.begin() + kHead + size_);
    guard(what, [&] {
      gloo::AllgatherOptions o(ctx_);
      o.setInput(row.data(), width);
      o.setOutput(table.data(), table.size());
      o.setTag(next_tag());
      o.setTimeout(timeout_);
      gloo::allgather(o);
    });
    auto at = [&](int r, size_t k) { return table[r * width + k]; };
    bool same_call = true, same_aux = true, ok = true;
    for (int r = 0; r < size_; ++r) {
      same_call = same_call && at(r, 0) == at(0, 0) && at(r, 1) == at(0, 1);
      same_aux = same_aux && at(r, 2) == at(0, 2);
    }
    if (same_call && kind == kAllToAll) {
      for (int i = 0; i < size_; ++i)  // what rank i sends to rank j is what rank j receives from rank i
        for (int j = 0; j < size_; ++j) ok = ok && at(i, kHead + j) == at(j, kHead + size_ + i);
    } else if (same_call) {
      for (int r = 0; r < size_; ++r)
        for (size_t k = kHead; k < kHead + static_cast<size_t>(size_); ++k) ok = ok && at(r, k) == at(0, k);
    }
    if (same_call && same_aux && ok) return;
    std::ostringstream msg;
    msg << what << " (gloo, rank " << rank_ << " of " << size_ << "): ";
    if (!same_call) {
      msg << "the ranks are not in the same collective (or passed different roots); every rank must make the "
             "same calls in the same order";
    } else if (!same_aux) {
      msg << "the ranks passed tensors of different dtypes (or different reduce ops):";
      for (int r = 0; r < size_; ++r)
        msg << " rank " << r << " " << dtype_name(static_cast<DType>(at(r, 2) >> 8));
    } else {
      msg << "the ranks passed tensors of different sizes or dtypes (bytes " << (kind == kAllToAll ? "sent to each rank" : "per part")
          << ":";
      for (int r = 0; r < size_; ++r) {
        msg << " rank " << r << " [";
        size_t n = kind == kAllGather || kind == kAllToAll ? size_ : 1;
        for (size_t k = 0; k < n; ++k) msg << (k ? ", " : "") << at(r, kHead + k);
        msg << "]";
      }
      msg << ")";
    }
    throw CommError(msg.str());
  }

  template <typename F>
  void guard(const char* what, F&& f) {
    try {
      f();
    } catch (const CommError& e) {
      throw CommError(std::string(what) + " (gloo, rank " + std::to_string(rank_) + "): " + e.what());
    } catch (const std::exception& e) {
      throw CommError(std::string(what) + " (gloo, rank " + std::to_string(rank_) + " of " +
                      std::to_string(size_) + ") failed: " + e.what() +
                      " (a peer died, or did not reach this collective within the timeout)");
    }
  }

  std::shared_ptr<gloo::Context> ctx_;
  Millis timeout_;
  uint32_t tag_ = 1;
};

}  // namespace

bool gloo_available() { return true; }

std::unique_ptr<Communicator> make_gloo(std::shared_ptr<Store> store, int rank, int size, Millis timeout,
                                        const std::string& local_address, const std::string& peer_hint) {
  return std::make_unique<GlooCommunicator>(std::move(store), rank, size, timeout, local_address, peer_hint);
}

}  // namespace monoflow::collective
