#pragma once
// Simulated time is integer picoseconds everywhere: integers keep results
// bit-identical run to run and independent of the absolute simulation time.
#include <cmath>
#include <cstdint>

#include "sim/base/checked.h"

namespace nsim {

using Picos = int64_t;

constexpr Picos kPicosPerNano = 1000;

// Duration of `cycles` cycles of a clock at `freq_hz`, rounded to the nearest
// ps. A duration beyond INT64_MAX ps (106 days) is a SimError, not a wrap.
inline Picos CyclesToPicos(double cycles, double freq_hz) {
  return CheckedRound(cycles * 1e12 / freq_hz, "a duration in picoseconds");
}
inline Picos NanosToPicos(double ns) { return CheckedRound(ns * 1000.0, "a duration in picoseconds"); }
// A simulated timestamp `t` plus a duration: the sum must stay below INT64_MAX ps.
inline Picos AddTime(Picos t, Picos d) { return CheckedAdd(t, d, "simulated time in picoseconds"); }
inline double PicosToNanos(Picos ps) { return static_cast<double>(ps) / 1000.0; }
inline double PicosToMicros(Picos ps) { return static_cast<double>(ps) / 1e6; }

}  // namespace nsim
