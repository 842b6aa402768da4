#pragma once
// trace.json: a Kineto-like Chrome trace of one Recording that opens in
// Perfetto UI and the DevTools Performance panel (profiler-conventions 4,
// checklist 6).
//
// Lanes, named as in Neuron Explorer:
//   process "host PID:<pid>":  framework/TID:<t>      ATen ops, compiled regions, ProfilerStep#N
//                              framework/Stream:<n>   submissions to stream n, named by kernel
//                              neuron_rt/NC:<n>       nrta_* runtime calls        (RUNTIME mode)
//   process "NC<n>":           neuron_hw/NC<n>        nc_exec_running             (RUNTIME mode)
//                              TensorE ... Sync, DMA queues: one slice per
//                              instruction / DMA piece                        (DEVICE mode)
//   process "NEURON <n> Counters": HBM bandwidth and engine utilisation       (DEVICE mode)
// A lane whose slices overlap without nesting is split into sub-lanes
// "<name> (2)", ... so that every lane nests strictly. Flow arrows ("ac2g")
// run ATen op -> runtime call -> hardware execution. Timestamps are
// microseconds on the simulated clock (baseTimeNanoseconds 0), written as
// exact binary fractions so that ts + dur adds up exactly in viewers that add
// in floating point (json_writer.h); Perfetto recovers the integer ns.
#include <string>

#include "profiler/recording.h"

namespace nsim {
namespace prof {

struct TraceOptions {
  int host_pid = 1;  // simulated: keeps traces identical run to run
  std::string trace_name = "trace.json";
  int counter_windows = 16;  // counter samples per device execution
};

std::string ChromeTraceJson(const Recording& recording, const TraceOptions& options = {});

}  // namespace prof
}  // namespace nsim
