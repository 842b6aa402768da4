#include "python/core/profile_output.h"

#include "profiler/neuron_profiler.h"
#include "profiler/recording.h"
#include "runtime/profiler_bridge.h"

namespace nsim {
namespace pyfront {

std::vector<std::string> WriteKernelProfile(const Kernel& kernel, const ExecutionResult& result,
                                            const HardwareConfig& config, const std::string& dir) {
  // One captured execution on NC 0 starting at time 0, without framework ops
  // or runtime calls: the trace shows the execution (neuron_hw lane), one lane
  // per engine and DMA queue, and the counters.
  prof::RecordedExecution rec;
  rec.captured = true;
  prof::DeviceExecution& e = rec.exec;
  e.nc = 0;
  e.start = 0;
  e.end = result.device_time;
  e.kernel_hash = result.kernel_hash;
  e.kernel_name = kernel.name;
  e.hbm_read_bytes = result.hbm_bytes_read;
  e.hbm_write_bytes = result.hbm_bytes_written;
  rt::CaptureExecution(kernel, result, config, &e);

  prof::Recording recording;
  recording.settings.use_device = "neuron";
  recording.settings.runtime_lanes = true;  // includes the neuron_hw lane (nc_exec_running)
  recording.settings.device_lanes = true;
  recording.executions.push_back(std::move(rec));
  recording.export_time = result.device_time;

  const prof::ExportedFiles files = prof::WriteProfileOutput(recording, dir);
  std::vector<std::string> paths = {files.trace};
  paths.insert(paths.end(), files.neff.begin(), files.neff.end());
  paths.insert(paths.end(), files.ntff.begin(), files.ntff.end());
  if (!files.summary_json.empty()) paths.push_back(files.summary_json);
  if (!files.summary_text.empty()) paths.push_back(files.summary_text);
  return paths;
}

}  // namespace pyfront
}  // namespace nsim
