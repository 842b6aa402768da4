#include "backend/compile/call_args.h"

namespace nsim {
namespace compiler {

std::vector<at::Tensor> TensorArgs(const std::vector<CallArg>& args) {
  std::vector<at::Tensor> out;
  for (const CallArg& a : args) {
    if (const auto* t = std::get_if<at::Tensor>(&a)) out.push_back(*t);
  }
  return out;
}

}  // namespace compiler
}  // namespace nsim
