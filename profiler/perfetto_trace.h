#pragma once
// trace.perfetto-trace: trace.json (chrome_trace.h) in Perfetto's native
// protobuf format (a `Trace` of `TracePacket`s with `TrackDescriptor`s and
// `TrackEvent`s, protos/perfetto/trace/ of google/perfetto), carrying the
// same tracks, slices, flows, counters and instants. It is translated from
// the JSON document rather than built a second time, so the two cannot
// disagree:
//   process_name / thread_name  -> process and thread tracks (same pid, tid, name)
//   "X" slice                   -> TYPE_SLICE_BEGIN / TYPE_SLICE_END on its thread's track,
//                                  category, args as debug annotations
//   "s" / "f" flow              -> flow_ids / terminating_flow_ids on the slice it follows
//   "C" counter                 -> one counter track "<name> <arg>" per argument, TYPE_COUNTER
//   "i" instant                 -> TYPE_INSTANT on its thread's (or a global) track
// Timestamps are integer ns (the JSON's microseconds are exact binary
// fractions of whole ns, docs/output-schema.md).
#include <string>

namespace nsim {
namespace prof {

std::string PerfettoTraceFromChromeJson(const std::string& chrome_trace_json);

}  // namespace prof
}  // namespace nsim
