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

void AppendMicros(std::string& out, int64_t ns) {
  AppendInt(out, ns / 1000);
  const int frac = static_cast<int>(ns % 1000);
  const char digits[4] = {'.', static_cast<char>('0' + frac / 100),
                          static_cast<char>('0' + frac / 10 % 10), static_cast<char>('0' + frac % 10)};
  out.append(digits, 4);
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

}  // namespace prof
}  // namespace nsim
