#pragma once
// Number formatting shared by the table, the trace and the summaries, written
// to match PyTorch's profiler_util.py (_format_time, _format_time_share,
// override_time_unit) byte for byte.
#include <cstdint>
#include <string>

#include "sim/base/time.h"

namespace nsim {
namespace prof {


// "120.000us", "2.100ms", "1.234s" (thresholds >= 1000us and >= 1e6us).
std::string FormatTime(double time_us);
// Same, but `time_unit` ("s", "ms", "us") forces one unit; "" keeps FormatTime.
std::string FormatTimeIn(double time_us, const std::string& time_unit);
// "12.34%", or "NaN" when the total is zero.
std::string FormatTimeShare(double time_us, double total_time_us);
// printf-style "%.<digits>f" (Python's f"{x:.Nf}").
std::string FormatFixed(double value, int digits);

}  // namespace prof
}  // namespace nsim
