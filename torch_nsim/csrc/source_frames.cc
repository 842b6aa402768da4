// The user's Python line behind every op the simulator's profiler records
// (OpInfo::source, docs/profile-tables.md): the profiler asks this provider
// at each op, and it calls torch_nsim.profiler.user_stack() under the GIL.
// A thread that never ran Python (autograd's device threads) takes the GIL
// here too: user_stack() then names the line waiting in backward(), whose
// thread released the GIL inside autograd's engine.
#include <torch/extension.h>

#include <string>

#include "profiler/events.h"

namespace torch_nsim {
namespace {

// Never freed: ops may still be recorded while the interpreter tears down.
py::object* g_user_stack = nullptr;

bool PythonFramesAvailable() {
  return g_user_stack != nullptr && Py_IsInitialized() && !_Py_IsFinalizing();
}

std::string PythonUserStack() {
  if (!PythonFramesAvailable()) return "";
  py::gil_scoped_acquire gil;
  try {
    return (*g_user_stack)().cast<std::string>();
  } catch (const std::exception& e) {
    // Attribution must not fail the user's op; the outputs show why it is missing.
    return std::string("(no source: torch_nsim.profiler.user_stack failed: ") + e.what() + ")";
  }
}

}  // namespace

void RegisterSourceBindings(py::module& m) {
  m.def(
      "set_user_stack_function",
      [](py::object fn) {
        g_user_stack = new py::object(std::move(fn));
        nsim::prof::SetSourceProvider(&PythonUserStack);
      },
      "fn() -> 'FILE:LINE FUNCTION < ...': the user's frames, innermost first, named by every op the profiler "
      "records.");
}

}  // namespace torch_nsim
