#pragma once
// Counter tracks for the trace: HBM bandwidth and per-engine utilisation over
// the course of one device execution, averaged over equal windows (instant
// values of a 0/1 busy signal would only repeat the engine lanes).
#include <string>
#include <utility>
#include <vector>

#include "profiler/events.h"
#include "sim/base/time.h"

namespace nsim {
namespace prof {

struct CounterSample {
  Picos time = 0;              // absolute start of the window
  double hbm_gb_per_s = 0;     // HBM bytes read + written in the window / its length
  std::vector<std::pair<std::string, double>> engine_percent;  // busy share of the window
};

// `windows` samples covering [exec.start, exec.end), then a closing all-zero
// sample at exec.end so the counters drop back between executions.
std::vector<CounterSample> UtilisationTimeline(const DeviceExecution& exec, int windows);

}  // namespace prof
}  // namespace nsim
