#pragma once
// The loops behind value_kernels.h, written once and compiled twice: in
// value_kernels.cc (portable) and value_kernels_avx2.cc (-mavx2
// -ffp-contract=off, chosen when the host has AVX2). Everything here has
// internal linkage, so each file keeps its own build. Every loop computes
// each element (or, for folds and scans, each chain) with the same IEEE
// operations in the same order on both builds: no fast-math, no contraction
// into fused multiply-adds, and libm calls stay scalar.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "sim/isa/value_kernels.h"
#include "sim/kernel/kernel.h"

namespace nsim {
namespace isa {
namespace {
namespace loops {

// The element semantics are written once, as functors; the array loops below
// instantiate one loop per op.
struct Add { float operator()(float a, float b) const { return a + b; } };
struct Sub { float operator()(float a, float b) const { return a - b; } };
struct Mul { float operator()(float a, float b) const { return a * b; } };
struct Max { float operator()(float a, float b) const { return std::max(a, b); } };
struct Min { float operator()(float a, float b) const { return std::min(a, b); } };
struct Div { float operator()(float a, float b) const { return a / b; } };
struct Pow { float operator()(float a, float b) const { return std::pow(a, b); } };
struct First { float operator()(float a, float) const { return a; } };

// Calls body(Functor{}) with the functor of `op`.
template <class Body>
void WithAlu(AluOp op, Body&& body) {
  switch (op) {
    case AluOp::kAdd: return body(Add{});
    case AluOp::kSub: return body(Sub{});
    case AluOp::kMul: return body(Mul{});
    case AluOp::kMax: return body(Max{});
    case AluOp::kMin: return body(Min{});
    case AluOp::kDivide: return body(Div{});
    case AluOp::kPow: return body(Pow{});
    case AluOp::kBypass:
    case AluOp::kNone: return body(First{});
  }
  body(First{});
}

float Gelu(float x) { return 0.5f * x * (1.0f + std::erf(x * 0.70710678118654752f)); }

template <class F>
void MapRow(float* row, float scale, float bias, int64_t n, F f) {
  for (int64_t i = 0; i < n; ++i) row[i] = f(row[i] * scale + bias);
}

template <class F>
float Fold(const float* row, int64_t n, F f) {
  float acc = row[0];
  for (int64_t i = 1; i < n; ++i) acc = f(acc, row[i]);
  return acc;
}

// kLanes rows folded side by side: lane j holds row j's running value.
constexpr int kLanes = kReduceRowsSideBySide;
template <class F>
void FoldRows(const float* x, int64_t rows, int64_t n, float* out, F f) {
  int64_t r = 0;
  for (; r + kLanes <= rows; r += kLanes) {
    const float* base = x + r * n;
    float acc[kLanes];
    for (int j = 0; j < kLanes; ++j) acc[j] = base[j * n];
    for (int64_t i = 1; i < n; ++i)
      for (int j = 0; j < kLanes; ++j) acc[j] = f(acc[j], base[j * n + i]);
    for (int j = 0; j < kLanes; ++j) out[r + j] = acc[j];
  }
  for (; r < rows; ++r) out[r] = Fold(x + r * n, n, f);
}


void AluVector(AluOp op, float* a, const float* b, int64_t n) {
  WithAlu(op, [&](auto f) {
    for (int64_t i = 0; i < n; ++i) a[i] = f(a[i], b[i]);
  });
}

void ScanRow(AluOp op0, AluOp op1, float* a, const float* b, float initial, int64_t n) {
  WithAlu(op0, [&](auto f0) {
    WithAlu(op1, [&](auto f1) {
      float carry = initial;
      for (int64_t i = 0; i < n; ++i) a[i] = carry = f1(f0(a[i], carry), b[i]);
    });
  });
}

void AluScalar(AluOp op, float* a, float s, int64_t n) {
  WithAlu(op, [&](auto f) {
    for (int64_t i = 0; i < n; ++i) a[i] = f(a[i], s);
  });
}

void ActivateRow(ActFunc f, float* row, float scale, float bias, int64_t n) {
  switch (f) {
    case ActFunc::kIdentity: return MapRow(row, scale, bias, n, [](float x) { return x; });
    case ActFunc::kExp: return MapRow(row, scale, bias, n, [](float x) { return std::exp(x); });
    case ActFunc::kRsqrt: return MapRow(row, scale, bias, n, [](float x) { return 1.0f / std::sqrt(x); });
    case ActFunc::kSqrt: return MapRow(row, scale, bias, n, [](float x) { return std::sqrt(x); });
    case ActFunc::kReciprocal: return MapRow(row, scale, bias, n, [](float x) { return 1.0f / x; });
    case ActFunc::kSilu: return MapRow(row, scale, bias, n, [](float x) { return x / (1.0f + std::exp(-x)); });
    case ActFunc::kGelu: return MapRow(row, scale, bias, n, Gelu);
    case ActFunc::kTanh: return MapRow(row, scale, bias, n, [](float x) { return std::tanh(x); });
    case ActFunc::kSigmoid: return MapRow(row, scale, bias, n, [](float x) { return 1.0f / (1.0f + std::exp(-x)); });
    case ActFunc::kSquare: return MapRow(row, scale, bias, n, [](float x) { return x * x; });
    case ActFunc::kRelu: return MapRow(row, scale, bias, n, [](float x) { return x > 0 ? x : 0.0f; });
    case ActFunc::kLog: return MapRow(row, scale, bias, n, [](float x) { return std::log(x); });
  }
}

void ReduceRows(ReduceOp op, const float* x, int64_t rows, int64_t n, float* out) {
  switch (op) {
    case ReduceOp::kMax: return FoldRows(x, rows, n, out, Max{});
    case ReduceOp::kMin: return FoldRows(x, rows, n, out, Min{});
    case ReduceOp::kMean:
      FoldRows(x, rows, n, out, Add{});
      for (int64_t r = 0; r < rows; ++r) out[r] /= static_cast<float>(n);
      return;
    case ReduceOp::kSum: break;
  }
  FoldRows(x, rows, n, out, Add{});
}

float SumRow(const float* row, int64_t n) {
  float acc = 0.0f;
  for (int64_t i = 0; i < n; ++i) acc += row[i];
  return acc;
}


void IotaRow(double start, double step, int32_t n, float* row) {
  for (int32_t i = 0; i < n; ++i) row[i] = static_cast<float>(start + static_cast<double>(i) * step);
}

// This build's loops as a table (value_kernels.h).
constexpr value_kernels_internal::Table kThisBuild = {&AluVector, &AluScalar, &ActivateRow, &ReduceRows,
                                                       &SumRow,    &ScanRow,   &IotaRow};

}  // namespace loops
}  // namespace
}  // namespace isa
}  // namespace nsim
