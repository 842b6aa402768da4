#pragma once
// One logical NeuronCore ("neuron:N") as the framework sees it through the
// Neuron runtime: lnc() physical cores of a chip, their device memory,
// loaded kernels, streams of asynchronous work, host<->device copies and
// copies to other cores.
//
// Work is submitted into the chip model (sim/model/chip_scheduler.h) and
// simulated there, on the one time base the host shares (SimClock is the
// host's position on it): ExecuteAsync and CopyToDevice charge the host only
// for the call and return; the item starts on the chip at the host's time
// once its stream and (kernels) its cores are free. The simulation runs
// lazily, never ahead of the host: when the host needs a result (Wait,
// Synchronize, CopyFromDevice, IsComplete, records(), device()) it runs until
// that item (or all of this core's work) has completed, and the host's clock
// moves to max(host, completion). A record's device times and results are
// filled when it completes (ExecutionRecord::completed); observers see it
// then, in submission order. Errors of the model (a deadlock, a race) surface
// at the wait that finds them, naming the kernel; the core stays usable.
//
// A core is driven from one host thread at a time, like the SimClock itself.
#include <cstdint>
#include <deque>
#include <functional>
#include <exception>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "runtime/clock.h"
#include "runtime/device_allocator.h"
#include "runtime/execution_record.h"
#include "runtime/kernel_cache.h"
#include "runtime/wall_time.h"
#include "sim/config/hw_config.h"
#include "sim/kernel/kernel.h"
#include "sim/model/chip.h"
#include "sim/model/chip_scheduler.h"
#include "sim/model/device.h"

namespace nsim {
namespace rt {

// HBM tensor name -> device address, as Device::Execute takes them.
using Bindings = std::map<std::string, uint64_t>;

class NeuronCoreDevice {
 public:
  static constexpr int kDefaultStream = 0;
  // The allocator starts above address 0, so that 0 never names an
  // allocation and callers may use it as "no address".
  static constexpr uint64_t kFirstAddress = 4096;

  // A core alone on a chip of its own (physical core 0).
  NeuronCoreDevice(int index, HardwareConfig config);
  // Logical core `index` of `chip`: the physical cores `physical_cores`
  // (consecutive, in program order). Its device memory is their home regions
  // of the chip's HBM (Chip::CoreMemoryBase), one contiguous range.
  NeuronCoreDevice(int index, std::shared_ptr<Chip> chip, std::vector<int> physical_cores);
  NeuronCoreDevice(const NeuronCoreDevice&) = delete;
  NeuronCoreDevice& operator=(const NeuronCoreDevice&) = delete;
  ~NeuronCoreDevice();  // finishes the work in flight

  int index() const { return index_; }
  // Unique to this core object over the process: a core created after
  // Runtime::Reset (or with another config or LNC) has another, though its
  // index may be the same.
  uint64_t instance() const { return instance_; }
  // Whether `kernel` was loaded on this very core (so ExecuteAsync takes it).
  bool Holds(const KernelRef& kernel) const { return kernel && kernel->core_instance == instance_; }
  const std::string& name() const { return name_; }  // "neuron:0"
  const HardwareConfig& config() const { return device_->config(); }
  // The config's identity (ConfigContentHash): key caches of config-derived things on it, not on the name.
  uint64_t config_hash() const { return device_->config_hash(); }
  // The simulated hardware underneath: HBM access without any timing, for
  // tests and tools (after this core's work in flight has completed, as the
  // data must be there). Framework code moves data with the copies below.
  Device& device();
  // The chip this logical core is part of, and which of its cores it uses.
  Chip& chip() { return *chip_; }
  int lnc() const { return static_cast<int>(physical_cores_.size()); }  // physical cores in this logical core
  const std::vector<int>& physical_cores() const { return physical_cores_; }  // chip core ids, program order
  // This core's device memory in the chip's address space: [memory_base, memory_base + memory_bytes).
  uint64_t memory_base() const { return memory_base_; }
  uint64_t memory_bytes() const { return memory_bytes_; }

  // ------------------------------------------------------------ memory
  // A block of HBM for `bytes` (see DeviceAllocator::Allocate); charges
  // host.alloc. Throws RuntimeError on out-of-memory.
  uint64_t Allocate(uint64_t bytes, uint64_t alignment = DeviceAllocator::kGranule);
  // Throws RuntimeError on a double free or an address that is not a block start.
  void Free(uint64_t address);
  AllocatorStats memory_stats() const { return allocator_.stats(); }

  // ------------------------------------------------------------ kernels
  // The loaded kernel, from the cache when this (hash, config) was loaded
  // before; the first load validates it against the config (SimError if it
  // does not fit) and charges host.kernel_load.
  KernelRef LoadKernel(const Kernel& kernel);
  KernelCacheStats kernel_cache_stats() const { return cache_.stats(); }

  // ------------------------------------------------------------ streams and work
  int CreateStream();  // a new in-order queue; stream 0 always exists
  int num_streams() const { return static_cast<int>(streams_.size()); }

  // One nrta_execute_schedule call: charges host.runtime_submit and submits
  // the kernel to the chip, where it starts at max(submit end, stream free,
  // cores free) and keeps its cores for its device time (plus the capture
  // cost), and returns without waiting for it. Every bound address must lie,
  // with its tensor, inside a live allocation. Throws RuntimeError for a
  // kernel loaded on another core, an unknown stream or a bad binding (then
  // neither the clock nor the stream has moved); a SimError of the model
  // (deadlock, race) is thrown by the wait that finds it.
  // A kernel that uses program_id/num_programs (Kernel::spmd) runs as lnc()
  // programs, the copies `nsim run --grid` makes; any other on the first
  // physical core alone.
  ExecutionHandle ExecuteAsync(const KernelRef& kernel, const Bindings& bindings, int stream = kDefaultStream,
                               uint64_t correlation_id = 0);
  // SPMD: programs[i] runs on physical_cores()[i], all starting together;
  // programs.size() must be lnc() or 1 (1: the first physical core alone).
  // One record for the whole launch (ExecutionRecord::cores, ::programs).
  // HBM tensors must be declared alike by every program (Chip::Launch).
  ExecutionHandle ExecuteAsync(const std::vector<KernelRef>& programs, const Bindings& bindings,
                               int stream = kDefaultStream, uint64_t correlation_id = 0);

  // nrta_tensor_write: copies `bytes` from host memory to HBM at `dst` (inside
  // a live allocation). Charges host.copy_setup, stages the bytes and returns;
  // on the chip the copy takes chip.host_link_latency and then moves the bytes
  // through the host link (chip.host_link_bandwidth, shared by the copies in
  // flight) and the HBM stack of `dst` (shared with kernels' DMA). Alone:
  // host_link_latency + bytes / host_link_bandwidth. The bytes land when it ends.
  ExecutionHandle CopyToDevice(uint64_t dst, const void* src, uint64_t bytes, int stream = kDefaultStream,
                               uint64_t correlation_id = 0);
  // nrta_tensor_read: the same cost on the device, but the host needs the
  // bytes, so it waits: the clock advances to the copy's device_end.
  ExecutionHandle CopyFromDevice(void* dst, uint64_t src, uint64_t bytes, int stream = kDefaultStream,
                                 uint64_t correlation_id = 0);

  // HBM -> HBM copy of `bytes` from `src_addr` here to `dst_addr` on `dst`
  // (a core of the same chip; may be this one), as DMA traffic: dma.start_latency,
  // then the bytes read from the source's stack and written to the
  // destination's, each at the DMA's share of a stack (dma.hbm_bytes_per_ns),
  // competing with everything else on those stacks. Charges host.copy_setup;
  // occupies `stream` of this core. Both ranges must be inside live allocations.
  ExecutionHandle CopyToCore(NeuronCoreDevice& dst, uint64_t dst_addr, uint64_t src_addr, uint64_t bytes,
                             int stream = kDefaultStream, uint64_t correlation_id = 0);

  // The host waits for all work on this core, on `stream`, or for one item.
  // Throws the first model error (SimError) of the work it waited for.
  void Synchronize();
  void Synchronize(int stream);
  void Wait(const ExecutionHandle& handle);
  // The last item submitted on `stream` (nullptr: none yet), found without
  // simulating anything: the point of the stream's time line that an event
  // recorded now marks (torch_nsim's events).
  ExecutionHandle LastOnStream(int stream) const;
  // Whether the host could see the item finished now: the chip is simulated
  // up to the host's time (not beyond) and the item has completed by then.
  bool IsComplete(const ExecutionHandle& handle);

  // ------------------------------------------------------------ records
  // Every execution and copy so far, in submission order (while kept), after
  // the work in flight has completed (as Synchronize). Failed items are not kept.
  const std::vector<ExecutionHandle>& records();
  void ClearRecords() { records_.clear(); }
  // The items submitted and not yet seen complete by a wait, in submission
  // order, without simulating anything (their device times are not filled yet).
  std::vector<ExecutionHandle> in_flight() const;
  // Long runs may stop keeping the history (observers still see every record).
  void set_keep_records(bool keep) { keep_records_ = keep; }

  // Timing-only executions (Device::set_timing_only): same device times and
  // records, no values computed; HBM contents are then meaningless.
  void set_timing_only(bool on) { device_->set_timing_only(on); }
  bool timing_only() const { return device_->timing_only(); }

  // Real time this core's simulations took (see wall_time.h).
  const WallTime& wall_time() const { return wall_; }

 private:
  friend class Runtime;  // collectives submit one item on several cores' streams (Runtime::AllReduce)
  void CheckKernel(const KernelRef& kernel) const;
  void CheckStream(int stream, const char* call) const;
  void CheckBindings(const Kernel& kernel, const Bindings& bindings) const;
  void CheckScratch(const Kernel& kernel, const Bindings& bindings) const;
  void CheckRange(uint64_t address, uint64_t bytes, const std::string& what) const;
  std::vector<KernelRef> ProgramsOf(const KernelRef& kernel);
  std::shared_ptr<ExecutionRecord> NewRecord(RecordKind kind, int stream, uint64_t correlation_id) const;
  void SubmitOnHost(ExecutionRecord* record, Picos host_cost);
  std::shared_ptr<ExecutionRecord> StartCopy(RecordKind kind, uint64_t address, uint64_t bytes, int stream,
                                             uint64_t correlation_id);
  Picos CaptureCost(const std::vector<ExecutionResult>& results, bool captured) const;
  static std::function<void(ScheduledItem&)> CopyDone(ExecutionRecord* record);
  // Puts `what` before the message of the item's model error (a SimError), if it has one.
  static void PrefixError(ScheduledItem& it, const std::string& what);
  ChipScheduler& scheduler() { return chip_->scheduler(); }
  // Tracks a submitted item; its record is published now, filled on completion.
  ExecutionHandle Track(std::shared_ptr<ExecutionRecord> record, const ItemRef& item);
  // Simulates until `item` (nullptr: all of this core's work) completes,
  // moves the host there and throws the first model error found.
  void CompleteAndWait(const ItemRef& item);
  // Notifies observers of completed items (their share of `wall` in wall_ns); keeps the first error.
  void Collect(std::chrono::nanoseconds wall);
  void ThrowPending();

  struct Pending {
    std::shared_ptr<ExecutionRecord> record;
    ItemRef item;
  };

  int index_;
  uint64_t instance_;
  std::string name_;
  std::shared_ptr<Chip> chip_;
  std::vector<int> physical_cores_;
  uint64_t memory_base_ = 0;
  uint64_t memory_bytes_ = 0;
  std::unique_ptr<Device> device_;  // a view of this core's memory in the chip's HBM
  SimClock& clock_;
  DeviceAllocator allocator_;
  KernelCache cache_;
  std::map<uint64_t, std::vector<KernelRef>> spmd_copies_;  // kernel hash -> its lnc() program copies
  std::vector<int> streams_;         // per stream: the chip scheduler's stream
  std::vector<Pending> stream_last_;  // per stream: its last item
  std::deque<Pending> pending_;       // submitted, not yet collected, in submission order
  std::exception_ptr error_;          // the first model error not yet thrown
  std::vector<ExecutionHandle> records_;
  bool keep_records_ = true;
  WallTime wall_;
};

}  // namespace rt
}  // namespace nsim
