#include "backend/compile/guards.h"

#include <cstdio>


namespace nsim {
namespace compiler {
namespace {

std::string Describe(const ValueMeta& m) {
  std::string out = std::string(at::ToString(m.dtype)) + at::ShapeToString(m.sizes) +
                    " stride=" + at::ShapeToString(m.strides);
  if (m.storage_offset != 0) out += " offset=" + std::to_string(m.storage_offset);
  return out + " " + m.device.str();
}

// Numbers compare by this text: type and full-precision value.
std::string ConstantText(const CallArg& a) {
  char buf[48];
  if (const auto* d = std::get_if<double>(&a)) {
    std::snprintf(buf, sizeof buf, "%.17g (float)", *d);
    return buf;
  }
  if (const auto* i = std::get_if<int64_t>(&a)) return std::to_string(*i) + " (int)";
  if (const auto* b = std::get_if<bool>(&a)) return *b ? "True" : "False";
  return "a tensor";
}

}  // namespace

Guards::Guards(const std::vector<CallArg>& args) {
  for (const CallArg& a : args) {
    if (const auto* t = std::get_if<at::Tensor>(&a)) {
      expected_.emplace_back(ValueMeta::Of(*t));
    } else {
      expected_.emplace_back(ConstantText(a));
    }
  }
}

std::optional<std::string> Guards::Check(const std::vector<CallArg>& args) const {
  if (args.size() != expected_.size()) {
    return "expected " + std::to_string(expected_.size()) + " arguments, got " + std::to_string(args.size());
  }
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string name = "arg" + std::to_string(i);
    if (const auto* want = std::get_if<ValueMeta>(&expected_[i])) {
      const auto* t = std::get_if<at::Tensor>(&args[i]);
      if (t == nullptr) return name + ": expected a tensor";
      const ValueMeta have = ValueMeta::Of(*t);
      if (have != *want) return name + ": " + Describe(have) + " != " + Describe(*want);
    } else if (ConstantText(args[i]) != std::get<std::string>(expected_[i])) {
      return name + ": " + ConstantText(args[i]) + " != " + std::get<std::string>(expected_[i]);
    }
  }
  return std::nullopt;
}

std::string Guards::ToString() const {
  std::string out;
  for (size_t i = 0; i < expected_.size(); ++i) {
    const std::string name = "arg" + std::to_string(i);
    if (const auto* m = std::get_if<ValueMeta>(&expected_[i])) {
      out += "TENSOR_MATCH " + name + " " + Describe(*m) + "\n";
    } else {
      out += "CONSTANT_MATCH " + name + " == " + std::get<std::string>(expected_[i]) + "\n";
    }
  }
  return out;
}

}  // namespace compiler
}  // namespace nsim
