#pragma once
// Graph: the small dataflow description the codegen turns into ONE kernel
// (generate.h). Nodes are added in topological order and each produces one
// value with a logical shape and the dtype it is rounded to — the dtype the
// equivalent ATen op would return, so that a graph of eager ops computes
// exactly what running them one by one computes (see GenerateOptions).
//
//   Graph g;
//   ValueId x = g.Input("x", TensorDesc::Contiguous(DType::kBF16, {4, 512}));
//   ValueId w = g.Input("w", TensorDesc::Contiguous(DType::kBF16, {512}));
//   ValueId ms = g.RowReduce(OpKind::kRowMean, g.Binary(OpKind::kMul, x, x, DType::kBF16), DType::kBF16);
//   ValueId r = g.Unary(OpKind::kRsqrt, g.Binary(OpKind::kAdd, ms, g.Constant(1e-6), DType::kBF16), DType::kBF16);
//   g.Output(g.Binary(OpKind::kMul, g.Binary(OpKind::kMul, x, r, DType::kBF16), w, DType::kBF16),
//            "y", TensorDesc::Contiguous(DType::kBF16, {4, 512}));
//
// Shapes follow PyTorch: binary ops broadcast (numpy rules), row reductions
// reduce the innermost dim and keep it as size 1 ([R, C] -> [R, 1], which then
// broadcasts back along the row), matmul is [..., M, K] @ [K, N] or batched
// [B..., M, K] @ [B..., K, N]. Every builder checks shapes and dtypes and
// throws SimError naming the op; dtypes the device cannot compute in are
// rejected when the kernel is generated, naming the op and the dtype.
#include <cstdint>
#include <string>
#include <vector>

#include "backend/neuron/codegen/tensor_desc.h"
#include "sim/base/dtype.h"

namespace nsim {
namespace neuron {
namespace codegen {

using ValueId = int;  // index of the node producing the value

enum class OpKind : uint8_t {
  // Leaves.
  kInput,     // an HBM tensor (TensorDesc), bound by name when the kernel runs
  kConstant,  // a number known when generating (an immediate in the kernel)
  // Pointwise binary, with broadcasting: one per op of backend/binary_ops.def.
  // add/sub compute a + alpha * b.
#define NSIM_BINARY_OP(name, Name, ...) k##Name,
#include "backend/binary_ops.def"
  // Pointwise unary: one per op of backend/unary_ops.def, then the kinds
  // of ops declared elsewhere. IsUnary() is every kind after the binary
  // ones up to kCast.
#define NSIM_UNARY_OP(name, Name, ...) k##Name,
#include "backend/unary_ops.def"
  kSquare,
  kGelu,      // erf form (approximate='none')
  kGeluTanh,  // tanh form (approximate='tanh')
  kPowScalar, // a ** scalar
  kCast,      // to the node's dtype (rounding as a store does)
  // Pointwise select, with broadcasting: inputs (condition, a, b), the
  // result a where the condition is non-zero, else b (aten::where.self).
  kWhere,
  // Metadata only: the same elements with size-1 dims added or removed
  // (unsqueeze / squeeze / keepdim=False).
  kView,
  // A leaf computed on the chip (GpSimd iota): scalar + step * i, i the
  // index along the innermost dim, in double rounded to the node's dtype
  // (the same for every row). arange, and the column index argmax needs.
  kIota,
  // Row reductions over the innermost dim, which is kept with size 1.
  // (backend/reduction_ops.def: kRowSum, kRowMean, kRowAmax, ...).
#define NSIM_REDUCTION_OP(name, Name, ...) kRow##Name,
#include "backend/reduction_ops.def"
  // Running sum / product along the innermost dim (same shape): one VectorE
  // tensor_tensor_scan per row tile, carried in fp32 (aten::cumsum, cumprod).
  kRowCumsum,
  kRowCumprod,
  // Matrix product on TensorE, accumulated in fp32.
  kMatmul,
};
const char* OpKindName(OpKind k);  // "add", "row_mean", "matmul", ...
bool IsBinary(OpKind k);
bool IsUnary(OpKind k);            // includes kPowScalar and kCast
bool IsRowReduce(OpKind k);
bool IsRowScan(OpKind k);          // kRowCumsum, kRowCumprod: whole rows, as a reduction
// The floating element types a graph value takes (every type but the integers and bool).
bool IsFloat(DType t);
bool IsPointwise(OpKind k);        // binary, unary, where, constant, view or iota

struct Node {
  OpKind kind = OpKind::kInput;
  std::vector<ValueId> inputs;
  DType dtype = DType::kF32;
  std::vector<int64_t> sizes;  // logical shape of the result
  double scalar = 0;           // alpha (add/sub), exponent (pow), value (constant), base (iota)
  double step = 0;             // kIota: the difference of consecutive elements
  std::string name;            // kInput: the HBM tensor's name in the kernel
  TensorDesc desc;             // kInput: the view read
};

// A value written to HBM. `desc` gives the layout written (any strides, e.g.
// a slice of a bigger tensor); its sizes must equal the value's, up to
// size-1 dims (a keepdim=False reduction writes [R] from an [R, 1] value).
struct GraphOutput {
  ValueId value = -1;
  std::string name;
  TensorDesc desc;
};

class Graph {
 public:
  ValueId Input(const std::string& name, const TensorDesc& desc);
  ValueId Constant(double value, DType dtype = DType::kF32);
  // A kind of backend/binary_ops.def; `alpha` scales b for kAdd/kSub (a + alpha * b).
  ValueId Binary(OpKind kind, ValueId a, ValueId b, DType out, double alpha = 1.0);
  // kNeg .. kGeluTanh (not kPowScalar / kCast, which have their own builders).
  ValueId Unary(OpKind kind, ValueId a, DType out);
  ValueId Pow(ValueId a, double exponent, DType out);
  ValueId Cast(ValueId a, DType out);
  // cond ? a : b elementwise, the three broadcast together.
  ValueId Where(ValueId cond, ValueId a, ValueId b, DType out);
  ValueId View(ValueId a, std::vector<int64_t> sizes);
  // base + step * i along the innermost dim of `sizes` (at least one dim).
  ValueId Iota(std::vector<int64_t> sizes, double base, double step, DType out);
  // kRowSum, kRowMean, kRowAmax, ...
  ValueId RowReduce(OpKind kind, ValueId a, DType out);
  // kRowCumsum, kRowCumprod: the shape of `a`.
  ValueId RowScan(OpKind kind, ValueId a, DType out);
  ValueId Matmul(ValueId a, ValueId b, DType out);
  void Output(ValueId v, const std::string& name, const TensorDesc& desc);

  const std::vector<Node>& nodes() const { return nodes_; }
  const std::vector<GraphOutput>& outputs() const { return outputs_; }
  const Node& node(ValueId v) const;
  // Values that read `v` (as node inputs), in node order.
  std::vector<ValueId> Users(ValueId v) const;
  // A one-line-per-node description, for error messages and cache keys.
  std::string ToString() const;

 private:
  ValueId Add(Node n);
  // A node over whole rows of `a` (a scan or a reduction), its sizes those of `a`.
  Node RowNode(OpKind kind, bool kind_ok, const char* what, ValueId a, DType out) const;
  void CheckValue(ValueId v, const char* op) const;
  void CheckName(const std::string& name) const;
  std::vector<Node> nodes_;
  std::vector<GraphOutput> outputs_;
};

// PyTorch broadcasting of two shapes; throws SimError naming `op` when they
// do not broadcast.
std::vector<int64_t> BroadcastSizes(const std::vector<int64_t>& a, const std::vector<int64_t>& b,
                                    const char* op);

}  // namespace codegen
}  // namespace neuron
}  // namespace nsim
