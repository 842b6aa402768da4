// PyTorch's result_type table, including Python-number ("wrapped") operands.
#include "backend/test_util.h"
#include "backend/type_promotion.h"

namespace nsim {
namespace at {
namespace {

Tensor T(ScalarType t) { return zeros({2}, t); }
Tensor Zero(ScalarType t) { return zeros({}, t); }

TEST(TypePromotion, TensorTensor) {
  EXPECT_EQ(ResultType(T(kBFloat16), T(kHalf)), kFloat);
  EXPECT_EQ(ResultType(T(kBFloat16), T(kFloat)), kFloat);
  EXPECT_EQ(ResultType(T(kInt), T(kBFloat16)), kBFloat16);
  EXPECT_EQ(ResultType(T(kBool), T(kInt)), kInt);
  EXPECT_EQ(ResultType(T(kBool), T(kBool)), kBool);
}

TEST(TypePromotion, ZeroDimTensorsOnlyRaiseTheCategory) {
  EXPECT_EQ(ResultType(T(kBFloat16), Zero(kFloat)), kBFloat16);
  EXPECT_EQ(ResultType(T(kInt), Zero(kFloat)), kFloat);
  EXPECT_EQ(ResultType(T(kBool), Zero(kInt)), kInt);
  EXPECT_EQ(ResultType(Zero(kBFloat16), Zero(kHalf)), kFloat);
}

TEST(TypePromotion, WrappedNumbers) {
  EXPECT_EQ(ResultType(T(kBFloat16), Scalar(2.5)), kBFloat16);
  EXPECT_EQ(ResultType(T(kHalf), Scalar(2)), kHalf);
  EXPECT_EQ(ResultType(T(kInt), Scalar(2.5)), kFloat);
  EXPECT_EQ(ResultType(T(kInt), Scalar(2)), kInt);
  EXPECT_EQ(ResultType(T(kBool), Scalar(2)), kInt);
  EXPECT_EQ(ResultType(T(kBool), Scalar(true)), kBool);
  EXPECT_EQ(ResultType(Zero(kInt), Scalar(1.5)), kFloat);
  // A wrapped-number tensor counts like the scalar it came from.
  EXPECT_EQ(ResultType(T(kBFloat16), WrappedScalarTensor(1e-6)), kBFloat16);
  EXPECT_EQ(ResultType(Zero(kBFloat16), WrappedScalarTensor(1e-6)), kBFloat16);
}

TEST(TypePromotion, OpsApplyIt) {
  const Tensor x = ones({2}, kBFloat16);
  EXPECT_EQ((x * 2.5).dtype(), kBFloat16);
  EXPECT_EQ((x + 1e-6).dtype(), kBFloat16);
  EXPECT_EQ((1 - x).dtype(), kBFloat16);
  EXPECT_EQ(x.mul(Scalar(3)).dtype(), kBFloat16);
  EXPECT_EQ((x * ones({2}, kHalf)).dtype(), kFloat);
  EXPECT_EQ((arange(3) * 2.5).dtype(), kFloat);
  EXPECT_EQ((arange(3) * 2).dtype(), kInt);
  EXPECT_EQ((arange(3) / 2).dtype(), kFloat);  // true division
  EXPECT_EQ(arange(3).pow(2).dtype(), kInt);
  EXPECT_EQ(arange(3).pow(0.5).dtype(), kFloat);
  EXPECT_EQ(arange(3).exp().dtype(), kFloat);
  EXPECT_EQ(arange(3).neg().dtype(), kInt);
  EXPECT_EQ(arange(3).sum().dtype(), kInt);
  EXPECT_EQ(full({2}, true).sum().dtype(), kInt);
}

}  // namespace
}  // namespace at
}  // namespace nsim
