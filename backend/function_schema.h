#pragma once
// FunctionSchema: an op's signature, parsed from the PyTorch schema string it
// is declared with once (ops_schema.cc), e.g.
//
//   "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"
//
// Supported argument types: Tensor, Tensor?, Scalar, Scalar?, float, float?,
// int, int?, bool, int[] (also int[N]), int[]?, ScalarType, ScalarType?,
// Device, Device?, str, Tensor[]. Alias annotations (Tensor(a), Tensor(a!)) are parsed;
// (a!) marks an argument the op writes (Tensor(a!)[]: every tensor of the
// list). Returns are Tensors, or none: "-> ()".
#include <optional>
#include <string>
#include <vector>

namespace nsim {
namespace at {

enum class ArgType : uint8_t {
  Tensor, OptionalTensor, Scalar, OptionalScalar, Float, OptionalFloat, Int, OptionalInt, Bool,
  IntList, OptionalIntList, ScalarType, OptionalScalarType, Device, OptionalDevice, String,
  TensorList,  // Tensor[]: one tensor per device for collectives (neuron::all_reduce_)
};
const char* ToString(ArgType t);  // schema spelling: "Tensor?", "int[]", ...

struct Argument {
  std::string name;
  ArgType type;
  bool kwarg_only = false;
  bool is_write = false;               // Tensor(a!)
  std::optional<std::string> default_value;  // as written in the schema
};

class FunctionSchema {
 public:
  FunctionSchema(std::string ns, std::string name, std::string overload,
                 std::vector<Argument> arguments, std::vector<Argument> returns);

  const std::string& ns() const { return ns_; }
  const std::string& name() const { return name_; }                 // "add"
  const std::string& overload_name() const { return overload_; }    // "Tensor"
  const std::string& qualified_name() const { return qualified_; }  // "aten::add"
  const std::string& full_name() const { return full_; }            // "aten::add.Tensor"
  const std::vector<Argument>& arguments() const { return arguments_; }
  const std::vector<Argument>& returns() const { return returns_; }
  std::string str() const;  // back to schema syntax

  // Ops that move data between devices take mixed devices on purpose
  // (copy_, _to_copy); for them the dispatcher neither checks devices nor
  // lifts CPU scalars. See Note [Scalar lifting] in dispatcher.cc.
  bool device_check() const { return device_check_; }
  void set_device_check(bool v) { device_check_ = v; }

 private:
  std::string ns_, name_, overload_, qualified_, full_;
  std::vector<Argument> arguments_;
  std::vector<Argument> returns_;
  bool device_check_ = true;
};

// Parses "name[.overload](args) -> returns" in namespace `ns`; throws a
// SimError quoting the schema on any syntax error or unknown type.
FunctionSchema ParseSchema(const std::string& ns, const std::string& text);

}  // namespace at
}  // namespace nsim
