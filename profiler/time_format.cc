#include "profiler/time_format.h"

#include <cstdio>

namespace nsim {
namespace prof {
namespace {
constexpr double kUsInSecond = 1000.0 * 1000.0;
constexpr double kUsInMs = 1000.0;
}  // namespace

std::string FormatFixed(double value, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f", digits, value);
  return buf;
}

std::string FormatTime(double time_us) {
  if (time_us >= kUsInSecond) return FormatFixed(time_us / kUsInSecond, 3) + "s";
  if (time_us >= kUsInMs) return FormatFixed(time_us / kUsInMs, 3) + "ms";
  return FormatFixed(time_us, 3) + "us";
}

std::string FormatTimeIn(double time_us, const std::string& time_unit) {
  if (time_unit == "s") return FormatFixed(time_us / kUsInSecond, 3) + "s";
  if (time_unit == "ms") return FormatFixed(time_us / kUsInMs, 3) + "ms";
  if (time_unit == "us") return FormatFixed(time_us, 3) + "us";
  return FormatTime(time_us);
}

std::string FormatTimeShare(double time_us, double total_time_us) {
  if (total_time_us == 0) return "NaN";
  return FormatFixed(time_us * 100.0 / total_time_us, 2) + "%";
}

}  // namespace prof
}  // namespace nsim
