#include "runtime/neuron_core.h"

#include <algorithm>
#include <atomic>
#include <utility>

#include "runtime/capture_setting.h"
#include "runtime/errors.h"
#include "runtime/observer.h"
#include "sim/base/dtype.h"
#include "sim/kernel/hash.h"
#include "sim/base/error.h"
#include "sim/kernel/parser.h"
#include "sim/model/loaded_kernel.h"

namespace nsim {
namespace rt {
namespace {

uint64_t TensorBytes(const TensorDecl& t) {
  return static_cast<uint64_t>(t.NumElements() * DTypeSize(t.dtype));
}

std::string Quoted(const std::string& s) { return "'" + s + "'"; }

}  // namespace

NeuronCoreDevice::NeuronCoreDevice(int index, HardwareConfig config)
    : NeuronCoreDevice(index, std::make_shared<Chip>(std::move(config)), {0}) {}

namespace {

uint64_t NextInstance() {
  static std::atomic<uint64_t> next{1};
  return next++;
}

// Checks a logical core's physical cores (consecutive, inside the chip) and
// returns them; RuntimeError otherwise.
std::vector<int> CheckedCores(const std::string& name, const Chip& chip, std::vector<int> cores) {
  if (cores.empty()) throw RuntimeError(name + ": a logical core needs at least one physical core");
  for (size_t i = 0; i < cores.size(); ++i) {
    if (cores[i] < 0 || cores[i] >= chip.cores() || (i > 0 && cores[i] != cores[i - 1] + 1)) {
      throw RuntimeError(name + ": physical cores must be consecutive cores of the chip (0.." +
                         std::to_string(chip.cores() - 1) + ")");
    }
  }
  return cores;
}

}  // namespace

NeuronCoreDevice::NeuronCoreDevice(int index, std::shared_ptr<Chip> chip, std::vector<int> physical_cores)
    : index_(index),
      instance_(NextInstance()),
      name_("neuron:" + std::to_string(index)),
      chip_(std::move(chip)),
      physical_cores_(CheckedCores(name_, *chip_, std::move(physical_cores))),
      // Home regions of consecutive cores are adjacent (memory.hbm = stack / cores per stack).
      memory_base_(chip_->CoreMemoryBase(physical_cores_.front())),
      memory_bytes_(chip_->CoreMemoryBytes() * physical_cores_.size()),
      device_(std::make_unique<Device>(chip_->config(), chip_->shared_hbm())),
      clock_(SimClock::Get()),
      allocator_(name_, memory_base_ + kFirstAddress, memory_bytes_ - kFirstAddress) {
  CreateStream();  // the default stream
}

NeuronCoreDevice::~NeuronCoreDevice() {
  try {
    for (const Pending& p : pending_) scheduler().RunUntil(p.item);
  } catch (...) {  // a destructor must not throw
  }
}

// ------------------------------------------------------------------ memory

uint64_t NeuronCoreDevice::Allocate(uint64_t bytes, uint64_t alignment) {
  const uint64_t address = allocator_.Allocate(bytes, alignment);
  clock_.Advance(config().host.alloc_ps);
  return address;
}

void NeuronCoreDevice::Free(uint64_t address) { allocator_.Free(address); }

// ------------------------------------------------------------------ kernels

KernelRef NeuronCoreDevice::LoadKernel(const Kernel& kernel) {
  const uint64_t hash = KernelHash(kernel);
  if (KernelRef cached = cache_.Find(hash, device_->config_hash())) return cached;
  Stopwatch watch;
  auto loaded = device_->Load(kernel, hash);  // hashed once: the load does not hash it again
  wall_.load += watch.elapsed();
  ++wall_.loads;
  auto handle =
      std::make_shared<const KernelHandle>(KernelHandle{index_, instance_, hash, kernel.name, config().name, device_->config_hash(), loaded});
  cache_.Insert(handle);
  clock_.Advance(config().host.kernel_load_ps);
  return handle;
}

// ------------------------------------------------------------------ work

int NeuronCoreDevice::CreateStream() {
  streams_.push_back(scheduler().NewStream());
  stream_last_.emplace_back();
  return num_streams() - 1;
}

ExecutionHandle NeuronCoreDevice::ExecuteAsync(const KernelRef& kernel, const Bindings& bindings, int stream,
                                               uint64_t correlation_id) {
  CheckKernel(kernel);
  return ExecuteAsync(ProgramsOf(kernel), bindings, stream, correlation_id);
}

// An SPMD kernel's lnc() program copies (parsed and loaded once per kernel).
std::vector<KernelRef> NeuronCoreDevice::ProgramsOf(const KernelRef& kernel) {
  const std::shared_ptr<const SpmdSource>& spmd = kernel->loaded->kernel().spmd;
  if (!spmd || lnc() == 1) return {kernel};
  auto it = spmd_copies_.find(kernel->hash);
  if (it != spmd_copies_.end()) return it->second;
  std::vector<KernelRef> copies;
  for (Kernel& k : ParseGrid(spmd->text, spmd->filename, lnc())) {
    k.sources = kernel->loaded->kernel().sources;  // the same text: the same lines, as loaded
    copies.push_back(LoadKernel(k));
  }
  return spmd_copies_.emplace(kernel->hash, std::move(copies)).first->second;
}

ExecutionHandle NeuronCoreDevice::ExecuteAsync(const std::vector<KernelRef>& programs, const Bindings& bindings,
                                               int stream, uint64_t correlation_id) {
  if (programs.size() != 1 && programs.size() != physical_cores_.size()) {
    throw RuntimeError(name_ + ": ExecuteAsync of " + std::to_string(programs.size()) +
                       " programs; this logical core has " + std::to_string(lnc()) +
                       " physical cores (give one program per core, or one)");
  }
  for (const KernelRef& p : programs) CheckKernel(p);
  const KernelRef& kernel = programs.front();
  CheckStream(stream, "ExecuteAsync");
  CheckBindings(kernel->loaded->kernel(), bindings);
  if (programs.size() > 1) {  // Chip::Launch's rule, checked here so that it fails at submission
    std::vector<std::shared_ptr<const LoadedKernel>> loaded;
    for (const KernelRef& p : programs) loaded.push_back(p->loaded);
    CheckSameHbmTensors(loaded);
  }

  KernelLaunch launch;
  for (const KernelRef& p : programs) launch.programs.push_back(p->loaded);
  launch.cores.assign(physical_cores_.begin(), physical_cores_.begin() + static_cast<long>(programs.size()));
  launch.bindings = bindings;
  launch.scratch_top = memory_base_ + memory_bytes_;
  launch.timing_only = device_->timing_only();
  launch.allow_races = device_->allow_races();

  auto record = NewRecord(RecordKind::kExecution, stream, correlation_id);
  record->kernel_hash = kernel->hash;
  record->kernel_name = kernel->name;
  record->kernel = kernel;
  record->cores = launch.cores;
  record->program_kernels = programs;
  record->captured = DeviceCaptureOn(index_);
  const bool captured = record->captured;
  launch.tail = [this, captured](const std::vector<ExecutionResult>& results) { return CaptureCost(results, captured); };
  SubmitOnHost(record.get(), config().host.runtime_submit_ps);
  ExecutionRecord* r = record.get();
  const std::string what = name_ + ": kernel " + Quoted(kernel->name) + ": ";
  ItemRef item = scheduler().SubmitKernel(streams_[stream], record->submit_end, std::move(launch), [r, what](ScheduledItem& it) {
    r->device_start = it.start;
    r->device_end = it.end;
    if (it.error) return PrefixError(it, what);  // name the kernel in the model's message
    for (ExecutionResult& result : it.results) {
      r->programs.push_back(std::make_shared<const ExecutionResult>(std::move(result)));
    }
    r->result = r->programs.front();
    Picos busy = 0;
    for (const auto& p : r->programs) busy = std::max(busy, p->device_time);
    r->capture = r->device_end - r->device_start - busy;
    r->completed = true;
  });
  ++wall_.executions;
  return Track(std::move(record), item);
}

ExecutionHandle NeuronCoreDevice::CopyToDevice(uint64_t dst, const void* src, uint64_t bytes, int stream,
                                               uint64_t correlation_id) {
  auto record = StartCopy(RecordKind::kCopyToDevice, dst, bytes, stream, correlation_id);
  const auto* from = static_cast<const uint8_t*>(src);
  std::vector<uint8_t> staged(from, from + bytes);  // the host's buffer may change once the call returns
  ItemRef item = scheduler().SubmitHostWrite(streams_[stream], record->submit_end, dst, std::move(staged),
                                             CopyDone(record.get()));
  return Track(std::move(record), item);
}

ExecutionHandle NeuronCoreDevice::CopyFromDevice(void* dst, uint64_t src, uint64_t bytes, int stream,
                                                 uint64_t correlation_id) {
  auto record = StartCopy(RecordKind::kCopyFromDevice, src, bytes, stream, correlation_id);
  ItemRef item =
      scheduler().SubmitHostRead(streams_[stream], record->submit_end, src, dst, bytes, CopyDone(record.get()));
  ExecutionRecord* r = record.get();
  ExecutionHandle handle = Track(std::move(record), item);
  CompleteAndWait(item);  // the host needs the bytes
  r->host_return = clock_.now();
  return handle;
}

ExecutionHandle NeuronCoreDevice::CopyToCore(NeuronCoreDevice& dst, uint64_t dst_addr, uint64_t src_addr,
                                             uint64_t bytes, int stream, uint64_t correlation_id) {
  if (&dst.chip() != &chip()) {
    throw RuntimeError(name_ + ": CopyToCore to " + dst.name() +
                       ", which is on another chip (copy through the host: CopyFromDevice, CopyToDevice)");
  }
  dst.CheckRange(dst_addr, bytes,
                 "CopyToCore from " + name_ + " of " + std::to_string(bytes) + " bytes to " + HexAddress(dst_addr));
  auto record = StartCopy(RecordKind::kCopyToCore, src_addr, bytes, stream, correlation_id);
  record->peer_core = dst.index();
  record->peer_address = dst_addr;
  ItemRef item =
      scheduler().SubmitCopy(streams_[stream], record->submit_end, dst_addr, src_addr, bytes, CopyDone(record.get()));
  return Track(std::move(record), item);
}

void NeuronCoreDevice::PrefixError(ScheduledItem& it, const std::string& what) {
  if (!it.error) return;
  try {
    std::rethrow_exception(it.error);
  } catch (const SimError& e) {
    it.error = std::make_exception_ptr(SimError(what + e.what()));
  } catch (...) {
  }
}

std::function<void(ScheduledItem&)> NeuronCoreDevice::CopyDone(ExecutionRecord* r) {
  return [r](ScheduledItem& it) {
    r->device_start = it.start;
    r->device_end = it.end;
    r->completed = !it.error;
  };
}

std::shared_ptr<ExecutionRecord> NeuronCoreDevice::StartCopy(RecordKind kind, uint64_t address, uint64_t bytes,
                                                             int stream, uint64_t correlation_id) {
  const char* call = kind == RecordKind::kCopyToDevice     ? "CopyToDevice"
                     : kind == RecordKind::kCopyFromDevice ? "CopyFromDevice"
                                                           : "CopyToCore";
  CheckStream(stream, call);
  CheckRange(address, bytes,
             std::string(call) + " of " + std::to_string(bytes) + " bytes at " + HexAddress(address));
  auto record = NewRecord(kind, stream, correlation_id);
  record->device_address = address;
  record->bytes = bytes;
  SubmitOnHost(record.get(), config().host.copy_setup_ps);
  return record;
}

// Device capture is a setting passed down (capture_setting.h); what it costs
// the device is the hardware's (config capture.*), so profiling without
// capture changes nothing. The cores capture in parallel: the launch pays
// for its largest program.
Picos NeuronCoreDevice::CaptureCost(const std::vector<ExecutionResult>& results, bool captured) const {
  if (!captured) return 0;
  const CaptureParams& c = config().capture;
  Picos cost = 0;
  for (const ExecutionResult& result : results) {
    const auto records = static_cast<Picos>(result.instructions.size() + result.dma.size());
    cost = std::max(cost, c.per_execution_ps + records * c.per_record_ps);
  }
  return cost;
}

// ------------------------------------------------------------------ waiting

void NeuronCoreDevice::CompleteAndWait(const ItemRef& item) {
  Stopwatch watch;
  Picos end = 0;
  if (item) {
    scheduler().RunUntil(item);
    end = item->end;
  } else {
    for (const Pending& p : pending_) {
      scheduler().RunUntil(p.item);
      end = std::max(end, p.item->end);
    }
  }
  const std::chrono::nanoseconds wall = watch.elapsed();
  wall_.simulate += wall;
  clock_.AdvanceTo(end);
  Collect(wall);
  ThrowPending();
}

// The real time a wait spent simulating is shared by the executions it completed.
void NeuronCoreDevice::Collect(std::chrono::nanoseconds wall) {
  int64_t executions = 0;
  for (const Pending& p : pending_) executions += p.item->done && !p.record->is_copy() ? 1 : 0;
  for (auto it = pending_.begin(); it != pending_.end();) {
    if (!it->item->done) {
      ++it;
      continue;
    }
    const std::shared_ptr<ExecutionRecord>& r = it->record;
    if (!r->is_copy()) r->wall_ns = wall.count() / std::max<int64_t>(executions, 1);
    if (it->item->error) {
      if (!error_) error_ = it->item->error;
      records_.erase(std::remove(records_.begin(), records_.end(), r), records_.end());
    } else if (RuntimeObserversActive()) {
      detail::NotifyObservers(*r);
    }
    it = pending_.erase(it);
  }
}

// The model's error, naming this core and the kernel (or copy) it came from.
void NeuronCoreDevice::ThrowPending() {
  if (!error_) return;
  std::exception_ptr e = error_;
  error_ = nullptr;
  std::rethrow_exception(e);
}

void NeuronCoreDevice::Synchronize() { CompleteAndWait(nullptr); }

void NeuronCoreDevice::Synchronize(int stream) {
  CheckStream(stream, "Synchronize");
  CompleteAndWait(stream_last_[stream].item);
}

void NeuronCoreDevice::Wait(const ExecutionHandle& handle) {
  if (!handle) throw RuntimeError(name_ + ": Wait on an empty handle");
  for (const Pending& p : pending_) {
    if (p.record == handle) return CompleteAndWait(p.item);
  }
  clock_.AdvanceTo(handle->device_end);  // completed (and collected) before
}

ExecutionHandle NeuronCoreDevice::LastOnStream(int stream) const {
  CheckStream(stream, "LastOnStream");
  return stream_last_[stream].record;
}

bool NeuronCoreDevice::IsComplete(const ExecutionHandle& handle) {
  if (!handle) throw RuntimeError(name_ + ": IsComplete on an empty handle");
  Stopwatch watch;
  scheduler().RunTo(clock_.now());
  const std::chrono::nanoseconds wall = watch.elapsed();
  wall_.simulate += wall;
  Collect(wall);
  return handle->completed && handle->device_end <= clock_.now();
}

Device& NeuronCoreDevice::device() {
  Synchronize();
  return *device_;
}

// ------------------------------------------------------------------ records

std::vector<ExecutionHandle> NeuronCoreDevice::in_flight() const {
  std::vector<ExecutionHandle> out;
  for (const Pending& p : pending_) out.push_back(p.record);
  return out;
}

const std::vector<ExecutionHandle>& NeuronCoreDevice::records() {
  Synchronize();
  return records_;
}

std::shared_ptr<ExecutionRecord> NeuronCoreDevice::NewRecord(RecordKind kind, int stream,
                                                             uint64_t correlation_id) const {
  auto record = std::make_shared<ExecutionRecord>();
  record->kind = kind;
  record->api = kind == RecordKind::kExecution        ? kExecuteApi
                : kind == RecordKind::kCopyToDevice   ? kWriteApi
                : kind == RecordKind::kCopyFromDevice ? kReadApi
                                                      : kCopyApi;
  record->core = index_;
  record->config = &config();
  record->stream = stream;
  record->correlation_id = correlation_id;
  return record;
}

void NeuronCoreDevice::SubmitOnHost(ExecutionRecord* record, Picos host_cost) {
  record->submit_start = clock_.now();
  clock_.Advance(host_cost);
  record->submit_end = record->host_return = clock_.now();
}

ExecutionHandle NeuronCoreDevice::Track(std::shared_ptr<ExecutionRecord> record, const ItemRef& item) {
  stream_last_[record->stream] = {record, item};
  pending_.push_back({record, item});
  if (keep_records_) records_.push_back(record);
  if (RuntimeObserversActive()) detail::NotifySubmitted(*record);
  return record;
}

// ------------------------------------------------------------------ checks

void NeuronCoreDevice::CheckKernel(const KernelRef& kernel) const {
  if (!kernel) throw RuntimeError(name_ + ": ExecuteAsync with an empty kernel handle");
  if (kernel->core != index_) {
    throw RuntimeError(name_ + ": ExecuteAsync of kernel " + Quoted(kernel->name) +
                       ", which was loaded on neuron:" + std::to_string(kernel->core) +
                       "; load it on this core with LoadKernel");
  }
  if (!Holds(kernel)) {
    throw RuntimeError(name_ + ": ExecuteAsync of kernel " + Quoted(kernel->name) +
                       ", which was loaded on an earlier " + name_ +
                       " (Runtime::Reset has made a new one since); load it again with LoadKernel");
  }
}

void NeuronCoreDevice::CheckStream(int stream, const char* call) const {
  if (stream >= 0 && stream < num_streams()) return;
  throw RuntimeError(name_ + ": " + call + " on unknown stream " + std::to_string(stream) + " (streams 0.." +
                     std::to_string(num_streams() - 1) + " exist; make more with CreateStream)");
}

void NeuronCoreDevice::CheckBindings(const Kernel& kernel, const Bindings& bindings) const {
  const std::string call = "ExecuteAsync of kernel " + Quoted(kernel.name);
  for (const auto& [name, address] : bindings) {
    const int t = kernel.FindTensor(name);
    if (t < 0 || kernel.tensors[t].space != MemSpace::kHbm) {
      throw RuntimeError(name_ + ": " + call + ": binding for " + Quoted(name) +
                         ", which is not an HBM tensor of the kernel");
    }
    const uint64_t bytes = TensorBytes(kernel.tensors[t]);
    CheckRange(address, bytes,
               call + ": tensor " + Quoted(name) + " (" + std::to_string(bytes) + " bytes) bound at " +
                   HexAddress(address));
  }
  CheckScratch(kernel, bindings);
}

// The model places HBM tensors nobody bound at the top of device memory
// (Device::Execute, each aligned down to 4 KiB, so at most bytes + 4095
// each). That space must hold no live allocation, or the kernel would
// overwrite the framework's tensors.
void NeuronCoreDevice::CheckScratch(const Kernel& kernel, const Bindings& bindings) const {
  constexpr uint64_t kScratchPadding = 4095;
  uint64_t scratch = 0;
  for (const TensorDecl& t : kernel.tensors) {
    if (t.space == MemSpace::kHbm && !bindings.count(t.name)) scratch += TensorBytes(t) + kScratchPadding;
  }
  if (scratch == 0) return;
  const uint64_t top = memory_base_ + memory_bytes_;
  const uint64_t bottom = scratch < top ? top - scratch : 0;
  if (!allocator_.AnyLiveIn(bottom, top)) return;
  throw RuntimeError(name_ + ": ExecuteAsync of kernel " + Quoted(kernel.name) +
                     ": its unbound HBM tensors need " + std::to_string(scratch) +
                     " bytes of scratch at the top of device memory [" + HexAddress(bottom) + ", " +
                     HexAddress(top) + "), which overlaps live allocations; bind every HBM tensor");
}

void NeuronCoreDevice::CheckRange(uint64_t address, uint64_t bytes, const std::string& what) const {
  DeviceAllocator::Block block;
  if (!allocator_.FindLive(address, &block)) {
    throw RuntimeError(name_ + ": " + what + ": the address is not inside a live allocation");
  }
  if (bytes > block.end() - address) {
    throw RuntimeError(name_ + ": " + what + ": runs past the end of its allocation at " +
                       HexAddress(block.address) + " (" + std::to_string(block.size) + " bytes)");
  }
}

}  // namespace rt
}  // namespace nsim
