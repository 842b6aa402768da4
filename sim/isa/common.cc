#include "sim/isa/common.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "sim/base/error.h"

namespace nsim {
namespace isa {

void Fail(const Kernel& k, const InstructionView& in, const std::string& msg) {
  std::ostringstream os;
  os << "kernel '" << k.name << "'";
  if (in.line > 0) os << " line " << in.line;
  os << " (" << EngineName(in.engine) << " " << Spec(in.opcode).name << "): " << msg;
  throw SimError(os.str());
}

const TensorDecl& TensorOf(const Kernel& k, const AccessPattern& ap) { return k.tensors[ap.tensor]; }
std::string OperandName(const Kernel& k, const AccessPattern& ap) { return "'" + TensorOf(k, ap).name + "'"; }
bool InSpace(const Kernel& k, const AccessPattern& ap, MemSpace s) { return TensorOf(k, ap).space == s; }
bool OnChip(const Kernel& k, const AccessPattern& ap) { return !InSpace(k, ap, MemSpace::kHbm); }
DType TypeOf(const Kernel& k, const AccessPattern& ap) { return TensorOf(k, ap).dtype; }

void RequireOnChip(const Kernel& k, const InstructionView& in, const AccessPattern& ap, const char* role) {
  if (!ap.present()) Fail(k, in, std::string("missing operand ") + role);
  if (!OnChip(k, ap)) {
    Fail(k, in, std::string(role) + " " + OperandName(k, ap) + " is in HBM; " + EngineName(in.engine) +
                    " engines only access SBUF and PSUM (move it with dma_copy)");
  }
  if (in.engine == EngineId::kGpSimd && InSpace(k, ap, MemSpace::kPsum)) {
    Fail(k, in, std::string(role) + " " + OperandName(k, ap) + " is in PSUM, which GpSimd cannot access");
  }
  if (in.engine == EngineId::kTensor && InSpace(k, ap, MemSpace::kSbuf) && std::string(role) == "dst") {
    Fail(k, in, "dst " + OperandName(k, ap) + " is in SBUF; TensorE writes only to PSUM");
  }
}

void RequireSameShape(const Kernel& k, const InstructionView& in, const AccessPattern& a, const char* an,
                      const AccessPattern& b, const char* bn) {
  if (a.Partitions() != b.Partitions()) {
    std::ostringstream os;
    os << bn << " " << OperandName(k, b) << " spans " << b.Partitions() << " partitions but " << an << " "
       << OperandName(k, a) << " spans " << a.Partitions();
    Fail(k, in, os.str());
  }
  if (a.FreeElements() != b.FreeElements()) {
    std::ostringstream os;
    os << bn << " " << OperandName(k, b) << " has " << b.FreeElements() << " elements per partition but "
       << an << " " << OperandName(k, a) << " has " << a.FreeElements();
    Fail(k, in, os.str());
  }
}

void RequireColumn(const Kernel& k, const InstructionView& in, const Scalar& s, const char* role,
                   const AccessPattern& like) {
  if (!s.is_ap) return;
  RequireOnChip(k, in, s.ap, role);
  if (s.ap.Partitions() != like.Partitions() || s.ap.FreeElements() != 1) {
    std::ostringstream os;
    os << role << " " << OperandName(k, s.ap) << " must be a [" << like.Partitions()
       << ", 1] per-partition column, got [" << s.ap.Partitions() << ", " << s.ap.FreeElements() << "]";
    Fail(k, in, os.str());
  }
}

int64_t InnerStrideBytes(const Kernel& k, const AccessPattern& ap) {
  const size_t first_free = OnChip(k, ap) ? 1 : 0;
  int64_t stride = 1;
  for (size_t d = ap.dims.size(); d-- > first_free;) {
    if (ap.dims[d].size > 1) { stride = ap.dims[d].stride; break; }
  }
  return std::abs(stride) * DTypeSize(TypeOf(k, ap));
}

bool Contiguous(const Kernel& k, const AccessPattern& ap) {
  return InnerStrideBytes(k, ap) == DTypeSize(TypeOf(k, ap));
}

bool StridePenalty(const Kernel& k, const AccessPattern& ap, int64_t threshold_bytes) {
  return ap.present() && InnerStrideBytes(k, ap) > threshold_bytes;
}

bool AnyStridePenalty(const Kernel& k, int64_t threshold_bytes, std::initializer_list<const AccessPattern*> aps) {
  for (const AccessPattern* ap : aps) {
    if (StridePenalty(k, *ap, threshold_bytes)) return true;
  }
  return false;
}

bool IsArithmetic(AluOp op) { return op != AluOp::kNone && op != AluOp::kBypass; }

double VectorAluFactor(AluOp op, const VectorEngineParams& v) {
  switch (op) {
#define NSIM_ALU_RATE(e, name, nl_name, commutative, reciprocal_rate, value) \
  case AluOp::e: return (reciprocal_rate) ? v.reciprocal_factor : 1.0;
    NSIM_ALU_OP_TABLE(NSIM_ALU_RATE)
#undef NSIM_ALU_RATE
    case AluOp::kNone: break;
  }
  return 1.0;
}

InstrCost EngineCost(const EngineParams& e, double work_cycles, double extra_latency_cycles) {
  const double ii = std::max<double>(static_cast<double>(e.min_ii_cycles), std::ceil(work_cycles));
  InstrCost c;
  c.ii = CyclesToPicos(ii, e.freq_hz);
  c.latency = CyclesToPicos(ii + static_cast<double>(e.pipeline_latency_cycles) + extra_latency_cycles, e.freq_hz);
  return c;
}

float* F32Rows(ExecContext& ctx, const AccessPattern& ap, int64_t* stride) {
  const BoundAccess* a = ctx.Resolve(ap);
  if (a->dtype != DType::kF32) return nullptr;
  int64_t pitch = 0;
  uint8_t* rows = ContiguousRows(*a, ctx.mem, &pitch);
  if (rows == nullptr || pitch % 4 != 0 || a->base % 4 != 0) return nullptr;
  *stride = pitch / 4;
  return reinterpret_cast<float*>(rows);
}

ScalarColumn ScalarPerPartition(ExecContext& ctx, const Scalar& s, int slot) {
  if (s.is_ap) return {ctx.Read(s.ap, slot).data(), 0.0f};
  return {nullptr, static_cast<float>(s.imm)};
}

int64_t RowBlock(int64_t per_row, int64_t rows, int64_t min_rows) {
  const int64_t fit = std::max<int64_t>(1, kRowBlockElements / std::max<int64_t>(per_row, 1));
  return std::min(rows, std::max(fit, min_rows));
}

}  // namespace isa
}  // namespace nsim
