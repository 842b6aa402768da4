#pragma once
// Where device work lands on the simulated clock. Each stream is an in-order
// queue: an item starts once it has been submitted and everything before it
// on the same stream has finished. Kernel executions also take the whole
// NeuronCore (its engines run one kernel at a time), so executions on
// different streams still serialise; host<->device copies run on DMA rings
// outside the engines and only occupy their own stream.
#include <vector>

#include "sim/base/time.h"

namespace nsim {
namespace rt {

class StreamTimeline {
 public:
  static constexpr int kDefaultStream = 0;

  StreamTimeline() : stream_end_(1, 0) {}  // the default stream always exists

  int Create();  // returns the new stream's id: 1, 2, ...
  bool Has(int stream) const { return stream >= 0 && stream < size(); }
  int size() const { return static_cast<int>(stream_end_.size()); }

  // Occupies `stream` (and the engines, if `uses_engines`) for `duration`,
  // starting no earlier than `ready`; returns the start time.
  Picos Place(int stream, Picos ready, Picos duration, bool uses_engines);

  Picos end(int stream) const { return stream_end_[stream]; }  // when its last item finishes
  Picos end() const;                                           // latest over all streams

 private:
  std::vector<Picos> stream_end_;
  Picos engines_end_ = 0;
};

}  // namespace rt
}  // namespace nsim
