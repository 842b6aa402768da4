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

// Ordered along PyTorch's promotion lattice (PromoteTypes relies on it):
// Bool < the integers by width < the 16-bit floats < Float.
enum class ScalarType : int8_t { Bool, Byte, Char, Short, Int, Long, Half, BFloat16, Float, Undefined };

constexpr ScalarType kBool = ScalarType::Bool;
constexpr ScalarType kByte = ScalarType::Byte;    // uint8
constexpr ScalarType kChar = ScalarType::Char;    // int8
constexpr ScalarType kShort = ScalarType::Short;  // int16
constexpr ScalarType kLong = ScalarType::Long;    // int64: held in HBM, no device element type
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

// The hardware model's element type (Bool: one byte, 0 or 1). Long has none:
// the engines compute in fp32 over 8- to 32-bit integers, and int64 tensors
// are only moved, or converted word by word (backend/neuron/ops/copy_ops.cc);
// it throws naming the dtype.
DType ToSimDType(ScalarType t);

// The dtype Python floats take (torch.get_default_dtype()).
constexpr ScalarType kDefaultFloat = ScalarType::Float;

std::ostream& operator<<(std::ostream& os, ScalarType t);

}  // namespace at
}  // namespace nsim
