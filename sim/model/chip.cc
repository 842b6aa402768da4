#include "sim/model/chip.h"

#include <algorithm>

#include "sim/base/error.h"
#include "sim/config/params.h"
#include "sim/isa/opcode_spec.h"
#include "sim/model/chip_scheduler.h"
#include "sim/model/hbm_binding.h"
#include "sim/model/loaded_kernel.h"
#include "sim/memory/onchip_memory.h"

namespace nsim {

Chip::Chip(HardwareConfig config) : config_(std::move(config)) {
  const ChipParams& c = config_.chip;
  hbm_ = std::make_shared<HbmMemory>(static_cast<uint64_t>(c.hbm_stacks * c.hbm_stack_bytes));
  onchip_.resize(static_cast<size_t>(c.cores));
}

Chip::~Chip() = default;  // scheduler_, declared last, goes first

ChipScheduler& Chip::scheduler() {
  if (!scheduler_) scheduler_ = std::make_unique<ChipScheduler>(*this);
  return *scheduler_;
}

OnChipMemory& Chip::onchip(int core) {
  std::unique_ptr<OnChipMemory>& mem = onchip_.at(static_cast<size_t>(core));
  if (!mem) mem = std::make_unique<OnChipMemory>(config_.memory);
  return *mem;
}

uint64_t Chip::CoreMemoryBase(int core) const {
  const ChipParams& c = config_.chip;
  return StackBase(static_cast<int>(c.StackOf(core))) + static_cast<uint64_t>(core % c.cores_per_stack()) * CoreMemoryBytes();
}

int Chip::StackOfAddress(uint64_t address) const {
  return static_cast<int>(address / static_cast<uint64_t>(config_.chip.hbm_stack_bytes));
}

int Chip::CoreOfAddress(uint64_t address) const {
  const int stack = StackOfAddress(address);
  const auto in_stack = static_cast<int64_t>((address - StackBase(stack)) / CoreMemoryBytes());
  return static_cast<int>(stack * config_.chip.cores_per_stack() + in_stack);
}

std::shared_ptr<const LoadedKernel> Chip::Load(const Kernel& kernel) const {
  return std::make_shared<const LoadedKernel>(kernel, config_);
}

std::vector<int> Chip::StacksOf(const Kernel& k, const std::vector<uint64_t>& addresses) const {
  std::vector<int> stacks(k.tensors.size(), -1);
  for (size_t i = 0; i < k.tensors.size(); ++i) {
    if (k.tensors[i].space == MemSpace::kHbm) stacks[i] = StackOfAddress(addresses[i]);
  }
  return stacks;
}

namespace {

void CheckSameHbmTensors(const Kernel& first, const Kernel& other, size_t program) {
  for (const TensorDecl& t : first.tensors) {
    if (t.space != MemSpace::kHbm) continue;
    const int o = other.FindTensor(t.name);
    if (o < 0 || other.tensors[o].space != MemSpace::kHbm || other.tensors[o].shape != t.shape ||
        other.tensors[o].dtype != t.dtype) {
      throw SimError("grid launch: program " + std::to_string(program) + " ('" + other.name +
                     "') does not declare HBM tensor '" + t.name + "' like program 0 does");
    }
  }
}

}  // namespace

void CheckSameHbmTensors(const std::vector<std::shared_ptr<const LoadedKernel>>& programs) {
  for (size_t i = 1; i < programs.size(); ++i) CheckSameHbmTensors(programs[0]->kernel(), programs[i]->kernel(), i);
}

BoundGrid::BoundGrid() = default;
BoundGrid::BoundGrid(BoundGrid&&) noexcept = default;
BoundGrid::~BoundGrid() = default;

BoundGrid Chip::Bind(const std::vector<std::shared_ptr<const LoadedKernel>>& programs,
                     const std::map<std::string, uint64_t>& bindings, const std::vector<int>& cores,
                     uint64_t scratch_top, bool values) {
  CheckSameHbmTensors(programs);
  BoundGrid out;
  out.addresses.reserve(programs.size());  // contexts refer to its elements: they must not move
  const Kernel& first = programs[0]->kernel();
  out.addresses.push_back(BindHbm(first, bindings, *hbm_, scratch_top, &out.scratch, values));
  std::map<std::string, uint64_t> placed = bindings;
  placed.insert(out.scratch.begin(), out.scratch.end());
  for (size_t i = 0; i < programs.size(); ++i) {
    const Kernel& k = programs[i]->kernel();
    std::map<std::string, uint64_t> unused;
    if (i > 0) out.addresses.push_back(BindHbm(k, placed, *hbm_, scratch_top, &unused, values));
    OnChipMemory& mem = onchip(cores[i]);
    if (values) mem.ClearTensorsOf(k);
    out.contexts.push_back(std::make_unique<ExecContext>(ExecContext{k, mem, *hbm_, out.addresses[i], {}}));
    out.contexts.back()->compute_values = values;
  }
  return out;
}

GridResult Chip::Launch(const std::vector<std::shared_ptr<const LoadedKernel>>& programs,
                        const std::map<std::string, uint64_t>& bindings, std::vector<int> cores) {
  return Run(programs, bindings, std::move(cores), GridOptions{});
}

namespace {

// Each program's core exists and is given one program.
void CheckCores(const HardwareConfig& config, const std::vector<int>& cores) {
  std::vector<bool> used(static_cast<size_t>(config.chip.cores), false);
  for (int c : cores) {
    if (c < 0 || c >= config.chip.cores) {
      throw SimError("config '" + config.name + "': no core " + std::to_string(c) + " (the chip has " +
                     std::to_string(config.chip.cores) + ")");
    }
    if (used[c]) throw SimError("core " + std::to_string(c) + " is given two kernels in one launch");
    used[c] = true;
  }
}

}  // namespace

GridResult Chip::Run(const std::vector<std::shared_ptr<const LoadedKernel>>& programs,
                     const std::map<std::string, uint64_t>& bindings, std::vector<int> cores,
                     const GridOptions& options) {
  if (programs.empty()) throw SimError("grid launch: no programs");
  if (programs.size() > static_cast<size_t>(this->cores())) {
    throw SimError("grid launch: " + std::to_string(programs.size()) + " programs but config '" + config_.name +
                   "' has " + std::to_string(this->cores()) + " cores per chip (chip.cores)");
  }
  if (cores.empty()) {
    for (size_t i = 0; i < programs.size(); ++i) cores.push_back(static_cast<int>(i));
  }
  if (cores.size() != programs.size()) throw SimError("grid launch: one core per program is needed");
  CheckCores(config_, cores);
  const uint64_t config_hash = ConfigContentHash(config_);
  for (const auto& p : programs) CheckLoadedFor(*p, config_, config_hash, "chip");
  KernelLaunch launch;
  launch.programs = programs;
  launch.cores = cores;
  launch.bindings = bindings;
  launch.scratch_top = options.scratch_top != 0 ? options.scratch_top : CoreMemoryBase(cores[0]) + CoreMemoryBytes();
  launch.timing_only = options.timing_only;
  launch.allow_races = options.allow_races;
  const ItemRef item = scheduler().LaunchAndWait(/*stream=*/0, std::move(launch));
  GridResult out;
  out.start = item->start;
  out.cores = std::move(cores);
  out.programs = std::move(item->results);
  out.scratch_addresses = item->scratch;
  for (const ExecutionResult& r : out.programs) out.device_time = std::max(out.device_time, r.device_time);
  return out;
}

}  // namespace nsim
