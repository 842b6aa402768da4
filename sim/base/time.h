#pragma once
// Simulated time is integer picoseconds everywhere: integers keep results
// bit-identical run to run and independent of the absolute simulation time.
#include <cmath>
#include <cstdint>

namespace nsim {

using Picos = int64_t;

constexpr Picos kPicosPerNano = 1000;

// Duration of `cycles` cycles of a clock at `freq_hz`, rounded to the nearest ps.
inline Picos CyclesToPicos(double cycles, double freq_hz) {
  return static_cast<Picos>(std::llround(cycles * 1e12 / freq_hz));
}
inline Picos NanosToPicos(double ns) { return static_cast<Picos>(std::llround(ns * 1000.0)); }
inline double PicosToNanos(Picos ps) { return static_cast<double>(ps) / 1000.0; }
inline double PicosToMicros(Picos ps) { return static_cast<double>(ps) / 1e6; }

}  // namespace nsim
