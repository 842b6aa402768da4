#include "backend/compile/host_costs.h"

#include "runtime/clock.h"
#include "runtime/runtime.h"

namespace nsim {
namespace compiler {
namespace {

HostCosts FromParams(const HostParams& h) {
  return HostCosts{h.graph_lookup_ps, h.guard_eval_ps, h.trace_op_ps, h.graph_compile_ps};
}

}  // namespace

HostCosts HostCosts::For(const at::Device& device) {
  rt::Runtime& runtime = rt::Runtime::Get();
  if (device.type() != at::kNeuron) return FromParams(runtime.default_config().host);
  return FromParams(runtime.core(device.index() < 0 ? 0 : device.index()).config().host);
}

void ChargeHost(Picos cost) { rt::SimClock::Get().Advance(cost); }

}  // namespace compiler
}  // namespace nsim
