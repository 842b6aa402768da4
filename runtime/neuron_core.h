#pragma once
// One logical NeuronCore ("neuron:N") as the framework sees it through the
// Neuron runtime: device memory, loaded kernels, streams of asynchronous
// work, and host<->device copies, all placed on the simulated clock that the
// host and the device share (runtime/clock.h).
//
// Execution is asynchronous to the host, as on the real device: ExecuteAsync
// charges the host only for the submission (host.runtime_submit) and returns
// a handle; the kernel runs on the device once its stream and the engines are
// free, and its results are visible at device_end. The model itself runs the
// kernel eagerly inside the call, so the HBM bytes are already there; what is
// deferred is the simulated time at which the host may see them: reading them
// back (CopyFromDevice), Wait() and Synchronize() move the host clock there.
//
// A core is driven from one host thread at a time, like the SimClock itself.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "runtime/clock.h"
#include "runtime/device_allocator.h"
#include "runtime/execution_record.h"
#include "runtime/kernel_cache.h"
#include "runtime/stream_timeline.h"
#include "runtime/wall_time.h"
#include "sim/config/hw_config.h"
#include "sim/kernel/kernel.h"
#include "sim/model/chip.h"
#include "sim/model/device.h"

namespace nsim {
namespace rt {

// HBM tensor name -> device address, as Device::Execute takes them.
using Bindings = std::map<std::string, uint64_t>;

class NeuronCoreDevice {
 public:
  static constexpr int kDefaultStream = StreamTimeline::kDefaultStream;
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

  int index() const { return index_; }
  const std::string& name() const { return name_; }  // "neuron:0"
  const HardwareConfig& config() const { return device_->config(); }
  // The config's identity (ConfigContentHash): key caches of config-derived things on it, not on the name.
  uint64_t config_hash() const { return device_->config_hash(); }
  // The simulated hardware underneath: HBM access without any timing, for
  // tests and tools. Framework code moves data with the copies below.
  Device& device() { return *device_; }
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
  int num_streams() const { return timeline_.size(); }

  // One nrta_execute_schedule call: charges host.runtime_submit, runs the
  // kernel on the model, places it at max(submit end, stream free, engines
  // free) for result.device_time, and returns without waiting for it. Every
  // bound address must lie, with its tensor, inside a live allocation.
  // Throws RuntimeError for a kernel loaded on another core, an unknown
  // stream or a bad binding, SimError if the model fails (deadlock); on a
  // throw neither the clock nor the stream has moved.
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
  // a live allocation). Charges host.copy_setup and returns; the DMA occupies
  // the stream for chip.host_link_latency + bytes / chip.host_link_bandwidth.
  ExecutionHandle CopyToDevice(uint64_t dst, const void* src, uint64_t bytes, int stream = kDefaultStream,
                               uint64_t correlation_id = 0);
  // nrta_tensor_read: the same cost on the device, but the host needs the
  // bytes, so it waits: the clock advances to the copy's device_end.
  ExecutionHandle CopyFromDevice(void* dst, uint64_t src, uint64_t bytes, int stream = kDefaultStream,
                                 uint64_t correlation_id = 0);

  // The host waits for all work on this core, on `stream`, or for one item.
  void Synchronize();
  void Synchronize(int stream);
  void Wait(const ExecutionHandle& handle);
  // Whether the host could see the item finished now: device_end <= host now.
  bool IsComplete(const ExecutionHandle& handle) const;

  // ------------------------------------------------------------ records
  // Every execution and copy so far, in submission order (while kept).
  const std::vector<ExecutionHandle>& records() const { return records_; }
  void ClearRecords() { records_.clear(); }
  // Long runs may stop keeping the history (observers still see every record).
  void set_keep_records(bool keep) { keep_records_ = keep; }

  // Timing-only executions (Device::set_timing_only): same device times and
  // records, no values computed; HBM contents are then meaningless.
  void set_timing_only(bool on) { device_->set_timing_only(on); }
  bool timing_only() const { return device_->timing_only(); }

  // Real time this core's simulations took (see wall_time.h).
  const WallTime& wall_time() const { return wall_; }

 private:
  void CheckKernel(const KernelRef& kernel) const;
  void CheckStream(int stream, const char* call) const;
  void CheckBindings(const Kernel& kernel, const Bindings& bindings) const;
  void CheckScratch(const Kernel& kernel, const Bindings& bindings) const;
  void CheckRange(uint64_t address, uint64_t bytes, const std::string& what) const;
  std::vector<KernelRef> ProgramsOf(const KernelRef& kernel);
  std::shared_ptr<ExecutionRecord> NewRecord(RecordKind kind, int stream, uint64_t correlation_id) const;
  void SubmitOnHost(ExecutionRecord* record, Picos host_cost);
  void PlaceOnDevice(ExecutionRecord* record, Picos duration, bool uses_engines);
  std::shared_ptr<ExecutionRecord> StartCopy(RecordKind kind, uint64_t address, uint64_t bytes, int stream,
                                             uint64_t correlation_id);
  Picos CaptureCost(const ExecutionResult& result) const;
  Picos CopyDeviceTime(uint64_t bytes) const;
  ExecutionHandle Publish(std::shared_ptr<ExecutionRecord> record);

  int index_;
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
  StreamTimeline timeline_;
  std::vector<ExecutionHandle> records_;
  bool keep_records_ = true;
  WallTime wall_;
};

}  // namespace rt
}  // namespace nsim
