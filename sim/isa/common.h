#pragma once
// Helpers shared by the instruction families: operand checks that produce
// errors naming the instruction, and the quantities cost formulas use.
#include <initializer_list>
#include <string>

#include "sim/isa/opcode_spec.h"

namespace nsim {
namespace isa {

[[noreturn]] void Fail(const Kernel& k, const Instruction& in, const std::string& msg);
std::string OperandName(const Kernel& k, const AccessPattern& ap);  // tensor name

const TensorDecl& TensorOf(const Kernel& k, const AccessPattern& ap);
bool OnChip(const Kernel& k, const AccessPattern& ap);
bool InSpace(const Kernel& k, const AccessPattern& ap, MemSpace s);
DType TypeOf(const Kernel& k, const AccessPattern& ap);

// Requires an on-chip operand, readable/writable by the instruction's engine.
void RequireOnChip(const Kernel& k, const Instruction& in, const AccessPattern& ap, const char* role);
// Requires `a` and `b` to have the same partitions and free element count.
void RequireSameShape(const Kernel& k, const Instruction& in, const AccessPattern& a, const char* an,
                      const AccessPattern& b, const char* bn);
// A Scalar operand that is an AP must be a [P,1] column matching `like`.
void RequireColumn(const Kernel& k, const Instruction& in, const Scalar& s, const char* role,
                   const AccessPattern& like);

int64_t InnerStrideBytes(const Kernel& k, const AccessPattern& ap);  // innermost free stride
bool Contiguous(const Kernel& k, const AccessPattern& ap);           // innermost stride 1
bool StridePenalty(const Kernel& k, const AccessPattern& ap, int64_t threshold_bytes);
bool AnyStridePenalty(const Kernel& k, int64_t threshold_bytes, std::initializer_list<const AccessPattern*> aps);

// An ALU op that computes (not kNone or kBypass).
bool IsArithmetic(AluOp op);
// VectorE cycles per element of `op` relative to add: divide and pow run at
// the config's reciprocal factor.
double VectorAluFactor(AluOp op, const VectorEngineParams& v);

// Cost from engine cycles: II = max(min_ii, work); latency = II + pipeline latency + extra.
InstrCost EngineCost(const EngineParams& e, double work_cycles, double extra_latency_cycles = 0);

// An f32 on-chip operand read or written in place: row p (a partition's free
// elements) starts at the result + p * *stride floats. nullptr when the
// operand is not f32 or its rows are not contiguous (model/access.h).
float* F32Rows(ExecContext& ctx, const AccessPattern& ap, int64_t* stride);

// Per-partition scalar values (immediate broadcast or a column read), in
// ctx.buf[slot]; valid until that slot is reused.
const float* ScalarValues(ExecContext& ctx, const Scalar& s, int64_t partitions, int slot);

// A Scalar's value per partition without a buffer for an immediate (which
// ScalarValues fills on every instruction): a column is read into
// ctx.buf[slot], valid until that slot is reused.
struct ScalarColumn {
  const float* column = nullptr;  // nullptr: the immediate
  float imm = 0;
  float operator[](int64_t p) const { return column != nullptr ? column[p] : imm; }
};
ScalarColumn ScalarPerPartition(ExecContext& ctx, const Scalar& s, int slot);

}  // namespace isa
}  // namespace nsim
