#pragma once
// Device-time regression gate: workloads whose simulated device time is
// compared exactly with golden values checked into the repo (simulation is
// deterministic, so any change is a real change of the model, a config or a
// lowering). Built-in workloads live in workloads.h; users gate their own
// kernels and configs with `bazel run //tools/device_time:gate -- ...`.
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "sim/base/time.h"

namespace nsim {
namespace gate {

struct Workload {
  std::string name;    // unique within a golden file, e.g. "rmsnorm/op_by_op/4x512"
  std::string config;  // config name or path
  // Runs the workload on a fresh core of `config` and returns its device time:
  // the sum of its kernel executions' device times, without profiler capture.
  // `timing_only`: without computing values (Device::set_timing_only); the
  // device time is the same.
  std::function<Picos(const std::string& config, bool timing_only)> run;
};

struct Measurement {
  std::string name, config;
  Picos device_time = 0;
};

// Golden file: one line per workload, "name<TAB>config<TAB>device_time_ps",
// '#' comments allowed. Throws SimError naming the file and line when malformed.
std::map<std::pair<std::string, std::string>, Picos> ReadGoldens(const std::string& path);
void WriteGoldens(const std::string& path, const std::vector<Measurement>& measured, const std::string& header);

std::vector<Measurement> Measure(const std::vector<Workload>& workloads, bool timing_only = false);

struct Comparison {
  bool ok = true;
  std::string table;  // every workload: old, new, change; differences marked
};
// Exact comparison; a workload without a golden, or a golden without a
// workload, is a failure too (the file must be rewritten deliberately).
Comparison Compare(const std::map<std::pair<std::string, std::string>, Picos>& goldens,
                   const std::vector<Measurement>& measured);

// A workload that runs one kernel file (docs/kernel-format.md) on the model;
// `name` (default: the path) identifies it in the golden file.
Workload KernelFileWorkload(const std::string& path, const std::string& config, const std::string& name = "");

}  // namespace gate
}  // namespace nsim
