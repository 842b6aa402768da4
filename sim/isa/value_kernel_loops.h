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
#if defined(__AVX2__)
#include <immintrin.h>
#endif

#include "sim/isa/value_kernels.h"
#include "sim/kernel/kernel.h"

namespace nsim {
namespace isa {
namespace {
namespace loops {

// The reductions' folds: Add, Max and Min (the ALU ops' own functors come
// from alu_act_tables.h below). They also apply to GCC vectors of floats, lane by lane with
// the same expression (FoldRows' transposed folds); Max and Min are the ALU's
// NaN-propagating kMax and kMin.
struct Add { template <class T> T operator()(T a, T b) const { return a + b; } };
struct Max { template <class T> T operator()(T a, T b) const { return alu_values::Maximum(a, b); } };
struct Min { template <class T> T operator()(T a, T b) const { return alu_values::Minimum(a, b); } };
struct First { float operator()(float a, float) const { return a; } };

// One functor per ALU op of alu_act_tables.h (AluFn<AluOp::kX>), and
// body(Functor{}) called with the functor of `op`.
template <AluOp kOp>
struct AluFn;
#define NSIM_ALU_FUNCTOR(e, name, nl_name, commutative, reciprocal_rate, value) \
  template <>                                                                  \
  struct AluFn<AluOp::e> {                                                     \
    float operator()(float a, float b) const {                                 \
      (void)b;                                                                 \
      return value;                                                            \
    }                                                                          \
  };
NSIM_ALU_OP_TABLE(NSIM_ALU_FUNCTOR)
#undef NSIM_ALU_FUNCTOR

template <class Body>
void WithAlu(AluOp op, Body&& body) {
  switch (op) {
#define NSIM_ALU_CASE(e, name, nl_name, commutative, reciprocal_rate, value) \
  case AluOp::e: return body(AluFn<AluOp::e>{});
    NSIM_ALU_OP_TABLE(NSIM_ALU_CASE)
#undef NSIM_ALU_CASE
    case AluOp::kNone: return body(First{});
  }
  body(First{});
}

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

#if defined(__AVX2__)
// The 8 x 8 block of rows[j][i0 + c] (row j at rows + j * n), transposed:
// col[c] holds element i0 + c of rows 0..7.
inline void Transpose8x8(const float* rows, int64_t n, int64_t i0, __m256 col[8]) {
  __m256 t[8], s[8];
  for (int j = 0; j < 8; j += 2) {
    const __m256 a = _mm256_loadu_ps(rows + j * n + i0), b = _mm256_loadu_ps(rows + (j + 1) * n + i0);
    t[j] = _mm256_unpacklo_ps(a, b);      // a0 b0 a1 b1 | a4 b4 a5 b5
    t[j + 1] = _mm256_unpackhi_ps(a, b);  // a2 b2 a3 b3 | a6 b6 a7 b7
  }
  for (int h = 0; h < 8; h += 4) {  // rows 4h'.. of elements 0,4 / 1,5 / 2,6 / 3,7
    s[h] = _mm256_shuffle_ps(t[h], t[h + 2], 0x44);
    s[h + 1] = _mm256_shuffle_ps(t[h], t[h + 2], 0xee);
    s[h + 2] = _mm256_shuffle_ps(t[h + 1], t[h + 3], 0x44);
    s[h + 3] = _mm256_shuffle_ps(t[h + 1], t[h + 3], 0xee);
  }
  for (int c = 0; c < 4; ++c) {
    col[c] = _mm256_permute2f128_ps(s[c], s[c + 4], 0x20);
    col[c + 4] = _mm256_permute2f128_ps(s[c], s[c + 4], 0x31);
  }
}

// kGroups groups of 8 rows folded at once, each group one vector whose lane
// j holds row j's running value: blocks of 8 elements of the 8 rows are
// transposed and folded in element order, so each row still folds left to
// right with one operation per element. Vector folds instead of scalar ones;
// two groups keep two dependency chains in flight.
template <int kGroups, class F>
void FoldRowsTransposed(const float* x, int64_t n, float* out, F f) {
  __m256 acc[kGroups];
  for (int g = 0; g < kGroups; ++g) {
    const float* rows = x + g * 8 * n;
    acc[g] = _mm256_setr_ps(rows[0], rows[n], rows[2 * n], rows[3 * n], rows[4 * n], rows[5 * n], rows[6 * n],
                            rows[7 * n]);
  }
  int64_t i = 1;
  for (; i + 8 <= n; i += 8) {
    for (int g = 0; g < kGroups; ++g) {
      __m256 col[8];
      Transpose8x8(x + g * 8 * n, n, i, col);
      for (int c = 0; c < 8; ++c) acc[g] = f(acc[g], col[c]);
    }
  }
  for (int g = 0; g < kGroups; ++g) {
    float lane[8];
    _mm256_storeu_ps(lane, acc[g]);
    const float* rows = x + g * 8 * n;
    for (int64_t k = i; k < n; ++k)
      for (int j = 0; j < 8; ++j) lane[j] = f(lane[j], rows[j * n + k]);
    for (int j = 0; j < 8; ++j) out[g * 8 + j] = lane[j];
  }
}
#endif

// Rows folded side by side, each left to right from its first element: on
// AVX2 in transposed groups of 16 and 8; otherwise kLanes scalar lanes, lane
// j holding row j's running value.
constexpr int kLanes = 8;
template <class F>
void FoldRows(const float* x, int64_t rows, int64_t n, float* out, F f) {
  int64_t r = 0;
#if defined(__AVX2__)
  for (; r + 16 <= rows; r += 16) FoldRowsTransposed<2>(x + r * n, n, out + r, f);
  for (; r + 8 <= rows; r += 8) FoldRowsTransposed<1>(x + r * n, n, out + r, f);
#endif
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
#define NSIM_ACT_CASE(e, name, nl_name, table_set, value) \
  case ActFunc::e: return MapRow(row, scale, bias, n, [](float x) { return value; });
    NSIM_ACT_FUNC_TABLE(NSIM_ACT_CASE)
#undef NSIM_ACT_CASE
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


// Whether every value and intermediate of IotaRows' double expression is an
// integer of magnitude <= 2^24 (so exact in double and in fp32, and equal to
// the same sum in int32), and no value is -0: the expression gives -0 only
// from a base of -0 (start = +0 + -0 is +0, and x + -x rounds to +0).
bool IotaIsSmallIntegers(double base, double partition_step, double free_step, int64_t parts, int32_t n) {
  const auto integer = [](double x) { return std::fabs(x) <= 16777216.0 && x == std::trunc(x); };  // NaN: false
  if (!integer(base) || !integer(partition_step) || !integer(free_step) || (base == 0 && std::signbit(base))) {
    return false;
  }
  const double largest = std::fabs(base) + std::fabs(partition_step) * static_cast<double>(parts - 1) +
                         std::fabs(free_step) * static_cast<double>(std::max<int32_t>(n - 1, 0));
  return largest <= 16777216.0;
}

void IotaRows(double base, double partition_step, double free_step, int64_t parts, int32_t n, float* rows,
              int64_t stride) {
  if (IotaIsSmallIntegers(base, partition_step, free_step, parts, n)) {  // the usual index ramps: int32, exact
    const int32_t step = static_cast<int32_t>(free_step);
    for (int64_t p = 0; p < parts; ++p) {
      const int32_t start = static_cast<int32_t>(base + static_cast<double>(p) * partition_step);
      float* row = rows + p * stride;
      for (int32_t i = 0; i < n; ++i) row[i] = static_cast<float>(start + i * step);
    }
    return;
  }
  if (parts == 1) {  // nothing to share: the row's own loop (a [1, F] tile costs what it did)
    const double start = base + static_cast<double>(0) * partition_step;
    for (int32_t i = 0; i < n; ++i) rows[i] = static_cast<float>(start + static_cast<double>(i) * free_step);
    return;
  }
  constexpr int32_t kChunk = 512;  // elements per row per pass: the products fit L1 (4 KB)
  double products[kChunk];
  for (int32_t i0 = 0; i0 < n; i0 += kChunk) {
    const int32_t len = std::min(kChunk, n - i0);
    for (int32_t i = 0; i < len; ++i) products[i] = static_cast<double>(i0 + i) * free_step;
    for (int64_t p = 0; p < parts; ++p) {
      const double start = base + static_cast<double>(p) * partition_step;
      float* row = rows + p * stride + i0;
      for (int32_t i = 0; i < len; ++i) row[i] = static_cast<float>(start + products[i]);
    }
  }
}

// This build's loops as a table (value_kernels.h).
constexpr value_kernels_internal::Table kThisBuild = {&AluVector, &AluScalar, &ActivateRow, &ReduceRows,
                                                       &SumRow,    &ScanRow,   &IotaRows};

}  // namespace loops
}  // namespace
}  // namespace isa
}  // namespace nsim
