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
// Kineto's fmtTs: microseconds with exactly three decimals, "12.345".
void AppendMicros(std::string& out, int64_t ns);

// Builds the body of an "args" object, `{"k": v, ...}`.
class JsonArgs {
 public:
  JsonArgs& Int(const char* key, int64_t value);
  JsonArgs& Num(const char* key, double value);
  JsonArgs& Str(const std::string& key, const std::string& value);
  std::string Done() const { return "{" + body_ + "}"; }

 private:
  void Key(const std::string& key);
  std::string body_;
};

}  // namespace prof
}  // namespace nsim
