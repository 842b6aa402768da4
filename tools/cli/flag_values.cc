#include "tools/cli/flag_values.h"

#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "tools/cli/cli.h"

namespace nsim {
namespace cli {
namespace {

constexpr const char* kShapeExpected = "expected positive integers separated by commas, e.g. 4,512";

int64_t ParseDim(const std::string& flag, const std::string& text, const std::string& item, size_t position) {
  const std::string where = flag + " '" + text + "': item " + std::to_string(position) + " ";
  if (item.empty()) throw UsageError(where + "is empty (" + kShapeExpected + ")");
  for (char c : item) {
    if (c < '0' || c > '9') throw UsageError(where + "'" + item + "' is not a positive integer (" + kShapeExpected + ")");
  }
  if (item.size() > 18) throw UsageError(where + "'" + item + "' is too large (at most " + std::to_string(kMaxShapeElements) + " elements in all)");
  const int64_t v = std::stoll(item);
  if (v <= 0) throw UsageError(where + "is " + item + " (" + kShapeExpected + ")");
  return v;
}

}  // namespace

std::vector<int64_t> ParseShape(const std::string& flag, const std::string& text) {
  std::vector<int64_t> shape;
  int64_t elements = 1;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    shape.push_back(ParseDim(flag, text, item, shape.size() + 1));
    if (static_cast<int>(shape.size()) > kMaxShapeDims) {
      throw UsageError(flag + " '" + text + "' has more than " + std::to_string(kMaxShapeDims) + " dimensions");
    }
    if (shape.back() > kMaxShapeElements / elements) {
      throw UsageError(flag + " '" + text + "' has more than " + std::to_string(kMaxShapeElements) +
                       " elements");
    }
    elements *= shape.back();
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return shape;
}

int ParseIntFlag(const std::string& flag, const std::string& text, int lo, int hi) {
  const std::string expected = "expected an integer from " + std::to_string(lo) + " to " + std::to_string(hi);
  bool digits = !text.empty() && text.size() <= 10;
  for (size_t i = 0; i < text.size(); ++i) digits = digits && ((text[i] >= '0' && text[i] <= '9') || (i == 0 && text[i] == '-'));
  if (!digits) throw UsageError(flag + " '" + text + "': " + expected);
  const long long v = std::stoll(text);
  if (v < lo || v > hi) throw UsageError(flag + " " + text + ": " + expected);
  return static_cast<int>(v);
}

std::string UserPath(const std::string& p) {
  const char* wd = std::getenv("BUILD_WORKING_DIRECTORY");
  if (p.empty() || p[0] == '/' || wd == nullptr) return p;
  return std::string(wd) + "/" + p;
}

std::string ConfigArg(const std::string& value) {
  const bool is_path = value.find('/') != std::string::npos ||
                       (value.size() > 5 && value.compare(value.size() - 5, 5, ".yaml") == 0);
  return is_path ? UserPath(value) : value;
}

std::string InputFile(const std::string& flag, const std::string& path) {
  namespace fs = std::filesystem;
  const std::string p = UserPath(path);
  std::error_code ec;
  const fs::file_status st = fs::status(p, ec);
  if (!fs::exists(st)) throw std::runtime_error(flag + " '" + path + "': no such file");
  if (fs::is_directory(st)) throw std::runtime_error(flag + " '" + path + "' is a directory, expected a file");
  if (!fs::is_regular_file(st)) throw std::runtime_error(flag + " '" + path + "' is not a regular file");
  return p;
}

}  // namespace cli
}  // namespace nsim
