#include "backend/compile/interpreter.h"

namespace nsim {
namespace compiler {

at::Stack BoxArgs(const std::vector<Arg>& args, const std::function<at::Tensor(int)>& value) {
  at::Stack stack;
  stack.reserve(args.size());
  for (const Arg& a : args) stack.push_back(a.is_value() ? at::IValue(value(a.value)) : a.constant);
  return stack;
}

std::vector<at::Tensor> Interpret(const Graph& g, const std::vector<at::Tensor>& inputs) {
  std::vector<at::Tensor> env(g.values().size());
  for (size_t i = 0; i < inputs.size(); ++i) env[g.placeholders()[i].value] = inputs[i];
  for (const Graph::Call& c : g.calls()) {
    at::Stack stack = BoxArgs(c.args, [&env](int v) { return env[v]; });
    c.op.callBoxed(&stack);
    for (size_t i = 0; i < c.outputs.size(); ++i) env[c.outputs[i]] = stack[i].toTensor();
  }
  std::vector<at::Tensor> out;
  for (int v : g.outputs()) out.push_back(env[v]);
  return out;
}

}  // namespace compiler
}  // namespace nsim
