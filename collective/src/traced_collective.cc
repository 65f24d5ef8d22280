// TracedCollective: a collective replayed by the graph runtime
// (Note [Collectives in graph plans] in traced_collective.h).
#include "monoflow/collective/traced_collective.h"

#include "monoflow/collective/types.h"

namespace monoflow::collective {

namespace {

enum class Kind { AllReduce, Broadcast, Reduce, AllGather, Gather, Scatter, ReduceScatter, AllToAll, Send, Recv,
                  Barrier };

Kind parse_kind(const std::string& k) {
  static const std::pair<const char*, Kind> kinds[] = {
      {"all_reduce", Kind::AllReduce}, {"broadcast", Kind::Broadcast},   {"reduce", Kind::Reduce},
      {"all_gather", Kind::AllGather}, {"gather", Kind::Gather},         {"scatter", Kind::Scatter},
      {"reduce_scatter", Kind::ReduceScatter}, {"all_to_all", Kind::AllToAll}, {"send", Kind::Send},
      {"recv", Kind::Recv},            {"barrier", Kind::Barrier}};
  for (const auto& [name, kind] : kinds)
    if (k == name) return kind;
  throw CommError("graph trace: unknown collective kind '" + k + "'");
}

class TracedCollective final : public graph::HostOp {
 public:
  TracedCollective(GroupPtr g, TracedCollectiveSpec s) : group_(std::move(g)), spec_(std::move(s)) {
    kind_ = parse_kind(spec_.kind);
  }

  const std::string& label() const override { return spec_.label; }
  double timeout_s() const override { return spec_.timeout_s; }

  void run(const std::vector<void*>& inputs, const std::vector<void*>& outputs) override {
    // Weak: destroy_process_group must really close the group, plans or not.
    GroupPtr group = group_.lock();
    if (!group)
      throw CommError(spec_.label + ": its process group was destroyed (destroy_process_group); trace the graph "
                      "again with a live group");
    auto addr = [](const std::vector<void*>& v) {
      return v.empty() ? uintptr_t{0} : reinterpret_cast<uintptr_t>(v[0]);
    };
    const uintptr_t in = addr(inputs), out = addr(outputs);
    const TracedCollectiveSpec& s = spec_;
    // No fence: the runtime waited for this firing's producers (Note [Host
    // nodes] in graph/host_node.h); a fence on the stream now would also wait
    // for kernels enqueued since, e.g. the next micro-batch's forward.
    const std::string no_fence;
    if (kind_ == Kind::Send || kind_ == Kind::Recv) {
      // This worker waits for it anyway: run it here rather than on a new
      // thread per operation (enqueue_send/recv's way, so that an eager send
      // does not hold up the recv issued next). The slot is still taken in
      // issue order (Note [Gloo tags and slots]).
      Communicator& c = group->comm();
      const uint64_t slot = c.p2p_slot(s.peer, kind_ == Kind::Send, s.tag);
      if (kind_ == Kind::Send)
        c.send(reinterpret_cast<const void*>(in), s.count, static_cast<DType>(s.dtype), s.peer, slot);
      else
        c.recv(reinterpret_cast<void*>(out), s.count, static_cast<DType>(s.dtype), s.peer, slot);
      return;
    }
    WorkPtr w;
    switch (kind_) {
      case Kind::AllReduce: w = enqueue_all_reduce(group, out, s.count, s.dtype, s.op, no_fence); break;
      case Kind::Broadcast: w = enqueue_broadcast(group, out, s.count, s.dtype, s.root, no_fence); break;
      case Kind::Reduce: w = enqueue_reduce(group, out, s.count, s.dtype, s.op, s.root, no_fence); break;
      case Kind::AllGather: w = enqueue_all_gather(group, in, out, s.counts, s.dtype, no_fence); break;
      case Kind::Gather: w = enqueue_gather(group, in, out, s.count, s.dtype, s.root, no_fence); break;
      case Kind::Scatter: w = enqueue_scatter(group, in, out, s.count, s.dtype, s.root, no_fence); break;
      case Kind::ReduceScatter:
        w = enqueue_reduce_scatter(group, in, out, s.counts, s.dtype, s.op, no_fence);
        break;
      case Kind::AllToAll: w = enqueue_all_to_all(group, in, s.counts, out, s.out_counts, s.dtype, no_fence); break;
      case Kind::Send: w = enqueue_send(group, in, s.count, s.dtype, s.peer, s.tag, no_fence); break;
      case Kind::Recv: w = enqueue_recv(group, out, s.count, s.dtype, s.peer, s.tag, no_fence); break;
      case Kind::Barrier: w = enqueue_barrier(group); break;
    }
    w->wait();  // rethrows the collective's error (timeout, dead peer)
  }

 private:
  std::weak_ptr<ProcessGroup> group_;
  TracedCollectiveSpec spec_;
  Kind kind_;
};

}  // namespace

graph::HostOpPtr make_traced_collective(GroupPtr group, TracedCollectiveSpec spec) {
  if (!group) throw CommError("graph trace: " + spec.label + ": the process group is closed");
  return std::make_shared<TracedCollective>(std::move(group), std::move(spec));
}

}  // namespace monoflow::collective
