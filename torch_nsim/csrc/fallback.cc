#include "torch_nsim/csrc/fallback.h"

#include <ATen/native/CPUFallback.h>
#include <ATen/record_function.h>
#include <torch/library.h>

#include <map>
#include <set>

#include "backend/dispatcher.h"
#include "torch_nsim/csrc/bridge.h"

namespace torch_nsim {
namespace {

namespace nat = nsim::at;

bool g_cpu_fallback = false;

nat::IValue ToNsimArg(const c10::IValue& v, nat::ArgType type, const std::string& op) {
  using T = nat::ArgType;
  if (v.isNone()) return nat::IValue();
  switch (type) {
    case T::Tensor:
    case T::OptionalTensor: return nat::IValue(ToNsim(v.toTensor(), op));
    case T::Scalar:
    case T::OptionalScalar: {
      const c10::Scalar s = v.toScalar();
      if (s.isBoolean()) return nat::IValue(nat::Scalar(s.toBool()));
      if (s.isIntegral(false)) return nat::IValue(nat::Scalar(s.toLong()));
      return nat::IValue(nat::Scalar(s.toDouble()));
    }
    case T::Float:
    case T::OptionalFloat: return nat::IValue(v.toDouble());
    case T::Int:
    case T::OptionalInt: return nat::IValue(v.toInt());
    case T::Bool: return nat::IValue(v.toBool());
    case T::IntList:
    case T::OptionalIntList: {
      const std::vector<int64_t> l = v.toIntVector();
      return nat::IValue(nat::IntList(l.begin(), l.end()));
    }
    case T::ScalarType:
    case T::OptionalScalarType: return nat::IValue(ToNsim(v.toScalarType(), op));
    case T::Device:
    case T::OptionalDevice: return nat::IValue(ToNsim(v.toDevice()));
    case T::String: return nat::IValue(v.toStringRef());
  }
  TORCH_CHECK(false, op, ": unsupported argument type");
}

c10::IValue FromNsimResult(const nat::IValue& v) {
  if (v.isNone()) return c10::IValue();
  if (v.isTensor()) return FromNsim(v.toTensor());
  if (v.isDouble()) return v.toDouble();
  if (v.isInt()) return v.toInt();
  if (v.isBool()) return v.toBool();
  TORCH_CHECK(false, "torch_nsim: unsupported nsim result ", v.tagName());
}

// An argument torch has and the simulator's schema does not must be absent
// or its default: anything else would be silently ignored.
void CheckExtraArgument(const c10::Argument& a, const c10::IValue& v, const std::string& op) {
  if (v.isNone()) return;
  // The simulator's results are strided (dense) tensors in host-independent
  // memory, contiguous when freshly made: these arguments ask for exactly that.
  if (a.name() == "memory_format" && v.isInt() &&
      static_cast<c10::MemoryFormat>(v.toInt()) == c10::MemoryFormat::Contiguous) {
    return;
  }
  if (a.name() == "layout" && v.isInt() && static_cast<c10::Layout>(v.toInt()) == c10::kStrided) return;
  if (a.name() == "pin_memory" && v.isBool() && !v.toBool()) return;
  if (a.default_value().has_value()) {
    const c10::IValue& d = *a.default_value();
    if (d.isNone() ? v.isNone() : (d.tagKind() == v.tagKind() && d == v)) return;
  }
  TORCH_CHECK_NOT_IMPLEMENTED(false, op, " on neuron: argument '", a.name(), "' = ",
                              v.isTensor() ? std::string("a tensor") : c10::str(v),
                              " is not supported by the neuron kernel");
}

[[noreturn]] void ThrowNoKernel(const std::string& name) {
  TORCH_CHECK_NOT_IMPLEMENTED(false, name,
                              " has no neuron kernel (the simulated NeuronCore cannot run it). "
                              "torch_nsim.set_cpu_fallback(True) runs such ops on the CPU, with a warning.");
}

void CpuFallback(const c10::OperatorHandle& op, torch::jit::Stack* stack, const std::string& name) {
  TORCH_WARN("torch_nsim: ", name, " has no neuron kernel; running it on the CPU (cpu fallback enabled)");
  at::RecordFunction guard(at::RecordScope::USER_SCOPE);
  if (guard.isActive()) guard.before("neuron::cpu_fallback " + name);
  at::native::cpu_fallback(op, stack);
}

// The nsim op that implements torch op `name`, if any (nsim uses ATen's names).
const std::map<std::string, std::string>& Renamed() {
  static const auto* renamed = new std::map<std::string, std::string>{
      {"aten::_softmax", "aten::softmax.int"},
  };
  return *renamed;
}

std::optional<nat::OperatorHandle> FindNsimOp(const std::string& name) {
  auto it = Renamed().find(name);
  return nat::Dispatcher::Singleton().findSchema(it == Renamed().end() ? name : it->second);
}

bool HasNeuronKernel(const nat::OperatorHandle& op) {
  return op.entry().lookup(nat::DispatchKey::Neuron) != nullptr;
}

// "aten::add_.Tensor" -> "aten::add.Tensor": the functional op an in-place
// one computes before writing into self.
std::string FunctionalName(const c10::OperatorHandle& op) {
  const auto& s = op.schema();
  const std::string& base = s.name();
  if (base.size() < 2 || base.back() != '_' || base[base.size() - 2] == '_') return "";
  return base.substr(0, base.size() - 1) + (s.overload_name().empty() ? "" : "." + s.overload_name());
}

// "aten::mul.out" -> "aten::mul.Tensor": the nsim op of the same name whose
// arguments are the out variant's minus its out tensors (overloads "out",
// "..._out" and "Out...", as xlogy.OutTensor, or whose results all alias
// written arguments, as max.dim_max).
std::string FunctionalForOut(const c10::OperatorHandle& op) {
  const auto& s = op.schema();
  const std::string& o = s.overload_name();
  // Or any overload whose results all alias written arguments of a
  // non-in-place op (max.dim_max: values and indices).
  bool all_written = !s.returns().empty() && s.name().back() != '_';
  for (const auto& r : s.returns()) all_written &= r.alias_info() != nullptr && r.alias_info()->isWrite();
  if (o != "out" && o.find("_out") == std::string::npos && o.rfind("Out", 0) != 0 && !all_written) return "";
  // name + whether it is a tensor: add.Tensor and add.Scalar differ only there.
  std::set<std::string> want;
  for (const auto& a : s.arguments()) {
    const bool tensor = a.type()->kind() == c10::TypeKind::TensorType ||
                        (a.type()->kind() == c10::TypeKind::OptionalType &&
                         a.type()->containedType(0)->kind() == c10::TypeKind::TensorType);
    if (!(a.alias_info() && a.alias_info()->isWrite())) want.insert(a.name() + (tensor ? ":T" : ""));
  }
  for (const std::string& name : nat::Dispatcher::Singleton().ListOps()) {
    if (name != s.name() && name.rfind(s.name() + ".", 0) != 0) continue;
    const nat::OperatorHandle nop = nat::Dispatcher::Singleton().findSchemaOrThrow(name);
    std::set<std::string> have;
    for (const auto& a : nop.schema().arguments()) {
      const bool tensor = a.type == nat::ArgType::Tensor || a.type == nat::ArgType::OptionalTensor;
      have.insert(a.name + (tensor ? ":T" : ""));
    }
    if (have == want && HasNeuronKernel(nop)) return name;
  }
  return "";
}

// out = op(args) on the device; the result is copied into `out` (resized).
bool TryOutViaFunctional(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  const std::string functional = FunctionalForOut(op);
  if (functional.empty()) return false;
  const auto& args = op.schema().arguments();
  const size_t n = args.size();
  std::vector<c10::IValue> outs;
  for (size_t i = 0; i < n; ++i) {
    const c10::AliasInfo* ai = args[i].alias_info();
    if (ai && ai->isWrite()) outs.push_back((*stack)[stack->size() - n + i]);
  }
  RunNsimOp(op, functional, stack, /*returns_functional=*/true);
  // The functional results, in the order of the out tensors (max.dim_max: values, indices).
  TORCH_CHECK(stack->size() >= outs.size(), FullName(op), " on neuron: fewer results than out tensors");
  const std::vector<c10::IValue> results(stack->end() - outs.size(), stack->end());
  stack->resize(stack->size() - outs.size());
  for (size_t i = 0; i < outs.size(); ++i) {
    const at::Tensor result = results[i].toTensor();
    const at::Tensor& out = outs[i].toTensor();
    if (out.sizes() != result.sizes()) out.resize_(result.sizes());
    out.copy_(result);
  }
  for (const c10::IValue& out : outs) stack->push_back(out);
  return true;
}

// self.op_(args) = self.copy_(op(self, args)), both on the device.
bool TryInplaceViaFunctional(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  const std::string functional = FunctionalName(op);
  if (functional.empty()) return false;
  std::optional<nat::OperatorHandle> nop = FindNsimOp(functional);
  if (!nop || !HasNeuronKernel(*nop)) return false;
  const size_t n = op.schema().arguments().size();
  const c10::IValue self = (*stack)[stack->size() - n];
  RunNsimOp(op, nop->schema().full_name(), stack, /*returns_functional=*/true);
  const at::Tensor result = stack->back().toTensor();
  stack->pop_back();
  self.toTensor().copy_(result);
  stack->push_back(self);
  return true;
}

void NeuronFallback(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  const std::string name = FullName(op);
  std::optional<nat::OperatorHandle> nop = FindNsimOp(name);
  if (!nop || !HasNeuronKernel(*nop)) {
    if (TryInplaceViaFunctional(op, stack) || TryOutViaFunctional(op, stack)) return;
    if (g_cpu_fallback) return CpuFallback(op, stack, name);
    ThrowNoKernel(name);
  }
  RunNsimOp(op, nop->schema().full_name(), stack);
}

}  // namespace

std::string FullName(const c10::OperatorHandle& op) {
  const auto& s = op.schema();
  return s.name() + (s.overload_name().empty() ? "" : "." + s.overload_name());
}

void SetCpuFallback(bool enabled) { g_cpu_fallback = enabled; }
bool CpuFallbackEnabled() { return g_cpu_fallback; }

void RunNsimOp(const c10::OperatorHandle& op, const std::string& nsim_name, torch::jit::Stack* stack,
               bool returns_functional) {
  const std::string name = FullName(op);
  const c10::FunctionSchema& ts = op.schema();
  const nat::OperatorHandle nop = nat::Dispatcher::Singleton().findSchemaOrThrow(nsim_name);
  const auto& nargs = nop.schema().arguments();
  const size_t n = ts.arguments().size();
  std::vector<c10::IValue> args(stack->end() - n, stack->end());

  std::map<std::string, size_t> torch_index;
  for (size_t i = 0; i < n; ++i) torch_index[ts.arguments()[i].name()] = i;
  nat::Stack nstack;
  std::set<size_t> used;
  for (const auto& a : nargs) {
    auto it = torch_index.find(a.name);
    // torch's _softmax(half_to_float) vs nsim's softmax(dtype): absent -> None.
    if (it == torch_index.end()) {
      nstack.emplace_back();
      continue;
    }
    used.insert(it->second);
    nstack.push_back(ToNsimArg(args[it->second], a.type, name));
  }
  for (size_t i = 0; i < n; ++i) {
    if (used.count(i) == 0) {
      const auto& a = ts.arguments()[i];
      if (returns_functional && a.alias_info() != nullptr && a.alias_info()->isWrite()) continue;
      // The simulator's kernel computes every output; autograd uses those it asked for.
      if (a.name() == "output_mask") continue;
      if (name == "aten::_softmax" && a.name() == "half_to_float") {
        TORCH_CHECK_NOT_IMPLEMENTED(!args[i].toBool(), name, " with half_to_float=True is not supported on neuron");
        continue;
      }
      CheckExtraArgument(a, args[i], name);
    }
  }
  try {
    nop.callBoxed(&nstack);
  } catch (const c10::Error&) {
    throw;
  } catch (const std::exception& e) {
    TORCH_CHECK_NOT_IMPLEMENTED(false, name, " on neuron: ", e.what());
  }
  torch::jit::drop(*stack, n);
  const auto& rets = ts.returns();
  TORCH_CHECK(nstack.size() == rets.size(), name, ": the neuron kernel returned ", nstack.size(),
              " values, torch expects ", rets.size());
  for (size_t i = 0; i < rets.size(); ++i) {
    const c10::AliasInfo* alias = rets[i].alias_info();
    if (alias != nullptr && alias->isWrite() && !returns_functional) {
      // In-place / out: return torch's own argument (the same tensor object).
      bool found = false;
      for (size_t j = 0; j < n && !found; ++j) {
        const c10::AliasInfo* ai = ts.arguments()[j].alias_info();
        if (ai != nullptr && ai->isWrite() && ai->beforeSets() == alias->beforeSets()) {
          stack->push_back(args[j]);
          found = true;
        }
      }
      TORCH_CHECK(found, name, ": no argument aliases result ", i);
      continue;
    }
    // An undefined tensor result (the gradient of an absent weight) is None
    // in nsim and an undefined Tensor in torch.
    const bool undefined_tensor = nstack[i].isNone() && rets[i].type()->kind() == c10::TypeKind::TensorType;
    stack->push_back(undefined_tensor ? c10::IValue(at::Tensor()) : FromNsimResult(nstack[i]));
  }
}

void RunSameNsimOp(const c10::OperatorHandle& op, torch::jit::Stack* stack) { RunNsimOp(op, FullName(op), stack); }
void RunRenamedNsimOp(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  RunNsimOp(op, Renamed().at(FullName(op)), stack);
}

// Torch ops that must keep their own PrivateUse1 path: copies go through
// _copy_from (ops.cc), which handles every device pair and dtype.
const std::set<std::string> kKeepTorchPath = {"aten::copy_", "aten::_to_copy"};

void RegisterDirectKernels() {
  // Direct PrivateUse1 kernels for every op the simulator has a Neuron
  // kernel for: a direct kernel beats torch's composite decompositions
  // (mul.Tensor would otherwise become empty + mul.out, softmax._softmax, ...),
  // so the device runs the same op, as one kernel, that nsim's eager path runs.
  static torch::Library* lib =
      new torch::Library(torch::Library::IMPL, "aten", c10::DispatchKey::PrivateUse1, __FILE__, __LINE__);
  for (const std::string& name : nat::Dispatcher::Singleton().ListOps()) {
    if (kKeepTorchPath.count(name) || name.rfind("aten::", 0) != 0) continue;
    const nat::OperatorHandle nop = nat::Dispatcher::Singleton().findSchemaOrThrow(name);
    if (!HasNeuronKernel(nop)) continue;
    const std::string op_name = name.substr(6);
    const size_t dot = op_name.find('.');
    const c10::OperatorName torch_name(
        "aten::" + op_name.substr(0, dot), dot == std::string::npos ? "" : op_name.substr(dot + 1));
    const auto torch_op = c10::Dispatcher::singleton().findSchema(torch_name);
    // Absent from torch, or with its own PrivateUse1 kernel (ops.cc).
    if (!torch_op || torch_op->hasKernelForDispatchKey(c10::DispatchKey::PrivateUse1)) continue;
    lib->impl(op_name.c_str(), torch::CppFunction::makeFromBoxedFunction<&RunSameNsimOp>());
  }
  // Torch spellings of nsim ops: without a direct kernel, a structured op
  // such as _softmax would reach the device as its out= variant.
  for (const auto& [torch_name, nsim_name] : Renamed()) {
    lib->impl(torch_name.substr(6).c_str(), torch::CppFunction::makeFromBoxedFunction<&RunRenamedNsimOp>());
  }
}

TORCH_LIBRARY_IMPL(_, PrivateUse1, m) { m.fallback(torch::CppFunction::makeFromBoxedFunction<&NeuronFallback>()); }

}  // namespace torch_nsim
