#pragma once
// The simulator's own real (wall-clock) time, kept apart from simulated
// time: it tells how fast the simulator runs, never how fast the modelled
// hardware runs, so nothing here is ever added to the SimClock.
#include <chrono>
#include <cstdint>

namespace nsim {
namespace rt {

struct WallTime {
  std::chrono::nanoseconds simulate{0};  // inside Device::Execute (the SystemC model)
  std::chrono::nanoseconds load{0};      // inside Device::Load (validating and costing kernels)
  int64_t executions = 0;
  int64_t loads = 0;

  WallTime& operator+=(const WallTime& o) {
    simulate += o.simulate;
    load += o.load;
    executions += o.executions;
    loads += o.loads;
    return *this;
  }
  double simulate_seconds() const { return std::chrono::duration<double>(simulate).count(); }
  double load_seconds() const { return std::chrono::duration<double>(load).count(); }
};

// Real time since construction, on the steady clock (immune to clock changes).
class Stopwatch {
 public:
  Stopwatch() : start_(std::chrono::steady_clock::now()) {}
  std::chrono::nanoseconds elapsed() const {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start_);
  }

 private:
  std::chrono::steady_clock::time_point start_;
};

}  // namespace rt
}  // namespace nsim
