#include "backend/compile/compiler_backend.h"

#include <map>

#include "sim/base/error.h"

namespace nsim {
namespace compiler {
namespace {

std::map<std::string, std::unique_ptr<CompilerBackend>>& Registry() {
  static auto* r = new std::map<std::string, std::unique_ptr<CompilerBackend>>;
  return *r;
}

}  // namespace

void RegisterBackend(std::unique_ptr<CompilerBackend> backend) {
  const std::string name = backend->name();
  if (!Registry().emplace(name, std::move(backend)).second) {
    throw SimError("compile(): backend '" + name + "' registered twice");
  }
}

const CompilerBackend& GetBackend(const std::string& name) {
  auto it = Registry().find(name);
  if (it != Registry().end()) return *it->second;
  std::string known;
  for (const auto& kv : Registry()) known += (known.empty() ? "" : ", ") + kv.first;
  throw SimError("compile(): unknown backend '" + name + "' (known: " + known + ")");
}

}  // namespace compiler
}  // namespace nsim
