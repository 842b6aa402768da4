#include "backend/library.h"

#include "sim/base/error.h"

namespace nsim {
namespace at {

Library::Library(Kind kind, std::string ns, std::optional<DispatchKey> key, const char* file,
                 int line)
    : kind_(kind), ns_(std::move(ns)), key_(key), file_(file), line_(line) {}

Library::~Library() {
  Dispatcher& d = Dispatcher::Singleton();
  for (const std::string& name : impls_) d.DeregisterImpl(name, *key_);
  for (const std::string& name : defs_) d.DeregisterDef(name);
  if (has_fallback_) d.DeregisterFallback(*key_);
}

std::string Library::Where() const { return file_ + ":" + std::to_string(line_); }

Library& Library::def(const std::string& schema_text, DeviceCheck check) {
  if (kind_ != Kind::DEF) throw SimError("def() in an IMPL library at " + Where());
  FunctionSchema schema = ParseSchema(ns_, schema_text);
  schema.set_device_check(check == DeviceCheck::kExactSame);
  const std::string name = schema.full_name();
  Dispatcher::Singleton().RegisterDef(std::move(schema), Where());
  defs_.push_back(name);
  return *this;
}

Library& Library::impl(const std::string& name, KernelFunction k) {
  if (kind_ != Kind::IMPL || !key_) throw SimError("impl() in a DEF library at " + Where());
  const std::string full = ns_ + "::" + name;
  Dispatcher::Singleton().RegisterImpl(full, *key_, std::move(k), Where());
  impls_.push_back(full);
  return *this;
}

Library& Library::fallback(KernelFunction k) {
  if (kind_ != Kind::IMPL || !key_) throw SimError("fallback() in a DEF library at " + Where());
  Dispatcher::Singleton().RegisterFallback(*key_, std::move(k), Where());
  has_fallback_ = true;
  return *this;
}

namespace detail {

LibraryInit::LibraryInit(Library::Kind kind, void (*fn)(Library&), const char* ns,
                         const char* key, const char* file, int line)
    : lib_(kind, ns,
           key == nullptr ? std::optional<DispatchKey>() : ParseDispatchKey(key), file, line) {
  fn(lib_);
}

}  // namespace detail
}  // namespace at
}  // namespace nsim
