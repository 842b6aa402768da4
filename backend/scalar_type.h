#pragma once
// ScalarType: the element types a Tensor can hold, named as in ATen
// (torch.float32 is ScalarType::Float, and so on), with the PyTorch
// promotion lattice. Storage formats of the 16-bit floats are shared with the
// hardware model (sim/base/dtype.h) so that host and device round alike.
//
//   PromoteTypes(ScalarType::BFloat16, ScalarType::Half) == ScalarType::Float
#include <cstdint>
#include <ostream>

#include "sim/base/dtype.h"

namespace nsim {
namespace at {

enum class ScalarType : int8_t { Bool, Int, Half, BFloat16, Float, Undefined };

constexpr ScalarType kBool = ScalarType::Bool;
constexpr ScalarType kInt = ScalarType::Int;
constexpr ScalarType kHalf = ScalarType::Half;
constexpr ScalarType kBFloat16 = ScalarType::BFloat16;
constexpr ScalarType kFloat = ScalarType::Float;

const char* ToString(ScalarType t);       // "Float", "BFloat16", ... (ATen's names)
const char* TorchDtypeName(ScalarType t);  // "torch.float32", ... (what Python prints)
int64_t ElementSize(ScalarType t);
bool IsFloatingType(ScalarType t);
bool IsIntegralType(ScalarType t, bool include_bool);

// PyTorch's promoteTypes for the supported types; Undefined if either is.
ScalarType PromoteTypes(ScalarType a, ScalarType b);

// The hardware model's element type (Bool: one byte, 0 or 1).
DType ToSimDType(ScalarType t);

// The dtype Python floats take (torch.get_default_dtype()).
constexpr ScalarType kDefaultFloat = ScalarType::Float;

std::ostream& operator<<(std::ostream& os, ScalarType t);

}  // namespace at
}  // namespace nsim
