// Actor: one node of a plan, with the links that tell it when it may fire.
//
// An actor fires its iterations in order. Iteration i of actor b may fire
// once every producer a linked to it with distance d has fired iteration
// i - d (nothing to wait for when i - d < 0): distance 0 for data in the same
// iteration, 1 for memory the next iteration reuses, `slots` for a register
// whose copy comes back when the consumers of an earlier iteration are done
// (Note [Plan dependencies] in graph/plan.h). Each firing of a sends one
// message per out-link whose consumer still has an iteration that needs it,
// so every message sent in a run is consumed in that run.
#pragma once
#include <cstdint>
#include <vector>

#include "monoflow/graph/plan.h"

namespace monoflow::graph {

class IterationMemory;

struct Actor {
  struct In {
    int producer;
    int64_t distance;
    int64_t received = 0;  // firings of the producer heard of
  };
  struct Out {
    int consumer;
    int link;  // index into the consumer's `in`
    int64_t distance;
  };

  int node = 0;
  int thread = 0;  // the worker that owns this actor's state
  std::vector<In> in;
  std::vector<Out> out;
  int64_t next = 0;  // the next iteration to fire

  bool ready() const {
    for (const In& l : in)
      if (l.received + l.distance <= next) return false;
    return true;
  }
};

// One actor per node; nodes are dealt to `threads` workers in contiguous
// blocks of the node order, so a chain of nodes mostly stays on one worker
// and consecutive iterations flow through the workers like pipeline stages.
// Host nodes (graph/host_node.h) get the last worker to themselves when
// there are several: they block while their collective runs.
std::vector<Actor> make_actors(const Plan& plan, const std::vector<PlanEdge>& extra_edges, int slots, int threads);

// Runs node `node`'s kernel for iteration `it`: the fast path fills the
// kernel's descriptors from the plan and calls it on the device's stream;
// a node without a kernel on its device goes through launch() (CPU fallback).
void launch_node(const Plan& plan, int node, int64_t it, const IterationMemory& mem);

}  // namespace monoflow::graph
