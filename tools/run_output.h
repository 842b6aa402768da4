#pragma once
// The outputs of one kernel execution on the model, as `nsim run` writes them
// and as the NKI frontend's benchmark(out_dir=...) can write them:
//   DIR/trace.json, summary.json, summary.txt, report.html, instructions.csv,
//   <hash>.neff / <hash>.ntff (profiler/neuron_profiler.h), and with
//   save_tensors DIR/tensors/<name>.npy for every HBM tensor.
// summary.json is also what `nsim run --json` prints (docs/output-schema.md).
#include <string>

#include <nlohmann/json.hpp>

#include "profiler/neuron_profiler.h"
#include "profiler/recording.h"
#include "sim/config/hw_config.h"
#include "sim/kernel/kernel.h"
#include "sim/model/device.h"
#include "sim/model/execution_result.h"

namespace nsim {

// One captured execution starting at t = 0, as the profiler would record it.
prof::Recording RecordingOfExecution(const HardwareConfig& config, const Kernel& kernel,
                                     const ExecutionResult& result);

struct RunDescriptionInput {
  std::string tool = "nsim run";
  std::string kernel_file;
};
prof::RunDescription DescribeRun(const HardwareConfig& config, const Kernel& kernel, const ExecutionResult& result,
                                 const RunDescriptionInput& input);

// The summary.json document (with "records" when asked: every instruction
// and DMA piece, as in instructions.csv).
nlohmann::json RunSummaryJson(const HardwareConfig& config, const Kernel& kernel, const ExecutionResult& result,
                              const RunDescriptionInput& input, bool records);
// The text report: header, device summary and, when asked, one line per record.
std::string RunSummaryText(const HardwareConfig& config, const Kernel& kernel, const ExecutionResult& result,
                           bool records);

struct RunOutputOptions {
  RunDescriptionInput description;
  bool save_tensors = false;  // needs the device the kernel ran on
};
prof::ExportedFiles WriteRunOutput(const std::string& dir, Device& device, const Kernel& kernel,
                                   const ExecutionResult& result, const RunOutputOptions& options);

}  // namespace nsim
