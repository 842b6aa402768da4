// The bad-input corpus (tests/bad_input/*.nk, *.yaml): each file states, in
// "# expect: WORDS" comment lines, the words its error must contain. Kernels
// are parsed, loaded and run on trn2 ("# set: key=value" lines override the
// config); configs are loaded. Every file must end in a SimError with all its
// words: never a signal, a hang, another exception or success.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "sim/base/error.h"
#include "sim/config/loader.h"
#include "sim/kernel/parser.h"
#include "sim/model/device.h"

namespace nsim {
namespace {

namespace fs = std::filesystem;
using ::testing::AllOf;
using ::testing::HasSubstr;

std::string Corpus() { return std::string(std::getenv("TEST_SRCDIR")) + "/nsim/tests/bad_input"; }

std::string ReadFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The values of the "# KEY: value" comment lines of `text`.
std::vector<std::string> Directives(const std::string& text, const std::string& key) {
  std::vector<std::string> out;
  std::istringstream in(text);
  const std::string prefix = "# " + key + ": ";
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(prefix, 0) == 0) out.push_back(line.substr(prefix.size()));
  }
  return out;
}

// The SimError message `f` throws, or "no error".
template <typename F>
std::string ErrorFrom(F&& f) {
  try {
    f();
  } catch (const SimError& e) {
    return e.what();
  }
  return "no error";
}

std::string ErrorOf(const fs::path& p, const std::string& text) {
  return ErrorFrom([&] {
    if (p.extension() == ".yaml") {
      LoadHardwareConfig(p.string());
    } else {
      Device device(LoadHardwareConfig("trn2", Directives(text, "set")));
      device.Execute(ParseKernel(text, p.filename().string()));
    }
  });
}

class BadInput : public ::testing::TestWithParam<std::string> {};

TEST_P(BadInput, FailsWithItsWords) {
  const fs::path path = fs::path(Corpus()) / GetParam();
  const std::string text = ReadFile(path);
  const std::vector<std::string> words = Directives(text, "expect");
  ASSERT_FALSE(words.empty()) << path << " has no '# expect:' line";
  const std::string msg = ErrorOf(path, text);
  for (const std::string& w : words) EXPECT_THAT(msg, ::testing::HasSubstr(w)) << path;
}

std::vector<std::string> CorpusFiles() {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(Corpus())) {
    const std::string ext = e.path().extension().string();
    if (ext == ".nk" || ext == ".yaml") names.push_back(e.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

INSTANTIATE_TEST_SUITE_P(Corpus, BadInput, ::testing::ValuesIn(CorpusFiles()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string n = info.param;
                           for (char& c : n) if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });

// Classes that need more than a file.

TEST(BadInputFiles, DirectoryAsKernelFile) {
  EXPECT_THAT(ErrorFrom([] { LoadKernelFile(Corpus()); }), HasSubstr("is a directory"));
}

TEST(BadInputFiles, MissingKernelFile) {
  EXPECT_THAT(ErrorFrom([] { LoadKernelFile(Corpus() + "/no_such_file.nk"); }), HasSubstr("cannot open kernel file"));
}

// Configs reach the device only through the loader's limits; a config built
// in code bypasses them. Timestamps past INT64_MAX ps must still be an error
// naming the instruction, not a wrap-around: at 1 Hz one VectorE instruction
// of 10^6 cycles lasts 10^18 ps, so the tenth passes INT64_MAX (9.2 x 10^18).
TEST(BadInputConfigsInCode, TimestampsPastInt64Max) {
  HardwareConfig c = LoadHardwareConfig("trn2");
  c.vector.freq_hz = 1;
  c.vector.min_ii_cycles = 1000000;
  std::string text = "kernel slow\ntensor a sbuf f32 [1, 4]\n";
  for (int i = 0; i < 12; ++i) text += "vector: memset a value=1\n";
  Device device(c);
  EXPECT_THAT(ErrorFrom([&] { device.Execute(ParseKernel(text, "slow.nk")); }),
              AllOf(HasSubstr("kernel 'slow' line 12 (vector memset)"),
                    HasSubstr("simulated time in picoseconds overflows")));
}

// One instruction's duration beyond INT64_MAX ps fails at load, naming it.
TEST(BadInputConfigsInCode, DurationPastInt64Max) {
  HardwareConfig c = LoadHardwareConfig("trn2");
  c.vector.freq_hz = 1e-300;
  Device device(c);
  const Kernel k = ParseKernel("kernel k\ntensor a sbuf f32 [1, 4]\nvector: memset a value=1\n", "k.nk");
  EXPECT_THAT(ErrorFrom([&] { device.Load(k); }),
              AllOf(HasSubstr("kernel 'k' line 3 (vector memset)"), HasSubstr("a duration in picoseconds overflows")));
}

// A kernel assembled field by field (not through the builder) is checked when loaded.
TEST(BadInputKernelsInCode, HandBuiltKernelIsChecked) {
  const Kernel k = ParseKernel("kernel k\ntensor a sbuf f32 [1, 4]\nsemaphore s\nvector: memset a value=1 signal=s\n");
  // Kernel `kk` with its first vector instruction changed by `edit`.
  auto with_first = [](Kernel kk, auto edit) {
    kk.EditInstruction(static_cast<int>(EngineId::kVector), 0, edit);
    return kk;
  };
  Device device(LoadHardwareConfig("trn2"));
  const Kernel bad_sem = with_first(k, [](Instruction& in) { in.signals[0].sem = 7; });
  EXPECT_THAT(ErrorFrom([&] { device.Load(bad_sem); }),
              HasSubstr("kernel 'k' line 4 (vector memset): no semaphore with index 7"));
  Kernel bad_shape = k;
  bad_shape.tensors[0].shape = {1, int64_t{1} << 62};
  EXPECT_THAT(ErrorFrom([&] { device.Load(bad_shape); }), HasSubstr("tensor 'a' is too large"));
  const Kernel bad_ap = with_first(k, [](Instruction& in) { in.dst.dims = in.dst.dims.With(1, {in.dst.dims[1].stride, 5}); });
  EXPECT_THAT(ErrorFrom([&] { device.Load(bad_ap); }), HasSubstr("kernel 'k' line 4 (vector memset): elements [0, 4]"));
}

}  // namespace
}  // namespace nsim
