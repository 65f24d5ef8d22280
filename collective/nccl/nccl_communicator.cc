// The NCCL engine: CUDA memory, collectives enqueued on a CUDA stream.
//
// Note [NCCL calls are stream-ordered]
//   Unlike Gloo, an NCCL call returns once the operation is enqueued on the
//   stream it is given (the device's communication stream); completion is
//   observed through the device plugin's events on that stream, like any
//   kernel. The communicator is created with the stream to use. Gather,
//   scatter and all-to-all are grouped send/recv; the barrier goes through
//   the store (it needs no device memory). This path runs only where a GPU
//   and libnccl.so.2 are present; its loader's error path is tested here.
#include <chrono>
#include <cstring>
#include <thread>

#include "monoflow/collective/backends.h"
#include "nccl_api.h"

namespace monoflow::collective {

namespace {

nccl::ncclDataType_t nccl_dtype(DType t) {
  switch (t) {
    case DType::Bool:
    case DType::UInt8: return nccl::ncclUint8;
    case DType::Int8: return nccl::ncclInt8;
    case DType::Int32: return nccl::ncclInt32;
    case DType::Int64: return nccl::ncclInt64;
    case DType::Float16: return nccl::ncclFloat16;
    case DType::BFloat16: return nccl::ncclBfloat16;
    case DType::Float32: return nccl::ncclFloat32;
    case DType::Float64: return nccl::ncclFloat64;
    default: throw CommError(std::string("NCCL has no ") + dtype_name(t) + " type");
  }
}

nccl::ncclRedOp_t nccl_op(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum: return nccl::ncclSum;
    case ReduceOp::Prod: return nccl::ncclProd;
    case ReduceOp::Min: return nccl::ncclMin;
    case ReduceOp::Max: return nccl::ncclMax;
    case ReduceOp::Avg: return nccl::ncclAvg;
  }
  return nccl::ncclSum;
}

class NcclCommunicator : public Communicator {
 public:
  NcclCommunicator(std::shared_ptr<Store> store, int rank, int size, Millis timeout, void* stream,
                   const std::vector<std::string>& dirs)
      : Communicator(rank, size), api_(nccl::load(dirs)), store_(std::move(store)), stream_(stream) {
    nccl::ncclUniqueId id{};
    if (rank == 0) {
      check(api_.GetUniqueId(&id), "ncclGetUniqueId");
      store_->set("nccl_unique_id", Bytes(id.internal, id.internal + sizeof(id.internal)));
    } else {
      Bytes b = store_->get("nccl_unique_id");
      std::memcpy(id.internal, b.data(), std::min(b.size(), sizeof(id.internal)));
    }
    check(api_.CommInitRank(&comm_, size, id, rank), "ncclCommInitRank");
  }
  ~NcclCommunicator() override {
    if (comm_) api_.CommDestroy(comm_);
  }
  const char* backend() const override { return "nccl"; }

 protected:
  void do_all_reduce(void* buf, size_t n, DType t, ReduceOp op) override {
    check(api_.AllReduce(buf, buf, n, nccl_dtype(t), nccl_op(op), comm_, stream_), "all_reduce");
  }
  void do_broadcast(void* buf, size_t n, DType t, int root) override {
    check(api_.Broadcast(buf, buf, n, nccl_dtype(t), root, comm_, stream_), "broadcast");
  }
  void do_reduce(void* buf, size_t n, DType t, ReduceOp op, int root) override {
    check(api_.Reduce(buf, buf, n, nccl_dtype(t), nccl_op(op), root, comm_, stream_), "reduce");
  }
  void do_all_gather(const void* in, void* out, const std::vector<size_t>& counts, DType t) override {
    for (size_t c : counts)
      if (c != counts[0]) return all_to_all_like(in, counts, out, counts, t, true);
    check(api_.AllGather(in, out, counts[0], nccl_dtype(t), comm_, stream_), "all_gather");
  }
  void do_gather(const void* in, void* out, size_t n, DType t, int root) override {
    size_t isz = itemsize(t);
    group([&] {
      if (rank_ == root)
        for (int r = 0; r < size_; ++r)
          check(api_.Recv(static_cast<char*>(out) + r * n * isz, n, nccl_dtype(t), r, comm_, stream_), "gather");
      check(api_.Send(in, n, nccl_dtype(t), root, comm_, stream_), "gather");
    });
  }
  void do_scatter(const void* in, void* out, size_t n, DType t, int root) override {
    size_t isz = itemsize(t);
    group([&] {
      if (rank_ == root)
        for (int r = 0; r < size_; ++r)
          check(api_.Send(static_cast<const char*>(in) + r * n * isz, n, nccl_dtype(t), r, comm_, stream_),
                "scatter");
      check(api_.Recv(out, n, nccl_dtype(t), root, comm_, stream_), "scatter");
    });
  }
  void do_reduce_scatter(const void* in, void* out, const std::vector<size_t>& counts, DType t, ReduceOp op) override {
    for (size_t c : counts)
      if (c != counts[0]) throw CommError("reduce_scatter (nccl): uneven parts are not supported");
    check(api_.ReduceScatter(in, out, counts[0], nccl_dtype(t), nccl_op(op), comm_, stream_), "reduce_scatter");
  }
  void do_all_to_all(const void* in, const std::vector<size_t>& ic, void* out, const std::vector<size_t>& oc,
                     DType t) override {
    all_to_all_like(in, ic, out, oc, t, false);
  }
  void do_send(const void* buf, size_t n, DType t, int peer, uint64_t) override {
    check(api_.Send(buf, n, nccl_dtype(t), peer, comm_, stream_), "send");
  }
  void do_recv(void* buf, size_t n, DType t, int peer, uint64_t) override {
    check(api_.Recv(buf, n, nccl_dtype(t), peer, comm_, stream_), "recv");
  }
  void do_barrier() override {
    std::string key = "nccl_barrier_" + std::to_string(barriers_++);
    store_->add(key, 1);
    int64_t target = size_;
    // Wait until every rank has arrived: poll the counter within the timeout.
    auto deadline = std::chrono::steady_clock::now() + store_->timeout();
    while (store_->add(key, 0) < target) {
      if (std::chrono::steady_clock::now() > deadline) throw CommError("barrier (nccl): timed out");
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  }

 private:
  // all_gather with uneven counts (gather_all: every rank's input to everyone)
  // and all-to-all: grouped send/recv.
  void all_to_all_like(const void* in, const std::vector<size_t>& ic, void* out, const std::vector<size_t>& oc,
                       DType t, bool gather_all) {
    size_t isz = itemsize(t);
    group([&] {
      size_t ioff = 0, ooff = 0;
      for (int r = 0; r < size_; ++r) {
        size_t send_n = gather_all ? ic[rank_] : ic[r];
        const char* src = static_cast<const char*>(in) + (gather_all ? 0 : ioff * isz);
        check(api_.Send(src, send_n, nccl_dtype(t), r, comm_, stream_), "all_to_all");
        check(api_.Recv(static_cast<char*>(out) + ooff * isz, oc[r], nccl_dtype(t), r, comm_, stream_),
              "all_to_all");
        ioff += ic[r];
        ooff += oc[r];
      }
    });
  }
  template <typename F>
  void group(F&& f) {
    check(api_.GroupStart(), "ncclGroupStart");
    f();
    check(api_.GroupEnd(), "ncclGroupEnd");
  }
  void check(nccl::ncclResult_t r, const char* what) const {
    if (r != 0)
      throw CommError(std::string(what) + " (nccl, rank " + std::to_string(rank_) + "): " + api_.GetErrorString(r));
  }

  const nccl::Api& api_;
  std::shared_ptr<Store> store_;
  void* stream_;
  nccl::ncclComm_t comm_ = nullptr;
  int barriers_ = 0;
};

}  // namespace

bool nccl_available(const std::vector<std::string>& dirs) { return !nccl::find_library(dirs).empty(); }

std::string nccl_library_path(const std::vector<std::string>& dirs) { return nccl::load(dirs).path; }

std::unique_ptr<Communicator> make_nccl(std::shared_ptr<Store> store, int rank, int size, Millis timeout,
                                        int cuda_device, void* stream, const std::vector<std::string>& dirs) {
  (void)cuda_device;  // the CUDA plugin makes the device current on its stream's thread
  return std::make_unique<NcclCommunicator>(std::move(store), rank, size, timeout, stream, dirs);
}

}  // namespace monoflow::collective
