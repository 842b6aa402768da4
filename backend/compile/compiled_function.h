#pragma once
// CompiledFunctionCore: the type-erased state behind one nsim::compile()
// result (compile.h wraps it for any C++ callable).
//
// A call first checks the guards of the traced programs, newest first, as
// TorchDynamo checks a frame's cache entries (each failing guard set costs
// host.guard_eval per guard); on a hit the program replays its compiled
// regions without running the function. On a miss the function is traced
// again: the new graph compiles as the next recompile of its region
// ("Torch-Compiled Region: 0/1"), or is found in the region cache.
//
// A function whose trace read traced data on the host (.item(), .cpu())
// cannot be replayed, since what it does next may depend on the value: it is
// traced on every call, its regions still served from the cache (a region
// whose immediates changed recompiles, as TorchDynamo specialises numbers).
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "backend/compile/call_args.h"
#include "backend/compile/compile_options.h"
#include "backend/compile/compiler_backend.h"
#include "backend/compile/guards.h"
#include "backend/compile/program.h"
#include "backend/compile/region_cache.h"

namespace nsim {
namespace compiler {

class CompiledFunctionCore {
 public:
  // Runs the user's function on (fake) arguments; returns its flattened results.
  using Function = std::function<std::vector<at::Tensor>(const std::vector<CallArg>&)>;

  explicit CompiledFunctionCore(CompileOptions options);

  std::vector<at::Tensor> Call(const std::vector<CallArg>& args, const Function& fn);

  // Introspection, for tests and users studying what was compiled.
  const std::vector<std::shared_ptr<const CompiledRegion>>& regions() const { return regions_.regions(); }
  int traces() const { return traces_; }
  // Why the last trace happened ("" for the first call), e.g.
  // "arg0: BFloat16[8, 512] stride=[512, 1] neuron:0 != BFloat16[4, 512] ...".
  const std::string& recompile_reason() const { return recompile_reason_; }
  // The guards of the newest replayable program ("" if none).
  std::string guards() const;

 private:
  struct Entry {
    Guards guards;
    Program program;
  };
  std::vector<at::Tensor> Trace(const std::vector<CallArg>& args, const Function& fn);

  CompileOptions options_;
  const CompilerBackend& backend_;
  RegionCache regions_;
  std::vector<Entry> entries_;  // newest first
  bool always_trace_ = false;   // a trace read traced data on the host
  int traces_ = 0;
  std::string recompile_reason_;
};

}  // namespace compiler
}  // namespace nsim
