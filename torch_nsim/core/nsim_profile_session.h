#pragma once
// The simulator's own profiler, driven from torch.profiler: one record
// window from Start to Stop, with the NeuronConfig the user gave (device
// capture on the selected NeuronCores, output directory). Built into
// libnsim_core.so by Bazel (the torch extension links against it), which is
// also what keeps the profiler in that library: nothing else in it calls it.
#include <memory>
#include <string>

#include "profiler/neuron_config.h"

namespace nsim {
namespace prof {
class Profile;
}  // namespace prof

namespace torch_bridge {

class NsimProfileSession {
 public:
  // Starts recording. With `export_trace`, Stop writes trace.json (framework,
  // runtime, hardware and engine lanes), NEFF/NTFF pairs and the device
  // summary into config.profile_output_dir.
  NsimProfileSession(const prof::NeuronConfig& config, bool export_trace);
  ~NsimProfileSession();
  void Stop();  // idempotent

 private:
  std::unique_ptr<prof::Profile> profile_;
};

// Throws std::invalid_argument for text that is not a list of NeuronCore
// indices or ranges ("0,2-3").
void CheckNcSelection(const std::string& text);

}  // namespace torch_bridge
}  // namespace nsim
