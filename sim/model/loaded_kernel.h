#pragma once
// A kernel checked against one config and prepared for the hot loop: tensors
// placed in SBUF/PSUM, every instruction validated and costed, every DMA
// split into per-engine pieces, and the memory regions each instruction reads
// and writes resolved for same-engine hazard checks.
#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <utility>
#include <unordered_map>
#include <vector>

#include "sim/config/hw_config.h"
#include "sim/isa/opcode_spec.h"
#include "sim/kernel/kernel.h"

namespace nsim {

// A box of memory an instruction touches: partitions [p0, p1) x bytes
// [lo, hi) within each partition (on-chip), or elements [lo, hi) of an HBM
// tensor (p0 = p1 = 0; compared by tensor since addresses are bound later).
struct Region {
  MemSpace space = MemSpace::kSbuf;
  int tensor = -1;
  int64_t p0 = 0, p1 = 0, lo = 0, hi = 0;
  bool Overlaps(const Region& o) const;
};

// The region `ap` touches; `k` must be laid out (a LoadedKernel's kernel()).
Region RegionOf(const Kernel& k, const AccessPattern& ap);

// One DMA engine's share of a dma_copy (S8: one engine per 8 partitions).
struct DmaPiece {
  int dma_engine = 0;
  int64_t bytes = 0;
  int64_t descriptors = 0;
  double rate = 1;  // the fraction of the engine's throughput it moves at (dma_transpose: dma.transpose_from_*)
};

// How a dma_copy is spread over the DMA engines: `count` pieces on engines
// first_engine, first_engine + 1, ... (modulo `engines`); every piece but the
// last moves the same rows (full_*), the last one the rest (last_*).
struct DmaPlan {
  int64_t full_bytes = 0, full_descriptors = 0;
  int64_t last_bytes = 0, last_descriptors = 0;
  uint16_t first_engine = 0;
  uint16_t engines = 1;
  uint16_t count = 0;
  bool touches_hbm = false;
  double rate = 1;  // DmaPiece::rate of every piece
  DmaPiece piece(int i) const {
    const bool last = i + 1 == count;
    return {(first_engine + i) % engines, last ? last_bytes : full_bytes, last ? last_descriptors : full_descriptors,
            rate};
  }
  int64_t bytes() const { return full_bytes * (count - 1) + last_bytes; }
};
bool operator==(const DmaPlan& a, const DmaPlan& b);
struct DmaPlanHash {
  size_t operator()(const DmaPlan& p) const;
};

// The hot per-instruction record the engines walk (64 bytes): operands,
// semaphores and DMA plans sit in the loaded kernel's side tables, in
// instruction order; regions and text stay in the kernel.
struct LoadedInstruction {
  InstrCost cost;
  int index = 0;
  int dma_plan = -1;          // dma_copy: index of its DmaPlan (LoadedKernel::dma_plan)
  uint32_t operands = 0;      // first of its pre-bound on-chip operands (LoadedKernel::operands)
  // Earlier instructions of the same stream whose outputs this one reads
  // (RAW, resolved at load time): bit d-1 set = instruction index - d (d <= 16,
  // see FindRawDeps). It may not issue before they commit.
  uint16_t raw_deps = 0;
  uint8_t num_operands = 0;
  Opcode opcode = Opcode::kWait;
  EngineId engine = EngineId::kSync;  // with index: where it sits in the kernel (LoadedKernel::instruction)
  uint32_t waits = 0, signals = 0;  // first of its semaphore waits / signals in the kernel's pools (LoadedKernel::waits)
  uint16_t num_waits = 0, num_signals = 0;
  // Whether the race detector must look at it: it touches HBM or an on-chip
  // tensor that two agents touch and one writes (LoadedKernel::tensor_agents).
  bool may_race = false;
};

// Who touches a tensor, over the whole kernel (for the race detector): each
// engine's instructions are one agent, each DMA transfer is one of its own.
struct TensorAgents {
  unsigned engines = 0;   // bit per engine
  int transfers = 0;      // dma_copies touching it, counted up to 2
  bool written = false;
  bool MayRace() const { return written && __builtin_popcount(engines) + transfers >= 2; }
};

class LoadedKernel {
 public:
  // Takes the kernel by value: callers that hand it over (std::move) pay no copy.
  // `known_hash`: KernelHash(kernel), when the caller computed it already (the
  // runtime's cache key), so the load does not hash the kernel a second time.
  LoadedKernel(Kernel kernel, const HardwareConfig& config, std::optional<uint64_t> known_hash = std::nullopt);
  const Kernel& kernel() const { return kernel_; }
  // The kernel's instruction `li` was loaded from (a view: built on each call, no allocation).
  __attribute__((always_inline)) InstructionView instruction(const LoadedInstruction& li) const {
    return kernel_.instruction(li.engine, static_cast<size_t>(li.index));
  }
  uint64_t hash() const { return hash_; }
  const std::string& config_name() const { return config_name_; }
  uint64_t config_hash() const { return config_hash_; }  // ConfigContentHash of the config it was loaded for
  const std::vector<LoadedInstruction>& stream(EngineId e) const { return streams_[static_cast<int>(e)]; }
  // The pre-bound on-chip operands of `li` (for ExecContext::prebound).
  PreBound operands(const LoadedInstruction& li) const { return {operand_table_.data() + li.operands, li.num_operands}; }
  const DmaPlan& dma_plan(const LoadedInstruction& li) const { return dma_plans_[static_cast<size_t>(li.dma_plan)]; }
  const std::vector<TensorAgents>& tensor_agents() const { return tensor_agents_; }  // per tensor
  // DMA pieces per (issuing engine, queue), and the HBM bytes all dma_copy
  // instructions read and write (each execution moves the same).
  const std::map<std::pair<EngineId, int>, int64_t>& dma_queue_transfers() const { return dma_queue_transfers_; }
  int64_t hbm_bytes_read() const { return hbm_bytes_read_; }
  int64_t hbm_bytes_written() const { return hbm_bytes_written_; }
  const SemWait* waits(const LoadedInstruction& li) const { return kernel_.wait_pool() + li.waits; }
  const SemSignal* signals(const LoadedInstruction& li) const { return kernel_.signal_pool() + li.signals; }
  int64_t instruction_count() const { return instructions_; }
  // The arithmetic work (OpcodeModel::flops) of all of engine e's instructions.
  int64_t flops(EngineId e) const { return flops_[static_cast<int>(e)]; }
  // The hardware FLOPs of engine e's transposes (TransposeFlops).
  int64_t transpose_flops(EngineId e) const { return transpose_flops_[static_cast<int>(e)]; }
  // How many of engine e's instructions have each opcode.
  const std::array<int64_t, kNumOpcodes>& opcode_counts(EngineId e) const { return opcode_counts_[static_cast<int>(e)]; }
  int64_t dma_count() const { return dma_count_; }              // dma_copy instructions
  int64_t dma_piece_count() const { return dma_piece_count_; }  // their pieces, all together
  int64_t sbuf_bytes_per_partition() const { return sbuf_used_; }
  int64_t psum_bytes_per_partition() const { return psum_used_; }

 private:
  struct WalkState;
  void Layout(const HardwareConfig& c);
  void CheckSemaphoreCount(const HardwareConfig& c) const;
  void ReserveTables();
  void NoteAgents(int engine, const InstructionView& in);
  void PrepareInstruction(const HardwareConfig& c, int e, size_t i, const InstructionView& in, WalkState* state);
  void BindOperands(const InstructionView& in, LoadedInstruction* li, WalkState* state);
  void Finish(const WalkState& state);
  void ShareAgentsOfSharedBytes();
  const BoundAccess* Intern(const BoundAccess& b);

  Kernel kernel_;
  uint64_t hash_ = 0;
  std::string config_name_;
  uint64_t config_hash_ = 0;
  std::array<std::vector<LoadedInstruction>, kNumEngines> streams_;
  std::vector<PreBoundOperand> operand_table_;
  // Distinct bound accesses (a long kernel binds the same tiles again and
  // again), deque for stable addresses; indexed by a hash of their fields.
  std::deque<BoundAccess> bound_;
  std::unordered_multimap<uint64_t, const BoundAccess*> bound_index_;
  std::vector<DmaPlan> dma_plans_;  // distinct plans (dma_copies of one tile shape share one)
  std::vector<TensorAgents> tensor_agents_;
  std::map<std::pair<EngineId, int>, int64_t> dma_queue_transfers_;
  int64_t hbm_bytes_read_ = 0, hbm_bytes_written_ = 0;
  int64_t sbuf_used_ = 0, psum_used_ = 0;
  int64_t instructions_ = 0, dma_count_ = 0, dma_piece_count_ = 0;
  std::array<int64_t, kNumEngines> flops_{};
  std::array<int64_t, kNumEngines> transpose_flops_{};
  std::array<std::array<int64_t, kNumOpcodes>, kNumEngines> opcode_counts_{};
};

}  // namespace nsim
