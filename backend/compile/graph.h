#pragma once
// Graph: what compile() captures from a function, shaped like an FX graph
// after AOTAutograd (ATen ops, no Python): placeholders (the region's
// inputs), call nodes (one ATen op each, with its schema and its arguments,
// scalars included) and the output list. Every value carries the metadata
// the Meta kernels inferred for it, so later passes never run anything.
//
//   Graph g;
//   int x = g.AddPlaceholder("arg0", meta);
//   int y = g.AddCall(op, {Arg::Value(x), Arg::Value(x)}, {out_meta}, "mul")[0];
//   g.SetOutputs({y});
//   std::cout << FormatGraph(g);   // graph_printer.h
#include <string>
#include <vector>

#include "backend/dispatcher.h"
#include "backend/ivalue.h"
#include "backend/tensor.h"

namespace nsim {
namespace compiler {

// Shape, layout, dtype and device of one value (a FakeTensor's metadata).
struct ValueMeta {
  at::IntList sizes;
  at::IntList strides;
  int64_t storage_offset = 0;
  at::ScalarType dtype = at::ScalarType::Undefined;
  at::Device device;

  static ValueMeta Of(const at::Tensor& t);
  int64_t numel() const { return at::Numel(sizes); }
  bool is_contiguous() const { return at::IsContiguous(sizes, strides); }
};
bool operator==(const ValueMeta& a, const ValueMeta& b);
inline bool operator!=(const ValueMeta& a, const ValueMeta& b) { return !(a == b); }

// One argument of a call node.
struct Arg {
  enum class Kind : uint8_t {
    kValue,         // a graph value (placeholder or call output)
    kConstant,      // anything that is not a tensor: Scalar, int[], ScalarType, None, ...
    kScalarTensor,  // a 0-dim CPU tensor, e.g. the wrapped number of `x + 1e-6`: an immediate
  };
  Kind kind = Kind::kConstant;
  int value = -1;     // kValue
  at::IValue constant;  // kConstant; kScalarTensor holds the tensor itself

  static Arg Value(int v) { return Arg{Kind::kValue, v, {}}; }
  static Arg Constant(at::IValue c) { return Arg{Kind::kConstant, -1, std::move(c)}; }
  static Arg ScalarTensor(at::Tensor t) { return Arg{Kind::kScalarTensor, -1, at::IValue(std::move(t))}; }
  bool is_value() const { return kind == Kind::kValue; }
  // The number a kScalarTensor stands for.
  double scalar_value() const;
};

class Graph {
 public:
  struct Value {
    std::string name;  // unique in the graph: "mul", "mul_1", "arg0"
    ValueMeta meta;
    int producer = -1;      // index into calls(), -1 for a placeholder
    int output_index = 0;   // which result of the producer
  };
  struct Placeholder {
    int value;
  };
  struct Call {
    at::OperatorHandle op;
    std::vector<Arg> args;     // one per schema argument, in schema order
    std::vector<int> outputs;  // one value per schema return
  };

  // Returns the new value.
  int AddPlaceholder(const std::string& name, ValueMeta meta);
  // Returns the values of the op's results (names: `base`, then base_1, ...).
  std::vector<int> AddCall(at::OperatorHandle op, std::vector<Arg> args,
                           std::vector<ValueMeta> results, const std::string& base);
  // Removes the last call and its values (a traced op the backend refused).
  void PopCall();
  void SetOutputs(std::vector<int> outputs) { outputs_ = std::move(outputs); }

  const std::vector<Value>& values() const { return values_; }
  const Value& value(int v) const { return values_[v]; }
  const std::vector<Placeholder>& placeholders() const { return placeholders_; }
  const std::vector<Call>& calls() const { return calls_; }
  const std::vector<int>& outputs() const { return outputs_; }
  bool empty() const { return calls_.empty(); }

  // Calls that read each value, in call order (FX's node.users).
  std::vector<std::vector<int>> Users() const;

 private:
  std::string UniqueName(const std::string& base);
  std::vector<Value> values_;
  std::vector<Placeholder> placeholders_;
  std::vector<Call> calls_;
  std::vector<int> outputs_;
  std::vector<std::string> names_;
};

// The device a graph computes on: that of its first placeholder that is
// not on the CPU, else the CPU.
at::Device GraphDevice(const Graph& g);

}  // namespace compiler
}  // namespace nsim
