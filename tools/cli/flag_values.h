#pragma once
// Flag values shared by the binaries, each checked with an error that names
// the flag, the value and what was expected (thrown as cli::UsageError).
#include <cstdint>
#include <string>
#include <vector>

namespace nsim {
namespace cli {

// Limits of --shape. The element count is only guarded against overflow
// here; what bounds a study tensor is the device memory of the core it runs
// on (HBM, checked by the study against the config, benchmarks/rmsnorm).
constexpr int kMaxShapeDims = 8;
constexpr int64_t kMaxShapeElements = int64_t{1} << 40;

// "4,512" -> {4, 512}.
std::vector<int64_t> ParseShape(const std::string& flag, const std::string& text);

// An integer flag in [lo, hi]: "abc", "4.5" and out-of-range values are
// errors naming the flag and the range.
int ParseIntFlag(const std::string& flag, const std::string& text, int lo, int hi);

// `bazel run` starts in the runfiles tree; a relative path means the user's
// directory (BUILD_WORKING_DIRECTORY).
std::string UserPath(const std::string& path);
// --config NAME|PATH: a value with a '/' or ending in .yaml is a file.
std::string ConfigArg(const std::string& value);
// A file the binary will read: must exist and be a regular file.
std::string InputFile(const std::string& flag, const std::string& path);

}  // namespace cli
}  // namespace nsim
