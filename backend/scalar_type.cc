#include "backend/scalar_type.h"

#include "sim/base/error.h"

namespace nsim {
namespace at {
namespace {

struct TypeInfo {
  const char* name;
  const char* torch_name;
  int64_t size;
};

// Indexed by ScalarType; order must follow the enum.
constexpr TypeInfo kInfo[] = {
    {"Bool", "torch.bool", 1},          {"Byte", "torch.uint8", 1},
    {"Char", "torch.int8", 1},          {"Short", "torch.int16", 2},
    {"Int", "torch.int32", 4},          {"Long", "torch.int64", 8},
    {"Half", "torch.float16", 2},       {"BFloat16", "torch.bfloat16", 2},
    {"Float", "torch.float32", 4},      {"Undefined", "undefined", 0},
};

const TypeInfo& Info(ScalarType t) { return kInfo[static_cast<int>(t)]; }

}  // namespace

const char* ToString(ScalarType t) { return Info(t).name; }
const char* TorchDtypeName(ScalarType t) { return Info(t).torch_name; }
int64_t ElementSize(ScalarType t) { return Info(t).size; }

bool IsFloatingType(ScalarType t) {
  return t == kFloat || t == kBFloat16 || t == kHalf;
}

bool IsIntegralType(ScalarType t, bool include_bool) {
  return t == kByte || t == kChar || t == kShort || t == kInt || t == kLong || (include_bool && t == kBool);
}

ScalarType PromoteTypes(ScalarType a, ScalarType b) {
  if (a == ScalarType::Undefined || b == ScalarType::Undefined) return ScalarType::Undefined;
  if (a == b) return a;
  // The two 16-bit floats have no common 16-bit supertype (PyTorch: float32).
  if ((a == kHalf && b == kBFloat16) || (a == kBFloat16 && b == kHalf)) return kFloat;
  // uint8 and int8 neither holds the other: int16 holds both.
  if ((a == kByte && b == kChar) || (a == kChar && b == kByte)) return kShort;
  // Otherwise the enum is ordered along the lattice Bool < Byte, Char < Short < Int < Long < {Half, BFloat16} < Float.
  return a > b ? a : b;
}

DType ToSimDType(ScalarType t) {
  switch (t) {
    case kFloat: return DType::kF32;
    case kBFloat16: return DType::kBF16;
    case kHalf: return DType::kF16;
    case kInt: return DType::kI32;
    case kShort: return DType::kI16;
    case kChar: return DType::kI8;
    case kByte: return DType::kU8;
    case kBool: return DType::kBool;
    case kLong:
      throw SimError("dtype Long (int64) has no device element type: the engines compute int8 to int32 and floats; "
                     "int64 tensors are only copied and converted");
    default: throw SimError(std::string("dtype ") + ToString(t) + " has no device element type");
  }
}

std::ostream& operator<<(std::ostream& os, ScalarType t) { return os << ToString(t); }

}  // namespace at
}  // namespace nsim
