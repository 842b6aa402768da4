#pragma once
// The chip's work queue on the one SystemC time base: kernel launches on a
// set of physical cores, host<->HBM copies and HBM->HBM copies between cores
// are SUBMITTED here and simulated here, competing for the HBM stacks and
// the host link like any DMA.
//
// It is the model's one launch path: the runtime's executions and
// collectives, Chip::Launch (nsim run --grid, the NKI SPMD launch, the ring
// all-reduce) and Device::Execute (a one-core chip) all submit a
// KernelLaunch here, and RunKernel is the one place that binds, starts,
// summarises and race-checks a launch.
//
// Lazy co-simulation: the simulation never runs ahead of the host. The host
// (the runtime) submits an item at its own time (SimClock); the item starts
// at that time on the chip (a delayed notification), once its stream's
// previous item has finished and, for a kernel, once its cores are free
// (kernels take their cores in submission order). Nothing is simulated until
// the host needs a result: RunUntil(item) runs the simulation until that
// item has completed, and items in flight keep running across these calls.
// Chip time is the host's time (SimClock): SystemC time minus an epoch, which
// is set whenever the scheduler is idle so that an item submitted at host
// time t starts at chip time t (other chips' work moves SystemC time on, and
// the host's clock may have been reset). Synchronous launches
// (LaunchAndWait) are the host waiting for the item: its clock moves to the
// item's end, so every launch, of any kind, continues the one time line.
//
// Errors: a kernel that fails (an error in an instruction, a race) or
// deadlocks completes with `error` set; its cores stay taken until the
// simulation has drained (no event left), so that no DMA of the failed
// launch outlives it, which RunUntil then does (running ahead of the host:
// an error path only). The scheduler stays usable.
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "sim/base/time.h"
#include "sim/config/hw_config.h"
#include "sim/model/chip.h"
#include "sim/model/execution_result.h"
#include "sim/model/loaded_kernel.h"
#include "sim/model/run_progress.h"
#include "sim/model/sim_host.h"

namespace nsim {

class HbmArbiter;
struct RunState;

// A kernel launch: programs[i] on physical core cores[i].
struct KernelLaunch {
  std::vector<std::shared_ptr<const LoadedKernel>> programs;
  std::vector<int> cores;
  std::map<std::string, uint64_t> bindings;
  uint64_t scratch_top = 0;  // unbound HBM tensors go below it
  bool timing_only = false;
  bool allow_races = false;
  // Device time the launch keeps its cores after its last program (device
  // capture), from the results; may be empty.
  std::function<Picos(const std::vector<ExecutionResult>&)> tail;
  // Binds the programs when the launch starts; empty: in the chip's memory
  // (Chip::Bind with the fields above). A Device binds in its own memory.
  std::function<BoundGrid()> bind;
};

// One submitted item, as the host sees it. Filled when it completes.
struct ScheduledItem {
  bool done = false;
  Picos start = 0;  // chip time the item began (its stream and cores free)
  Picos end = 0;    // chip time it completed
  std::exception_ptr error;  // a failed or deadlocked kernel, a bad copy
  std::vector<ExecutionResult> results;        // kernels: one per program
  std::map<std::string, uint64_t> scratch;     // kernels: unbound HBM tensors
  // Called in the simulation when the item completes (before anyone sees done).
  std::function<void(ScheduledItem&)> on_done;
  // Kernels: how far the launch has come, final once it is done (a wait
  // with a progress reporter reads the live figures while it runs).
  RunProgress progress;
};
using ItemRef = std::shared_ptr<ScheduledItem>;

class ChipScheduler {
 public:
  // Schedules the chip's first `cores` cores (0: all of them). While it has
  // work in flight, it holds a slot of the process's module pool for them and
  // the stacks they sit on (SimHost::AcquireSlot): a submission to an idle
  // scheduler throws SimError when the pool has no room left.
  explicit ChipScheduler(Chip& chip, int cores = 0);
  ~ChipScheduler();  // finishes the work in flight
  ChipScheduler(const ChipScheduler&) = delete;
  ChipScheduler& operator=(const ChipScheduler&) = delete;

  // A new in-order queue of the chip.
  int NewStream();
  bool HasStream(int stream) const { return stream >= 0 && stream < static_cast<int>(stream_last_.size()); }

  // Each starts its item at host time `at` (chip time). The caller has
  // validated the arguments (addresses inside chip memory).
  ItemRef SubmitKernel(int stream, Picos at, KernelLaunch launch, std::function<void(ScheduledItem&)> on_done);
  // A launch that is the next item of several streams at once (a collective
  // step over the streams of several logical cores): it starts once every
  // one of them has finished its previous item.
  ItemRef SubmitKernel(const std::vector<int>& streams, Picos at, KernelLaunch launch,
                       std::function<void(ScheduledItem&)> on_done);
  // Host -> HBM: `bytes` (staged now) land at `address` when the copy ends.
  ItemRef SubmitHostWrite(int stream, Picos at, uint64_t address, std::vector<uint8_t> bytes,
                          std::function<void(ScheduledItem&)> on_done);
  // HBM -> host: the bytes at `address` are read into `dst` when the copy
  // ends; `dst` must stay valid until then (the host waits for it).
  ItemRef SubmitHostRead(int stream, Picos at, uint64_t address, void* dst, uint64_t bytes,
                         std::function<void(ScheduledItem&)> on_done);
  // HBM -> HBM between cores: read on the source's stack, write on the
  // destination's, at the DMA's share of each (dma.hbm_bytes_per_ns).
  ItemRef SubmitCopy(int stream, Picos at, uint64_t dst, uint64_t src, uint64_t bytes,
                     std::function<void(ScheduledItem&)> on_done);

  // The host submits `launch` on `stream` at its time (SimClock) and waits
  // for it: simulates until it has completed and moves the host's clock to
  // its end. Throws the launch's error (a SimError for a bad binding, a
  // failed instruction, a race or a deadlock). `progress`: as RunUntil.
  ItemRef LaunchAndWait(int stream, KernelLaunch launch, const ProgressFn& progress = {});

  // Simulates until `item` (or every item) has completed. Never throws for
  // an item's error (it is in item->error). With `progress`, the simulation
  // advances in slices of kProgressSlicePs and reports the item's progress
  // after each (the schedule is the same as without).
  void RunUntil(const ItemRef& item, const ProgressFn& progress = {});
  void RunUntilIdle();
  // Simulates up to chip time `t` (the host's now), completing what ends by then.
  void RunTo(Picos t);
  bool idle() const { return in_flight_ == 0; }
  Picos now() const;  // chip time

 private:
  struct Item;
  class HostLink;
  ItemRef Submit(const std::vector<int>& streams, Picos at, std::function<void(ScheduledItem&)> on_done,
                 std::function<void(Item&)> body, const std::vector<int>& cores);
  void Run(const std::function<bool()>& finished, const std::function<void()>& report = {});
  RunProgress Progress(const ItemRef& item) const;
  void OnStarvation();
  void WaitToStart(Item& item);
  void Finish(Item& item);
  void RunKernel(Item& item, const KernelLaunch& launch);
  void RunHostCopy(Item& item, uint64_t address, uint64_t bytes, const std::function<void()>& data);
  void RunCoreCopy(Item& item, uint64_t dst, uint64_t src, uint64_t bytes);
  HbmArbiter& Stack(uint64_t address);
  int CoreOf(uint64_t address) const;
  HbmArbiter* StackModule(int stack);  // the chip's stack `stack` (-1: on chip, nullptr)

  Chip& chip_;
  int cores_;
  ChipSlot slot_;  // held while work is in flight (cores 0: none)
  Picos epoch_ = 0;  // SystemC time of chip time 0
  int in_flight_ = 0;
  int draining_ = 0;  // failed launches waiting for the simulation to drain
  std::vector<std::shared_ptr<Item>> stream_last_;  // per stream: its last item
  std::vector<std::deque<Item*>> core_queue_;       // per core: kernels waiting for it, in submission order
  std::vector<bool> core_busy_;
  std::vector<Item*> running_kernels_;
  std::unique_ptr<HostLink> link_;
  const ScheduledItem* target_ = nullptr;  // RunUntil's item: pause the simulation when it completes
  bool pause_when_idle_ = false;
  struct Events;
  std::unique_ptr<Events> events_;
};

}  // namespace nsim
