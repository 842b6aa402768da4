#include "sim/model/timing_window.h"

namespace nsim {

const char* TimingMethodName(TimingMethod m) {
  switch (m) {
    case TimingMethod::kDeviceExecution: return "device_execution";
    case TimingMethod::kNcl: return "ncl";
    case TimingMethod::kProfileTotal: return "profile_total";
  }
  return "?";
}

bool ParseTimingMethod(const std::string& s, TimingMethod* out) {
  for (TimingMethod m : {TimingMethod::kDeviceExecution, TimingMethod::kNcl, TimingMethod::kProfileTotal}) {
    if (s == TimingMethodName(m)) {
      *out = m;
      return true;
    }
  }
  return false;
}

Picos WindowTime(const ExecutionResult& r, const HardwareConfig& c, TimingMethod m) {
  if (m == TimingMethod::kDeviceExecution) return r.device_time;
  return c.kernel.neff_preamble_ps + r.device_time + c.kernel.neff_postamble_ps;
}

}  // namespace nsim
