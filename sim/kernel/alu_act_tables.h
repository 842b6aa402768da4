#pragma once
// The one table of ALU operations and the one table of ScalarE activation
// functions. Everything else is expanded from them: the AluOp and ActFunc
// enums and their text-format names (instruction.h, kernel.cc: the parser and
// printer), the value kernels (sim/isa/value_kernel_loops.h), the cost
// classes (sim/isa/common.cc, activation.cc) and the Python frontend's
// nl.* names (`_nsim_core.alu_ops()` / `activation_funcs()`, read by
// python/nsim/nki/ops_table.py). Values are computed in fp32 (a, b: the
// operands; x: the activation's input after scale and bias).
//
// Integer-valued ops (bitwise_*, shifts) work on the operands' values as
// 32-bit two's-complement integers (values beyond int32 wrap, NaN is 0), as
// NumPy does on int32 arrays; comparisons and logical ops give 1.0 or 0.0.
#include <cmath>
#include <cstdint>

namespace nsim {
namespace alu_values {
// Internal linkage: the AVX2 value kernels include this too, and a copy of a
// helper compiled with their flags must never be the one the linker keeps
// for the rest of the program (tools/isa_symbols).
namespace {

inline int32_t AsInt32(float x) {
  if (!std::isfinite(x)) return 0;
  const double d = std::trunc(static_cast<double>(x));
  const double wrapped = std::fmod(d, 4294967296.0);  // exact in double for |d| < 2^53
  const int64_t w = static_cast<int64_t>(wrapped < 0 ? wrapped + 4294967296.0 : wrapped);
  return static_cast<int32_t>(static_cast<uint32_t>(w));
}
inline float Bool(bool b) { return b ? 1.0f : 0.0f; }
// max/min propagate NaN from either operand, as numpy.maximum/minimum do:
// NKI documents nl.maximum/minimum as "similar to numpy.maximum/minimum" and
// nl.max as numpy.max, and its CPU simulator (nki.simulate) computes them with
// NumPy (aws-neuron-sdk nki/api/nki/language/__init__.py, nki/guides/
// nki_simulator.rst). The hardware's own NaN behaviour is not documented.
// Written with `|` so the same expression folds GCC vectors lane by lane
// (value_kernel_loops.h).
template <class T>
inline T Maximum(T a, T b) { return (a < b) | (b != b) ? b : a; }
template <class T>
inline T Minimum(T a, T b) { return (b < a) | (b != b) ? b : a; }
inline bool Truthy(float x) { return x != 0.0f; }
inline float ShiftLeft(float a, float b) {
  return static_cast<float>(static_cast<int32_t>(static_cast<uint32_t>(AsInt32(a)) << (AsInt32(b) & 31)));
}
inline float ShiftRight(float a, float b) { return static_cast<float>(AsInt32(a) >> (AsInt32(b) & 31)); }

inline float Sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }
inline float Softplus(float x) { return x > 20.0f ? x : std::log1p(std::exp(x)); }
constexpr float kInvSqrt2 = 0.70710678118654752f;
constexpr float kInvSqrt2Pi = 0.39894228040143268f;  // 1 / sqrt(2 pi)
constexpr float kSqrt2OverPi = 0.79788456080286536f;
constexpr float kTwoOverSqrtPi = 1.12837916709551257f;
constexpr float kGeluSigmoidK = 1.702f;  // x * sigmoid(1.702 x): Hendrycks & Gimpel 2016, section 2
inline float GeluExact(float x) { return 0.5f * x * (1.0f + std::erf(x * kInvSqrt2)); }
inline float GeluTanh(float x) { return 0.5f * x * (1.0f + std::tanh(kSqrt2OverPi * (x + 0.044715f * x * x * x))); }
inline float GeluDx(float x) { return 0.5f * (1.0f + std::erf(x * kInvSqrt2)) + x * kInvSqrt2Pi * std::exp(-0.5f * x * x); }
inline float GeluSigmoidDx(float x) {
  const float s = Sigmoid(kGeluSigmoidK * x);
  return s + kGeluSigmoidK * x * s * (1.0f - s);
}
inline float SiluDx(float x) {
  const float s = Sigmoid(x);
  return s + x * s * (1.0f - s);
}
inline float Sign(float x) { return x > 0 ? 1.0f : (x < 0 ? -1.0f : 0.0f); }

}  // namespace
}  // namespace alu_values
}  // namespace nsim

// X(Enumerator, text name, nl name (NKI's nki.language op), commutative,
//   runs at VectorE's reciprocal rate, value of a <op> b)
// Text names of the original nine stay as they were (kernels already say
// "max", "pow"); new ones are NKI's nl names. kBypass passes a through.
#define NSIM_ALU_OP_TABLE(X)                                                                        \
  X(kAdd, "add", "add", true, false, a + b)                                                         \
  X(kSub, "subtract", "subtract", false, false, a - b)                                              \
  X(kMul, "multiply", "multiply", true, false, a * b)                                               \
  X(kMax, "max", "maximum", true, false, alu_values::Maximum(a, b))                                 \
  X(kMin, "min", "minimum", true, false, alu_values::Minimum(a, b))                                 \
  X(kDivide, "divide", "divide", false, true, a / b)                                                \
  X(kPow, "pow", "power", false, true, std::pow(a, b))                                              \
  X(kBypass, "bypass", "", false, false, a)                                                         \
  X(kEqual, "equal", "equal", true, false, alu_values::Bool(a == b))                                \
  X(kNotEqual, "not_equal", "not_equal", true, false, alu_values::Bool(a != b))                     \
  X(kGreater, "greater", "greater", false, false, alu_values::Bool(a > b))                          \
  X(kGreaterEqual, "greater_equal", "greater_equal", false, false, alu_values::Bool(a >= b))         \
  X(kLess, "less", "less", false, false, alu_values::Bool(a < b))                                   \
  X(kLessEqual, "less_equal", "less_equal", false, false, alu_values::Bool(a <= b))                 \
  X(kLogicalAnd, "logical_and", "logical_and", true, false,                                         \
    alu_values::Bool(alu_values::Truthy(a) && alu_values::Truthy(b)))                               \
  X(kLogicalOr, "logical_or", "logical_or", true, false,                                            \
    alu_values::Bool(alu_values::Truthy(a) || alu_values::Truthy(b)))                               \
  X(kLogicalXor, "logical_xor", "logical_xor", true, false,                                         \
    alu_values::Bool(alu_values::Truthy(a) != alu_values::Truthy(b)))                               \
  X(kBitwiseAnd, "bitwise_and", "bitwise_and", true, false,                                         \
    static_cast<float>(alu_values::AsInt32(a) & alu_values::AsInt32(b)))                            \
  X(kBitwiseOr, "bitwise_or", "bitwise_or", true, false,                                            \
    static_cast<float>(alu_values::AsInt32(a) | alu_values::AsInt32(b)))                            \
  X(kBitwiseXor, "bitwise_xor", "bitwise_xor", true, false,                                         \
    static_cast<float>(alu_values::AsInt32(a) ^ alu_values::AsInt32(b)))                            \
  X(kLeftShift, "left_shift", "left_shift", false, false, alu_values::ShiftLeft(a, b))              \
  X(kRightShift, "right_shift", "right_shift", false, false, alu_values::ShiftRight(a, b))          \
  X(kAbsMax, "abs_max", "", true, false, std::fmax(std::fabs(a), std::fabs(b)))                     \
  X(kMod, "mod", "mod", false, true, std::fmod(a, b))                                               \
  /* NKI's reverse0=/reverse1= flags (`operand op data`) on a non-commutative op: the same op with  */  \
  /* its operands swapped, at that op's rate; no nl name (the frontend picks them from reverse=).   */  \
  X(kRSub, "rsubtract", "", false, false, b - a)                                                    \
  X(kRDivide, "rdivide", "", false, true, b / a)                                                    \
  X(kRPow, "rpow", "", false, true, std::pow(b, a))                                                 \
  X(kRMod, "rmod", "", false, true, std::fmod(b, a))

// X(Enumerator, text name, nl name, activation-table set, value of func(x))
// Table sets: which ScalarE lookup table holds the function; changing set
// costs a table load (configs: scalar.table_load_cycles). Sets 0-4 are the
// neuron profiler's Activation.json names (S13 in
// shared/reference/trainium-architecture.md): 0 any table (never reloads),
// 1 natural_log_exp_and_others, 2 reciprocal_sqrt_and_small,
// 3 reciprocal_and_small, 4 gelu_and_others. Set 5 (trig: sin, cos,
// arctan) is assumed: S13 names no table for them, so they get their own.
// abs and sign are assumed to be in every table, like relu; softplus with
// exp and log; the gelu/silu derivatives, erf and mish with gelu.
#define NSIM_ACT_FUNC_TABLE(X)                                                                   \
  X(kIdentity, "identity", "identity", 0, x)                                                     \
  X(kExp, "exp", "exp", 1, std::exp(x))                                                          \
  X(kRsqrt, "rsqrt", "rsqrt", 2, 1.0f / std::sqrt(x))                                            \
  X(kSqrt, "sqrt", "sqrt", 2, std::sqrt(x))                                                      \
  X(kReciprocal, "reciprocal", "reciprocal", 3, 1.0f / x)                                        \
  X(kSilu, "silu", "silu", 4, x / (1.0f + std::exp(-x)))                                         \
  X(kGelu, "gelu", "gelu", 4, alu_values::GeluExact(x))                                          \
  X(kTanh, "tanh", "tanh", 4, std::tanh(x))                                                      \
  X(kSigmoid, "sigmoid", "sigmoid", 4, 1.0f / (1.0f + std::exp(-x)))                             \
  X(kSquare, "square", "square", 0, x * x)                                                       \
  X(kRelu, "relu", "relu", 0, (x > 0 ? x : 0.0f))                                                \
  X(kLog, "log", "log", 1, std::log(x))                                                          \
  X(kAbs, "abs", "abs", 0, std::fabs(x))                                                         \
  X(kSign, "sign", "sign", 0, alu_values::Sign(x))                                               \
  X(kSin, "sin", "sin", 5, std::sin(x))                                                          \
  X(kCos, "cos", "cos", 5, std::cos(x))                                                          \
  X(kArctan, "arctan", "arctan", 5, std::atan(x))                                                \
  X(kErf, "erf", "erf", 4, std::erf(x))                                                          \
  X(kErfDx, "erf_dx", "erf_dx", 4, alu_values::kTwoOverSqrtPi * std::exp(-x * x))                \
  X(kGeluApprxTanh, "gelu_apprx_tanh", "gelu_apprx_tanh", 4, alu_values::GeluTanh(x))            \
  X(kGeluApprxSigmoid, "gelu_apprx_sigmoid", "gelu_apprx_sigmoid", 4,                            \
    x * alu_values::Sigmoid(alu_values::kGeluSigmoidK * x))                                      \
  X(kGeluDx, "gelu_dx", "gelu_dx", 4, alu_values::GeluDx(x))                                     \
  X(kGeluApprxSigmoidDx, "gelu_apprx_sigmoid_dx", "gelu_apprx_sigmoid_dx", 4,                    \
    alu_values::GeluSigmoidDx(x))                                                                \
  X(kSiluDx, "silu_dx", "silu_dx", 4, alu_values::SiluDx(x))                                     \
  X(kSoftplus, "softplus", "softplus", 1, alu_values::Softplus(x))                               \
  X(kMish, "mish", "mish", 4, x * std::tanh(alu_values::Softplus(x)))
