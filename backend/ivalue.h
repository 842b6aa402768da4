#pragma once
// IValue: one boxed argument or result of a dispatched op, and Stack, the
// boxed calling convention (c10's IValue/Stack). Boxed kernels, fallbacks,
// observers and a tracer see every op's arguments through this one type,
// whatever the op's C++ signature.
//
//   Stack s = {IValue(x), IValue(Scalar(2.0))};
//   op.callBoxed(&s);             // s now holds the results
//   Tensor y = s[0].toTensor();
//
// A Scalar argument is stored as a double, int or bool; an absent optional
// (or an undefined Tensor) is None.
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <variant>
#include <vector>

#include "backend/device.h"
#include "backend/scalar.h"
#include "backend/scalar_type.h"
#include "backend/shape.h"
#include "backend/tensor.h"

namespace nsim {
namespace at {

class IValue {
 public:
  IValue() = default;  // None
  IValue(Tensor t) {  // NOLINT: implicit, as in c10
    if (t.defined()) v_ = std::move(t);
  }
  IValue(double d) : v_(d) {}                 // NOLINT
  IValue(int64_t i) : v_(i) {}                // NOLINT
  IValue(int i) : v_(static_cast<int64_t>(i)) {}  // NOLINT
  IValue(bool b) : v_(b) {}                   // NOLINT
  IValue(IntList l) : v_(std::move(l)) {}     // NOLINT
  IValue(std::vector<Tensor> l) : v_(std::move(l)) {}  // NOLINT: Tensor[]
  IValue(ScalarType t) : v_(t) {}             // NOLINT
  IValue(Device d) : v_(d) {}                 // NOLINT
  IValue(std::string s) : v_(std::move(s)) {}  // NOLINT
  IValue(const char* s) : v_(std::string(s)) {}  // NOLINT: else it would become a bool
  IValue(const Scalar& s);                    // NOLINT
  template <class T>
  IValue(const std::optional<T>& o) {  // NOLINT
    if (o) *this = IValue(*o);
  }

  bool isNone() const { return v_.index() == 0; }
  bool isTensor() const { return std::holds_alternative<Tensor>(v_); }
  bool isDouble() const { return std::holds_alternative<double>(v_); }
  bool isInt() const { return std::holds_alternative<int64_t>(v_); }
  bool isBool() const { return std::holds_alternative<bool>(v_); }
  bool isScalar() const { return isDouble() || isInt() || isBool(); }
  bool isIntList() const { return std::holds_alternative<IntList>(v_); }
  bool isTensorList() const { return std::holds_alternative<std::vector<Tensor>>(v_); }
  bool isScalarType() const { return std::holds_alternative<ScalarType>(v_); }
  bool isDevice() const { return std::holds_alternative<Device>(v_); }
  bool isString() const { return std::holds_alternative<std::string>(v_); }

  // Accessors throw "expected Tensor but got Int" on a type mismatch.
  const Tensor& toTensor() const;
  Tensor& toTensor();
  double toDouble() const;  // also accepts Int
  int64_t toInt() const;
  bool toBool() const;
  Scalar toScalar() const;
  const IntList& toIntList() const;
  const std::vector<Tensor>& toTensorList() const;
  ScalarType toScalarType() const;
  Device toDevice() const;
  const std::string& toStringRef() const;

  const char* tagName() const;  // "None", "Tensor", "Double", ...

 private:
  template <class T> const T& Get(const char* want) const;
  std::variant<std::monostate, Tensor, double, int64_t, bool, IntList, ScalarType, Device,
               std::string, std::vector<Tensor>>
      v_;
};

using Stack = std::vector<IValue>;

// Prints like a schema argument: tensors as "BFloat16[4, 512]", lists as "[-1]".
std::ostream& operator<<(std::ostream& os, const IValue& v);

}  // namespace at
}  // namespace nsim
