// Instructions any sequencer runs: dma_copy, dma_transpose and dma_indirect (a trigger; the
// transfer itself runs on the DMA model, see model/dma.h) and wait
// (EVENT_SEMAPHORE).
#include <cstring>
#include <vector>

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

// dma_transpose: from HBM the frontend passes src already in the transposed
// order, so the values are a copy's; from SBUF (the partition dim moves, which
// no access pattern expresses) src is as stored and the DMA swaps its first
// and last dims, the one thing NKI's permutations (1,0), (2,1,0), (3,1,2,0)
// all do. PlanDma (model/loaded_kernel.cc) times it at dma.transpose_from_hbm
// / _from_sbuf of a copy's throughput (S2).
void ValidateDmaTranspose(const Kernel& k, const InstructionView& in, const HardwareConfig& c) {
  ValidateDma(k, in, c);
  if (OnChip(k, in.src0) && TypeOf(k, in.src0) != TypeOf(k, in.dst)) {
    Fail(k, in, "a transpose from SBUF does not cast: src and dst types differ");
  }
  const int64_t size = DTypeSize(TypeOf(k, in.src0));
  if (size != 2 && size != 4) {
    Fail(k, in, "src " + OperandName(k, in.src0) + " has " + std::to_string(size) +
                    "-byte elements; DMA transposes 2- and 4-byte types");
  }
  if (!OnChip(k, in.dst)) Fail(k, in, "dst " + OperandName(k, in.dst) + " must be in SBUF");
}

// From SBUF: src's elements (pattern order, shape [first, middle..., last])
// land in dst's pattern order as [last, middle..., first].
void ExecDmaTranspose(ExecContext& ctx, const InstructionView& in) {
  if (!OnChip(ctx.kernel, in.src0)) return ExecDma(ctx, in);
  const BoundAccess src = ctx.Bind(in.src0), dst = ctx.Bind(in.dst);
  const ApDims& dims = in.src0.dims;
  const int64_t first = dims.empty() ? 1 : dims[0].size, last = dims.size() < 2 ? 1 : dims[dims.size() - 1].size;
  const int64_t middle = src.count / std::max<int64_t>(1, first * last), es = DTypeSize(src.dtype);
  std::vector<uint8_t> from(static_cast<size_t>(src.count * es));
  Scratch<uint8_t>& to = ctx.bytes;
  to.resize(from.size());
  ReadRaw(src, ctx.mem, ctx.hbm, from.data());
  uint8_t* out = to.data();
  for (int64_t l = 0; l < last; ++l) {
    for (int64_t m = 0; m < middle; ++m) {
      for (int64_t f = 0; f < first; ++f, out += es) std::memcpy(out, &from[((f * middle + m) * last + l) * es], es);
    }
  }
  WriteRaw(dst, ctx.mem, ctx.hbm, to.data());
}

SIM_REGISTER_OPCODE(dma_transpose, {Opcode::kDmaTranspose, ValidateDmaTranspose, CostDma, ExecDmaTranspose,
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

// dma_indirect: dst = src where the HBM side (src: gather, dst with
// scatter=true) is moved at run time by INDEX's values, read from SBUF when the
// transfer runs (S9: DGE modes swdge/hwdge; NKI .ap(scalar_offset=,
// vector_offset=, indirect_dim=)). One INDEX value shifts the whole access by
// value x stride elements; N values (N = the HBM side's first dim) shift row i
// by INDEX[i] x stride. The DMA model times one descriptor per row run
// (PlanDma: the frontend gives the indexed dim stride 0), the issuing
// sequencer dma.dge more than a prebuilt trigger.
const AccessPattern& IndirectSide(const InstructionView& in) { return in.broadcast ? in.dst : in.src0; }
int64_t IndirectRows(const InstructionView& in) {
  return in.src1.NumElements() == 1 ? 1 : IndirectSide(in).dims[0].size;
}

void ValidateDmaIndirect(const Kernel& k, const InstructionView& in, const HardwareConfig& c) {
  ValidateDma(k, in, c);
  const char* side = in.broadcast ? "dst" : "src";
  const AccessPattern& ap = IndirectSide(in);
  if (OnChip(k, ap)) {
    Fail(k, in, std::string(side) + " " + OperandName(k, ap) + " is the indexed side (scatter=" +
                    (in.broadcast ? "true" : "false") + ") and must be in HBM; on-chip indexing is not modelled");
  }
  if (!in.src1.present() || !OnChip(k, in.src1)) Fail(k, in, "index must be an SBUF tile");
  const DType it = TypeOf(k, in.src1);
  if (it != DType::kI32 && it != DType::kU32) {
    Fail(k, in, "index " + OperandName(k, in.src1) + " is " + DTypeName(it) + "; indices are i32 or u32");
  }
  const int64_t n = in.src1.NumElements();
  if (n != 1 && n != ap.dims[0].size) {
    Fail(k, in, "index " + OperandName(k, in.src1) + " has " + std::to_string(n) + " values: one (a scalar offset) or " +
                    std::to_string(ap.dims[0].size) + ", one per row of " + side + "'s first dim");
  }
  if (in.free_step != static_cast<double>(static_cast<int64_t>(in.free_step))) {
    Fail(k, in, "stride=" + std::to_string(in.free_step) + " must be a whole number of elements");
  }
}

InstrCost CostDmaIndirect(const Kernel& k, const InstructionView& in, const HardwareConfig& c) {
  InstrCost cost = CostDma(k, in, c);
  cost.ii = cost.latency = cost.ii + c.dma.dge_ps;  // S2: a DGE instruction keeps its sequencer ~600 ns
  return cost;
}

// The index values, as signed integers.
std::vector<int64_t> IndexValues(ExecContext& ctx, const AccessPattern& ap) {
  const BoundAccess b = ctx.Bind(ap);
  std::vector<uint8_t> raw(static_cast<size_t>(b.count * 4));
  ReadRaw(b, ctx.mem, ctx.hbm, raw.data());
  std::vector<int64_t> v(static_cast<size_t>(b.count));
  for (size_t i = 0; i < v.size(); ++i) {
    if (b.dtype == DType::kU32) {
      uint32_t u;
      std::memcpy(&u, &raw[i * 4], 4);
      v[i] = u;
    } else {
      int32_t s;
      std::memcpy(&s, &raw[i * 4], 4);
      v[i] = s;
    }
  }
  return v;
}

// The staged elements are `other`'s in pattern order: raw bytes when both
// sides have one type, fp32 when the DMA casts (through fp32, as dma_copy: S8).
void ExecDmaIndirect(ExecContext& ctx, const InstructionView& in) {
  const Kernel& k = ctx.kernel;
  const AccessPattern& ap = IndirectSide(in);
  const AccessPattern& other = in.broadcast ? in.src0 : in.dst;
  const std::vector<int64_t> index = IndexValues(ctx, in.src1);
  const BoundAccess whole = ctx.Bind(ap);
  const BoundAccess o = ctx.Bind(other);
  const bool casts = o.dtype != whole.dtype;
  const int64_t esize = DTypeSize(whole.dtype), rows = IndirectRows(in);
  const int64_t per_row = whole.count / rows, stride = static_cast<int64_t>(in.free_step);
  const int64_t elements = TensorOf(k, ap).NumElements();
  BoundAccess row = whole;  // one row: the dims after the first (or all of them for one index)
  if (rows > 1) {
    row.dims.n = 0;
    for (size_t d = 1; d < whole.dims.size(); ++d) row.dims.d[row.dims.n++] = whole.dims[d];
    if (row.dims.n == 0) row.dims.d[row.dims.n++] = ApDim{1, 1};
    row.count = per_row;
  }
  int64_t lo = 0, hi = 0;  // the row's reach around its first element
  for (const ApDim& d : row.dims) (d.stride < 0 ? lo : hi) += d.stride * (d.size - 1);
  Scratch<uint8_t>& raw = ctx.bytes;
  ScratchFloats& fp32 = ctx.buf[1];
  if (casts) fp32.resize(static_cast<size_t>(whole.count));
  else raw.resize(static_cast<size_t>(whole.count * esize));
  // Moves a's elements to or from (`out`: into a) the staging, from its element `first` on.
  auto move = [&](const BoundAccess& a, int64_t first, bool out) {
    if (casts && out) WriteFloats(a, ctx.mem, ctx.hbm, fp32.data() + first);
    else if (casts) ReadFloats(a, ctx.mem, ctx.hbm, fp32.data() + first);
    else if (out) WriteRaw(a, ctx.mem, ctx.hbm, raw.data() + first * esize);
    else ReadRaw(a, ctx.mem, ctx.hbm, raw.data() + first * esize);
  };
  move(o, 0, false);  // a scatter's source; a gather's dst, so that skipped rows keep their values
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t value = index[static_cast<size_t>(r)];
    const int64_t first = ap.offset + (rows > 1 ? r * whole.dims[0].stride : 0) + value * stride;
    if (first + lo < 0 || first + hi >= elements) {
      if (in.negate) continue;  // skip=true (oob_mode.skip): this row moves nothing
      Fail(k, in, "index " + OperandName(k, in.src1) + " value " + std::to_string(value) + " (row " +
                      std::to_string(r) + ") reaches element " + std::to_string(first + (first + lo < 0 ? lo : hi)) +
                      " of '" + OperandName(k, ap) + "' (" + std::to_string(elements) +
                      " elements); oob_mode=skip skips such rows");
    }
    row.base = whole.base + static_cast<uint64_t>((first - ap.offset) * esize);
    move(row, r * per_row, in.broadcast);  // a scatter writes the row, a gather reads it
  }
  if (!in.broadcast) move(o, 0, true);
}

SIM_REGISTER_OPCODE(dma_indirect, {Opcode::kDmaIndirect, ValidateDmaIndirect, CostDmaIndirect, ExecDmaIndirect,
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
