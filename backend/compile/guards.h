#pragma once
// Guards: the conditions under which a traced program may be replayed for a
// new call, as TorchDynamo's guards: per tensor argument its dtype, device,
// sizes, strides and storage offset (TENSOR_MATCH), per number its value
// (CONSTANT_MATCH). A failing check says why, for the recompile log.
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "backend/compile/call_args.h"
#include "backend/compile/graph.h"

namespace nsim {
namespace compiler {

class Guards {
 public:
  explicit Guards(const std::vector<CallArg>& args);

  // Why `args` fail the guards ("arg0: sizes [8, 512] != [4, 512]"), or nullopt.
  std::optional<std::string> Check(const std::vector<CallArg>& args) const;
  int size() const { return static_cast<int>(expected_.size()); }
  // One line per guard: "TENSOR_MATCH arg0 BFloat16[4, 512] neuron:0".
  std::string ToString() const;

 private:
  // A tensor's metadata, or the exact text of a number (ConstantText).
  using Expected = std::variant<ValueMeta, std::string>;
  std::vector<Expected> expected_;
};

}  // namespace compiler
}  // namespace nsim
