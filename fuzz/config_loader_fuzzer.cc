// libFuzzer target: the config loader. The input is a YAML config file (it
// may inherit a shipped part); it either loads or throws SimError. A loaded
// config prints to YAML that loads back to the same text.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>

#include "sim/base/error.h"
#include "sim/config/loader.h"

namespace {

// One file per process, rewritten for every input.
std::string Scratch(const char* name) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  return std::string(tmp ? tmp : "/tmp") + "/nsim_fuzz_" + std::to_string(getpid()) + "_" + name;
}

nsim::HardwareConfig Load(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
  return nsim::LoadHardwareConfig(path);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string input = Scratch("input.yaml"), printed = Scratch("printed.yaml");
  nsim::HardwareConfig config;
  try {
    config = Load(input, std::string(reinterpret_cast<const char*>(data), size));
  } catch (const nsim::SimError&) {
    return 0;
  }
  const std::string text = nsim::FormatHardwareConfig(config);
  const nsim::HardwareConfig again = Load(printed, text);  // must not throw
  std::string round_trip = nsim::FormatHardwareConfig(again);
  // Only the provenance comments (file and line) may differ.
  auto values = [](const std::string& yaml) {
    std::string out;
    size_t pos = 0;
    while (pos < yaml.size()) {
      size_t end = yaml.find('\n', pos);
      if (end == std::string::npos) end = yaml.size();
      const std::string line = yaml.substr(pos, end - pos);
      out += line.substr(0, line.find('#')) + "\n";
      pos = end + 1;
    }
    return out;
  };
  if (values(round_trip) != values(text)) std::abort();
  return 0;
}
