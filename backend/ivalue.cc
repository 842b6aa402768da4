#include "backend/ivalue.h"

#include "sim/base/error.h"

namespace nsim {
namespace at {

IValue::IValue(const Scalar& s) {
  switch (s.kind()) {
    case Scalar::Kind::kDouble: v_ = s.toDouble(); break;
    case Scalar::Kind::kInt: v_ = s.toLong(); break;
    case Scalar::Kind::kBool: v_ = s.toBool(); break;
  }
}

const char* IValue::tagName() const {
  static const char* const kNames[] = {"None",       "Tensor", "Double", "Int",   "Bool",
                                       "IntList",    "ScalarType", "Device", "String", "TensorList"};
  return kNames[v_.index()];
}

template <class T>
const T& IValue::Get(const char* want) const {
  const T* p = std::get_if<T>(&v_);
  if (p == nullptr) throw SimError(std::string("expected ") + want + " but got " + tagName());
  return *p;
}

const Tensor& IValue::toTensor() const { return Get<Tensor>("Tensor"); }
Tensor& IValue::toTensor() { return const_cast<Tensor&>(Get<Tensor>("Tensor")); }
double IValue::toDouble() const {
  if (isInt()) return static_cast<double>(std::get<int64_t>(v_));
  return Get<double>("Double");
}
int64_t IValue::toInt() const { return Get<int64_t>("Int"); }
bool IValue::toBool() const { return Get<bool>("Bool"); }
const IntList& IValue::toIntList() const { return Get<IntList>("IntList"); }
const std::vector<Tensor>& IValue::toTensorList() const { return Get<std::vector<Tensor>>("TensorList"); }
ScalarType IValue::toScalarType() const { return Get<ScalarType>("ScalarType"); }
Device IValue::toDevice() const { return Get<Device>("Device"); }
const std::string& IValue::toStringRef() const { return Get<std::string>("String"); }

Scalar IValue::toScalar() const {
  if (isDouble()) return Scalar(std::get<double>(v_));
  if (isInt()) return Scalar(std::get<int64_t>(v_));
  if (isBool()) return Scalar(std::get<bool>(v_));
  throw SimError(std::string("expected Scalar but got ") + tagName());
}

std::ostream& operator<<(std::ostream& os, const IValue& v) {
  if (v.isNone()) return os << "None";
  if (v.isTensor()) {
    const Tensor& t = v.toTensor();
    return os << ToString(t.dtype()) << ShapeToString(t.sizes());
  }
  if (v.isDouble()) return os << v.toDouble();
  if (v.isInt()) return os << v.toInt();
  if (v.isBool()) return os << (v.toBool() ? "True" : "False");
  if (v.isIntList()) return os << ShapeToString(v.toIntList());
  if (v.isTensorList()) {
    os << "[";
    for (size_t i = 0; i < v.toTensorList().size(); ++i) os << (i ? ", " : "") << IValue(v.toTensorList()[i]);
    return os << "]";
  }
  if (v.isScalarType()) return os << v.toScalarType();
  if (v.isDevice()) return os << v.toDevice();
  return os << "'" << v.toStringRef() << "'";
}

}  // namespace at
}  // namespace nsim
