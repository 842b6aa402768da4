#include "runtime/stream_timeline.h"

#include <algorithm>

namespace nsim {
namespace rt {

int StreamTimeline::Create() {
  stream_end_.push_back(0);
  return size() - 1;
}

Picos StreamTimeline::Place(int stream, Picos ready, Picos duration, bool uses_engines) {
  Picos start = std::max(ready, stream_end_[stream]);
  if (uses_engines) start = std::max(start, engines_end_);
  stream_end_[stream] = start + duration;
  if (uses_engines) engines_end_ = start + duration;
  return start;
}

Picos StreamTimeline::end() const { return *std::max_element(stream_end_.begin(), stream_end_.end()); }

}  // namespace rt
}  // namespace nsim
