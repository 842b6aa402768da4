// The boxed fallback at the Tracing dispatch key: while a compile() trace is
// active on the thread, every dispatched op goes to its Tracer (tracer.h).
#include "backend/compile/tracer.h"
#include "backend/library.h"

namespace nsim {
namespace compiler {
namespace {

void TracingFallback(const at::OperatorHandle& op, at::Stack* stack) {
  if (Tracer* tracer = Tracer::Active()) {
    tracer->OnOp(op, stack);
    return;
  }
  // Someone included the key without a tracer: behave as if it were absent.
  at::ExcludeDispatchKeyGuard no_tracing(at::DispatchKey::Tracing);
  op.callBoxed(stack);
}

}  // namespace

NSIM_LIBRARY_IMPL(_, Tracing, m) { m.fallback(at::KernelFunction::FromBoxed(&TracingFallback)); }

}  // namespace compiler
}  // namespace nsim
