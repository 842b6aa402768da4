#pragma once
// Library: the registration API, shaped like torch/library.h. Schemas are
// declared once in an NSIM_LIBRARY block (backend/ops_schema.cc holds aten's);
// kernels are registered per dispatch key in NSIM_LIBRARY_IMPL blocks, one
// block per (namespace, key) per file:
//
//   NSIM_LIBRARY_IMPL(aten, Neuron, m) {      // or PrivateUse1
//     m.impl("mul.Tensor", &mul_neuron);      // Tensor mul_neuron(const Tensor&, const Tensor&)
//     m.impl("add.Tensor", &add_neuron);
//   }
//   NSIM_LIBRARY_IMPL(_, Tracing, m) {        // a boxed fallback for every op
//     m.fallback(KernelFunction::FromBoxed(&record_op));
//   }
//
// Blocks run at static-initialisation time, so a cc_library holding them
// must be alwayslink = True. Every registration records the block's file and
// line; a duplicate (op, key) names both places. A Library deregisters what it
// registered when destroyed, so tests can register locally:
//
//   Library lib(Library::Kind::IMPL, "aten", DispatchKey::Neuron, __FILE__, __LINE__);
//   lib.impl("add.Tensor", &fake_add);
#include <optional>
#include <string>
#include <vector>

#include "backend/dispatch_key.h"
#include "backend/dispatcher.h"
#include "backend/kernel_function.h"

namespace nsim {
namespace at {

// PyTorch's native_functions.yaml `device_check:` field.
enum class DeviceCheck { kExactSame, kNoCheck };

class Library {
 public:
  enum class Kind { DEF, IMPL };
  Library(Kind kind, std::string ns, std::optional<DispatchKey> key, const char* file, int line);
  ~Library();
  Library(const Library&) = delete;
  Library& operator=(const Library&) = delete;

  // DEF libraries only.
  Library& def(const std::string& schema, DeviceCheck check = DeviceCheck::kExactSame);

  // IMPL libraries only; `name` is "mul.Tensor" (the namespace is the library's).
  template <class Ret, class... Args>
  Library& impl(const std::string& name, Ret (*fn)(Args...)) {
    return impl(name, KernelFunction::FromUnboxed(fn));
  }
  template <class F>  // a captureless lambda
  Library& impl(const std::string& name, F f) {
    return impl(name, +f);
  }
  Library& impl(const std::string& name, KernelFunction k);
  // Boxed kernel for every op at this library's key that has no kernel of its own.
  Library& fallback(KernelFunction k);

 private:
  std::string Where() const;
  Kind kind_;
  std::string ns_;
  std::optional<DispatchKey> key_;
  std::string file_;
  int line_;
  std::vector<std::string> defs_;
  std::vector<std::string> impls_;
  bool has_fallback_ = false;
};

namespace detail {
// Runs a registration block at static-init time and owns its Library.
class LibraryInit {
 public:
  LibraryInit(Library::Kind kind, void (*fn)(Library&), const char* ns, const char* key,
              const char* file, int line);

 private:
  Library lib_;
};
}  // namespace detail

}  // namespace at
}  // namespace nsim

#define NSIM_CONCAT_INNER(a, b) a##b
#define NSIM_CONCAT(a, b) NSIM_CONCAT_INNER(a, b)

#define NSIM_LIBRARY(ns, m)                                                            \
  static void NSIM_CONCAT(nsim_library_init_##ns##_, __LINE__)(::nsim::at::Library&); \
  static const ::nsim::at::detail::LibraryInit NSIM_CONCAT(nsim_library_static_##ns##_, \
                                                           __LINE__)(                  \
      ::nsim::at::Library::Kind::DEF, &NSIM_CONCAT(nsim_library_init_##ns##_, __LINE__), #ns, \
      nullptr, __FILE__, __LINE__);                                                    \
  void NSIM_CONCAT(nsim_library_init_##ns##_, __LINE__)(::nsim::at::Library & m)

#define NSIM_LIBRARY_IMPL(ns, k, m)                                                        \
  static void NSIM_CONCAT(nsim_library_impl_init_##ns##_##k##_, __LINE__)(                 \
      ::nsim::at::Library&);                                                               \
  static const ::nsim::at::detail::LibraryInit NSIM_CONCAT(                                \
      nsim_library_impl_static_##ns##_##k##_, __LINE__)(                                   \
      ::nsim::at::Library::Kind::IMPL,                                                     \
      &NSIM_CONCAT(nsim_library_impl_init_##ns##_##k##_, __LINE__), #ns, #k, __FILE__,    \
      __LINE__);                                                                           \
  void NSIM_CONCAT(nsim_library_impl_init_##ns##_##k##_, __LINE__)(::nsim::at::Library & m)
