#pragma once
// nsim::compile(): torch.compile for C++ callables over tensors.
//
//   auto rmsnorm = [](const at::Tensor& x, const at::Tensor& w) {
//     return x * at::rsqrt(x.mul(x).mean({-1}, true) + 1e-6) * w;
//   };
//   auto f = nsim::compile(rmsnorm, nsim::CompileOptions{.fullgraph = true});
//   at::Tensor y = f(x, w);   // first call: trace, compile, run
//   y = f(x, w);              // later calls: guards, then one kernel execution
//
// Arguments may be tensors and numbers (double, float, integers, bool); the
// result a Tensor, a std::tuple or std::pair of Tensors, or a
// std::vector<Tensor>. The first call traces the function on fake tensors
// through the Tracing dispatch key into ATen graphs (tracer.h), compiles
// each graph with the chosen backend (one kernel per region for "neuron")
// and runs it; later calls check the guards (guards.h) and replay the
// compiled regions, retracing when a guard fails (compiled_function.h). Each
// region call is one profiler range "Torch-Compiled Region: N/M".
//
// The function must be deterministic in everything but its tensor data and
// numbers (TorchDynamo assumes the same of Python code it does not guard):
// captured tensors are held by handle, host code that does not touch traced
// tensors runs only while tracing, and 0-dim CPU tensors (Python numbers,
// `x + 1e-6`) are immediates baked into the graph.
#include <cstdint>
#include <memory>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "backend/compile/compile_options.h"
#include "backend/compile/compiled_function.h"

namespace nsim {
namespace compiler {
namespace detail {

template <class T, class Enable = void> struct ArgTraits;
template <> struct ArgTraits<at::Tensor> {
  static CallArg To(const at::Tensor& t) { return t; }
  static const at::Tensor& From(const CallArg& a) { return std::get<at::Tensor>(a); }
};
template <class T> struct ArgTraits<T, std::enable_if_t<std::is_arithmetic_v<T>>> {
  using Stored = std::conditional_t<std::is_same_v<T, bool>, bool,
                                    std::conditional_t<std::is_floating_point_v<T>, double, int64_t>>;
  static CallArg To(T v) { return static_cast<Stored>(v); }
  static T From(const CallArg& a) { return static_cast<T>(std::get<Stored>(a)); }
};

template <class R> struct ResultTraits;
template <> struct ResultTraits<at::Tensor> {
  static std::vector<at::Tensor> Flatten(const at::Tensor& r) { return {r}; }
  static at::Tensor Unflatten(std::vector<at::Tensor> v) { return v[0]; }
};
template <> struct ResultTraits<std::vector<at::Tensor>> {
  static std::vector<at::Tensor> Flatten(std::vector<at::Tensor> r) { return r; }
  static std::vector<at::Tensor> Unflatten(std::vector<at::Tensor> v) { return v; }
};
template <class... Ts> struct ResultTraits<std::tuple<Ts...>> {
  static_assert((std::is_same_v<Ts, at::Tensor> && ...), "compile(): tuple results must hold Tensors");
  static std::vector<at::Tensor> Flatten(const std::tuple<Ts...>& r) {
    return std::apply([](const auto&... t) { return std::vector<at::Tensor>{t...}; }, r);
  }
  static std::tuple<Ts...> Unflatten(std::vector<at::Tensor> v) {
    return Make(v, std::index_sequence_for<Ts...>{});
  }
  template <size_t... I>
  static std::tuple<Ts...> Make(const std::vector<at::Tensor>& v, std::index_sequence<I...>) {
    return std::tuple<Ts...>(v[I]...);
  }
};
template <> struct ResultTraits<std::pair<at::Tensor, at::Tensor>> {
  static std::vector<at::Tensor> Flatten(const std::pair<at::Tensor, at::Tensor>& r) {
    return {r.first, r.second};
  }
  static std::pair<at::Tensor, at::Tensor> Unflatten(std::vector<at::Tensor> v) { return {v[0], v[1]}; }
};

template <class F, class... Args> struct Invoker {
  using Result = std::decay_t<std::invoke_result_t<F&, const Args&...>>;
  static std::vector<at::Tensor> Run(F& fn, const std::vector<CallArg>& a) {
    return Apply(fn, a, std::index_sequence_for<Args...>{});
  }
  template <size_t... I>
  static std::vector<at::Tensor> Apply(F& fn, const std::vector<CallArg>& a, std::index_sequence<I...>) {
    return ResultTraits<Result>::Flatten(fn(ArgTraits<Args>::From(a[I])...));
  }
};

}  // namespace detail
}  // namespace compiler

template <class F>
class CompiledFunction {
 public:
  CompiledFunction(F fn, CompileOptions options)
      : fn_(std::make_shared<F>(std::move(fn))),
        core_(std::make_shared<compiler::CompiledFunctionCore>(std::move(options))) {}

  template <class... Args>
  auto operator()(const Args&... args) const {
    using Invoker = compiler::detail::Invoker<F, std::decay_t<Args>...>;
    const std::vector<compiler::CallArg> in{compiler::detail::ArgTraits<std::decay_t<Args>>::To(args)...};
    std::shared_ptr<F> fn = fn_;
    std::vector<at::Tensor> out =
        core_->Call(in, [fn](const std::vector<compiler::CallArg>& a) { return Invoker::Run(*fn, a); });
    return compiler::detail::ResultTraits<typename Invoker::Result>::Unflatten(std::move(out));
  }

  // What was compiled: regions, traces, guards (compiled_function.h).
  const compiler::CompiledFunctionCore& core() const { return *core_; }

 private:
  std::shared_ptr<F> fn_;
  std::shared_ptr<compiler::CompiledFunctionCore> core_;
};

template <class F>
CompiledFunction<std::decay_t<F>> compile(F&& fn, CompileOptions options = {}) {
  return CompiledFunction<std::decay_t<F>>(std::forward<F>(fn), std::move(options));
}

}  // namespace nsim
