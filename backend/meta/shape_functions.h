#pragma once
// Shape functions: the output geometry, dtype and device of each op family,
// and every argument check with its PyTorch message. The Meta kernels are
// exactly these; the CPU kernels and the Neuron lowering call them first, so
// all backends agree on shapes, promotion and errors by construction.
//
//   TensorMeta m = BinaryMeta(a, b, Promotion::kResultType);
//   Tensor out = MakeOutput(m);   // allocated on m.device
#include <optional>
#include <string>
#include <vector>

#include "backend/scalar.h"
#include "backend/tensor.h"

namespace nsim {
namespace at {

struct TensorMeta {
  IntList sizes;
  ScalarType dtype;
  Device device;
};

// A contiguous tensor for `m` (on a Meta device: no data).
Tensor MakeOutput(const TensorMeta& m);

// Device an op's output lives on: that of the first tensor that is not a 0-dim
// CPU tensor (those are scalars, valid with any device), else CPU.
Device OutputDevice(std::initializer_list<const Tensor*> inputs);

// --- pointwise ---
enum class Promotion {
  kResultType,  // result_type of the operands (add, mul, maximum)
  kIntToFloat,  // as kResultType, then integral -> Float (true division)
  kNoBool,      // as kResultType, Bool operands rejected as PyTorch's sub does
  kCompare,     // Bool result, computed in the operands' result type (eq, lt, ...)
  kLogical,     // Bool result of the operands' truth (logical_and, ...)
};
TensorMeta BinaryMeta(const Tensor& a, const Tensor& b, Promotion p);
// The type a binary op computes in: the result's, or for a Bool-valued op
// (kCompare, kLogical) the operands' result type.
ScalarType BinaryComputeType(const Tensor& a, const Tensor& b, Promotion p);
// Whether the op's result is Bool whatever its operands.
inline bool IsBoolValued(Promotion p) { return p == Promotion::kCompare || p == Promotion::kLogical; }
TensorMeta PowMeta(const Tensor& self, const Scalar& exponent);

enum class UnaryKind {
  kKeep,        // same dtype (abs, relu)
  kNoBool,      // same dtype, Bool rejected (neg)
  kIntToFloat,  // integral -> Float (exp, sqrt, rsqrt, tanh, ...)
  kFloatOnly,   // floating dtypes only (silu, gelu)
  kToBool,      // Bool result of any dtype, computed in the input's (logical_not, isnan)
};
// Each unary op's promotion rule, declared once for the CPU, Meta and device
// kernels: unary::kName for each op of backend/unary_ops.def, and gelu's.
struct UnarySpec {
  const char* name;
  UnaryKind kind;
};
namespace unary {
#define NSIM_UNARY_OP(name, Name, kind, ...) inline constexpr UnarySpec k##Name{#name, UnaryKind::kind};
#include "backend/unary_ops.def"
inline constexpr UnarySpec kGelu{"gelu", UnaryKind::kFloatOnly};
}  // namespace unary
TensorMeta UnaryMeta(const UnarySpec& spec, const Tensor& self);
// gelu's `approximate`: true for "tanh", false for "none", PyTorch's error
// otherwise. GeluMeta checks it, so eager, compile() (which traces through
// the Meta kernels) and the lowering all reject the same arguments.
bool IsGeluTanh(const std::string& approximate);
TensorMeta GeluMeta(const Tensor& self, const std::string& approximate);

// where.self: a Bool condition; the result is result_type(self, other) in
// the three operands' broadcast shape.
TensorMeta WhereMeta(const Tensor& condition, const Tensor& self, const Tensor& other);

// --- reductions ---
struct ReduceMetaResult {
  TensorMeta out;
  std::vector<bool> reduced;  // per input dim
  IntList keepdim_sizes;      // input sizes with reduced dims set to 1
  int64_t count;              // elements reduced into each output element
};
// kSum: integral inputs give Int64; kMean, kVar: floating outputs only;
// kExtremum (amax, amin, max.dim): the input's dtype, no empty reduced dim.
enum class ReduceKind { kSum, kMean, kExtremum, kVar };
// `dims` absent or empty reduces every dim. `dtype` overrides the output dtype.
ReduceMetaResult ReduceMeta(const char* op, const Tensor& self, const std::optional<IntList>& dims,
                            bool keepdim, std::optional<ScalarType> dtype, ReduceKind kind);

// argmax / argmin: an Int64 result over `dim` (every dim when absent; an
// empty input needs a dim); the dim may not be empty. `op` names errors.
ReduceMetaResult ArgReduceMeta(const char* op, const Tensor& self, std::optional<int64_t> dim, bool keepdim);

// cumsum, cumprod: the input's shape; `dtype`, else Long for integral (and bool) inputs,
// else the input's dtype. Wraps `dim` (a 0-dim input takes 0 or -1).
TensorMeta CumsumMeta(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype, int64_t* wrapped);

// --- factories ---
// The number of elements of arange(start, end, step) into `dtype`, with
// ATen's checks and messages (RangeFactories.cpp: int64 counts in int64,
// every other dtype in double).
int64_t ArangeSize(const Scalar& start, const Scalar& end, const Scalar& step, ScalarType dtype);
// Throws unless `out` is 1-D with ArangeSize elements (nsim tensors do not resize).
void CheckArangeOut(const Scalar& start, const Scalar& end, const Scalar& step, const Tensor& out);

// --- linear algebra ---
TensorMeta MmMeta(const Tensor& self, const Tensor& mat2);
TensorMeta BmmMeta(const Tensor& self, const Tensor& mat2);

// --- neural-network functions ---
TensorMeta SoftmaxMeta(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype);
struct NormMetaResult {
  TensorMeta out;    // same shape and dtype as the input
  TensorMeta stat;   // per-row statistic: input.shape[:axis] + [1]*len(normalized), Float
  int64_t axis;      // first normalised dim
  int64_t rows, cols;
};
NormMetaResult NormMeta(const Tensor& input, const IntList& normalized_shape,
                        const std::optional<Tensor>& weight, const std::optional<Tensor>& bias);
// torch.finfo(dtype).eps: rms_norm's default epsilon (2^-7 for BFloat16,
// 2^-10 for Half, 2^-23 otherwise).
double RmsNormDefaultEps(ScalarType dtype);

// --- copies ---
// Checks that src broadcasts to dst ("output with shape [..] doesn't match the broadcast shape [..]").
void CopyMeta(const Tensor& dst, const Tensor& src);

}  // namespace at
}  // namespace nsim
