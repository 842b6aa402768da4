#pragma once
// A kernel checked against one config and prepared for the hot loop: tensors
// placed in SBUF/PSUM, every instruction validated and costed, every DMA
// split into per-engine pieces, and the memory regions each instruction reads
// and writes resolved for same-engine hazard checks.
#include <array>
#include <cstdint>
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
};

struct LoadedInstruction {
  const Instruction* in = nullptr;
  int index = 0;
  InstrCost cost;
  PreBound operands;
  std::vector<Region> reads;
  std::vector<Region> writes;
  // Earlier instructions of the same stream whose outputs this one reads
  // (RAW, resolved at load time): it may not issue before they commit.
  std::vector<int> raw_deps;
  std::vector<DmaPiece> dma;  // dma_copy only
  bool dma_touches_hbm = false;
  int64_t dma_bytes = 0;
};

class LoadedKernel {
 public:
  // Takes the kernel by value: callers that hand it over (std::move) pay no copy.
  LoadedKernel(Kernel kernel, const HardwareConfig& config);
  const Kernel& kernel() const { return kernel_; }
  uint64_t hash() const { return hash_; }
  const std::string& config_name() const { return config_name_; }
  uint64_t config_hash() const { return config_hash_; }  // ConfigContentHash of the config it was loaded for
  const std::vector<LoadedInstruction>& stream(EngineId e) const { return streams_[static_cast<int>(e)]; }
  int64_t instruction_count() const { return instructions_; }
  int64_t dma_count() const { return dma_count_; }              // dma_copy instructions
  int64_t dma_piece_count() const { return dma_piece_count_; }  // their pieces, all together
  int64_t sbuf_bytes_per_partition() const { return sbuf_used_; }
  int64_t psum_bytes_per_partition() const { return psum_used_; }

 private:
  void Layout(const HardwareConfig& c);
  void Prepare(const HardwareConfig& c);
  static void FindRawDeps(const std::vector<LoadedInstruction>& stream, size_t i, LoadedInstruction* li);

  Kernel kernel_;
  uint64_t hash_ = 0;
  std::string config_name_;
  uint64_t config_hash_ = 0;
  std::array<std::vector<LoadedInstruction>, kNumEngines> streams_;
  int64_t sbuf_used_ = 0, psum_used_ = 0;
  int64_t instructions_ = 0, dma_count_ = 0, dma_piece_count_ = 0;
};

}  // namespace nsim
