#pragma once
// One validation case: a kernel measured on real hardware, written in the
// project's kernel language with the structure its source gives, together
// with the measured value, how it was timed and where it comes from.
#include <functional>
#include <string>
#include <vector>

#include "sim/base/time.h"
#include "sim/kernel/kernel.h"
#include "sim/model/execution_result.h"
#include "sim/model/timing_window.h"

namespace nsim {
namespace validation {

// What is compared with the measurement.
enum class Metric {
  kWindow,             // the execution window of `method` (NCL, profile total, device execution)
  kDuration,           // duration of instruction `index` of `engine` (profiler hover)
  kMeanDuration,       // mean duration of every instruction of `engine`
  kInterval,           // start of instruction index+1 minus start of `index` on `engine`
  kDurationDifference, // duration of `index` minus duration of `index2` on `engine` (a table load)
  kDmaPieceDuration,   // longest DMA piece of the kernel's first transfer (profiler hover)
};

struct Case {
  std::string name;          // e.g. "cs149_tiled_row_chunk_1"
  std::string group;         // "cs149", "points", "matmul"
  std::string structure;     // one line: tiles, DMAs, engines, loops, buffers
  double measured_ns = 0;
  std::string method_text;   // how it was timed, as the source says ("p99 NCL", "profiler hover")
  TimingMethod method = TimingMethod::kNcl;  // for Metric::kWindow
  Metric metric = Metric::kWindow;
  EngineId engine = EngineId::kSync;
  int index = 0, index2 = 0;
  std::string source;        // document and section
  std::string note;          // assumptions (compiler behaviour) and caveats
  std::function<Kernel()> build;
};

// The modelled value of `c` for the execution `r` of its kernel, in ns.
double ModelValueNs(const Case& c, const ExecutionResult& r, const HardwareConfig& config);

}  // namespace validation
}  // namespace nsim
