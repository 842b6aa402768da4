// A user's suite file: cases read with their measurements and methods, bad
// lines rejected with the file, line and problem.
#include <cstdlib>
#include <fstream>
#include <gtest/gtest.h>

#include "sim/base/error.h"
#include "sim/config/loader.h"
#include "validation/run.h"
#include "validation/suite_file.h"

namespace nsim {
namespace validation {
namespace {

std::string Write(const std::string& name, const std::string& text) {
  const std::string path = std::string(std::getenv("TEST_TMPDIR")) + "/" + name;
  std::ofstream(path) << text;
  return path;
}

const char* kKernel = R"(kernel add
tensor a hbm f32 [4, 3] init=ones
tensor out hbm f32 [4, 3]
tensor t sbuf f32 [4, 3]
semaphore s
sync: dma_copy t, a signal=s
sync: dma_copy out, t wait=s>=1
)";

TEST(SuiteFile, ReadsCasesAndRunsThem) {
  Write("add.nk", kKernel);
  const std::string suite = Write("suite.txt", "# my part\ncopy  add.nk  3.5us  device_execution\ncopy_ncl add.nk 19us ncl\n");
  const std::vector<Case> cases = ReadSuiteFile(suite);
  ASSERT_EQ(cases.size(), 2u);
  EXPECT_EQ(cases[0].name, "copy");
  EXPECT_DOUBLE_EQ(cases[0].measured_ns, 3500);
  EXPECT_EQ(cases[1].method, TimingMethod::kNcl);
  const HardwareConfig c = LoadHardwareConfig("trn1");
  const auto results = SuiteRunner(cases).Run(c);
  // The NCL window is the device-execution window plus the NEFF pre/post-amble.
  EXPECT_NEAR(results[1].model_ns - results[0].model_ns,
              (c.kernel.neff_preamble_ps + c.kernel.neff_postamble_ps) / 1000.0, 1e-6);
}

TEST(SuiteFile, BadLinesNameFileAndLine) {
  Write("add.nk", kKernel);
  try {
    ReadSuiteFile(Write("bad.txt", "ok add.nk 3us ncl\nbroken add.nk 3us wallclock\n"));
    FAIL() << "expected an error";
  } catch (const SimError& e) {
    EXPECT_NE(std::string(e.what()).find("bad.txt:2: unknown timing method 'wallclock'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(ReadSuiteFile(Write("short.txt", "x add.nk 3us\n")), SimError);
  EXPECT_THROW(ReadSuiteFile(Write("unit.txt", "x add.nk 3 ncl\n")), SimError);
  EXPECT_THROW(ReadSuiteFile(Write("missing.txt", "x nowhere.nk 3us ncl\n")), SimError);
  EXPECT_THROW(ReadSuiteFile(Write("empty.txt", "# nothing\n")), SimError);
}

}  // namespace
}  // namespace validation
}  // namespace nsim
