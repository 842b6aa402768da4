// torch_nsim._C: what Python needs from the extension. Importing it
// registers the PrivateUse1 kernels (ops.cc, fallback.cc), the allocator and
// device guard (device.cc) and the profiler plugin (profiler_plugin.cc).
#include <torch/extension.h>

#include "backend/neuron/kernel_launch.h"
#include "runtime/clock.h"
#include "runtime/runtime.h"
#include "torch_nsim/csrc/device.h"
#include "torch_nsim/csrc/fallback.h"
#include "torch_nsim/csrc/profiler_plugin.h"
#include "torch_nsim/csrc/random_ops.h"
#include "torch_nsim/csrc/streams.h"

namespace torch_nsim {

void RegisterCompileBindings(py::module& m);  // compile_bindings.cc
void RegisterSourceBindings(py::module& m);   // source_frames.cc

namespace {

namespace rt = nsim::rt;

// nsim errors (bad config names, overrides) become Python RuntimeErrors
// with the simulator's message.
template <class F>
auto Translate(F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const c10::Error&) {
    throw;
  } catch (const std::exception& e) {
    throw std::runtime_error(e.what());
  }
}

void SetConfig(const std::string& name, const std::vector<std::string>& overrides) {
  Translate([&] {
    rt::Runtime::Get().Configure(name, overrides);
    return 0;
  });
}

py::dict MemoryStats(int device) {
  const nsim::rt::AllocatorStats s = Core(device).memory_stats();
  py::dict d;
  d["capacity"] = s.capacity;
  d["bytes_in_use"] = s.bytes_in_use;
  d["peak_bytes_in_use"] = s.peak_bytes_in_use;
  d["live_allocations"] = s.live_allocations;
  d["total_allocations"] = s.total_allocations;
  return d;
}

py::dict WallTime() {
  const rt::WallTime w = rt::Runtime::Get().wall_time();
  py::dict d;
  d["simulate_seconds"] = w.simulate_seconds();
  d["load_seconds"] = w.load_seconds();
  return d;
}

}  // namespace
}  // namespace torch_nsim

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  using namespace torch_nsim;
  m.doc() = "nsim: PyTorch PrivateUse1 'neuron' device on the simulated NeuronCore";
  m.def("set_config", &SetConfig, py::arg("name"), py::arg("overrides") = std::vector<std::string>{},
        "Hardware config (name or .yaml path, plus key=value overrides) of the cores created from now on.");
  m.def("config_name", [] { return Translate([] { return rt::Runtime::Get().default_config().name; }); });
  m.def("device_count", &DeviceCount);
  m.def("rng_state", &RngState, py::arg("device"), "The device's random state: (seed, offset).");
  m.def("set_rng_state", &SetRngState, py::arg("device"), py::arg("seed"), py::arg("offset"));
  m.def("set_device_count", &SetDeviceCount);
  m.def("set_lnc", [](int lnc) { Translate([&] { rt::Runtime::Get().set_lnc(lnc); return 0; }); });
  m.def("lnc", [] { return Translate([] { return rt::Runtime::Get().lnc(); }); });
  m.def("current_device", &CurrentDevice);
  m.def("set_device", &SetCurrentDevice);
  m.def("synchronize", [](int device) { Core(device).Synchronize(); }, py::arg("device") = -1);
  m.def("set_cpu_fallback", &SetCpuFallback);
  m.def("cpu_fallback_enabled", &CpuFallbackEnabled);
  m.def("memory_stats", &MemoryStats, py::arg("device") = -1);
  m.def("wall_time", &WallTime, "Real seconds spent simulating (never simulated time).");
  m.def("simulated_now_us", [] { return nsim::PicosToMicros(nsim::rt::SimClock::Get().now()); },
        "The simulated host clock, in microseconds.");
  m.def("generated_kernel_count", &nsim::neuron::GeneratedKernelCount);
  m.def("executions", &ExecutionsSinceMark, py::arg("device") = -1,
        "Kernel executions since the last mark_executions(): (kernel, device_time_ps, span_us).");
  m.def("mark_executions", &MarkExecutions, py::arg("device") = -1);
  RegisterProfilerBindings(m);
  RegisterCompileBindings(m);
  RegisterSourceBindings(m);
  RegisterDirectKernels();
}
