#include "backend/scalar.h"

namespace nsim {
namespace at {

ScalarType Scalar::type() const {
  switch (kind_) {
    case Kind::kDouble: return kDefaultFloat;
    case Kind::kInt: return kInt;
    case Kind::kBool: return kBool;
  }
  return ScalarType::Undefined;
}

std::ostream& operator<<(std::ostream& os, const Scalar& s) {
  switch (s.kind()) {
    case Scalar::Kind::kDouble: return os << s.toDouble();
    case Scalar::Kind::kInt: return os << s.toLong();
    case Scalar::Kind::kBool: return os << (s.toBool() ? "True" : "False");
  }
  return os;
}

}  // namespace at
}  // namespace nsim
