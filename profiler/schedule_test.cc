// torch.profiler.schedule and the ProfilerAction transition table.
#include "profiler/schedule.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace nsim {
namespace prof {
namespace {

// Actions for steps 0..n-1 as letters: N(one) W(armup) R(ecord) S(ave).
std::string Actions(const Schedule& s, int n) {
  std::string out;
  for (int step = 0; step < n; ++step) out += "NWRS"[static_cast<int>(s(step))];
  return out;
}

TEST(ScheduleTest, StudySetUpRecordsTheFourthStep) {
  // wait=2, warmup=1, active=1, repeat=0: cycles forever.
  EXPECT_EQ(Actions({2, 1, 1}, 9), "NNWSNNWSN");
}

TEST(ScheduleTest, DocstringExampleWithRepeat) {
  // "step0 skipped, step1 warm-up, steps 2-3 recorded, then trace ready."
  EXPECT_EQ(Actions({1, 1, 2, 1}, 7), "NWRSNNN");
}

TEST(ScheduleTest, SkipFirstThenTwoCyclesWithoutWarmup) {
  EXPECT_EQ(Actions({1, 0, 2, 2, 3}, 11), "NNNNRSNRSNN");
}

TEST(ScheduleTest, SkipFirstWaitSkipsOnlyTheFirstWait) {
  EXPECT_EQ(Actions({2, 1, 1, 2, 0, 1}, 8), "WSNNWSNN");
}

TEST(ScheduleTest, SingleActiveStepIsAlwaysSave) {
  EXPECT_EQ(Actions({0, 0, 1}, 3), "SSS");
}

TEST(ScheduleTest, InvalidArgumentsThrow) {
  EXPECT_THROW((Schedule{0, 0, 0}.Validate()), std::invalid_argument);
  EXPECT_THROW((Schedule{-1, 1, 1}.Validate()), std::invalid_argument);
  EXPECT_THROW(MakeSchedule(1, 1, 1, -1), std::invalid_argument);
  EXPECT_EQ(MakeSchedule(1, 1, 1)(1), ProfilerAction::kWarmup);
}

// Transition steps as letters: P(repare) S(tart) T(stop) R(eady) W(arn).
std::string Steps(ProfilerAction prev, std::optional<ProfilerAction> cur) {
  std::string out;
  for (const TransitionStep& t : TransitionSteps(prev, cur)) out += "PSTRW"[t.kind];
  return out;
}

TEST(ScheduleTest, TransitionTableMatchesPyTorchActionMap) {
  using A = ProfilerAction;
  const A N = A::kNone, W = A::kWarmup, R = A::kRecord, S = A::kRecordAndSave;
  EXPECT_EQ(Steps(N, N), "");
  EXPECT_EQ(Steps(N, W), "P");
  EXPECT_EQ(Steps(N, R), "PS");
  EXPECT_EQ(Steps(N, S), "PS");
  EXPECT_EQ(Steps(W, N), "WST");
  EXPECT_EQ(Steps(W, W), "");
  EXPECT_EQ(Steps(W, R), "S");
  EXPECT_EQ(Steps(W, S), "S");
  EXPECT_EQ(Steps(R, N), "WT");
  EXPECT_EQ(Steps(R, W), "WT");
  EXPECT_EQ(Steps(R, R), "");
  EXPECT_EQ(Steps(R, S), "");
  EXPECT_EQ(Steps(S, N), "TR");
  EXPECT_EQ(Steps(S, W), "TRP");
  EXPECT_EQ(Steps(S, R), "TRPS");
  EXPECT_EQ(Steps(S, S), "TRPS");
  EXPECT_EQ(Steps(N, std::nullopt), "");
  EXPECT_EQ(Steps(W, std::nullopt), "ST");
  EXPECT_EQ(Steps(R, std::nullopt), "TR");
  EXPECT_EQ(Steps(S, std::nullopt), "TR");
}

TEST(ScheduleTest, WarningsNameTheIncorrectSchedule) {
  EXPECT_STREQ(TransitionSteps(ProfilerAction::kWarmup, ProfilerAction::kNone)[0].warning,
               "Incorrect schedule: WARMUP followed by NONE");
  EXPECT_STREQ(TransitionSteps(ProfilerAction::kRecord, ProfilerAction::kWarmup)[0].warning,
               "Incorrect schedule: RECORD followed by WARMUP");
}

}  // namespace
}  // namespace prof
}  // namespace nsim
