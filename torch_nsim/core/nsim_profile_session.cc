#include "torch_nsim/core/nsim_profile_session.h"

#include "profiler/neuron_profiler.h"
#include "profiler/profile.h"

namespace nsim {
namespace torch_bridge {

NsimProfileSession::NsimProfileSession(const prof::NeuronConfig& config, bool export_trace) {
  prof::ProfileOptions options;
  options.experimental_config = config;
  if (export_trace) options.on_trace_ready = prof::NeuronProfiler(config);
  options.on_warning = [](const std::string&) {};  // torch.profiler warns about a missing sync itself
  profile_ = std::make_unique<prof::Profile>(options);
}

NsimProfileSession::~NsimProfileSession() = default;

void NsimProfileSession::Stop() {
  if (profile_) profile_->stop();
}

void CheckNcSelection(const std::string& text) { prof::NcSelection::Parse(text); }

}  // namespace torch_bridge
}  // namespace nsim
