// The MPI engine: host-memory collectives through an MPI library opened at
// run time (Note [MPI opened at run time]).
//
// Note [MPI opened at run time]
//   monoflow is built without MPI headers or libraries: a CPU-only install
//   must import and work where no MPI exists. The engine dlopen()s
//   libmpi.so.12, the library name and binary interface shared by MPICH and
//   its derivatives (the `mpich` wheel on PyPI, Intel MPI, MVAPICH, Debian's
//   libmpich12): handles are ints and the predefined handles are fixed
//   constants, so the few this file needs are written below (checked against
//   the wheel's mpi.h by tests/test_mpi_backend.py). Open MPI has another
//   binary interface (handles are pointers to its globals) and is refused
//   with a message naming the choice.
//
//   Every call is non-blocking (MPI_I*) and polled with MPI_Test until done
//   or the group's timeout: MPI cannot cancel a collective, so a timed-out
//   group raises on this rank and is unusable afterwards (a dead peer under
//   mpiexec ends the whole job, MPI's own failure model). Reductions run in
//   MPI for the types it has (float, double, 8-64 bit integers); float16,
//   bfloat16, bool and complex are gathered and reduced on the host in rank
//   order, so every rank computes the same bits.
//
//   A group is an MPI communicator over its members' MPI_COMM_WORLD ranks,
//   which the members exchange through the group's store; only the members
//   take part in creating it (MPI_Comm_create_group).
#include <dlfcn.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <limits>
#include <mutex>
#include <thread>

#include "monoflow/collective/backends.h"

namespace monoflow::collective {
namespace {

using MPI_Comm = int;
using MPI_Datatype = int;
using MPI_Op = int;
using MPI_Request = int;
using MPI_Group = int;
using MPI_Errhandler = int;
struct MPI_Status {
  int count_lo, count_hi_and_cancelled, source, tag, error;
};

constexpr MPI_Comm kCommWorld = 0x44000000;
constexpr MPI_Comm kCommNull = 0x04000000;
constexpr MPI_Datatype kByte = 0x4c00010d, kFloat = 0x4c00040a, kDouble = 0x4c00080b, kInt8 = 0x4c000137,
                       kInt16 = 0x4c000238, kInt32 = 0x4c000439, kInt64 = 0x4c00083a, kUInt8 = 0x4c00013b;
constexpr MPI_Op kMax = 0x58000001, kMin = 0x58000002, kSum = 0x58000003, kProd = 0x58000004;
constexpr MPI_Errhandler kErrorsReturn = 0x54000001;
constexpr int kThreadMultiple = 3;
constexpr int kSuccess = 0;
MPI_Status* const kStatusIgnore = reinterpret_cast<MPI_Status*>(1);

struct Api {
  void* handle = nullptr;
  std::string path;
  bool serialize = false;  // the library gave less than MPI_THREAD_MULTIPLE: one call at a time
  int (*Initialized)(int*);
  int (*Init_thread)(int*, char***, int, int*);
  int (*Finalized)(int*);
  int (*Finalize)();
  int (*Get_library_version)(char*, int*);
  int (*Error_string)(int, char*, int*);
  int (*Comm_rank)(MPI_Comm, int*);
  int (*Comm_size)(MPI_Comm, int*);
  int (*Comm_group)(MPI_Comm, MPI_Group*);
  int (*Group_incl)(MPI_Group, int, const int*, MPI_Group*);
  int (*Group_free)(MPI_Group*);
  int (*Comm_create_group)(MPI_Comm, MPI_Group, int, MPI_Comm*);
  int (*Comm_free)(MPI_Comm*);
  int (*Comm_set_errhandler)(MPI_Comm, MPI_Errhandler);
  int (*Test)(MPI_Request*, int*, MPI_Status*);
  int (*Iallreduce)(const void*, void*, int, MPI_Datatype, MPI_Op, MPI_Comm, MPI_Request*);
  int (*Ibcast)(void*, int, MPI_Datatype, int, MPI_Comm, MPI_Request*);
  int (*Ireduce)(const void*, void*, int, MPI_Datatype, MPI_Op, int, MPI_Comm, MPI_Request*);
  int (*Iallgatherv)(const void*, int, MPI_Datatype, void*, const int*, const int*, MPI_Datatype, MPI_Comm,
                     MPI_Request*);
  int (*Igather)(const void*, int, MPI_Datatype, void*, int, MPI_Datatype, int, MPI_Comm, MPI_Request*);
  int (*Iscatter)(const void*, int, MPI_Datatype, void*, int, MPI_Datatype, int, MPI_Comm, MPI_Request*);
  int (*Ialltoallv)(const void*, const int*, const int*, MPI_Datatype, void*, const int*, const int*, MPI_Datatype,
                    MPI_Comm, MPI_Request*);
  int (*Isend)(const void*, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request*);
  int (*Irecv)(void*, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request*);
  int (*Ibarrier)(MPI_Comm, MPI_Request*);
};

constexpr const char* kLib = "libmpi.so.12";

std::string find_library(const std::vector<std::string>& dirs) {
  for (const auto& d : dirs) {
    std::string p = d + "/" + kLib;
    if (::access(p.c_str(), R_OK) == 0) return p;
  }
  if (void* h = ::dlopen(kLib, RTLD_LAZY | RTLD_LOCAL)) {
    ::dlclose(h);
    return kLib;
  }
  return "";
}

std::mutex g_api_mu;

const Api& load(const std::vector<std::string>& dirs) {
  static Api api;
  std::lock_guard<std::mutex> lock(g_api_mu);
  if (api.handle) return api;
  const std::string path = find_library(dirs);
  if (path.empty()) {
    std::string where;
    for (const auto& d : dirs) where += d + "/" + kLib + ", ";
    throw CommError(std::string("MPI backend: ") + kLib + " not found (searched " + where +
                    "the system library path); pip install mpich (or monoflow[mpi]), or install an MPICH-compatible "
                    "MPI");
  }
  // RTLD_GLOBAL: MPICH opens its own plugins (libfabric providers) that expect its symbols.
  void* h = ::dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (!h) throw CommError("MPI backend: cannot open " + path + ": " + ::dlerror());
  auto sym = [&](const char* name) {
    void* p = ::dlsym(h, name);
    if (!p) throw CommError("MPI backend: " + path + " lacks " + name + " (an MPI-3 library is needed)");
    return p;
  };
#define MF_MPI_SYM(name) api.name = reinterpret_cast<decltype(api.name)>(sym("MPI_" #name))
  MF_MPI_SYM(Initialized);
  MF_MPI_SYM(Init_thread);
  MF_MPI_SYM(Finalized);
  MF_MPI_SYM(Finalize);
  MF_MPI_SYM(Get_library_version);
  MF_MPI_SYM(Error_string);
  MF_MPI_SYM(Comm_rank);
  MF_MPI_SYM(Comm_size);
  MF_MPI_SYM(Comm_group);
  MF_MPI_SYM(Group_incl);
  MF_MPI_SYM(Group_free);
  MF_MPI_SYM(Comm_create_group);
  MF_MPI_SYM(Comm_free);
  MF_MPI_SYM(Comm_set_errhandler);
  MF_MPI_SYM(Test);
  MF_MPI_SYM(Iallreduce);
  MF_MPI_SYM(Ibcast);
  MF_MPI_SYM(Ireduce);
  MF_MPI_SYM(Iallgatherv);
  MF_MPI_SYM(Igather);
  MF_MPI_SYM(Iscatter);
  MF_MPI_SYM(Ialltoallv);
  MF_MPI_SYM(Isend);
  MF_MPI_SYM(Irecv);
  MF_MPI_SYM(Ibarrier);
#undef MF_MPI_SYM
  std::vector<char> version(8192, '\0');
  int len = 0;
  api.Get_library_version(version.data(), &len);
  if (std::strstr(version.data(), "Open MPI"))
    throw CommError("MPI backend: " + path + " is Open MPI, whose binary interface monoflow does not open; use an "
                    "MPICH-compatible MPI (pip install mpich)");
  int inited = 0;
  api.Initialized(&inited);
  int provided = kThreadMultiple;
  if (!inited) {
    if (api.Init_thread(nullptr, nullptr, kThreadMultiple, &provided) != kSuccess)
      throw CommError("MPI backend: MPI_Init_thread failed (is this process started by mpiexec, or a singleton?)");
    std::atexit([] {
      int done = 0;
      api.Finalized(&done);
      if (!done) api.Finalize();
    });
  }
  api.serialize = provided < kThreadMultiple;
  api.path = path;
  api.handle = h;
  return api;
}

std::string mpi_error(const Api& api, int code) {
  char text[512] = {0};
  int len = 0;
  if (api.Error_string(code, text, &len) != kSuccess) return "MPI error " + std::to_string(code);
  return std::string(text, static_cast<size_t>(len));
}

// MPI's own type for dtype, or 0 when it has none that reduces (the host reduces instead).
MPI_Datatype reducing_type(DType t) {
  switch (t) {
    case DType::Float32: return kFloat;
    case DType::Float64: return kDouble;
    case DType::Int8: return kInt8;
    case DType::Int16: return kInt16;
    case DType::Int32: return kInt32;
    case DType::Int64: return kInt64;
    case DType::UInt8: return kUInt8;
    default: return 0;
  }
}

MPI_Op mpi_op(ReduceOp op) {
  switch (op) {
    case ReduceOp::Prod: return kProd;
    case ReduceOp::Min: return kMin;
    case ReduceOp::Max: return kMax;
    default: return kSum;  // Avg: a sum, divided after
  }
}

int as_int(size_t n, const char* what) {
  if (n > static_cast<size_t>(std::numeric_limits<int>::max()))
    throw CommError(std::string("MPI backend: ") + what + ": " + std::to_string(n) +
                    " bytes exceed MPI's int counts; split the tensor");
  return static_cast<int>(n);
}

class MpiCommunicator final : public Communicator {
 public:
  MpiCommunicator(const Api& api, std::shared_ptr<Store> store, int rank, int size, Millis timeout)
      : Communicator(rank, size), api_(api), timeout_(timeout) {
    int world_rank = 0, world_size = 0;
    api_.Comm_rank(kCommWorld, &world_rank);
    api_.Comm_size(kCommWorld, &world_size);
    if (size > world_size)
      throw CommError("MPI backend: a group of " + std::to_string(size) + " ranks in an MPI job of " +
                      std::to_string(world_size) + " (start the job with mpiexec -n " + std::to_string(size) + ")");
    // Members publish their MPI_COMM_WORLD ranks in the group's store.
    const std::string mine = std::to_string(world_rank);
    store->set("mpi_world_rank/" + std::to_string(rank), Bytes(mine.begin(), mine.end()));
    std::vector<int> members(size);
    for (int r = 0; r < size; ++r) {
      const std::string key = "mpi_world_rank/" + std::to_string(r);
      store->wait({key}, timeout);
      Bytes b = store->get(key);
      members[r] = std::stoi(std::string(b.begin(), b.end()));
    }
    MPI_Group world_group = 0, group = 0;
    std::lock_guard<std::mutex> lock(g_api_mu);  // creation is blocking: one at a time in this process
    check(api_.Comm_group(kCommWorld, &world_group), "MPI_Comm_group");
    check(api_.Group_incl(world_group, size, members.data(), &group), "MPI_Group_incl");
    const int made = api_.Comm_create_group(kCommWorld, group, /*tag=*/0, &comm_);
    api_.Group_free(&group);
    api_.Group_free(&world_group);
    check(made, "MPI_Comm_create_group");
    api_.Comm_set_errhandler(comm_, kErrorsReturn);
  }

  ~MpiCommunicator() override {
    int done = 0;
    api_.Finalized(&done);
    if (!done && comm_ != kCommNull) api_.Comm_free(&comm_);
  }

  const char* backend() const override { return "mpi"; }

 protected:
  void do_all_reduce(void* buf, size_t count, DType dtype, ReduceOp op) override {
    if (MPI_Datatype t = reducing_type(dtype)) {
      wait("all_reduce", [&](MPI_Request* r) {
        return api_.Iallreduce(kInPlace(), buf, as_int(count, "all_reduce"), t, mpi_op(op), comm_, r);
      });
      if (op == ReduceOp::Avg) divide_by(buf, count, dtype, size_);
      return;
    }
    host_reduce("all_reduce", buf, buf, count, dtype, op);
  }

  void do_broadcast(void* buf, size_t count, DType dtype, int root) override {
    const int n = as_int(count * itemsize(dtype), "broadcast");
    wait("broadcast", [&](MPI_Request* r) { return api_.Ibcast(buf, n, kByte, root, comm_, r); });
  }

  void do_reduce(void* buf, size_t count, DType dtype, ReduceOp op, int root) override {
    if (MPI_Datatype t = reducing_type(dtype)) {
      const int n = as_int(count, "reduce");
      wait("reduce", [&](MPI_Request* r) {
        return rank_ == root ? api_.Ireduce(kInPlace(), buf, n, t, mpi_op(op), root, comm_, r)
                             : api_.Ireduce(buf, nullptr, n, t, mpi_op(op), root, comm_, r);
      });
      if (op == ReduceOp::Avg && rank_ == root) divide_by(buf, count, dtype, size_);
      return;
    }
    std::vector<char> out(count * itemsize(dtype));
    host_reduce("reduce", buf, out.data(), count, dtype, op);
    if (rank_ == root) std::memcpy(buf, out.data(), out.size());
  }

  void do_all_gather(const void* in, void* out, const std::vector<size_t>& counts, DType dtype) override {
    const size_t item = itemsize(dtype);
    std::vector<int> sizes(size_), offsets(size_);
    size_t at = 0;
    for (int r = 0; r < size_; ++r) {
      sizes[r] = as_int(counts[r] * item, "all_gather");
      offsets[r] = as_int(at, "all_gather");
      at += counts[r] * item;
    }
    wait("all_gather", [&](MPI_Request* r) {
      return api_.Iallgatherv(in, sizes[rank_], kByte, out, sizes.data(), offsets.data(), kByte, comm_, r);
    });
  }

  void do_gather(const void* in, void* out, size_t count, DType dtype, int root) override {
    const int n = as_int(count * itemsize(dtype), "gather");
    wait("gather", [&](MPI_Request* r) { return api_.Igather(in, n, kByte, out, n, kByte, root, comm_, r); });
  }

  void do_scatter(const void* in, void* out, size_t count, DType dtype, int root) override {
    const int n = as_int(count * itemsize(dtype), "scatter");
    wait("scatter", [&](MPI_Request* r) { return api_.Iscatter(in, n, kByte, out, n, kByte, root, comm_, r); });
  }

  void do_reduce_scatter(const void* in, void* out, const std::vector<size_t>& counts, DType dtype,
                         ReduceOp op) override {
    // All-reduce of the whole input, then this rank keeps its part: one code path for every dtype.
    size_t total = 0, before = 0;
    for (int r = 0; r < size_; ++r) {
      if (r < rank_) before += counts[r];
      total += counts[r];
    }
    const size_t item = itemsize(dtype);
    std::vector<char> all(static_cast<const char*>(in), static_cast<const char*>(in) + total * item);
    do_all_reduce(all.data(), total, dtype, op);
    std::memcpy(out, all.data() + before * item, counts[rank_] * item);
  }

  void do_all_to_all(const void* in, const std::vector<size_t>& in_counts, void* out,
                     const std::vector<size_t>& out_counts, DType dtype) override {
    const size_t item = itemsize(dtype);
    std::vector<int> sc(size_), so(size_), rc(size_), ro(size_);
    size_t s = 0, r = 0;
    for (int k = 0; k < size_; ++k) {
      sc[k] = as_int(in_counts[k] * item, "all_to_all");
      so[k] = as_int(s, "all_to_all");
      rc[k] = as_int(out_counts[k] * item, "all_to_all");
      ro[k] = as_int(r, "all_to_all");
      s += in_counts[k] * item;
      r += out_counts[k] * item;
    }
    wait("all_to_all", [&](MPI_Request* req) {
      return api_.Ialltoallv(in, sc.data(), so.data(), kByte, out, rc.data(), ro.data(), kByte, comm_, req);
    });
  }

  void do_send(const void* buf, size_t count, DType dtype, int peer, uint64_t slot) override {
    const int n = as_int(count * itemsize(dtype), "send");
    wait("send", [&](MPI_Request* r) { return api_.Isend(buf, n, kByte, peer, tag_of(slot), comm_, r); });
  }

  void do_recv(void* buf, size_t count, DType dtype, int peer, uint64_t slot) override {
    const int n = as_int(count * itemsize(dtype), "recv");
    wait("recv", [&](MPI_Request* r) { return api_.Irecv(buf, n, kByte, peer, tag_of(slot), comm_, r); });
  }

  void do_barrier() override {
    wait("barrier", [&](MPI_Request* r) { return api_.Ibarrier(comm_, r); });
  }

 private:
  static void* kInPlace() { return reinterpret_cast<void*>(-1); }

  // The slot orders messages within (peer, direction, tag); MPI orders them
  // per (source, tag) already, so the user's tag is all MPI needs.
  static int tag_of(uint64_t slot) { return static_cast<int>((slot >> 32) & 0x7fff); }

  void check(int code, const char* what) const {
    if (code != kSuccess) throw CommError(std::string("MPI backend: ") + what + ": " + mpi_error(api_, code));
  }

  // Starts the operation and polls it to completion within the timeout.
  template <class Start>
  void wait(const char* what, Start start) {
    std::unique_lock<std::mutex> serial(g_api_mu, std::defer_lock);
    if (api_.serialize) serial.lock();
    MPI_Request req = 0;
    check(start(&req), what);
    const auto deadline = std::chrono::steady_clock::now() + timeout_;
    int done = 0;
    for (int spins = 0;; ++spins) {
      check(api_.Test(&req, &done, kStatusIgnore), what);
      if (done) return;
      if (std::chrono::steady_clock::now() > deadline)
        throw CommError(std::string("MPI backend: ") + what + " timed out after " +
                        std::to_string(timeout_.count() / 1000.0) +
                        " s waiting for its peers (MPI cannot cancel a collective: this group is unusable; a rank "
                        "that died or never made the call is the usual cause)");
      if (spins > 1000) {  // after a short spin, poll without taking a core from the peers
        if (serial.owns_lock()) serial.unlock();
        std::this_thread::sleep_for(std::chrono::microseconds(50));
        if (api_.serialize) serial.lock();
      }
    }
  }

  // Reduction on the host: gather every rank's input, reduce in rank order (same bits on every rank).
  void host_reduce(const char* what, const void* in, void* out, size_t count, DType dtype, ReduceOp op) {
    const size_t bytes = count * itemsize(dtype);
    std::vector<char> all(bytes * size_);
    const int n = as_int(bytes, what);
    std::vector<int> sizes(size_, n), offsets(size_);
    for (int r = 0; r < size_; ++r) offsets[r] = as_int(static_cast<size_t>(r) * bytes, what);
    wait(what, [&](MPI_Request* r) {
      return api_.Iallgatherv(in, n, kByte, all.data(), sizes.data(), offsets.data(), kByte, comm_, r);
    });
    std::vector<char> acc(all.begin(), all.begin() + bytes);
    for (int r = 1; r < size_; ++r) reduce_into(acc.data(), acc.data(), all.data() + r * bytes, count, dtype, op);
    if (op == ReduceOp::Avg) divide_by(acc.data(), count, dtype, size_);
    std::memcpy(out, acc.data(), bytes);
  }

  const Api& api_;
  Millis timeout_;
  MPI_Comm comm_ = kCommNull;
};

}  // namespace

bool mpi_available(const std::vector<std::string>& dirs) { return !find_library(dirs).empty(); }

std::string mpi_library_path(const std::vector<std::string>& dirs) { return load(dirs).path; }

std::unique_ptr<Communicator> make_mpi(std::shared_ptr<Store> store, int rank, int size, Millis timeout,
                                       const std::vector<std::string>& search_dirs) {
  const Api& api = load(search_dirs);
  return std::make_unique<MpiCommunicator>(api, std::move(store), rank, size, timeout);
}

}  // namespace monoflow::collective
