#pragma once
// Scalar: a Python number passed to an op (`x + 1e-6`, `x.pow(2)`): a double,
// an integer or a bool. Its kind matters for type promotion: a float scalar
// promotes an Int tensor to Float but leaves a BFloat16 tensor BFloat16.
#include <cstdint>
#include <ostream>

#include "backend/scalar_type.h"

namespace nsim {
namespace at {

class Scalar {
 public:
  enum class Kind : uint8_t { kDouble, kInt, kBool };

  Scalar(double v) : kind_(Kind::kDouble), d_(v) {}  // NOLINT: implicit like c10::Scalar
  Scalar(float v) : Scalar(static_cast<double>(v)) {}  // NOLINT
  Scalar(int v) : Scalar(static_cast<int64_t>(v)) {}  // NOLINT
  Scalar(int64_t v) : kind_(Kind::kInt), i_(v) {}  // NOLINT
  Scalar(bool v) : kind_(Kind::kBool), i_(v) {}  // NOLINT

  Kind kind() const { return kind_; }
  bool isFloatingPoint() const { return kind_ == Kind::kDouble; }
  bool isIntegral() const { return kind_ == Kind::kInt; }
  bool isBoolean() const { return kind_ == Kind::kBool; }
  double toDouble() const { return kind_ == Kind::kDouble ? d_ : static_cast<double>(i_); }
  int64_t toLong() const { return kind_ == Kind::kDouble ? static_cast<int64_t>(d_) : i_; }
  bool toBool() const { return kind_ == Kind::kDouble ? d_ != 0 : i_ != 0; }

  // The dtype a wrapped-number tensor of this scalar gets (PyTorch: double ->
  // default float dtype, int -> the integer type, here Int for want of Long).
  ScalarType type() const;

 private:
  Kind kind_;
  union {
    double d_;
    int64_t i_;
  };
};

std::ostream& operator<<(std::ostream& os, const Scalar& s);

}  // namespace at
}  // namespace nsim
