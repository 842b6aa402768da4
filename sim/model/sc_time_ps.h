#pragma once
// ScPs(p): the sc_time that Ps(p) (run_state.h) builds, without its
// floating-point conversion. sc_time(double, SC_PS) stores int64(p + 0.5)
// computed in double; that is exactly p below 2^52 ps, so there the value
// is set directly; above (and for negative p) the double path is kept, with
// its rounding, so waits are the same picoseconds either way. Setting the
// value directly assumes SystemC's default resolution, 1 ps: SimHost refuses
// to run under any other (time_resolution_test).
#include <cstdint>

#include <systemc>

#include "sim/base/time.h"

namespace nsim {

inline sc_core::sc_time ScPs(Picos p) {
  constexpr Picos kExactBelow = Picos{1} << 52;
  if (p >= 0 && p < kExactBelow) return sc_core::sc_time::from_value(static_cast<sc_core::sc_time::value_type>(p));
  return sc_core::sc_time(static_cast<double>(p), sc_core::SC_PS);
}

// ScPs(p).value(): the picoseconds a wait of Ps(p) lasts, without building
// the sc_time where that is exactly p.
inline sc_core::sc_time::value_type ScPsValue(Picos p) {
  constexpr Picos kExactBelow = Picos{1} << 52;
  if (p >= 0 && p < kExactBelow) return static_cast<sc_core::sc_time::value_type>(p);
  return ScPs(p).value();
}

}  // namespace nsim
