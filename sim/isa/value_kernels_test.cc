// The value kernels the simulator calls (value_kernels.h, the build chosen
// for this host) and every build of them give the bits of a plain scalar
// reference, element by element, for every ALU op, activation function,
// reduction, scan and iota, on data with signed zeros, infinities, NaNs,
// subnormals and lengths with vector tails.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "sim/base/host_cpu.h"
#include "sim/isa/value_kernels.h"

namespace nsim {
namespace isa {
namespace {

// ---- the scalar reference: one element at a time, the ISA's definitions ----
// max/min propagate a NaN of either operand (numpy.maximum / minimum).
float RefMax(float a, float b) { return std::isnan(a) ? a : std::isnan(b) ? b : std::max(a, b); }
float RefMin(float a, float b) { return std::isnan(a) ? a : std::isnan(b) ? b : std::min(a, b); }

float RefAlu(AluOp op, float a, float b) {
  switch (op) {
    case AluOp::kAdd: return a + b;
    case AluOp::kSub: return a - b;
    case AluOp::kMul: return a * b;
    case AluOp::kMax: return RefMax(a, b);
    case AluOp::kMin: return RefMin(a, b);
    case AluOp::kDivide: return a / b;
    case AluOp::kPow: return std::pow(a, b);
    case AluOp::kBypass:
    case AluOp::kNone: return a;
    case AluOp::kEqual: return a == b ? 1.0f : 0.0f;
    case AluOp::kNotEqual: return a != b ? 1.0f : 0.0f;
    case AluOp::kGreater: return a > b ? 1.0f : 0.0f;
    case AluOp::kGreaterEqual: return a >= b ? 1.0f : 0.0f;
    case AluOp::kLess: return a < b ? 1.0f : 0.0f;
    case AluOp::kLessEqual: return a <= b ? 1.0f : 0.0f;
    case AluOp::kLogicalAnd: return (a != 0 && b != 0) ? 1.0f : 0.0f;
    case AluOp::kLogicalOr: return (a != 0 || b != 0) ? 1.0f : 0.0f;
    case AluOp::kLogicalXor: return ((a != 0) != (b != 0)) ? 1.0f : 0.0f;
    case AluOp::kBitwiseAnd: return static_cast<float>(alu_values::AsInt32(a) & alu_values::AsInt32(b));
    case AluOp::kBitwiseOr: return static_cast<float>(alu_values::AsInt32(a) | alu_values::AsInt32(b));
    case AluOp::kBitwiseXor: return static_cast<float>(alu_values::AsInt32(a) ^ alu_values::AsInt32(b));
    case AluOp::kLeftShift: return alu_values::ShiftLeft(a, b);
    case AluOp::kRightShift: return alu_values::ShiftRight(a, b);
    case AluOp::kAbsMax: return std::fmax(std::fabs(a), std::fabs(b));
    case AluOp::kMod: return std::fmod(a, b);
    case AluOp::kRSub: return b - a;
    case AluOp::kRDivide: return b / a;
    case AluOp::kRPow: return std::pow(b, a);
    case AluOp::kRMod: return std::fmod(b, a);
  }
  return a;
}

float RefAct(ActFunc f, float x) {
  switch (f) {
    case ActFunc::kIdentity: return x;
    case ActFunc::kExp: return std::exp(x);
    case ActFunc::kRsqrt: return 1.0f / std::sqrt(x);
    case ActFunc::kSqrt: return std::sqrt(x);
    case ActFunc::kReciprocal: return 1.0f / x;
    case ActFunc::kSilu: return x / (1.0f + std::exp(-x));
    case ActFunc::kGelu: return 0.5f * x * (1.0f + std::erf(x * 0.70710678118654752f));
    case ActFunc::kTanh: return std::tanh(x);
    case ActFunc::kSigmoid: return 1.0f / (1.0f + std::exp(-x));
    case ActFunc::kSquare: return x * x;
    case ActFunc::kRelu: return x > 0 ? x : 0.0f;
    case ActFunc::kLog: return std::log(x);
    case ActFunc::kAbs: return std::fabs(x);
    case ActFunc::kSign: return x > 0 ? 1.0f : (x < 0 ? -1.0f : 0.0f);
    case ActFunc::kSin: return std::sin(x);
    case ActFunc::kCos: return std::cos(x);
    case ActFunc::kArctan: return std::atan(x);
    case ActFunc::kErf: return std::erf(x);
    case ActFunc::kErfDx: return 1.12837916709551257f * std::exp(-x * x);
    case ActFunc::kGeluApprxTanh: return alu_values::GeluTanh(x);
    case ActFunc::kGeluApprxSigmoid: return x * alu_values::Sigmoid(1.702f * x);
    case ActFunc::kGeluDx: return alu_values::GeluDx(x);
    case ActFunc::kGeluApprxSigmoidDx: return alu_values::GeluSigmoidDx(x);
    case ActFunc::kSiluDx: return alu_values::SiluDx(x);
    case ActFunc::kSoftplus: return alu_values::Softplus(x);
    case ActFunc::kMish: return x * std::tanh(alu_values::Softplus(x));
  }
  return x;
}

float RefReduce(ReduceOp op, const float* row, int64_t n) {
  float acc = row[0];
  for (int64_t i = 1; i < n; ++i) {
    acc = op == ReduceOp::kMax ? RefMax(acc, row[i]) : op == ReduceOp::kMin ? RefMin(acc, row[i]) : acc + row[i];
  }
  return op == ReduceOp::kMean ? acc / static_cast<float>(n) : acc;
}

std::vector<float> Data(int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> dist(0.0f, 4.0f);
  const float specials[] = {0.0f, -0.0f, std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN(),
                            std::numeric_limits<float>::denorm_min(), 1e30f, -1e-30f, 1.0f, 0.5f};
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[i] = i % 7 == 3 ? specials[(i / 7) % 10] : dist(rng);
  return v;
}

// Same bits, except that a NaN only needs to be a NaN: when two NaNs meet in
// a commutative op (a + b with both NaN), x86 returns the first operand's,
// and the compiler may order the operands either way in either build.
void ExpectSameBits(const std::vector<float>& want, const std::vector<float>& got, const std::string& what) {
  ASSERT_EQ(want.size(), got.size());
  for (size_t i = 0; i < want.size(); ++i) {
    if (std::isnan(want[i]) && std::isnan(got[i])) continue;
    uint32_t w, g;
    std::memcpy(&w, &want[i], 4);
    std::memcpy(&g, &got[i], 4);
    ASSERT_EQ(w, g) << what << " element " << i << ": " << want[i] << " vs " << got[i];
  }
}

constexpr int64_t kN = 1037;  // not a multiple of any vector width

// One build (a table of entry points) against the reference.
void ExpectMatchesReference(const value_kernels_internal::Table& build, const std::string& name) {
  const std::vector<float> a = Data(kN, 1), b = Data(kN, 2);
  for (int o = 0; o < kNumAluOps; ++o) {
    const AluOp op = static_cast<AluOp>(o);
    std::vector<float> want(kN), got = a;
    for (int64_t i = 0; i < kN; ++i) want[i] = RefAlu(op, a[i], b[i]);
    build.alu_vector(op, got.data(), b.data(), kN);
    ExpectSameBits(want, got, name + " AluVector " + AluOpName(op));
    for (float s : {2.5f, -0.0f, std::numeric_limits<float>::quiet_NaN()}) {
      got = a;
      for (int64_t i = 0; i < kN; ++i) want[i] = RefAlu(op, a[i], s);
      build.alu_scalar(op, got.data(), s, kN);
      ExpectSameBits(want, got, name + " AluScalar " + AluOpName(op));
    }
    for (int o1 = 0; o1 < kNumAluOps; o1 += 3) {
      const AluOp op1 = static_cast<AluOp>(o1);
      float carry = 0.25f;
      for (int64_t i = 0; i < kN; ++i) want[i] = carry = RefAlu(op1, RefAlu(op, a[i], carry), b[i]);
      got = a;
      build.scan_row(op, op1, got.data(), b.data(), 0.25f, kN);
      ExpectSameBits(want, got, name + " ScanRow " + AluOpName(op) + " " + AluOpName(op1));
    }
  }
  for (int f = 0; f < kNumActFuncs; ++f) {
    const ActFunc func = static_cast<ActFunc>(f);
    std::vector<float> want(kN), got = a;
    for (int64_t i = 0; i < kN; ++i) want[i] = RefAct(func, a[i] * 1.5f + -0.25f);
    build.activate_row(func, got.data(), 1.5f, -0.25f, kN);
    ExpectSameBits(want, got, name + " ActivateRow " + ActFuncName(func));
    float sum = 0.0f;
    for (int64_t i = 0; i < kN; ++i) sum += want[i];
    ExpectSameBits({sum}, {build.sum_row(want.data(), kN)}, name + " SumRow");
  }
  for (int r = 0; r < kNumReduceOps; ++r) {
    const ReduceOp op = static_cast<ReduceOp>(r);
    for (int64_t rows : {1, 8, 16, 17, 41}) {  // FoldRows' groups of 16 and 8 rows and single rows
      const int64_t n = kN / rows;
      std::vector<float> want(rows), got(rows);
      for (int64_t row = 0; row < rows; ++row) want[row] = RefReduce(op, a.data() + row * n, n);
      build.reduce_rows(op, a.data(), rows, n, got.data());
      ExpectSameBits(want, got, name + " ReduceRows " + ReduceOpName(op));
    }
  }
  // (base, partition step, free step): fractions, then integer ramps (the
  // int32 path) up to and just past 2^24, with -0 and +0 bases and negative
  // steps: {-0, -1, -1} gives (-0 + 0 * -1) + 0 * -1 = -0 as its first value.
  const double kIotas[][3] = {{0.1, -7.25, 1.0 / 3.0}, {0, 1, 1}, {-0.0, -1, -1}, {-0.0, 0, -1}, {0, -1, -1},
                              {-0.0, 0, 1},
                              {16777216.0 - 4, 1, 1}, {16777216.0 - 2, 1, 1}, {-16777216.0 + 2, -1, -1},
                              {5, -300, 7}, {0.5, 1, 1}, {1, 1, 0.5},
                              {0, 0, 16777216.0}};  // integral steps, values past int32: the double path
  for (const auto& iota : kIotas) {
    for (int32_t n : {static_cast<int32_t>(kN), 5}) {  // rows longer than IotaRows' pass, and short ones
      for (int64_t parts : {1, 3}) {
        const int64_t stride = n + 2;
        std::vector<float> want(parts * stride, -1.0f), got(parts * stride, -1.0f);
        for (int64_t p = 0; p < parts; ++p) {
          const double start = iota[0] + static_cast<double>(p) * iota[1];
          for (int64_t i = 0; i < n; ++i) {
            want[p * stride + i] = static_cast<float>(start + static_cast<double>(i) * iota[2]);
          }
        }
        build.iota_rows(iota[0], iota[1], iota[2], parts, n, got.data(), stride);
        ExpectSameBits(want, got, name + " IotaRows");
      }
    }
  }
}

// What the simulator calls: value_kernels.h's entry points.
TEST(ValueKernelsTest, DispatchedKernelsMatchTheScalarReference) {
  const value_kernels_internal::Table dispatched = {&AluVector, &AluScalar, &ActivateRow, &ReduceRows,
                                                    &SumRow,    &ScanRow,   &IotaRows};
  ExpectMatchesReference(dispatched, "dispatched");
}

TEST(ValueKernelsTest, EveryBuildMatchesTheScalarReference) {
  ExpectMatchesReference(value_kernels_internal::kPortable, "portable");
  if (!HostHasAvx2Fma()) GTEST_SKIP() << "host without AVX2: the AVX2 build is not run";
  ExpectMatchesReference(value_kernels_internal::kAvx2, "avx2");
}

// The side-by-side row folds keep each row's left-to-right order.
TEST(ValueKernelsTest, ReduceRowsFoldsEachRowLeftToRight) {
  // Row r: 2^24, then r + 1 ones; left to right each 1 is lost to rounding.
  const int64_t rows = 11, n = 12;
  std::vector<float> x(rows * n, 0.0f);
  for (int64_t r = 0; r < rows; ++r) {
    x[r * n] = 16777216.0f;
    for (int64_t i = 1; i <= r + 1 && i < n; ++i) x[r * n + i] = 1.0f;
  }
  std::vector<float> out(rows);
  ReduceRows(ReduceOp::kSum, x.data(), rows, n, out.data());
  for (int64_t r = 0; r < rows; ++r) EXPECT_EQ(out[r], 16777216.0f) << r;
}

}  // namespace
}  // namespace isa
}  // namespace nsim
