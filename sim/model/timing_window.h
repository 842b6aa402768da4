#pragma once
// What each way of timing a kernel on real hardware includes
// (hardware-measurements.md section 0), computed from one execution:
//  - device execution (nrtpy "device-side execution", S20): the kernel's own
//    window, launch to teardown, i.e. ExecutionResult::device_time;
//  - NCL (nki.benchmark nc_latency) and the profile's total_time: one whole
//    NEFF execution, i.e. the NEFF pre-amble (semaphore and queue setup,
//    descriptor rings) + the kernel + the post-amble (completion).
// So a minimal kernel is ~3 us in the first window and 15-19 us in the others:
// the two measurements are reconciled by what each window contains.
#include <string>

#include "sim/base/time.h"
#include "sim/config/hw_config.h"
#include "sim/model/execution_result.h"

namespace nsim {

enum class TimingMethod { kDeviceExecution, kNcl, kProfileTotal };

const char* TimingMethodName(TimingMethod m);  // "device_execution", "ncl", "profile_total"
bool ParseTimingMethod(const std::string& s, TimingMethod* out);

Picos WindowTime(const ExecutionResult& r, const HardwareConfig& c, TimingMethod m);

}  // namespace nsim
