#pragma once
// Helpers shared by the instruction families: operand checks that produce
// errors naming the instruction, and the quantities cost formulas use.
#include <algorithm>
#include <array>
#include <cstddef>
#include <initializer_list>
#include <new>
#include <string>
#include <utility>

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

// A Scalar's value per partition: the immediate itself (no buffer filled per
// instruction), or a column read into ctx.buf[slot], valid until that slot is
// reused.
struct ScalarColumn {
  const float* column = nullptr;  // nullptr: the immediate
  float imm = 0;
  float operator[](int64_t p) const { return column != nullptr ? column[p] : imm; }
};
ScalarColumn ScalarPerPartition(ExecContext& ctx, const Scalar& s, int slot);

// ---- element-wise instructions, a block of rows at a time ----

// Elements per block of rows: a few KB of fp32 per operand, so that an
// instruction's row buffers stay in L1 between converting, computing and
// converting back (issue 12).
constexpr int64_t kRowBlockElements = 2048;

// Rows per block for rows of `per_row` elements: at least `min_rows` (when
// there are that many), at most `rows`.
int64_t RowBlock(int64_t per_row, int64_t rows, int64_t min_rows = 1);

// The bound access of `ap`, valid across later Resolve calls: the pre-bound
// one, or one bound now and copied into `storage` (raw: nothing is
// constructed on the per-instruction path unless needed).
struct BoundStorage {
  alignas(BoundAccess) unsigned char bytes[sizeof(BoundAccess)];
};
inline const BoundAccess* StableBound(ExecContext& ctx, const AccessPattern& ap, BoundStorage* storage) {
  const BoundAccess* b = ctx.Resolve(ap);
  return b != &ctx.bind_scratch ? b : new (storage->bytes) BoundAccess(*b);
}

// Runs an element-wise instruction whose dst and N sources are on-chip
// [P, F] operands of the same shape, a block of rows at a time: reads rows
// [p, p + n) of every source into fp32 buffers ctx.buf[0..N), calls
// compute(rows, p, n) (source i's row p + r at rows[i] + r * F; compute
// leaves dst's fp32 values in rows[0]), and writes rows[0] to dst. The same
// values as reading every source whole, computing and writing dst: when dst
// could overwrite a source row before it is read, one block holds every row.
// Callers read their per-partition scalar columns before (into other slots).
template <size_t N, class Compute>
void ElementwiseRows(ExecContext& ctx, const AccessPattern& dst, const std::array<const AccessPattern*, N>& srcs,
                     Compute&& compute);

// ---- implementation of the template ----
namespace internal {
template <size_t N, size_t... I>
std::array<PartitionRows, N> RowsOf(const std::array<const BoundAccess*, N>& bound, OnChipMemory& mem,
                                    std::index_sequence<I...>) {
  return {PartitionRows(*bound[I], mem)...};
}
}  // namespace internal

template <size_t N, class Compute>
void ElementwiseRows(ExecContext& ctx, const AccessPattern& dst, const std::array<const AccessPattern*, N>& srcs,
                     Compute&& compute) {
  BoundStorage storage[N + 1];
  const BoundAccess* out_bound = StableBound(ctx, dst, &storage[N]);
  std::array<const BoundAccess*, N> in_bound;
  bool blocks = true;
  for (size_t i = 0; i < N; ++i) {
    in_bound[i] = StableBound(ctx, *srcs[i], &storage[i]);
    blocks = blocks && RowsWriteBehindReads(*out_bound, *in_bound[i]);
  }
  const PartitionRows out(*out_bound, ctx.mem);
  const std::array<PartitionRows, N> in = internal::RowsOf(in_bound, ctx.mem, std::make_index_sequence<N>());
  const int64_t parts = out.partitions(), per = out.per_row();
  if (parts == 0 || per == 0) return;
  const int64_t block = blocks ? RowBlock(per, parts) : parts;
  float* rows[N];
  for (size_t i = 0; i < N; ++i) {
    ctx.buf[i].resize(static_cast<size_t>(block * per));
    rows[i] = ctx.buf[i].data();
  }
  for (int64_t p = 0; p < parts; p += block) {
    const int64_t n = std::min(block, parts - p);
    for (size_t i = 0; i < N; ++i) in[i].Read(p, n, rows[i]);
    compute(static_cast<float* const*>(rows), p, n);
    out.Write(p, n, rows[0]);
  }
}

}  // namespace isa
}  // namespace nsim
