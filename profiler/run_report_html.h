#pragma once
// report.html of one profile output directory (nsim run --out, the study's
// --out, NeuronProfiler exports): the engine / DMA-queue timeline coloured by
// opcode (zoom with the wheel, drag to pan, hover for operands and times),
// per-engine utilisation bars, a roofline placing each execution, and the
// top instructions by time. Everything comes from the Recording and its
// device summary, so the page agrees with trace.json and summary.json.
#include <string>

#include "profiler/device_summary.h"
#include "profiler/recording.h"

namespace nsim {
namespace prof {

// The timeline keeps at most this many slices so the page stays small;
// the page says when it cut (trace.json always has every slice).
constexpr size_t kMaxTimelineSlices = 20000;
constexpr size_t kTopInstructions = 20;

std::string RunReportHtml(const Recording& recording, const ProfileDeviceSummary& summary,
                          const std::string& title);

}  // namespace prof
}  // namespace nsim
