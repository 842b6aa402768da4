#include "backend/compile/graph.h"

#include <algorithm>

namespace nsim {
namespace compiler {

ValueMeta ValueMeta::Of(const at::Tensor& t) {
  return ValueMeta{t.sizes(), t.strides(), t.storage_offset(), t.dtype(), t.device()};
}

bool operator==(const ValueMeta& a, const ValueMeta& b) {
  return a.sizes == b.sizes && a.strides == b.strides && a.storage_offset == b.storage_offset &&
         a.dtype == b.dtype && a.device == b.device;
}

double Arg::scalar_value() const { return constant.toTensor().item().toDouble(); }

std::string Graph::UniqueName(const std::string& base) {
  // FX's naming: the first "mul", then "mul_1", "mul_2", ...
  const auto count = std::count(names_.begin(), names_.end(), base);
  names_.push_back(base);
  return count == 0 ? base : base + "_" + std::to_string(count);
}

int Graph::AddPlaceholder(const std::string& name, ValueMeta meta) {
  const int v = static_cast<int>(values_.size());
  values_.push_back(Value{UniqueName(name), std::move(meta), -1, 0});
  placeholders_.push_back(Placeholder{v});
  return v;
}

std::vector<int> Graph::AddCall(at::OperatorHandle op, std::vector<Arg> args,
                                std::vector<ValueMeta> results, const std::string& base) {
  const int call = static_cast<int>(calls_.size());
  std::vector<int> outs;
  for (size_t i = 0; i < results.size(); ++i) {
    outs.push_back(static_cast<int>(values_.size()));
    values_.push_back(Value{UniqueName(base), std::move(results[i]), call, static_cast<int>(i)});
  }
  calls_.push_back(Call{op, std::move(args), outs});
  return outs;
}

void Graph::PopCall() {
  const size_t n = calls_.back().outputs.size();
  values_.resize(values_.size() - n);
  names_.resize(names_.size() - n);
  calls_.pop_back();
}

std::vector<std::vector<int>> Graph::Users() const {
  std::vector<std::vector<int>> users(values_.size());
  for (size_t c = 0; c < calls_.size(); ++c) {
    for (const Arg& a : calls_[c].args) {
      if (a.is_value() && (users[a.value].empty() || users[a.value].back() != static_cast<int>(c))) {
        users[a.value].push_back(static_cast<int>(c));
      }
    }
  }
  return users;
}

at::Device GraphDevice(const Graph& g) {
  for (const Graph::Placeholder& p : g.placeholders()) {
    const at::Device d = g.value(p.value).meta.device;
    if (!d.is_cpu()) return d;
  }
  return at::Device(at::kCPU);
}

}  // namespace compiler
}  // namespace nsim
