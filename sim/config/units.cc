#include "sim/config/units.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "sim/base/error.h"

namespace nsim {
namespace {

// A unit and its factor to the base unit, 10^pow10 * 2^pow2. The factor is
// split so that the decimal part is applied to the decimal text (one
// correctly rounded strtod: "0.96GHz" is exactly 960000000 Hz) and the binary
// part by an exact ldexp, which also makes FormatQuantity round-trip exactly.
struct Unit {
  const char* symbol;
  int pow10;
  int pow2;
};

enum class Integral { kNo, kRound, kWhole };

struct KindInfo {
  const char* name;
  std::vector<Unit> units;            // accepted on input
  std::vector<const char*> display;   // output candidates, largest first
  const char* example;
  Integral integral;
  const char* whole_noun;             // "bytes" in "not a whole number of bytes"
};

const KindInfo& Info(UnitKind kind) {
  static const KindInfo frequency{
      "frequency",
      {{"Hz", 0, 0}, {"kHz", 3, 0}, {"MHz", 6, 0}, {"GHz", 9, 0}},
      {"GHz", "MHz", "kHz", "Hz"}, "1.4GHz", Integral::kNo, ""};
  static const KindInfo time{
      "time",
      {{"ps", 0, 0}, {"ns", 3, 0}, {"us", 6, 0}, {"ms", 9, 0}, {"s", 12, 0}},
      {"s", "ms", "us", "ns", "ps"}, "1300ns", Integral::kRound, ""};
  static const KindInfo size{
      "size",
      {{"B", 0, 0}, {"KB", 3, 0}, {"kB", 3, 0}, {"MB", 6, 0}, {"GB", 9, 0}, {"TB", 12, 0},
       {"KiB", 0, 10}, {"MiB", 0, 20}, {"GiB", 0, 30}, {"TiB", 0, 40}},
      {"TiB", "GiB", "MiB", "KiB", "B"}, "224KiB", Integral::kWhole, " of bytes"};
  static const KindInfo bandwidth{
      "bandwidth",
      {{"B/ns", 0, 0}, {"B/s", -9, 0}, {"KB/s", -6, 0}, {"kB/s", -6, 0}, {"MB/s", -3, 0},
       {"GB/s", 0, 0}, {"TB/s", 3, 0}, {"KiB/s", -9, 10}, {"MiB/s", -9, 20},
       {"GiB/s", -9, 30}, {"TiB/s", -9, 40}},
      {"B/ns"}, "23B/ns", Integral::kNo, ""};
  static const KindInfo cycles{
      "cycles",
      {{"", 0, 0}, {"cycles", 0, 0}, {"cycle", 0, 0}},
      {"cycles"}, "64cycles", Integral::kWhole, " of cycles"};
  static const KindInfo ratio{"ratio", {{"", 0, 0}}, {""}, "0.5", Integral::kNo, ""};
  static const KindInfo count{"count", {{"", 0, 0}}, {""}, "16", Integral::kWhole, ""};
  static const KindInfo text{"text", {}, {}, "NeuronCore-v2", Integral::kNo, ""};
  switch (kind) {
    case UnitKind::kFrequency: return frequency;
    case UnitKind::kTime: return time;
    case UnitKind::kSize: return size;
    case UnitKind::kBandwidth: return bandwidth;
    case UnitKind::kCycles: return cycles;
    case UnitKind::kRatio: return ratio;
    case UnitKind::kCount: return count;
    case UnitKind::kText: return text;
  }
  return text;
}

const Unit* FindUnit(const KindInfo& info, const std::string& symbol) {
  for (const Unit& u : info.units) {
    if (symbol == u.symbol) return &u;
  }
  return nullptr;
}

// A number split into its mantissa text and its decimal exponent, so that a
// unit's power of ten can be added to the exponent before conversion.
struct Number {
  std::string mantissa;  // sign, digits, optional point
  long exponent = 0;
  size_t length = 0;     // characters consumed; 0 if there is no number
};

size_t SkipDigits(const std::string& s, size_t i) {
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
  return i;
}

// Reads sign, digits, optional point and digits, optional exponent. Only
// this grammar is accepted (no "inf", "nan" or hex, which strtod would take).
Number ScanNumber(const std::string& s) {
  Number n;
  size_t i = (!s.empty() && (s[0] == '+' || s[0] == '-')) ? 1 : 0;
  const size_t int_end = SkipDigits(s, i);
  size_t end = int_end;
  if (end < s.size() && s[end] == '.') end = SkipDigits(s, end + 1);
  const size_t digits = (int_end - i) + (end > int_end ? end - int_end - 1 : 0);
  if (digits == 0) return n;
  n.mantissa = s.substr(0, end);
  n.length = end;
  if (end < s.size() && (s[end] == 'e' || s[end] == 'E')) {
    size_t j = end + 1;
    if (j < s.size() && (s[j] == '+' || s[j] == '-')) ++j;
    const size_t exp_end = SkipDigits(s, j);
    if (exp_end > j) {
      // Clamp absurd exponents; strtod then yields inf or 0 as it should.
      const std::string exp_text = s.substr(end + 1, exp_end - end - 1);
      n.exponent = exp_end - j > 6 ? (exp_text[0] == '-' ? -1000000 : 1000000)
                                   : std::strtol(exp_text.c_str(), nullptr, 10);
      n.length = exp_end;
    }
  }
  return n;
}

std::string Trim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

[[noreturn]] void Reject(UnitKind kind, const std::string& text, const std::string& why) {
  throw SimError("'" + text + "' is not a valid " + Info(kind).name + ": " + why + "; use " +
                 UnitHint(kind));
}

// Explains a unit that is not one of `kind`: names the kind it belongs to,
// since the usual mistake is a time where a frequency was meant, or similar.
std::string WrongUnit(UnitKind kind, const std::string& symbol) {
  if (symbol.empty()) return "missing unit";
  for (UnitKind other : {UnitKind::kFrequency, UnitKind::kTime, UnitKind::kSize,
                         UnitKind::kBandwidth, UnitKind::kCycles}) {
    if (other != kind && FindUnit(Info(other), symbol)) {
      return "wrong unit '" + symbol + "' (a " + Info(other).name + " unit)";
    }
  }
  return "unknown unit '" + symbol + "'";
}

double ToIntegral(UnitKind kind, const std::string& text, double value) {
  const KindInfo& info = Info(kind);
  if (info.integral == Integral::kNo) return value;
  if (std::fabs(value) >= 9.2e18) Reject(kind, text, "out of range");
  if (info.integral == Integral::kRound) return std::round(value);
  if (value != std::floor(value)) {
    Reject(kind, text, std::string("not a whole number") + info.whole_noun);
  }
  return value;
}

// Shortest "d.ddde+XX" text that strtod reads back as exactly `v`.
std::string ShortestScientific(double v) {
  char buf[40];
  for (int precision = 0; precision < 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*e", precision, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

// `v` / 10^pow10 as plain decimal text (no exponent), exactly: the digits
// of `v` are kept and only the point moves, so parsing the text with a unit
// of 10^pow10 gives back `v` bit for bit.
std::string DecimalText(double v, int pow10) {
  if (v == 0) return "0";
  const std::string sci = ShortestScientific(std::fabs(v));
  const size_t e = sci.find('e');
  std::string digits = sci.substr(0, 1) + (e > 2 ? sci.substr(2, e - 2) : "");
  const int exp10 = std::atoi(sci.c_str() + e + 1) - pow10;  // point after digit exp10+1
  std::string out;
  if (exp10 < 0) {
    out = "0." + std::string(-exp10 - 1, '0') + digits;
  } else {
    if (digits.size() < static_cast<size_t>(exp10) + 1) digits.resize(exp10 + 1, '0');
    out = digits.substr(0, exp10 + 1);
    if (digits.size() > static_cast<size_t>(exp10) + 1) out += "." + digits.substr(exp10 + 1);
  }
  while (out.find('.') != std::string::npos && (out.back() == '0' || out.back() == '.')) {
    out.pop_back();
  }
  return (v < 0 ? "-" : "") + out;
}

// Output unit: for integral kinds the largest that divides the value (so
// 1300000ps prints as 1300ns, not 1.3us); otherwise the largest not above it.
const Unit& DisplayUnit(const KindInfo& info, double value) {
  const Unit* chosen = FindUnit(info, info.display.back());
  if (value == 0) return *chosen;
  for (const char* symbol : info.display) {
    const Unit* u = FindUnit(info, symbol);
    const double factor = std::ldexp(std::pow(10.0, u->pow10), u->pow2);
    const bool fits = info.integral != Integral::kNo ? std::fmod(std::fabs(value), factor) == 0
                                                     : std::fabs(value) >= factor;
    if (fits) return *u;
  }
  return *chosen;
}

}  // namespace

const char* UnitKindName(UnitKind kind) { return Info(kind).name; }

std::string UnitHint(UnitKind kind) {
  const KindInfo& info = Info(kind);
  std::vector<std::string> symbols;
  bool plain = false;
  for (const Unit& u : info.units) {
    if (*u.symbol) symbols.push_back(u.symbol);
    plain = plain || !*u.symbol;
  }
  std::string list;
  for (size_t i = 0; i < symbols.size(); ++i) {
    list += (i == 0 ? "" : i + 1 == symbols.size() && !plain ? " or " : ", ") + symbols[i];
  }
  if (kind == UnitKind::kText) return "any text, e.g. " + std::string(info.example);
  if (symbols.empty()) {
    return std::string(info.integral == Integral::kWhole ? "a plain integer" : "a plain number") +
           ", e.g. " + info.example;
  }
  return list + (plain ? " or no unit" : "") + ", e.g. " + info.example;
}

double ParseQuantity(UnitKind kind, const std::string& text) {
  if (kind == UnitKind::kText) throw SimError("internal: text values have no unit");
  const std::string s = Trim(text);
  const Number n = ScanNumber(s);
  if (n.length == 0) Reject(kind, text, "expected a number");
  const std::string symbol = Trim(s.substr(n.length));
  const Unit* unit = FindUnit(Info(kind), symbol);
  if (!unit) Reject(kind, text, WrongUnit(kind, symbol));
  const std::string scaled = n.mantissa + "e" + std::to_string(n.exponent + unit->pow10);
  const double value = std::ldexp(std::strtod(scaled.c_str(), nullptr), unit->pow2);
  if (!std::isfinite(value)) Reject(kind, text, "out of range");
  return ToIntegral(kind, text, value);
}

std::string FormatQuantity(UnitKind kind, double value) {
  if (kind == UnitKind::kText) throw SimError("internal: text values have no unit");
  const Unit& unit = DisplayUnit(Info(kind), value);
  return DecimalText(std::ldexp(value, -unit.pow2), unit.pow10) + unit.symbol;
}

}  // namespace nsim
