#pragma once
// PyTorch's result_type: operands fall in three priority tiers (tensors with
// dims, 0-dim tensors, wrapped Python numbers); a lower tier only changes the
// result when its *category* (bool < integral < floating) is higher. So
//
//   bf16[4] * 2.5            -> BFloat16   (wrapped float, same category)
//   int32[4] * 2.5           -> Float      (wrapped float, higher category)
//   bf16[4] + float32 0-dim  -> BFloat16
//   int32[4] + float32 0-dim -> Float
//   bf16[4] + half[4]        -> Float
//
// A wrapped float counts as the default float dtype (Float).
#include "backend/scalar.h"
#include "backend/scalar_type.h"
#include "backend/tensor.h"

namespace nsim {
namespace at {

class ResultTypeState {
 public:
  void Update(const Tensor& t);
  void Update(const Scalar& s);  // a Python number: the wrapped tier
  ScalarType Result() const;

 private:
  ScalarType dim_ = ScalarType::Undefined;
  ScalarType zero_dim_ = ScalarType::Undefined;
  ScalarType wrapped_ = ScalarType::Undefined;
};

ScalarType ResultType(const Tensor& a, const Tensor& b);
ScalarType ResultType(const Tensor& a, const Scalar& b);

// Makes the 0-dim CPU tensor a Python number becomes (dtype Scalar::type()).
Tensor WrappedScalarTensor(const Scalar& s);

}  // namespace at
}  // namespace nsim
