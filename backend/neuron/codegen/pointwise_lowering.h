#pragma once
// Lowering of one pointwise node or row reduction, for one tile, to engine
// instructions: VectorE for ALU ops, casts and reductions, ScalarE for the
// transcendental activations (see generate.h for the choices). Every
// intermediate step that the ATen op does not round (alpha * b, the pieces
// of a tanh-GELU) runs in an fp32 temporary, so the only rounding is the
// store into `dst`, of the node's tile dtype — what eager PyTorch does.
#include <vector>

#include "backend/neuron/codegen/graph.h"
#include "backend/neuron/codegen/scheduler.h"
#include "sim/kernel/kernel.h"

namespace nsim {
namespace neuron {
namespace codegen {

// A value within one tile: an immediate, a per-partition column [p, 1], or
// a full tile [p, f].
struct Operand {
  enum Kind { kImm, kColumn, kFull } kind = kImm;
  double imm = 0;
  AccessPattern ap;

  static Operand Imm(double v) { return {kImm, v, {}}; }
  static Operand Column(AccessPattern ap) { return {kColumn, 0, std::move(ap)}; }
  static Operand Full(AccessPattern ap) { return {kFull, 0, std::move(ap)}; }
};

// What node lowering needs from the stage it runs in, for the current tile.
class TileScope {
 public:
  virtual ~TileScope() = default;
  virtual Scheduler& sched() = 0;
  virtual int64_t partitions() const = 0;
  virtual int64_t cols() const = 0;  // free size of full operands
  virtual int64_t col0() const = 0;  // index of the tile's first column along the innermost dim
  // An fp32 scratch tile of the node being lowered: [p, cols] or [p, 1];
  // `slot` tells several temporaries of one node apart.
  virtual AccessPattern Temp(bool column, int slot) = 0;
};

// ScalarE activation: dst = func(src * scale + bias), optionally summing
// each row of the result into the [p, 1] column `acc`.
void EmitActivation(TileScope& s, const AccessPattern& dst, const AccessPattern& src, ActFunc func,
                    const Scalar& scale, const Scalar& bias, const AccessPattern& acc = {});
void EmitTensorScalar(TileScope& s, const AccessPattern& dst, const AccessPattern& src, AluOp op0,
                      const Scalar& s0, AluOp op1 = AluOp::kNone, const Scalar& s1 = {});
void EmitTensorTensor(TileScope& s, const AccessPattern& dst, const AccessPattern& a, const AccessPattern& b,
                      AluOp op);
void EmitCopy(TileScope& s, const AccessPattern& dst, const AccessPattern& src);  // VectorE, casting

// The activation function a unary node maps to directly, if any.
bool DirectActivation(OpKind kind, ActFunc* func);

// dst = node(in...) for a binary, unary, where or iota node (not kView/kConstant).
// `dst` is [p, 1] when no operand is full, else [p, cols].
void LowerPointwise(TileScope& s, const Node& node, const std::vector<Operand>& in, const AccessPattern& dst);

// dst[p, 1] = reduce(in) over the tile's columns (the whole row).
void LowerRowReduce(TileScope& s, const Node& node, const Operand& in, const AccessPattern& dst);

// Folds a binary node of two immediates on the host in fp32, as the
// engines would compute it, rounded to `round_to`.
double FoldBinary(const Node& node, double a, double b, DType round_to);

// Throws SimError unless the device computes `node` in its dtype.
void CheckSupported(const Node& node, DType input_dtype);

}  // namespace codegen
}  // namespace neuron
}  // namespace nsim
