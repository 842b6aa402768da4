#pragma once
// KernelFunction: one registered kernel, callable both boxed (on a Stack, for
// fallbacks, tracing and observers) and, when it was registered from a typed
// C++ function, unboxed (a direct call, the fast path).
//
// Typed kernels must use the canonical C++ type of each schema type, so that
// a schema check at registration proves the function-pointer cast exact:
//
//   Tensor          const Tensor&                 Tensor?      const std::optional<Tensor>&
//   Scalar          const Scalar&                 Scalar?      const std::optional<Scalar>&
//   float           double                        float?       std::optional<double>
//   int             int64_t                       int?         std::optional<int64_t>
//   bool            bool                          str          const std::string&
//   int[]           const IntList&                int[]?       const std::optional<IntList>&
//   ScalarType      ScalarType                    ScalarType?  std::optional<ScalarType>
//   Device          Device                        Device?      std::optional<Device>
//   returns         Tensor, std::tuple<Tensor, ...>
//
// Any other parameter type fails to compile (ParamTraits has no specialization).
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "backend/function_schema.h"
#include "backend/ivalue.h"
#include "sim/base/error.h"

namespace nsim {
namespace at {

class OperatorHandle;

namespace detail {

template <class P> struct ParamTraits;  // canonical parameter types only

#define NSIM_PARAM_TRAITS(P, TYPE, EXPR)                         \
  template <> struct ParamTraits<P> {                            \
    static constexpr ArgType kType = ArgType::TYPE;              \
    static decltype(auto) From(const IValue& v) { return EXPR; } \
  }
const Tensor& UndefinedTensor();
NSIM_PARAM_TRAITS(const Tensor&, Tensor, (v.isNone() ? UndefinedTensor() : v.toTensor()));
NSIM_PARAM_TRAITS(const std::optional<Tensor>&, OptionalTensor,
                  v.isNone() ? std::optional<Tensor>() : std::optional<Tensor>(v.toTensor()));
NSIM_PARAM_TRAITS(const Scalar&, Scalar, v.toScalar());
NSIM_PARAM_TRAITS(const std::optional<Scalar>&, OptionalScalar,
                  v.isNone() ? std::optional<Scalar>() : std::optional<Scalar>(v.toScalar()));
NSIM_PARAM_TRAITS(double, Float, v.toDouble());
NSIM_PARAM_TRAITS(std::optional<double>, OptionalFloat,
                  v.isNone() ? std::optional<double>() : std::optional<double>(v.toDouble()));
NSIM_PARAM_TRAITS(int64_t, Int, v.toInt());
NSIM_PARAM_TRAITS(std::optional<int64_t>, OptionalInt,
                  v.isNone() ? std::optional<int64_t>() : std::optional<int64_t>(v.toInt()));
NSIM_PARAM_TRAITS(bool, Bool, v.toBool());
NSIM_PARAM_TRAITS(const IntList&, IntList, v.toIntList());
NSIM_PARAM_TRAITS(const std::optional<IntList>&, OptionalIntList,
                  v.isNone() ? std::optional<IntList>() : std::optional<IntList>(v.toIntList()));
NSIM_PARAM_TRAITS(ScalarType, ScalarType, v.toScalarType());
NSIM_PARAM_TRAITS(std::optional<ScalarType>, OptionalScalarType,
                  v.isNone() ? std::optional<ScalarType>()
                             : std::optional<ScalarType>(v.toScalarType()));
NSIM_PARAM_TRAITS(Device, Device, v.toDevice());
NSIM_PARAM_TRAITS(std::optional<Device>, OptionalDevice,
                  v.isNone() ? std::optional<Device>() : std::optional<Device>(v.toDevice()));
NSIM_PARAM_TRAITS(const std::string&, String, v.toStringRef());
NSIM_PARAM_TRAITS(const std::vector<Tensor>&, TensorList, v.toTensorList());
#undef NSIM_PARAM_TRAITS

template <class R> struct ReturnTraits;
template <> struct ReturnTraits<void> {  // "-> ()": in-place collectives
  static constexpr int kCount = 0;
  static void Pop(Stack*) {}
};
template <> struct ReturnTraits<Tensor> {
  static constexpr int kCount = 1;
  static void Push(Stack* s, Tensor r) { s->emplace_back(std::move(r)); }
  static Tensor Pop(Stack* s) {
    Tensor r = s->back().isNone() ? Tensor() : s->back().toTensor();
    s->pop_back();
    return r;
  }
};
template <class... Ts> struct ReturnTraits<std::tuple<Ts...>> {
  static constexpr int kCount = sizeof...(Ts);
  static void Push(Stack* s, std::tuple<Ts...> r) {
    std::apply([s](auto&... t) { (s->emplace_back(std::move(t)), ...); }, r);
  }
  static std::tuple<Ts...> Pop(Stack* s) {
    const size_t base = s->size() - kCount;
    std::tuple<Ts...> r = Read(*s, base, std::index_sequence_for<Ts...>{});
    s->resize(base);
    return r;
  }
  template <size_t... I>
  static std::tuple<Ts...> Read(const Stack& s, size_t base, std::index_sequence<I...>) {
    return std::tuple<Ts...>((s[base + I].isNone() ? Tensor() : s[base + I].toTensor())...);
  }
};

template <class Ret, class... Args, size_t... I>
Ret CallFromStack(Ret (*fn)(Args...), const Stack& s, size_t base, std::index_sequence<I...>) {
  return fn(ParamTraits<Args>::From(s[base + I])...);
}

}  // namespace detail

class KernelFunction {
 public:
  using BoxedFn = std::function<void(const OperatorHandle&, Stack*)>;

  KernelFunction() = default;

  template <class Ret, class... Args>
  static KernelFunction FromUnboxed(Ret (*fn)(Args...)) {
    KernelFunction k;
    k.unboxed_ = reinterpret_cast<AnyFn>(fn);
    k.wrapper_ = &BoxedWrapper<Ret, Args...>;
    k.arg_types_ = {detail::ParamTraits<Args>::kType...};
    k.num_returns_ = detail::ReturnTraits<Ret>::kCount;
    return k;
  }
  // A kernel that handles any signature on the Stack (fallbacks, tracing).
  static KernelFunction FromBoxed(BoxedFn fn) {
    KernelFunction k;
    k.boxed_ = std::make_shared<const BoxedFn>(std::move(fn));
    return k;
  }

  bool valid() const { return unboxed_ != nullptr || boxed_ != nullptr; }
  bool has_unboxed() const { return unboxed_ != nullptr; }
  bool is_typed() const { return num_returns_ >= 0; }
  const std::vector<ArgType>& arg_types() const { return arg_types_; }
  int num_returns() const { return num_returns_; }

  // Pops the op's arguments from the end of the stack and pushes its results.
  void callBoxed(const OperatorHandle& op, Stack* s) const {
    if (wrapper_ != nullptr) wrapper_(*this, op, s);
    else (*boxed_)(op, s);
  }
  // Contract: only for typed kernels whose signature was checked to be Ret(Args...).
  template <class Ret, class... Args>
  Ret callUnboxed(Args... args) const {
    return reinterpret_cast<Ret (*)(Args...)>(unboxed_)(std::forward<Args>(args)...);
  }

 private:
  using AnyFn = void (*)();

  template <class Ret, class... Args>
  static void BoxedWrapper(const KernelFunction& k, const OperatorHandle&, Stack* s) {
    constexpr size_t n = sizeof...(Args);
    if (s->size() < n) {
      throw SimError("boxed call with " + std::to_string(s->size()) + " arguments, kernel takes " +
                     std::to_string(n));
    }
    const size_t base = s->size() - n;
    if constexpr (std::is_void_v<Ret>) {
      detail::CallFromStack(reinterpret_cast<Ret (*)(Args...)>(k.unboxed_), *s, base,
                            std::index_sequence_for<Args...>{});
      s->resize(base);
    } else {
      Ret r = detail::CallFromStack(reinterpret_cast<Ret (*)(Args...)>(k.unboxed_), *s, base,
                                    std::index_sequence_for<Args...>{});
      s->resize(base);
      detail::ReturnTraits<Ret>::Push(s, std::move(r));
    }
  }

  AnyFn unboxed_ = nullptr;
  void (*wrapper_)(const KernelFunction&, const OperatorHandle&, Stack*) = nullptr;
  std::shared_ptr<const BoxedFn> boxed_;
  std::vector<ArgType> arg_types_;
  int num_returns_ = -1;
};

}  // namespace at
}  // namespace nsim
