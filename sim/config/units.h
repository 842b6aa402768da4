#pragma once
// Values with units, as written in config files and on the command line
// ("2.8GHz", "1300ns", "224KiB", "23B/ns", "64cycles"), converted to the base
// units of HardwareConfig: Hz, picoseconds, bytes, bytes per nanosecond,
// cycles. A unit is required for every physical quantity, so that "1300" can
// never be silently read as the wrong one of ns or ps.
#include <cstdint>
#include <string>

#include "sim/base/time.h"

namespace nsim {

enum class UnitKind {
  kFrequency,  // Hz, kHz, MHz, GHz                                    -> Hz
  kTime,       // ps, ns, us, ms, s                                    -> ps, rounded
  kSize,       // B, KB/MB/GB/TB (1000-based), KiB/MiB/GiB/TiB        -> bytes, integral
  kBandwidth,  // B/ns, B/s, KB/s ... TB/s, KiB/s ... TiB/s           -> bytes per ns
  kCycles,     // plain integer or with "cycles"                       -> cycles, integral
  kRatio,      // plain number, no unit
  kCount,      // plain integer, no unit
  kText,       // any non-empty string (not parsed by this file)
};

// "frequency", "time", ...: used in error messages and the key list.
const char* UnitKindName(UnitKind kind);

// The accepted units with an example, e.g. "Hz, kHz, MHz or GHz, e.g. 1.4GHz".
std::string UnitHint(UnitKind kind);

// Parses `text` as a quantity of `kind` into its base unit. The result is a
// whole number for kTime (rounded to the ps), kSize, kCycles and kCount.
// Throws SimError naming the text and the accepted units when the number is
// malformed, the unit is missing or wrong, or an integral kind is fractional.
// Limits (e.g. "must be positive") are not checked here; see params.h.
double ParseQuantity(UnitKind kind, const std::string& text);

// The inverse of ParseQuantity: the shortest text that parses back to exactly
// `value`, in the largest unit that reads naturally (2.8GHz, 1300ns, 192KiB,
// 17B/ns, 64cycles).
std::string FormatQuantity(UnitKind kind, double value);

// Typed shorthands for callers that know the kind.
inline double ParseFrequency(const std::string& t) { return ParseQuantity(UnitKind::kFrequency, t); }
inline Picos ParseTime(const std::string& t) {
  return static_cast<Picos>(ParseQuantity(UnitKind::kTime, t));
}
inline int64_t ParseSize(const std::string& t) {
  return static_cast<int64_t>(ParseQuantity(UnitKind::kSize, t));
}
inline double ParseBandwidth(const std::string& t) { return ParseQuantity(UnitKind::kBandwidth, t); }
inline int64_t ParseCycles(const std::string& t) {
  return static_cast<int64_t>(ParseQuantity(UnitKind::kCycles, t));
}
inline double ParseRatio(const std::string& t) { return ParseQuantity(UnitKind::kRatio, t); }
inline int64_t ParseCount(const std::string& t) {
  return static_cast<int64_t>(ParseQuantity(UnitKind::kCount, t));
}

inline std::string FormatFrequency(double hz) { return FormatQuantity(UnitKind::kFrequency, hz); }
inline std::string FormatTime(Picos ps) {
  return FormatQuantity(UnitKind::kTime, static_cast<double>(ps));
}
inline std::string FormatSize(int64_t bytes) {
  return FormatQuantity(UnitKind::kSize, static_cast<double>(bytes));
}
inline std::string FormatBandwidth(double bytes_per_ns) {
  return FormatQuantity(UnitKind::kBandwidth, bytes_per_ns);
}

}  // namespace nsim
