#include "backend/type_promotion.h"

#include <cstdint>

#include "backend/empty_tensor.h"

namespace nsim {
namespace at {
namespace {

ScalarType PromoteSkipUndefined(ScalarType a, ScalarType b) {
  if (a == ScalarType::Undefined) return b;
  if (b == ScalarType::Undefined) return a;
  return PromoteTypes(a, b);
}

// c10's combine_categories: `higher` is the higher-priority tier.
ScalarType CombineCategories(ScalarType higher, ScalarType lower) {
  if (IsFloatingType(higher)) return higher;
  if (higher == kBool || IsFloatingType(lower)) return PromoteSkipUndefined(higher, lower);
  if (higher != ScalarType::Undefined) return higher;
  return lower;
}

}  // namespace

void ResultTypeState::Update(const Tensor& t) {
  if (!t.defined()) return;
  ScalarType current = t.dtype();
  if (t.unsafeGetTensorImpl()->is_wrapped_number()) {
    if (IsFloatingType(current)) current = kDefaultFloat;
    wrapped_ = PromoteSkipUndefined(wrapped_, current);
  } else if (t.dim() == 0) {
    zero_dim_ = PromoteSkipUndefined(zero_dim_, current);
  } else {
    dim_ = PromoteSkipUndefined(dim_, current);
  }
}

void ResultTypeState::Update(const Scalar& s) { wrapped_ = PromoteSkipUndefined(wrapped_, s.type()); }

ScalarType ResultTypeState::Result() const {
  return CombineCategories(dim_, CombineCategories(zero_dim_, wrapped_));
}

ScalarType ResultType(const Tensor& a, const Tensor& b) {
  ResultTypeState s;
  s.Update(a);
  s.Update(b);
  return s.Result();
}

ScalarType ResultType(const Tensor& a, const Scalar& b) {
  ResultTypeState s;
  s.Update(a);
  s.Update(b);
  return s.Result();
}

Tensor WrappedScalarTensor(const Scalar& s) {
  // An integer beyond int32 is held as int64 (as int32 it would wrap); a
  // wrapped number's dtype never promotes a tensor's, so results are the same.
  const bool wide = s.isIntegral() && (s.toLong() < INT32_MIN || s.toLong() > INT32_MAX);
  Tensor t = EmptyTensor({}, wide ? kLong : s.type(), Device(kCPU));
  switch (t.dtype()) {
    case kFloat: *static_cast<float*>(t.data_ptr()) = static_cast<float>(s.toDouble()); break;
    case kInt: *static_cast<int32_t*>(t.data_ptr()) = static_cast<int32_t>(s.toLong()); break;
    case kLong: *static_cast<int64_t*>(t.data_ptr()) = s.toLong(); break;
    default: *static_cast<bool*>(t.data_ptr()) = s.toBool(); break;
  }
  t.unsafeGetTensorImpl()->set_wrapped_number(true);
  return t;
}

}  // namespace at
}  // namespace nsim
