// Profile: the study's set-up end to end through the event API, schedules
// driving record windows, ProfilerStep#N ranges, and the missing-sync case.
#include "profiler/profile.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "profiler/function_events.h"
#include "profiler/synthetic.h"
#include "sim/base/sim_clock.h"

namespace nsim {
namespace prof {
namespace {

using synthetic::Backend;
using synthetic::kUs;
using synthetic::Op;
using synthetic::RmsNormEagerOps;

class ProfileTest : public ::testing::Test {
 protected:
  void SetUp() override { SimClock::Get().Reset(); }

  // The study: schedule(wait=2, warmup=1, active=1), CPU + PrivateUse1.
  ProfileOptions StudyOptions() {
    ProfileOptions opts;
    opts.schedule = MakeSchedule(2, 1, 1);
    opts.on_warning = [this](const std::string& m) { logged_.push_back(m); };
    return opts;
  }

  void RunStep(Backend& backend, bool synchronize) {
    for (const Op& op : RmsNormEagerOps()) backend.Run(op);
    if (synchronize) backend.Synchronize();
  }

  std::vector<std::string> logged_;
};

Picos DeviceTimeOf(const std::string& name) {
  Picos total = 0;
  for (const Op& op : RmsNormEagerOps()) {
    if (op.name == name) total += op.device_time;
  }
  return total;
}

TEST_F(ProfileTest, StudySetUpRecordsOneWarmedUpStep) {
  int ready = 0;
  EventList averages;
  ProfileOptions opts = StudyOptions();
  opts.on_trace_ready = [&](Profile& p) {
    ++ready;
    averages = p.key_averages();
  };
  Backend backend;
  {
    Profile prof(opts);
    for (int i = 0; i < 4; ++i) {
      RunStep(backend, /*synchronize=*/true);
      prof.step();
    }
  }
  EXPECT_EQ(ready, 1);
  EXPECT_TRUE(logged_.empty());
  const EventStats* mul = averages.Find("aten::mul");
  ASSERT_NE(mul, nullptr);
  EXPECT_EQ(mul->count, 3);  // the warm-up and waiting steps are not recorded
  EXPECT_EQ(mul->self_device_time_total, DeviceTimeOf("aten::mul"));
  EXPECT_EQ(mul->self_cpu_time_total, 3 * RmsNormEagerOps()[0].host_time);
  EXPECT_EQ(averages.Find("aten::add")->self_device_time_total, 434600000);
  EXPECT_EQ(averages.Find("nrta_execute_schedule")->count, 6);
  EXPECT_EQ(averages.Find("nrta_tensor_write")->count, 1);
  const EventStats* step = averages.Find("ProfilerStep*");
  ASSERT_NE(step, nullptr);
  EXPECT_EQ(step->count, 1);
  const EventStats* device = averages.Find(kDeviceExecutionName, DeviceType::kPrivateUse1);
  ASSERT_NE(device, nullptr);
  EXPECT_EQ(device->count, 6);
  EXPECT_EQ(averages.self_device_time_total(), device->self_device_time_total);

  const std::string table = averages.table("self_privateuse1_time_total");
  // Rows in the study's order, with the study's NEURON shares.
  const size_t mul_row = table.find("aten::mul");
  EXPECT_LT(table.find("nc_exec_running"), mul_row);
  EXPECT_LT(mul_row, table.find("aten::add"));
  EXPECT_LT(table.find("aten::add"), table.find("aten::rsqrt"));
  EXPECT_LT(table.find("aten::rsqrt"), table.find("aten::mean"));
  EXPECT_NE(table.find("49.45%"), std::string::npos);
  EXPECT_NE(table.find("Self NEURON time total: 2.355ms"), std::string::npos);
}

TEST_F(ProfileTest, MissingSynchronizeDropsDeviceTimeWithAWarning) {
  int ready = 0;
  std::string table;
  ProfileOptions opts = StudyOptions();
  opts.on_trace_ready = [&](Profile& p) {
    ++ready;
    table = p.key_averages().table("self_privateuse1_time_total");
  };
  Backend backend;
  Profile prof(opts);
  for (int i = 0; i < 4; ++i) {
    RunStep(backend, /*synchronize=*/false);
    prof.step();
  }
  prof.stop();
  EXPECT_EQ(ready, 1);
  EXPECT_EQ(prof.recording().dropped_executions, 6);
  EXPECT_EQ(prof.recording().dropped_device_time,
            DeviceTimeOf("aten::mul") + DeviceTimeOf("aten::mean") + DeviceTimeOf("aten::add") +
                DeviceTimeOf("aten::rsqrt"));
  ASSERT_EQ(logged_.size(), 1u);
  EXPECT_EQ(logged_, prof.warnings());
  EXPECT_NE(logged_[0].find("6 device execution(s) with 2.355ms of NEURON time"), std::string::npos)
      << logged_[0];
  EXPECT_NE(logged_[0].find("synchronize"), std::string::npos);
  // The host-side rows are there; the NEURON columns are not.
  EXPECT_NE(table.find("aten::mul"), std::string::npos);
  EXPECT_EQ(table.find("NEURON"), std::string::npos);
}

TEST_F(ProfileTest, ExecutionsFinishedBeforeExportAreKept) {
  ProfileOptions opts;  // no schedule: one window from start to stop
  opts.on_warning = [this](const std::string& m) { logged_.push_back(m); };
  Backend backend;
  Profile prof(opts);
  RunStep(backend, /*synchronize=*/true);
  backend.Run(RmsNormEagerOps()[0]);  // still running at stop
  prof.stop();
  EXPECT_EQ(prof.recording().executions.size(), 6u);
  EXPECT_EQ(prof.recording().dropped_executions, 1);
  ASSERT_EQ(logged_.size(), 1u);
  EXPECT_NE(logged_[0].find("1 device execution(s)"), std::string::npos);
}

TEST_F(ProfileTest, WithoutScheduleRecordsEverythingAndHasNoSteps) {
  int ready = 0;
  ProfileOptions opts;
  opts.on_trace_ready = [&](Profile&) { ++ready; };
  Backend backend;
  {
    Profile prof(opts);
    RunStep(backend, true);
    prof.step();  // no effect on recording without a schedule
    RunStep(backend, true);
    EXPECT_EQ(ready, 0);
    prof.stop();
    EXPECT_EQ(ready, 1);
    const EventList averages = prof.key_averages();
    EXPECT_EQ(averages.Find("aten::mul")->count, 6);
    EXPECT_EQ(averages.Find("ProfilerStep*"), nullptr);
  }
  EXPECT_EQ(ready, 1);  // the destructor does not stop twice
}

TEST_F(ProfileTest, RepeatedCyclesExportEachWindow) {
  std::vector<std::vector<std::string>> windows;
  ProfileOptions opts;
  opts.schedule = MakeSchedule(/*wait=*/1, /*warmup=*/1, /*active=*/2, /*repeat=*/2);
  opts.on_trace_ready = [&](Profile& p) {
    std::vector<std::string> steps;
    for (const RecordedOp& op : p.recording().ops) {
      if (op.info.kind == OpKind::kUserAnnotation) steps.push_back(op.info.name);
    }
    windows.push_back(steps);
  };
  Backend backend;
  Profile prof(opts);
  for (int i = 0; i < 10; ++i) {
    backend.Run(RmsNormEagerOps()[0]);
    backend.Synchronize();
    prof.step();
  }
  prof.stop();
  ASSERT_EQ(windows.size(), 2u);
  EXPECT_EQ(windows[0], (std::vector<std::string>{"ProfilerStep#2", "ProfilerStep#3"}));
  EXPECT_EQ(windows[1], (std::vector<std::string>{"ProfilerStep#6", "ProfilerStep#7"}));
}

TEST_F(ProfileTest, StepRangesEncloseTheStepsOps) {
  ProfileOptions opts = StudyOptions();
  Backend backend;
  Profile prof(opts);
  for (int i = 0; i < 4; ++i) {
    RunStep(backend, true);
    prof.step();
  }
  const Recording& rec = prof.recording();
  ASSERT_FALSE(rec.ops.empty());
  const RecordedOp& step = rec.ops.front();
  EXPECT_EQ(step.info.name, "ProfilerStep#3");
  for (const RecordedOp& op : rec.ops) {
    EXPECT_GE(op.start, step.start);
    EXPECT_LE(op.end, step.end);
  }
}

TEST_F(ProfileTest, IncorrectCustomScheduleWarnsLikePyTorch) {
  int ready = 0;
  ProfileOptions opts;
  opts.on_warning = [this](const std::string& m) { logged_.push_back(m); };
  opts.on_trace_ready = [&](Profile&) { ++ready; };
  opts.schedule = [](int step) {
    static const ProfilerAction kActions[] = {ProfilerAction::kRecord, ProfilerAction::kNone,
                                              ProfilerAction::kWarmup, ProfilerAction::kNone};
    return kActions[step % 4];
  };
  Backend backend;
  Profile prof(opts);
  backend.Run(RmsNormEagerOps()[1]);
  backend.Synchronize();
  prof.step();  // RECORD -> NONE: warn, stop; no trace ready
  EXPECT_EQ(prof.recording().ops.size(), 2u);  // ProfilerStep#0 and aten::mean
  prof.step();  // NONE -> WARMUP
  prof.step();  // WARMUP -> NONE: warn, start, stop
  EXPECT_EQ(ready, 0);
  EXPECT_EQ(logged_, (std::vector<std::string>{"Incorrect schedule: RECORD followed by NONE",
                                               "Incorrect schedule: WARMUP followed by NONE"}));
}

TEST_F(ProfileTest, TwoProfilesCannotRecordAtOnce) {
  Profile first(ProfileOptions{});
  EXPECT_THROW(Profile second(ProfileOptions{}), std::logic_error);
}

TEST_F(ProfileTest, ActivitiesSelectWhatIsRecorded) {
  Backend backend;
  ProfileOptions cpu_only;
  cpu_only.activities = {ProfilerActivity::kCPU};
  {
    Profile prof(cpu_only);
    RunStep(backend, true);
    prof.stop();
    EXPECT_TRUE(prof.recording().executions.empty());
    EXPECT_EQ(prof.key_averages().table().find("NEURON"), std::string::npos);
  }
  ProfileOptions device_only;
  device_only.activities = {ProfilerActivity::kPrivateUse1};
  {
    Profile prof(device_only);
    RunStep(backend, true);
    prof.stop();
    EXPECT_TRUE(prof.recording().ops.empty());
    EXPECT_EQ(prof.recording().executions.size(), 6u);
  }
}

TEST_F(ProfileTest, RecordShapesGroupsByInputShape) {
  ProfileOptions opts;
  opts.record_shapes = true;
  Backend backend;
  Profile prof(opts);
  RunStep(backend, true);
  prof.stop();
  const EventList by_shape = prof.key_averages(/*group_by_input_shape=*/true);
  int mul_rows = 0;
  for (const EventStats& e : by_shape.events()) mul_rows += e.key == "aten::mul";
  EXPECT_EQ(mul_rows, 3);  // x*x, x*rsqrt, x*weight differ in their second input
  EXPECT_NE(by_shape.table().find("[[4, 512], [4, 512]]"), std::string::npos);
}

TEST_F(ProfileTest, ProfilingDoesNotChangeSimulatedTimes) {
  auto run = [this](bool profiled) {
    SimClock::Get().Reset();
    Backend backend;
    std::unique_ptr<Profile> prof;
    if (profiled) prof = std::make_unique<Profile>(StudyOptions());
    for (int i = 0; i < 4; ++i) {
      RunStep(backend, false);
      if (prof) prof->step();
    }
    return std::make_pair(SimClock::Get().now(), backend.device_free());
  };
  EXPECT_EQ(run(false), run(true));
}

// The study's side-by-side: eager, the built-in fused op, the compiled region.
TEST_F(ProfileTest, StudySideBySideThreeImplementations) {
  Backend backend;
  ProfileOptions opts;
  Profile prof(opts);
  RunStep(backend, true);
  backend.Run({"aten::_fused_rms_norm", "", {{4, 512}, {512}}, 47600000, 403300000, false, 201});
  backend.RunCompiled("Torch-Compiled Region: 0/0",
                      {"", "", {}, 98400000 - synthetic::kExecuteCallTime, 375500000, false, 301});
  backend.Synchronize();
  prof.stop();
  const EventList averages = prof.key_averages();
  EXPECT_EQ(averages.Find("aten::_fused_rms_norm")->self_device_time_total, 403300000);
  EXPECT_EQ(averages.Find("aten::_fused_rms_norm")->self_cpu_time_total, 47600000);
  const EventStats* region = averages.Find("Torch-Compiled Region: 0/0");
  ASSERT_NE(region, nullptr);
  EXPECT_EQ(region->self_device_time_total, 375500000);
  EXPECT_EQ(region->cpu_time_total, 98400000);
}

}  // namespace
}  // namespace prof
}  // namespace nsim
