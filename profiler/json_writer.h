#pragma once
// Minimal JSON text building for the trace writer: the trace can hold
// millions of events, and appending preformatted text is several times faster
// than building a DOM, which matters for export time (profiler_benchmark).
#include <cstdint>
#include <string>

#include "sim/base/time.h"

namespace nsim {
namespace prof {

// Appends `s` as a quoted, escaped JSON string.
void AppendJsonString(std::string& out, const std::string& s);
// Trace timestamps are whole nanoseconds (what Perfetto keeps); negative
// times clamp to 0 like Kineto's.
int64_t TraceNanos(Picos ps);
// Trace times are microseconds on a grid of 2^-16 us (0.015 ns): exact
// binary fractions, written with every decimal they need ("12.3450012207...",
// trailing zeros dropped). A viewer that adds ts + dur in floating point
// (speedscope, DevTools) then gets exactly the end it would read from the
// next slice, so back-to-back and nested slices stay nested; the grid is so
// much finer than 1 ns that Perfetto's llround(us * 1000) gives back the
// integer ns of ts, dur and ts + dur. Exact up to 2^37 us (38 hours).
constexpr int kTraceTickBits = 16;
int64_t TraceTicks(int64_t ns);
void AppendTicks(std::string& out, int64_t ticks);
// A timestamp: AppendTicks(TraceTicks(ns)).
void AppendMicros(std::string& out, int64_t ns);
// A duration, as the difference of the grid points of its ends.
void AppendDuration(std::string& out, int64_t start_ns, int64_t end_ns);

// Whether `s` is a plain decimal number ("12", "-3.5", "0.25"): instruction
// operands that are numbers are written as JSON numbers, not strings.
bool IsPlainNumber(const std::string& s);

// Builds the body of an "args" object, `{"k": v, ...}`.
class JsonArgs {
 public:
  JsonArgs& Int(const char* key, int64_t value);
  JsonArgs& Num(const char* key, double value);
  JsonArgs& Str(const std::string& key, const std::string& value);
  // A number when IsPlainNumber(value), else a string.
  JsonArgs& Value(const std::string& key, const std::string& value);
  std::string Done() const { return "{" + body_ + "}"; }

 private:
  void Key(const std::string& key);
  std::string body_;
};

}  // namespace prof
}  // namespace nsim
