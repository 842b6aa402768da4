#include "backend/compile/program.h"

#include "backend/compile/interpreter.h"
#include "runtime/clock.h"

namespace nsim {
namespace compiler {
namespace {

std::vector<at::Tensor> Gather(const std::vector<at::Tensor>& slots, const std::vector<int>& which) {
  std::vector<at::Tensor> out;
  out.reserve(which.size());
  for (int s : which) out.push_back(slots[s]);
  return out;
}

void Scatter(const std::vector<at::Tensor>& values, const std::vector<int>& which,
             std::vector<at::Tensor>* slots) {
  for (size_t i = 0; i < which.size(); ++i) (*slots)[which[i]] = values[i];
}

}  // namespace

void RunEagerStep(const EagerStep& step, std::vector<at::Tensor>* slots) {
  at::Stack stack = BoxArgs(step.args, [slots](int s) { return (*slots)[s]; });
  step.op.callBoxed(&stack);
  for (size_t i = 0; i < step.outputs.size(); ++i) (*slots)[step.outputs[i]] = stack[i].toTensor();
}

std::vector<at::Tensor> Program::Run(const std::vector<at::Tensor>& inputs, Picos call_start) const {
  std::vector<at::Tensor> slots(num_slots);
  Scatter(inputs, input_slots, &slots);
  for (const auto& c : constants) slots[c.first] = c.second;
  bool first_region = true;
  for (const Step& step : steps) {
    if (const auto* r = std::get_if<RegionStep>(&step)) {
      const Picos start = first_region ? call_start : rt::SimClock::Get().now();
      Scatter(r->region->Call(Gather(slots, r->inputs), start), r->outputs, &slots);
      first_region = false;
    } else {
      RunEagerStep(std::get<EagerStep>(step), &slots);
    }
  }
  return Gather(slots, output_slots);
}

}  // namespace compiler
}  // namespace nsim
