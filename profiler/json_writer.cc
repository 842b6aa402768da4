#include "profiler/json_writer.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace nsim {
namespace prof {

namespace {

bool NeedsEscape(unsigned char c) { return c < 0x20 || c == '"' || c == '\\'; }

void AppendEscaped(std::string& out, unsigned char c) {
  switch (c) {
    case '"': out += "\\\""; break;
    case '\\': out += "\\\\"; break;
    case '\n': out += "\\n"; break;
    case '\r': out += "\\r"; break;
    case '\t': out += "\\t"; break;
    default: {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\u%04x", c);
      out += buf;
    }
  }
}

void AppendInt(std::string& out, int64_t v) {
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof(buf), v);
  out.append(buf, r.ptr);
}

}  // namespace

void AppendJsonString(std::string& out, const std::string& s) {
  out += '"';
  size_t run = 0;  // copy unescaped runs whole: names rarely need escaping
  for (size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (!NeedsEscape(c)) continue;
    out.append(s, run, i - run);
    AppendEscaped(out, c);
    run = i + 1;
  }
  out.append(s, run, std::string::npos);
  out += '"';
}

int64_t TraceNanos(Picos ps) { return ps <= 0 ? 0 : ps / kPicosPerNano; }

int64_t TraceTicks(int64_t ns) {
  // ns * 2^16 / 1000, rounded; 2^16 / 1000 = 8192 / 125.
  return (ns * 8192 + 62) / 125;
}

void AppendTicks(std::string& out, int64_t ticks) {
  AppendInt(out, ticks >> kTraceTickBits);
  const int64_t frac = ticks & ((int64_t{1} << kTraceTickBits) - 1);
  if (frac == 0) return;
  // frac / 2^16 = frac * 5^16 / 10^16: exactly 16 decimals.
  int64_t digits = frac * 152587890625LL;
  char buf[17];
  for (int i = 15; i >= 0; --i, digits /= 10) buf[i] = static_cast<char>('0' + digits % 10);
  int len = 16;
  while (buf[len - 1] == '0') --len;
  out += '.';
  out.append(buf, len);
}

void AppendMicros(std::string& out, int64_t ns) { AppendTicks(out, TraceTicks(ns)); }

void AppendDuration(std::string& out, int64_t start_ns, int64_t end_ns) {
  AppendTicks(out, TraceTicks(end_ns) - TraceTicks(start_ns));
}

void JsonArgs::Key(const std::string& key) {
  if (!body_.empty()) body_ += ", ";
  AppendJsonString(body_, key);
  body_ += ": ";
}

JsonArgs& JsonArgs::Int(const char* key, int64_t value) {
  Key(key);
  AppendInt(body_, value);
  return *this;
}

JsonArgs& JsonArgs::Num(const char* key, double value) {
  Key(key);
  if (!std::isfinite(value)) value = 0;  // JSON has no inf/NaN
  // Shortest text that reads back as the same double.
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof(buf), value);
  body_.append(buf, r.ptr);
  return *this;
}

JsonArgs& JsonArgs::Str(const std::string& key, const std::string& value) {
  Key(key);
  AppendJsonString(body_, value);
  return *this;
}

bool IsPlainNumber(const std::string& s) {
  size_t i = (!s.empty() && s[0] == '-') ? 1 : 0;
  bool digits = false, dot = false;
  for (; i < s.size(); ++i) {
    if (s[i] >= '0' && s[i] <= '9') digits = true;
    else if (s[i] == '.' && !dot) dot = true;
    else return false;
  }
  return digits && s.back() != '.' && s.size() < 32;
}

JsonArgs& JsonArgs::Value(const std::string& key, const std::string& value) {
  if (!IsPlainNumber(value)) return Str(key, value);
  Key(key);
  body_ += value;
  return *this;
}

}  // namespace prof
}  // namespace nsim
