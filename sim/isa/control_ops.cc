// Instructions any sequencer runs: dma_copy and dma_transpose (a trigger; the
// transfer itself runs on the DMA model, see model/dma.h) and wait
// (EVENT_SEMAPHORE).
#include <cstring>

#include "sim/isa/common.h"

namespace nsim {
namespace isa {
namespace {

const EngineParams& ParamsOf(const HardwareConfig& c, EngineId e) {
  switch (e) {
    case EngineId::kTensor: return c.tensor;
    case EngineId::kVector: return c.vector;
    case EngineId::kScalar: return c.scalar;
    case EngineId::kGpSimd: return c.gpsimd;
    case EngineId::kSync: return c.sync;
  }
  return c.sync;
}

InstrCost DispatchCost(const HardwareConfig& c, EngineId e) {
  const EngineParams& p = ParamsOf(c, e);
  InstrCost cost;
  cost.ii = cost.latency = CyclesToPicos(static_cast<double>(p.dispatch_cycles), p.freq_hz);
  return cost;
}

void ValidateDma(const Kernel& k, const InstructionView& in, const HardwareConfig& c) {
  if (!in.dst.present() || !in.src0.present()) Fail(k, in, "needs dst and src");
  if (in.dst.NumElements() != in.src0.NumElements()) {
    Fail(k, in, "dst " + OperandName(k, in.dst) + " has " + std::to_string(in.dst.NumElements()) + " elements but src " +
                    OperandName(k, in.src0) + " has " + std::to_string(in.src0.NumElements()));
  }
  if (in.queue < 0 || in.queue >= c.dma.queues_per_engine) {
    Fail(k, in, "queue " + std::to_string(in.queue) + " out of range [0, " + std::to_string(c.dma.queues_per_engine) + ")");
  }
}

InstrCost CostDma(const Kernel&, const InstructionView& in, const HardwareConfig& c) {
  // The issuing sequencer writes a queue entry; descriptors were prebuilt by
  // the compiler (S9 mode 'none'), so only the trigger occupies it.
  InstrCost cost = DispatchCost(c, in.engine);
  cost.ii = cost.latency = cost.ii + c.dma.trigger_ps;
  return cost;
}

void ExecDma(ExecContext& ctx, const InstructionView& in) {
  const BoundAccess dst = ctx.Bind(in.dst), src = ctx.Bind(in.src0);
  if (dst.dtype == src.dtype) {
    if (CopyRawDirect(dst, src, ctx.mem, ctx.hbm)) return;  // HBM <-> on chip, no staging
    Scratch<uint8_t>& raw = ctx.bytes;  // reused: no allocation or zero-fill per transfer
    raw.resize(static_cast<size_t>(src.count * DTypeSize(src.dtype)));
    ReadRaw(src, ctx.mem, ctx.hbm, raw.data());
    WriteRaw(dst, ctx.mem, ctx.hbm, raw.data());
  } else {  // DMA casts through fp32 (S8)
    ctx.Write(in.dst, ctx.Read(in.src0, 0));
  }
}

SIM_REGISTER_OPCODE(dma_copy, {Opcode::kDmaCopy, ValidateDma, CostDma,
                               ExecDma, [](const Kernel&, const InstructionView&) { return int64_t{0}; }});

// dma_transpose: the frontend passes src already in the transposed order, so
// the values are a copy's; PlanDma (model/loaded_kernel.cc) times it at
// dma.transpose_from_hbm / _from_sbuf of a copy's throughput (S2).
void ValidateDmaTranspose(const Kernel& k, const InstructionView& in, const HardwareConfig& c) {
  ValidateDma(k, in, c);
  const int64_t size = DTypeSize(TypeOf(k, in.src0));
  if (size != 2 && size != 4) {
    Fail(k, in, "src " + OperandName(k, in.src0) + " has " + std::to_string(size) +
                    "-byte elements; DMA transposes 2- and 4-byte types");
  }
  if (!OnChip(k, in.dst)) Fail(k, in, "dst " + OperandName(k, in.dst) + " must be in SBUF");
}

SIM_REGISTER_OPCODE(dma_transpose, {Opcode::kDmaTranspose, ValidateDmaTranspose, CostDma, ExecDma,
                                    [](const Kernel&, const InstructionView&) { return int64_t{0}; }});

// sendrecv: a DMA transfer from this core's src into the pair peer's dst
// (nki.isa.sendrecv: "Both src and dst tiles must be in SBUF"). Its values
// cross cores, so the chip's CoreLink moves them when the transfer completes
// (model/core_link.h); the opcode's own execute has nothing to do.
void ValidateSendRecv(const Kernel& k, const InstructionView& in, const HardwareConfig& c) {
  ValidateDma(k, in, c);
  RequireOnChip(k, in, in.dst, "dst");
  RequireOnChip(k, in, in.src0, "src");
  if (TypeOf(k, in.dst) != TypeOf(k, in.src0)) {
    Fail(k, in, "dst " + OperandName(k, in.dst) + " and src " + OperandName(k, in.src0) +
                    " have different element types (sendrecv copies without casting)");
  }
}

SIM_REGISTER_OPCODE(sendrecv, {Opcode::kSendRecv, ValidateSendRecv, CostDma, [](ExecContext&, const InstructionView&) {},
                               [](const Kernel&, const InstructionView&) { return int64_t{0}; }});

// core_barrier: the engine writes the peer's semaphore and waits for its own
// (nki.isa.core_barrier), which the CoreLink times; the instruction itself
// occupies its engine for one dispatch, as `wait` does.
SIM_REGISTER_OPCODE(core_barrier, {Opcode::kCoreBarrier, [](const Kernel&, const InstructionView&, const HardwareConfig&) {},
                                   [](const Kernel&, const InstructionView& in, const HardwareConfig& c) {
                                     return DispatchCost(c, in.engine);
                                   },
                                   [](ExecContext&, const InstructionView&) {},
                                   [](const Kernel&, const InstructionView&) { return int64_t{0}; }});

void ValidateWait(const Kernel& k, const InstructionView& in, const HardwareConfig&) {
  if (in.waits.empty() && in.signals.empty()) Fail(k, in, "wait without wait= or signal= does nothing");
}

SIM_REGISTER_OPCODE(wait, {Opcode::kWait, ValidateWait,
                           [](const Kernel&, const InstructionView& in, const HardwareConfig& c) {
                             return DispatchCost(c, in.engine);
                           },
                           [](ExecContext&, const InstructionView&) {},
                           [](const Kernel&, const InstructionView&) { return int64_t{0}; }});

}  // namespace
}  // namespace isa
}  // namespace nsim
