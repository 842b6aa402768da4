// Timing-only mode (issue 12) changes nothing but the values: on every
// example kernel, every calibration kernel small enough to compute, every
// golden workload and the RMSNorm study, a run without values gives the same
// device time, records (summary.json with every record) and trace
// (chrome trace JSON), byte for byte, as the run with values.
#include <filesystem>
#include <iostream>
#include <regex>
#include <string>

#include <gtest/gtest.h>

#include "benchmarks/rmsnorm/implementations.h"
#include "benchmarks/rmsnorm/study_runner.h"
#include "profiler/chrome_trace.h"
#include "runtime/runtime.h"
#include "sim/config/loader.h"
#include "sim/isa/opcode_spec.h"
#include "sim/kernel/parser.h"
#include "sim/model/device.h"
#include "tools/device_time/workloads.h"
#include "tools/run_output.h"
#include "validation/suite.h"

namespace nsim {
namespace {

// Everything a run reports: device time, every instruction and DMA record,
// the summaries, and the trace the profiler would export.
std::string Observed(const HardwareConfig& config, const Kernel& k, const ExecutionResult& r) {
  return std::to_string(r.device_time) + "\n" + RunSummaryJson(config, k, r, {}, /*records=*/true).dump() + "\n" +
         prof::ChromeTraceJson(RecordingOfExecution(config, k, r));
}

void ExpectSameWithoutValues(const std::string& config_name, const Kernel& k) {
  const HardwareConfig config = LoadHardwareConfig(config_name);
  Device with_values(config), timing_only(config);
  timing_only.set_timing_only(true);
  const auto loaded = with_values.Load(k);
  const ExecutionResult a = with_values.Execute(*loaded);
  const ExecutionResult b = timing_only.Execute(*loaded);
  EXPECT_GT(a.instructions.size(), 0u) << k.name;
  EXPECT_EQ(a.scratch_addresses, b.scratch_addresses) << k.name << " on " << config_name;
  // EXPECT_TRUE, not EXPECT_EQ: the strings are megabytes long.
  EXPECT_TRUE(Observed(config, k, a) == Observed(config, k, b)) << k.name << " on " << config_name;
}

TEST(TimingOnly, ExampleKernels) {
  for (const auto& entry : std::filesystem::directory_iterator("sim/kernel/examples")) {
    const Kernel k = LoadKernelFile(entry.path().string());
    for (const char* config : {"trn1", "trn2", "trn3"}) ExpectSameWithoutValues(config, k);
  }
}

// Arithmetic and bytes the values of a kernel would cost, to leave out the
// calibration kernels of real size (a 4096x8192x8192 matmul takes minutes
// with values; timing-only exists for them).
double ValueWork(const Kernel& k) {
  double work = 0;
  for (int e = 0; e < kNumEngines; ++e) {
    for (const InstructionView& in : k.stream(e)) {
      work += static_cast<double>(Spec(in.opcode).flops(k, in));
      if (in.dst.present()) work += static_cast<double>(in.dst.NumElements());
    }
  }
  return work;
}

TEST(TimingOnly, CalibrationKernels) {
  constexpr double kMaxWork = 2e9;
  int compared = 0, too_large = 0;
  for (const validation::Case& c : validation::Trn1Suite()) {
    const Kernel k = c.build();
    if (ValueWork(k) > kMaxWork) {
      ++too_large;
      continue;
    }
    ExpectSameWithoutValues("trn1", k);
    ++compared;
  }
  std::cout << compared << " calibration kernels compared, " << too_large << " too large to compute values\n";
  EXPECT_GT(compared, too_large);
}

TEST(TimingOnly, GoldenWorkloads) {
  const auto workloads = gate::BuiltinWorkloads();
  const auto with_values = gate::Measure(workloads, false);
  const auto timing_only = gate::Measure(workloads, true);
  ASSERT_EQ(with_values.size(), timing_only.size());
  for (size_t i = 0; i < with_values.size(); ++i) {
    EXPECT_EQ(with_values[i].device_time, timing_only[i].device_time)
        << with_values[i].name << " on " << with_values[i].config;
  }
}

// Compiled regions are numbered per process ("Torch-Compiled Region: 18/0",
// kernel compiled_region_18_0 and its hash): the second run gets the next
// numbers, which have nothing to do with timing.
std::string WithoutRegionNumbers(const std::string& s) {
  static const std::regex region("(compiled_region_|Region: )[0-9]+([_/])[0-9]+"), hash("hash [0-9]+");
  return std::regex_replace(std::regex_replace(s, region, "$1N$2N"), hash, "hash H");
}

// The study through the runtime and the profiler: the key_averages() tables
// (Self NEURON per op) and the device breakdowns must be identical.
TEST(TimingOnly, RmsNormStudy) {
  study::StudyOptions o;
  o.shape = {16, 512};
  o.out_dir = std::string(std::getenv("TEST_TMPDIR")) + "/study";
  std::vector<study::ImplResult> runs[2];
  for (bool timing_only : {false, true}) {
    rt::Runtime::Get().Reset();
    rt::Runtime::Get().Configure(o.config);
    rt::Runtime::Get().set_timing_only(timing_only);
    o.timing_only = timing_only;
    for (const study::Implementation& impl : study::StudyImplementations(o)) {
      runs[timing_only].push_back(study::RunImplementation(impl.name, impl.fn, o));
    }
  }
  rt::Runtime::Get().Reset();
  ASSERT_EQ(runs[0].size(), runs[1].size());
  for (size_t i = 0; i < runs[0].size(); ++i) {
    EXPECT_EQ(runs[0][i].device_us, runs[1][i].device_us) << runs[0][i].name;
    EXPECT_EQ(WithoutRegionNumbers(runs[0][i].table), WithoutRegionNumbers(runs[1][i].table)) << runs[0][i].name;
    EXPECT_EQ(WithoutRegionNumbers(runs[0][i].device_summary), WithoutRegionNumbers(runs[1][i].device_summary))
        << runs[0][i].name;
    EXPECT_EQ(runs[0][i].hbm_bytes, runs[1][i].hbm_bytes) << runs[0][i].name;
  }
}

TEST(TimingOnly, RuntimeSettingReachesEveryCore) {
  rt::Runtime& runtime = rt::Runtime::Get();
  runtime.Reset();
  rt::NeuronCoreDevice& before = runtime.core(0);
  runtime.set_timing_only(true);
  EXPECT_TRUE(before.timing_only());
  EXPECT_TRUE(runtime.core(1).timing_only());  // created after the switch
  runtime.Reset();
  EXPECT_FALSE(runtime.timing_only());
  EXPECT_FALSE(runtime.core(0).timing_only());
}

}  // namespace
}  // namespace nsim
