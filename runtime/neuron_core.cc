#include "runtime/neuron_core.h"

#include <utility>

#include "runtime/capture_setting.h"
#include "runtime/errors.h"
#include "runtime/observer.h"
#include "sim/base/dtype.h"
#include "sim/kernel/hash.h"
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
      name_("neuron:" + std::to_string(index)),
      chip_(std::move(chip)),
      physical_cores_(CheckedCores(name_, *chip_, std::move(physical_cores))),
      // Home regions of consecutive cores are adjacent (memory.hbm = stack / cores per stack).
      memory_base_(chip_->CoreMemoryBase(physical_cores_.front())),
      memory_bytes_(chip_->CoreMemoryBytes() * physical_cores_.size()),
      device_(std::make_unique<Device>(chip_->config(), chip_->shared_hbm())),
      clock_(SimClock::Get()),
      allocator_(name_, memory_base_ + kFirstAddress, memory_bytes_ - kFirstAddress) {}

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
  auto loaded = device_->Load(kernel);
  wall_.load += watch.elapsed();
  ++wall_.loads;
  auto handle =
      std::make_shared<const KernelHandle>(KernelHandle{index_, hash, kernel.name, config().name, device_->config_hash(), loaded});
  cache_.Insert(handle);
  clock_.Advance(config().host.kernel_load_ps);
  return handle;
}

// ------------------------------------------------------------------ work

int NeuronCoreDevice::CreateStream() { return timeline_.Create(); }

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
  for (const Kernel& k : ParseGrid(spmd->text, spmd->filename, lnc())) copies.push_back(LoadKernel(k));
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
  std::vector<std::shared_ptr<const LoadedKernel>> loaded;
  for (const KernelRef& p : programs) loaded.push_back(p->loaded);
  const std::vector<int> cores(physical_cores_.begin(), physical_cores_.begin() + static_cast<long>(programs.size()));
  GridOptions options;
  options.scratch_top = memory_base_ + memory_bytes_;
  options.timing_only = device_->timing_only();
  options.allow_races = device_->allow_races();
  // Simulate before touching the clock: if the model throws, nothing moved.
  Stopwatch watch;
  GridResult grid = chip_->Run(loaded, bindings, cores, options);
  const std::chrono::nanoseconds wall = watch.elapsed();
  wall_.simulate += wall;
  ++wall_.executions;

  auto record = NewRecord(RecordKind::kExecution, stream, correlation_id);
  record->kernel_hash = kernel->hash;
  record->kernel_name = kernel->name;
  record->kernel = kernel;
  record->cores = cores;
  record->program_kernels = programs;
  for (ExecutionResult& r : grid.programs) record->programs.push_back(std::make_shared<const ExecutionResult>(std::move(r)));
  const std::shared_ptr<const ExecutionResult>& result = record->programs.front();
  record->result = result;
  record->wall_ns = wall.count();
  record->capture = CaptureCost(*result);
  record->captured = DeviceCaptureOn(index_);
  SubmitOnHost(record.get(), config().host.runtime_submit_ps);
  PlaceOnDevice(record.get(), result->device_time + record->capture, /*uses_engines=*/true);
  return Publish(std::move(record));
}

ExecutionHandle NeuronCoreDevice::CopyToDevice(uint64_t dst, const void* src, uint64_t bytes, int stream,
                                               uint64_t correlation_id) {
  auto record = StartCopy(RecordKind::kCopyToDevice, dst, bytes, stream, correlation_id);
  device_->hbm().Write(dst, src, bytes);
  return Publish(std::move(record));
}

ExecutionHandle NeuronCoreDevice::CopyFromDevice(void* dst, uint64_t src, uint64_t bytes, int stream,
                                                 uint64_t correlation_id) {
  auto record = StartCopy(RecordKind::kCopyFromDevice, src, bytes, stream, correlation_id);
  device_->hbm().Read(src, dst, bytes);
  clock_.AdvanceTo(record->device_end);  // the host needs the bytes
  record->host_return = clock_.now();
  return Publish(std::move(record));
}

std::shared_ptr<ExecutionRecord> NeuronCoreDevice::StartCopy(RecordKind kind, uint64_t address,
                                                             uint64_t bytes, int stream,
                                                             uint64_t correlation_id) {
  const char* call = kind == RecordKind::kCopyToDevice ? "CopyToDevice" : "CopyFromDevice";
  CheckStream(stream, call);
  CheckRange(address, bytes,
             std::string(call) + " of " + std::to_string(bytes) + " bytes at " + HexAddress(address));
  auto record = NewRecord(kind, stream, correlation_id);
  record->device_address = address;
  record->bytes = bytes;
  SubmitOnHost(record.get(), config().host.copy_setup_ps);
  PlaceOnDevice(record.get(), CopyDeviceTime(bytes), /*uses_engines=*/false);
  return record;
}

// Device capture is a setting passed down (capture_setting.h); what it costs
// the device is the hardware's (config capture.*), so profiling without
// capture changes nothing.
Picos NeuronCoreDevice::CaptureCost(const ExecutionResult& result) const {
  if (!DeviceCaptureOn(index_)) return 0;
  const CaptureParams& c = config().capture;
  const auto records = static_cast<Picos>(result.instructions.size() + result.dma.size());
  return c.per_execution_ps + records * c.per_record_ps;
}

Picos NeuronCoreDevice::CopyDeviceTime(uint64_t bytes) const {
  const ChipParams& chip = config().chip;
  return chip.host_link_latency_ps + NanosToPicos(static_cast<double>(bytes) / chip.host_link_bytes_per_ns);
}

void NeuronCoreDevice::Synchronize() { clock_.AdvanceTo(timeline_.end()); }

void NeuronCoreDevice::Synchronize(int stream) {
  CheckStream(stream, "Synchronize");
  clock_.AdvanceTo(timeline_.end(stream));
}

void NeuronCoreDevice::Wait(const ExecutionHandle& handle) {
  if (!handle) throw RuntimeError(name_ + ": Wait on an empty handle");
  clock_.AdvanceTo(handle->device_end);
}

bool NeuronCoreDevice::IsComplete(const ExecutionHandle& handle) const {
  if (!handle) throw RuntimeError(name_ + ": IsComplete on an empty handle");
  return handle->device_end <= clock_.now();
}

// ------------------------------------------------------------------ records

std::shared_ptr<ExecutionRecord> NeuronCoreDevice::NewRecord(RecordKind kind, int stream,
                                                             uint64_t correlation_id) const {
  auto record = std::make_shared<ExecutionRecord>();
  record->kind = kind;
  record->api = kind == RecordKind::kExecution      ? kExecuteApi
                : kind == RecordKind::kCopyToDevice ? kWriteApi
                                                    : kReadApi;
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

void NeuronCoreDevice::PlaceOnDevice(ExecutionRecord* record, Picos duration, bool uses_engines) {
  record->device_start = timeline_.Place(record->stream, record->submit_end, duration, uses_engines);
  record->device_end = record->device_start + duration;
}

ExecutionHandle NeuronCoreDevice::Publish(std::shared_ptr<ExecutionRecord> record) {
  if (RuntimeObserversActive()) detail::NotifyObservers(*record);
  if (keep_records_) records_.push_back(record);
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
}

void NeuronCoreDevice::CheckStream(int stream, const char* call) const {
  if (timeline_.Has(stream)) return;
  throw RuntimeError(name_ + ": " + call + " on unknown stream " + std::to_string(stream) + " (streams 0.." +
                     std::to_string(timeline_.size() - 1) + " exist; make more with CreateStream)");
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
