#pragma once
// Scheduler: appends instructions to a kernel and inserts the semaphore
// waits and signals that order them, derived from the tensors each one reads
// and writes. Code generators (and hand-written kernels) then only say what
// to compute, in a valid sequential order; this class makes the concurrent
// engines and DMA transfers respect that order:
//
//   RAW  a reader waits for the earlier writers of the tensor,
//   WAR  a writer waits for the earlier readers,
//   WAW  a writer waits for the earlier writers,
//
// except where program order already guarantees it: instructions on the same
// compute engine execute (and commit) in order, so they never wait for each
// other. Each DMA transfer completes on its own, so it is always waited for.
//
// Why counts of "everything so far": a semaphore per tensor and direction
// (written / read) is signalled by every writer (reader) of that tensor, and
// a waiter waits until the count reaches the number issued before it. That
// holds whatever order the signalling instructions complete in (DMA
// transfers on different engines, TensorE instructions of different
// latencies), so no ordering assumption about completion is needed.
// Semaphores are created only for tensors that need one, and signals are
// added to earlier instructions retroactively when a tensor first needs one.
//
// Accesses are tracked per tensor with their extent (the partitions and the
// free-element range an access pattern touches, a bounding box): a wait is
// only needed when an earlier access by another agent overlaps, so DMAs
// filling different slices of one buffer run in parallel. When a wait is
// needed it is for every earlier access of that kind to the tensor (the
// count), which is correct whatever their completion order. HBM tensors are
// assumed to be written in disjoint tiles and never rewritten, so only RAW
// is tracked for them (a load of a scratch tensor waits for the stores that
// produced it).
#include <map>
#include <vector>

#include "sim/kernel/kernel.h"

namespace nsim {
namespace neuron {
namespace codegen {

// The sequencers that trigger DMA transfers. Loads and stores go through
// different in-order streams, so a load prefetching the next tile never
// waits behind a store that waits for the current tile's compute.
constexpr EngineId kLoadEngine = EngineId::kSync;
constexpr EngineId kStoreEngine = EngineId::kGpSimd;

class Scheduler {
 public:
  explicit Scheduler(Kernel* kernel);

  // Appends `in` to its engine's stream with the waits it needs.
  void Add(Instruction in);

  // A dma_copy of src to dst on `queue`, triggered from `engine`.
  void Dma(EngineId engine, const AccessPattern& dst, const AccessPattern& src, int queue);

  Kernel& kernel() { return *kernel_; }

  // The part of a tensor an access pattern touches: partitions [p0, p1)
  // (0..1 for HBM) and the free (HBM: flat) element range [f0, f1].
  struct Extent {
    int64_t p0 = 0, p1 = 1, f0 = 0, f1 = 0;
  };

 private:
  // An instruction already emitted: its engine and index in that stream.
  struct Ref {
    EngineId engine;
    int index;
    int agent;  // engine number for compute instructions; a unique id per DMA
    std::vector<Extent> extents;
  };
  struct Access {
    std::vector<Ref> refs;
    int sem = -1;  // created on first need
  };
  struct Tracked {
    Access writes, reads;
  };
  using Touches = std::map<int, std::vector<Extent>>;  // tensor -> extents

  void WaitFor(Access& a, int tensor, const char* what, int agent, const std::vector<Extent>& ext, Instruction* in);
  int Materialise(Access& a, int tensor, const char* what);
  void Record(Access& a, const Ref& r, Instruction* in);

  Kernel* kernel_;
  std::map<int, Tracked> tracked_;                // by tensor index
  std::map<std::pair<int, int>, int64_t> waited_; // (agent, sem) -> count already waited for
  int next_dma_agent_ = kNumEngines;
};

}  // namespace codegen
}  // namespace neuron
}  // namespace nsim
