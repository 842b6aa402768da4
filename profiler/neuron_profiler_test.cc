// NeuronProfiler(cfg).export_trace as on_trace_ready: the files it writes and
// the NEFF/NTFF pairing by kernel hash.
#include "profiler/neuron_profiler.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "profiler/perfetto_trace.h"
#include "profiler/profile.h"
#include "profiler/synthetic.h"
#include "sim/base/sim_clock.h"

namespace nsim {
namespace prof {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using synthetic::Backend;
using synthetic::Op;
using synthetic::RmsNormEagerOps;

std::string Slurp(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class NeuronProfilerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    SimClock::Get().Reset();
    const char* tmp = std::getenv("TEST_TMPDIR");
    dir_ = fs::path(tmp ? tmp : "/tmp") /
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(dir_);
    cfg_.profile_output_dir = dir_.string();
    cfg_.capture_enabled_for_nc = "0";
  }

  // The study's loop: schedule(2, 1, 1) with `steps` steps.
  NeuronProfiler Run(int steps, const ScheduleFn& schedule) {
    NeuronProfiler exporter(cfg_);
    ProfileOptions opts;
    opts.schedule = schedule;
    opts.experimental_config = cfg_;
    opts.on_trace_ready = exporter;
    Backend backend;
    Profile prof(opts);
    for (int i = 0; i < steps; ++i) {
      for (const Op& op : RmsNormEagerOps()) backend.Run(op);
      backend.Synchronize();
      prof.step();
    }
    return exporter;
  }

  fs::path dir_;
  NeuronConfig cfg_;
};

TEST_F(NeuronProfilerTest, WritesTraceKernelPairsAndSummary) {
  const NeuronProfiler exporter = Run(4, MakeSchedule(2, 1, 1));
  ASSERT_EQ(exporter.exports().size(), 1u);
  EXPECT_TRUE(fs::exists(dir_ / "trace.json"));
  EXPECT_NO_THROW(json::parse(Slurp(dir_ / "trace.json")));
  EXPECT_EQ(Slurp(dir_ / "trace.perfetto-trace"), PerfettoTraceFromChromeJson(Slurp(dir_ / "trace.json")));
  EXPECT_TRUE(fs::exists(dir_ / "summary.json"));
  EXPECT_TRUE(fs::exists(dir_ / "summary.txt"));

  // Four distinct kernels (mul, mean, add, rsqrt): one pair each, same stem.
  std::set<std::string> neff, ntff;
  for (const auto& entry : fs::directory_iterator(dir_)) {
    const fs::path& p = entry.path();
    if (p.extension() == ".neff") neff.insert(p.stem().string());
    if (p.extension() == ".ntff") ntff.insert(p.stem().string());
  }
  EXPECT_EQ(neff, (std::set<std::string>{"101", "102", "103", "104"}));
  EXPECT_EQ(neff, ntff);
  EXPECT_NE(Slurp(dir_ / "101.neff").find("kernel kernel_101"), std::string::npos);

  const json ntff_doc = json::parse(Slurp(dir_ / "101.ntff"));
  EXPECT_EQ(ntff_doc["kernel_hash"], "101");
  EXPECT_EQ(ntff_doc["neff"], "101.neff");
  EXPECT_EQ(ntff_doc["instructions"].size(), 7u);
  EXPECT_EQ(ntff_doc["dma"].size(), 3u);
  EXPECT_EQ(ntff_doc["instructions"][4]["opcode"], "matmul");

  // The trace's hardware slices name the NEFF each ran.
  const json trace = json::parse(Slurp(dir_ / "trace.json"));
  std::set<std::string> referenced;
  for (const json& e : trace["traceEvents"]) {
    if (e["ph"] == "X" && e["name"] == "nc_exec_running") referenced.insert(e["args"]["NEFF"]);
  }
  EXPECT_EQ(referenced, (std::set<std::string>{"101.neff", "102.neff", "103.neff", "104.neff"}));

  const json summary = json::parse(Slurp(dir_ / "summary.json"));
  EXPECT_EQ(summary["executions"].size(), 6u);
  Picos device_time = 0;
  for (const Op& op : RmsNormEagerOps()) device_time += op.device_time;
  EXPECT_DOUBLE_EQ(summary["total_time_ns"].get<double>(), PicosToNanos(device_time));
}

TEST_F(NeuronProfilerTest, LaterExportsGoToTheirOwnDirectories) {
  const NeuronProfiler exporter = Run(8, MakeSchedule(2, 1, 1));
  ASSERT_EQ(exporter.exports().size(), 2u);
  EXPECT_TRUE(fs::exists(dir_ / "trace.json"));
  EXPECT_TRUE(fs::exists(dir_ / "export_1" / "trace.json"));
  EXPECT_TRUE(fs::exists(dir_ / "export_1" / "101.neff"));
  EXPECT_TRUE(fs::exists(dir_ / "report.html"));
  EXPECT_FALSE(fs::exists(dir_ / "export_1" / "report.html"));  // ~0.9 MB each: first export only
}

TEST_F(NeuronProfilerTest, UncapturedCoreWritesNoKernelFiles) {
  cfg_.capture_enabled_for_nc = "1";  // the work runs on NC0
  Run(4, MakeSchedule(2, 1, 1));
  EXPECT_TRUE(fs::exists(dir_ / "trace.json"));
  EXPECT_FALSE(fs::exists(dir_ / "101.neff"));
  const json summary = json::parse(Slurp(dir_ / "summary.json"));
  EXPECT_TRUE(summary["executions"].empty());
}

TEST_F(NeuronProfilerTest, RuntimeModeAloneWritesOnlyTheTrace) {
  cfg_.modes = {ProfileMode::kRuntime};
  const NeuronProfiler exporter = Run(4, MakeSchedule(2, 1, 1));
  EXPECT_TRUE(fs::exists(dir_ / "trace.json"));
  EXPECT_FALSE(fs::exists(dir_ / "summary.json"));
  EXPECT_TRUE(exporter.exports()[0].neff.empty());
}

}  // namespace
}  // namespace prof
}  // namespace nsim
