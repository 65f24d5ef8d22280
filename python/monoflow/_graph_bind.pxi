# Bindings of graph tracing and the actor runtime (core/include/monoflow/graph/).
# Included by _C.pyx; the Python API is monoflow._graph.
import gc
from libc.stdint cimport int64_t
from cpython.pycapsule cimport PyCapsule_GetPointer


cdef extern from "monoflow/graph/trace.h" namespace "monoflow::graph":
    cdef cppclass CTraceRecorder "monoflow::graph::TraceRecorder":
        CTraceRecorder(cbool execute) except +translate_exception
        void stop()
        void mark_variable(const Tensor& t)
        void forbid_constant_writes()

cdef extern from "monoflow/graph/host_node.h" namespace "monoflow::graph":
    cdef cppclass CHostOp "monoflow::graph::HostOp":
        pass
    void c_record_host_op "monoflow::graph::record_host_op"(shared_ptr[CHostOp] op, const vector[Tensor]& inputs,
                                                           const vector[Tensor]& outputs) except +translate_exception

cdef extern from "monoflow/graph/plan.h" namespace "monoflow::graph":
    cdef cppclass CPassRecord "monoflow::graph::PassRecord":
        string name
        string summary
    cdef cppclass CPlanMemory "monoflow::graph::PlanMemory":
        int64_t persistent
        int64_t transient_traced
        int64_t transient
        int64_t output
    cdef cppclass CPlan "monoflow::graph::Plan":
        string describe(cbool with_passes)
        vector[CPassRecord] passes
        CPlanMemory memory()

cdef extern from "monoflow/graph/pass.h" namespace "monoflow::graph":
    vector[string] c_graph_default_passes "monoflow::graph::default_passes"()

cdef extern from "monoflow/graph/runtime.h" namespace "monoflow::graph":
    cdef cppclass CRunOptions "monoflow::graph::RunOptions":
        int64_t iterations
        int slots
        int threads
        double timeout_s
    cdef cppclass CPlanEdge "monoflow::graph::PlanEdge":
        pass
    cdef cppclass CRunDebug "monoflow::graph::RunDebug":
        int fail_node
        string fail_message
    cdef cppclass CRuntime "monoflow::graph::Runtime":
        CRuntime(shared_ptr[CPlan] plan) except +translate_exception
        cbool dead()
        string dead_reason()
        CRunDebug& debug()
        void hold(int node)
        void release_hold()

cdef extern from *:
    """
    #include <exception>
    #include "monoflow/graph/runtime.h"
    // Plumbing only: the trace's calls must move (not be copied) into
    // build_plan, whose storage analysis counts references; and a run, made
    // without the GIL, hands its exception back to be raised with it.
    static std::shared_ptr<monoflow::graph::Plan> mf_graph_finish(monoflow::graph::TraceRecorder* rec,
                                                                   const std::vector<monoflow::Tensor>& inputs,
                                                                   std::vector<monoflow::Tensor>* outputs,
                                                                   const std::vector<std::string>& passes,
                                                                   bool keep_ir) {
      return monoflow::graph::build_plan(rec->finish(), inputs, *outputs, passes, keep_ir);
    }
    static std::exception_ptr mf_graph_run(monoflow::graph::Runtime* rt,
                                           const std::vector<std::vector<monoflow::Tensor>>* feeds,
                                           const monoflow::graph::RunOptions* options,
                                           std::vector<std::vector<monoflow::Tensor>>* out) noexcept {
      try {
        *out = rt->run(*feeds, *options);
        return nullptr;
      } catch (...) {
        return std::current_exception();
      }
    }
    static bool mf_graph_failed(const std::exception_ptr& e) { return static_cast<bool>(e); }
    static void mf_graph_rethrow(std::exception_ptr e) { std::rethrow_exception(e); }
    static void mf_graph_stats(const monoflow::graph::Plan& p, int64_t* out) {
      for (int k = 0; k < 10; ++k) out[k] = 0;
      out[0] = static_cast<int64_t>(p.nodes.size());
      for (const auto& s : p.storages) ++out[s.arena ? 9 : 1 + static_cast<int>(s.cls)];  // arenas: memory planning
      for (const auto& e : p.edges) ++out[5 + static_cast<int>(e.kind)];
      out[8] = static_cast<int64_t>(p.random_nodes.size());
    }
    static void mf_graph_add_edge(monoflow::graph::Runtime* rt, int from, int to) {
      rt->debug().extra_edges.push_back(monoflow::graph::PlanEdge{from, to, monoflow::graph::EdgeKind::Intra});
    }
    static void mf_graph_clear_debug(monoflow::graph::Runtime* rt) {
      rt->release_hold();
      rt->debug() = monoflow::graph::RunDebug{};
    }
    """
    cdef cppclass exception_ptr "std::exception_ptr":
        pass
    shared_ptr[CPlan] mf_graph_finish(CTraceRecorder* rec, const vector[Tensor]& inputs,
                                      vector[Tensor]* outputs, const vector[string]& passes,
                                      cbool keep_ir) except +translate_exception
    exception_ptr mf_graph_run(CRuntime* rt, const vector[vector[Tensor]]* feeds, const CRunOptions* options,
                               vector[vector[Tensor]]* out) nogil
    cbool mf_graph_failed(const exception_ptr& e)
    void mf_graph_rethrow(exception_ptr e) except +translate_exception
    void mf_graph_stats(const CPlan& p, int64_t* out)
    void mf_graph_add_edge(CRuntime* rt, int src, int dst)
    void mf_graph_clear_debug(CRuntime* rt)


def _graph_default_passes():
    """Names of the plan passes a compiled trace runs by default."""
    return [n.decode() for n in c_graph_default_passes()]


def _graph_tracing():
    """Whether a graph trace is recording on this thread."""
    return c_graph_tracing()


def _graph_record_host(capsule, list reads, list writes):
    """Records a host node (a collective's capsule from monoflow._dist, Note
    [Host nodes] in graph/host_node.h) reading `reads` and writing `writes`
    into the trace recording on this thread."""
    cdef void* p = PyCapsule_GetPointer(capsule, b"monoflow.graph.HostOp")
    cdef vector[Tensor] ins = _graph_tensors(reads, "graph host node inputs")
    cdef vector[Tensor] outs = _graph_tensors(writes, "graph host node outputs")
    c_record_host_op((<shared_ptr[CHostOp]*>p)[0], ins, outs)


def _graph_check_host_read(str what):
    """Raises RuntimeError when a graph trace is recording on this thread."""
    c_check_host_read(what.encode())


cdef vector[Tensor] _graph_tensors(list tensors, str what) except *:
    cdef vector[Tensor] v
    for t in tensors:
        if not isinstance(t, TensorBase):
            raise TypeError(f"{what}: expected tensors, got {type(t).__name__}")
        v.push_back((<TensorBase>t).t)
    return v


cdef tuple _gc_passes_into_old_generations():
    stats = gc.get_stats()
    return (stats[1]["collections"], stats[2]["collections"])


cdef _collect_trace_cycles(tuple old_passes):
    # Unreachable cycles that still hold traced tensors would make their memory look held from
    # outside (kept Persistent instead of Transient). Every object the trace made is in the young
    # generations unless a gen-1 or gen-2 pass ran since it began (those move survivors to the
    # oldest): a young collection is then enough, and the full one (0.1-0.3 s with a large heap,
    # e.g. torch imported) runs only after long traces.
    gc.collect(1 if _gc_passes_into_old_generations() == old_passes else 2)


@cython.binding(False)
cdef class _GraphTrace:
    """Records the calling thread's kernel launches until finish() or abort()."""
    cdef CTraceRecorder* rec
    cdef tuple _old_gc_passes  # the collector's gen-1 and gen-2 pass counts when the trace began

    def __cinit__(self, bint execute=True):
        self.rec = new CTraceRecorder(execute)
        self._old_gc_passes = _gc_passes_into_old_generations()

    def __dealloc__(self):
        if self.rec != NULL:
            del self.rec

    def mark_variables(self, list tensors):
        """Names tensors whose values a replay changes (inputs, parameters, buffers): code
        tracing may not read them (Note [Constants read while tracing] in graph/trace.h)."""
        if self.rec == NULL:
            raise RuntimeError("graph trace: already finished")
        cdef vector[Tensor] ts = _graph_tensors(tensors, "graph trace variables")
        cdef size_t i
        for i in range(ts.size()):
            self.rec.mark_variable(ts[i])

    def forbid_constant_writes(self):
        """The caller has marked all its state: a kernel writing in place to a constant the trace
        read raises DynamicShapeError (Note [Constants written in place] in graph/trace.h)."""
        if self.rec == NULL:
            raise RuntimeError("graph trace: already finished")
        self.rec.forbid_constant_writes()

    def abort(self):
        if self.rec != NULL:
            del self.rec
            self.rec = NULL

    def finish(self, list inputs, list outputs, passes=(), bint keep_ir=False):
        """Builds the plan, running the named passes on it (keep_ir: keep the
        listing before and after each). Empties `outputs` first, so that the
        analysis of what outside code holds does not count the caller's Python
        objects; returns (plan, the output tensors as new objects)."""
        if self.rec == NULL:
            raise RuntimeError("graph trace: already finished")
        self.rec.stop()  # nothing below is part of the trace (e.g. finalizers the collection runs)
        cdef vector[Tensor] ins = _graph_tensors(inputs, "graph trace inputs")
        cdef vector[Tensor] outs = _graph_tensors(outputs, "graph trace outputs")
        cdef vector[string] pass_names
        for name in passes:
            if not isinstance(name, str):
                raise TypeError(f"graph trace: pass names must be strings, got {type(name).__name__}")
            pass_names.push_back(name.encode())
        outputs.clear()
        _collect_trace_cycles(self._old_gc_passes)
        cdef _GraphPlan plan = _GraphPlan.__new__(_GraphPlan)
        try:
            plan.p = mf_graph_finish(self.rec, ins, &outs, pass_names, keep_ir)
        finally:
            del self.rec
            self.rec = NULL
        return plan, [wrap(outs[i]) for i in range(outs.size())]


@cython.binding(False)
cdef class _GraphPlan:
    cdef shared_ptr[CPlan] p

    def describe(self, bint with_passes=False):
        return self.p.get().describe(with_passes).decode()

    def passes(self):
        """[(name, summary)] of the passes that ran, in order."""
        cdef CPlan* p = self.p.get()
        return [(p.passes[k].name.decode(), p.passes[k].summary.decode()) for k in range(p.passes.size())]

    def stats(self):
        cdef int64_t s[10]
        mf_graph_stats(self.p.get()[0], s)
        return {"nodes": s[0], "persistent": s[1], "transient": s[2], "input": s[3], "output": s[4],
                "intra_edges": s[5], "carried_edges": s[6], "register_edges": s[7], "random_nodes": s[8],
                "arenas": s[9]}

    def memory(self):
        """Bytes the plan holds (Note [Memory planning] in pass_memory.cc)."""
        cdef CPlanMemory m = self.p.get().memory()
        return {"persistent": m.persistent, "transient_traced": m.transient_traced, "transient": m.transient,
                "output": m.output}


@cython.binding(False)
cdef class _GraphRuntime:
    cdef CRuntime* rt

    def __cinit__(self, _GraphPlan plan):
        self.rt = new CRuntime(plan.p)

    def __dealloc__(self):
        if self.rt != NULL:
            del self.rt

    def run(self, list feeds, int64_t iterations, int slots, int threads, double timeout):
        """feeds: one list of input tensors, or one per iteration. Returns one
        list of output tensors per iteration."""
        cdef vector[vector[Tensor]] fv
        for f in feeds:
            fv.push_back(_graph_tensors(list(f), "graph run inputs"))
        cdef CRunOptions opt
        opt.iterations = iterations
        opt.slots = slots
        opt.threads = threads
        opt.timeout_s = timeout
        cdef vector[vector[Tensor]] out
        cdef exception_ptr err
        with nogil:
            err = mf_graph_run(self.rt, &fv, &opt, &out)
        if mf_graph_failed(err):
            mf_graph_rethrow(err)
        return [[wrap(out[i][j]) for j in range(out[i].size())] for i in range(out.size())]

    @property
    def dead(self):
        return self.rt.dead()

    @property
    def dead_reason(self):
        return self.rt.dead_reason().decode()

    def _debug_fail(self, int node, str message):
        self.rt.debug().fail_node = node
        self.rt.debug().fail_message = message.encode()

    def _debug_hold(self, int node):
        self.rt.hold(node)

    def _debug_release(self):
        self.rt.release_hold()

    def _debug_add_edge(self, int src, int dst):
        mf_graph_add_edge(self.rt, src, dst)

    def _debug_clear(self):
        mf_graph_clear_debug(self.rt)
