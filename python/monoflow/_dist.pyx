# cython: language_level=3
"""monoflow._dist: the binding of the collective layer (collective/).

Buffers cross as raw addresses of contiguous memory; the tensor-level work
(staging, dtype checks, keeping buffers alive) is in monoflow.distributed.
Every blocking call releases the GIL; C++ errors arrive as RuntimeError.
"""
from cpython.pycapsule cimport PyCapsule_GetPointer, PyCapsule_New
from libc.stdint cimport int64_t, uint32_t, uint64_t, uintptr_t
from libcpp cimport bool as cbool
from libcpp.memory cimport shared_ptr
from libcpp.string cimport string
from libcpp.vector cimport vector


cdef extern from "monoflow/collective/work.h" namespace "monoflow::collective":
    cdef cppclass Work:
        void wait() nogil except +
        cbool is_completed() nogil
        cbool failed() nogil

cdef extern from "monoflow/collective/store.h" namespace "monoflow::collective":
    cdef cppclass Store:
        void set(const string& key, const vector[char]& value) nogil except +
        vector[char] get(const string& key) nogil except +
        int64_t add(const string& key, int64_t delta) nogil except +
        cbool check(const vector[string]& keys) nogil except +
        void wait(const vector[string]& keys) nogil except +
        cbool delete_key(const string& key) nogil except +
        int64_t num_keys() nogil except +
        vector[char] compare_set(const string& key, const vector[char]& expected,
                                 const vector[char]& desired) nogil except +

cdef extern from *:
    """
    // The store's timeouts are std::chrono::milliseconds; Python passes plain counts.
    static void mf_store_set_timeout(monoflow::collective::Store* s, int64_t ms) {
      s->set_timeout(std::chrono::milliseconds(ms));
    }
    static void mf_store_wait_for(monoflow::collective::Store* s, const std::vector<std::string>& keys, int64_t ms) {
      s->wait(keys, std::chrono::milliseconds(ms));
    }
    """
    void mf_store_set_timeout(Store* s, int64_t ms)
    void mf_store_wait_for(Store* s, const vector[string]& keys, int64_t ms) nogil except +

cdef extern from "monoflow/collective/communicator.h" namespace "monoflow::collective":
    cdef cppclass CommStats:
        uint64_t bytes
        uint64_t calls

cdef extern from "monoflow/collective/process_group.h" namespace "monoflow::collective":
    cdef cppclass ProcessGroup:
        pass

cdef extern from "monoflow/collective/enqueue.h" namespace "monoflow::collective":
    ctypedef shared_ptr[Work] WorkPtr
    ctypedef shared_ptr[ProcessGroup] GroupPtr
    ctypedef shared_ptr[Store] StorePtr
    StorePtr make_tcp_store(const string& host, int port, cbool is_server, int64_t timeout_ms,
                            const string& bind_host, const string& job_id, int64_t rank, int64_t world_size,
                            const string& secret) nogil except +
    StorePtr make_file_store(const string& dir, int64_t timeout_ms) nogil except +
    StorePtr make_prefix_store(const string& prefix, StorePtr base) except +
    int tcp_store_port(const StorePtr& store)
    GroupPtr make_group(const string& backend, StorePtr store, int rank, int size, int64_t timeout_ms,
                        const string& master_addr, const vector[string]& nccl_dirs) nogil except +
    WorkPtr enqueue_all_reduce(GroupPtr g, uintptr_t buf, size_t count, int dtype, int op,
                               const string& device) except +
    WorkPtr enqueue_broadcast(GroupPtr g, uintptr_t buf, size_t count, int dtype, int root,
                              const string& device) except +
    WorkPtr enqueue_reduce(GroupPtr g, uintptr_t buf, size_t count, int dtype, int op, int root,
                           const string& device) except +
    WorkPtr enqueue_all_gather(GroupPtr g, uintptr_t inp, uintptr_t out, vector[size_t] counts, int dtype,
                               const string& device) except +
    WorkPtr enqueue_gather(GroupPtr g, uintptr_t inp, uintptr_t out, size_t count, int dtype, int root,
                           const string& device) except +
    WorkPtr enqueue_scatter(GroupPtr g, uintptr_t inp, uintptr_t out, size_t count, int dtype, int root,
                            const string& device) except +
    WorkPtr enqueue_reduce_scatter(GroupPtr g, uintptr_t inp, uintptr_t out, vector[size_t] counts, int dtype,
                                   int op, const string& device) except +
    WorkPtr enqueue_all_to_all(GroupPtr g, uintptr_t inp, vector[size_t] in_counts, uintptr_t out,
                               vector[size_t] out_counts, int dtype, const string& device) except +
    WorkPtr enqueue_send(GroupPtr g, uintptr_t buf, size_t count, int dtype, int peer, uint32_t tag,
                         const string& device) except +
    WorkPtr enqueue_recv(GroupPtr g, uintptr_t buf, size_t count, int dtype, int peer, uint32_t tag,
                         const string& device) except +
    WorkPtr enqueue_barrier(GroupPtr g) except +
    CommStats c_comm_stats "comm_stats"(const GroupPtr& g)
    void c_reset_comm_stats "reset_comm_stats"(const GroupPtr& g)
    cbool gloo_built()
    cbool nccl_found(const vector[string]& dirs)
    cbool mpi_found(const vector[string]& dirs)
    string nccl_path(const vector[string]& dirs) except +

cdef extern from "monoflow/collective/traced_collective.h" namespace "monoflow::collective":
    cdef cppclass HostOp "monoflow::graph::HostOp":
        pass
    cdef cppclass TracedCollectiveSpec:
        string kind
        string label
        string device
        int dtype
        int op
        int root
        int peer
        uint32_t tag
        size_t count
        vector[size_t] counts
        vector[size_t] out_counts
        double timeout_s
    shared_ptr[HostOp] make_traced_collective(GroupPtr g, TracedCollectiveSpec spec) except +


# The capsule that carries a host node (graph/host_node.h) to monoflow._C's
# recorder: both modules link the same core library.
cdef const char* _HOST_OP_CAPSULE = b"monoflow.graph.HostOp"


cdef void _free_host_op(object capsule) noexcept:
    cdef shared_ptr[HostOp]* p = <shared_ptr[HostOp]*>PyCapsule_GetPointer(capsule, _HOST_OP_CAPSULE)
    if p != NULL:
        del p


cdef class CWork:
    """A handle on one enqueued operation."""
    cdef WorkPtr w

    def wait(self):
        with nogil:
            self.w.get().wait()

    def is_completed(self):
        return self.w.get().is_completed()

    def failed(self):
        return self.w.get().failed()


cdef CWork _work(WorkPtr w):
    cdef CWork r = CWork.__new__(CWork)
    r.w = w
    return r


cdef class CStore:
    """A key-value store (TCP, file, or a prefix view of another)."""
    cdef StorePtr s

    def set(self, str key, value):
        cdef string k = key.encode()
        cdef bytes b = value.encode() if isinstance(value, str) else bytes(value)
        cdef vector[char] v = b
        with nogil:
            self.s.get().set(k, v)

    def get(self, str key):
        cdef string k = key.encode()
        cdef vector[char] v
        with nogil:
            v = self.s.get().get(k)
        return bytes(v.data()[:v.size()]) if v.size() else b""

    def add(self, str key, int64_t delta):
        cdef string k = key.encode()
        cdef int64_t r
        with nogil:
            r = self.s.get().add(k, delta)
        return r

    def check(self, keys):
        cdef vector[string] ks = [k.encode() for k in keys]
        return self.s.get().check(ks)

    def delete_key(self, str key):
        cdef string k = key.encode()
        cdef cbool r
        with nogil:
            r = self.s.get().delete_key(k)
        return r

    def num_keys(self):
        cdef int64_t r
        with nogil:
            r = self.s.get().num_keys()
        return r

    def compare_set(self, str key, bytes expected, bytes desired):
        cdef string k = key.encode()
        cdef vector[char] e = expected, d = desired, v
        with nogil:
            v = self.s.get().compare_set(k, e, d)
        return bytes(v.data()[:v.size()]) if v.size() else b""

    def wait(self, keys):
        cdef vector[string] ks = [k.encode() for k in keys]
        with nogil:
            self.s.get().wait(ks)

    def wait_for(self, keys, double timeout_s):
        """wait() with its own timeout instead of the store's."""
        cdef vector[string] ks = [k.encode() for k in keys]
        cdef int64_t ms = <int64_t>(timeout_s * 1000)
        with nogil:
            mf_store_wait_for(self.s.get(), ks, ms)

    def set_timeout(self, double timeout_s):
        """The timeout of every later blocking call (Note [Store timeouts])."""
        mf_store_set_timeout(self.s.get(), <int64_t>(timeout_s * 1000))

    @property
    def port(self):
        return tcp_store_port(self.s)


cdef CStore _store(StorePtr s):
    cdef CStore r = CStore.__new__(CStore)
    r.s = s
    return r


def tcp_store(str host, int port, bint is_server, double timeout_s, str bind_host, str job_id="",
              int64_t rank=-1, int64_t world_size=-1, bytes secret=b""):
    """A TCP store client (and its server when is_server), joining as
    (job_id, rank, world_size), authenticated by `secret` when not empty
    (Note [TCPStore handshake] in collective/)."""
    cdef string h = host.encode(), b = bind_host.encode(), j = job_id.encode(), sec = secret
    cdef int64_t ms = <int64_t>(timeout_s * 1000)
    cdef StorePtr s
    with nogil:
        s = make_tcp_store(h, port, is_server, ms, b, j, rank, world_size, sec)
    return _store(s)


def file_store(str path, double timeout_s):
    cdef string p = path.encode()
    cdef int64_t ms = <int64_t>(timeout_s * 1000)
    cdef StorePtr s
    with nogil:
        s = make_file_store(p, ms)
    return _store(s)


def prefix_store(str prefix, CStore base):
    return _store(make_prefix_store(prefix.encode(), base.s))


cdef class CGroup:
    """One process group: a communicator and its communication thread."""
    cdef GroupPtr g
    cdef double timeout_s

    def traced_op(self, str kind, str label, str device, int dtype=0, int op=0, int root=0, int peer=0,
                  uint32_t tag=0, size_t count=0, counts=(), out_counts=()):
        """A host node that replays this collective in a graph plan (a capsule
        for monoflow._C._graph_record_host; Note [Collectives in graph plans])."""
        cdef TracedCollectiveSpec s
        s.kind = kind.encode()
        s.label = label.encode()
        s.device = device.encode()
        s.dtype = dtype
        s.op = op
        s.root = root
        s.peer = peer
        s.tag = tag
        s.count = count
        s.counts = list(counts)
        s.out_counts = list(out_counts)
        s.timeout_s = self.timeout_s
        cdef shared_ptr[HostOp] h = make_traced_collective(self.g, s)
        return PyCapsule_New(<void*>new shared_ptr[HostOp](h), _HOST_OP_CAPSULE, _free_host_op)

    def all_reduce(self, uintptr_t buf, size_t count, int dtype, int op, str device):
        return _work(enqueue_all_reduce(self.g, buf, count, dtype, op, device.encode()))

    def broadcast(self, uintptr_t buf, size_t count, int dtype, int root, str device):
        return _work(enqueue_broadcast(self.g, buf, count, dtype, root, device.encode()))

    def reduce(self, uintptr_t buf, size_t count, int dtype, int op, int root, str device):
        return _work(enqueue_reduce(self.g, buf, count, dtype, op, root, device.encode()))

    def all_gather(self, uintptr_t inp, uintptr_t out, counts, int dtype, str device):
        return _work(enqueue_all_gather(self.g, inp, out, counts, dtype, device.encode()))

    def gather(self, uintptr_t inp, uintptr_t out, size_t count, int dtype, int root, str device):
        return _work(enqueue_gather(self.g, inp, out, count, dtype, root, device.encode()))

    def scatter(self, uintptr_t inp, uintptr_t out, size_t count, int dtype, int root, str device):
        return _work(enqueue_scatter(self.g, inp, out, count, dtype, root, device.encode()))

    def reduce_scatter(self, uintptr_t inp, uintptr_t out, counts, int dtype, int op, str device):
        return _work(enqueue_reduce_scatter(self.g, inp, out, counts, dtype, op, device.encode()))

    def all_to_all(self, uintptr_t inp, in_counts, uintptr_t out, out_counts, int dtype, str device):
        return _work(enqueue_all_to_all(self.g, inp, in_counts, out, out_counts, dtype, device.encode()))

    def send(self, uintptr_t buf, size_t count, int dtype, int peer, uint32_t tag, str device):
        return _work(enqueue_send(self.g, buf, count, dtype, peer, tag, device.encode()))

    def recv(self, uintptr_t buf, size_t count, int dtype, int peer, uint32_t tag, str device):
        return _work(enqueue_recv(self.g, buf, count, dtype, peer, tag, device.encode()))

    def barrier(self):
        return _work(enqueue_barrier(self.g))

    def comm_stats(self):
        """(bytes received from peers, completed calls) since creation or the last reset."""
        cdef CommStats st = c_comm_stats(self.g)
        return st.bytes, st.calls

    def reset_comm_stats(self):
        c_reset_comm_stats(self.g)

    def close(self):
        """Drains the queue and joins the communication thread (without the GIL)."""
        with nogil:
            self.g.reset()


def new_group(str backend, CStore store, int rank, int size, double timeout_s, str master_addr, nccl_dirs):
    """Connects this rank to the group's peers (blocks until all arrive or the timeout)."""
    cdef string b = backend.encode(), m = master_addr.encode()
    cdef vector[string] dirs = [d.encode() for d in nccl_dirs]
    cdef int64_t ms = <int64_t>(timeout_s * 1000)
    cdef GroupPtr g
    cdef StorePtr s = store.s
    with nogil:
        g = make_group(b, s, rank, size, ms, m, dirs)
    cdef CGroup r = CGroup.__new__(CGroup)
    r.g = g
    r.timeout_s = timeout_s
    return r


def gloo_available():
    return gloo_built()


def nccl_available(dirs):
    return nccl_found([d.encode() for d in dirs])


def mpi_available(dirs):
    return mpi_found([d.encode() for d in dirs])


def nccl_library(dirs):
    """The path of libnccl.so.2; RuntimeError listing the places searched when missing."""
    return nccl_path([d.encode() for d in dirs]).decode()
