#include "backend/compile/compiled_function.h"

#include "backend/compile/host_costs.h"
#include "backend/compile/tracer.h"
#include "runtime/clock.h"

namespace nsim {
namespace compiler {
namespace {

at::Device FirstDevice(const std::vector<at::Tensor>& tensors) {
  for (const at::Tensor& t : tensors) {
    if (!t.is_cpu()) return t.device();
  }
  return at::Device(at::kCPU);
}

}  // namespace

CompiledFunctionCore::CompiledFunctionCore(CompileOptions options)
    : options_(std::move(options)), backend_(GetBackend(options_.backend)) {}

std::string CompiledFunctionCore::guards() const {
  return entries_.empty() ? "" : entries_.front().guards.ToString();
}

std::vector<at::Tensor> CompiledFunctionCore::Call(const std::vector<CallArg>& args, const Function& fn) {
  // Called while another compiled function traces: inline it into that
  // trace, as TorchDynamo inlines a nested compiled function.
  if (Tracer::Active() != nullptr) return fn(args);
  const Picos start = rt::SimClock::Get().now();
  const std::vector<at::Tensor> tensors = TensorArgs(args);
  std::string reason;
  if (!always_trace_) {
    const HostCosts costs = HostCosts::For(FirstDevice(tensors));
    for (const Entry& e : entries_) {
      if (std::optional<std::string> why = e.guards.Check(args)) {
        ChargeHost(costs.guard_eval * e.guards.size());
        if (reason.empty()) reason = *why;  // the newest entry's, as TorchDynamo logs it
        continue;
      }
      return e.program.Run(tensors, start);
    }
  }
  recompile_reason_ = reason;
  return Trace(args, fn);
}

std::vector<at::Tensor> CompiledFunctionCore::Trace(const std::vector<CallArg>& args, const Function& fn) {
  ++traces_;
  Tracer tracer(backend_, &regions_, options_.fullgraph);
  std::vector<CallArg> fakes = args;
  for (CallArg& a : fakes) {
    if (auto* t = std::get_if<at::Tensor>(&a)) *t = tracer.AddInput(*t);
  }
  std::vector<at::Tensor> results;
  {
    TraceScope scope(&tracer);
    results = fn(fakes);
  }
  std::vector<at::Tensor> real = tracer.Finish(results);
  if (tracer.replayable()) {
    entries_.insert(entries_.begin(), Entry{Guards(args), tracer.TakeProgram()});
  } else {
    always_trace_ = true;
    entries_.clear();
  }
  return real;
}

}  // namespace compiler
}  // namespace nsim
