#pragma once
// NeuronConfig: the Neuron-specific profiler settings that TorchNeuron passes
// as torch.profiler's experimental_config (profiler-conventions 3.1).
#include <set>
#include <string>
#include <vector>

namespace nsim {
namespace prof {

enum class ProfileMode {
  kDevice,   // hardware instructions per engine; NEFF/NTFF pairs; device summary
  kRuntime,  // runtime system trace: neuron_rt/NC and neuron_hw/NC lanes
};

struct NeuronConfig {
  std::vector<ProfileMode> modes = {ProfileMode::kDevice, ProfileMode::kRuntime};
  // Comma-separated NeuronCore indices or ranges, e.g. "0,1,2-5"; empty means
  // every core.
  std::string capture_enabled_for_nc;
  // Attach device time to the key_averages() rows (the NEURON columns).
  bool correlate_device_time = true;
  std::string profile_output_dir = "./profile_output";

  bool Has(ProfileMode mode) const;
};

// The parsed form of capture_enabled_for_nc.
class NcSelection {
 public:
  NcSelection() = default;  // every core
  // Throws std::invalid_argument on text that is not a list of indices/ranges.
  static NcSelection Parse(const std::string& text);
  bool Contains(int nc) const { return all_ || ncs_.count(nc) > 0; }

 private:
  bool all_ = true;
  std::set<int> ncs_;
};

}  // namespace prof
}  // namespace nsim
