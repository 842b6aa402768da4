#include "profiler/schedule.h"

#include <iostream>
#include <stdexcept>

namespace nsim {
namespace prof {

const char* ActionName(ProfilerAction action) {
  switch (action) {
    case ProfilerAction::kNone: return "NONE";
    case ProfilerAction::kWarmup: return "WARMUP";
    case ProfilerAction::kRecord: return "RECORD";
    case ProfilerAction::kRecordAndSave: return "RECORD_AND_SAVE";
  }
  return "?";
}

void Schedule::Validate() const {
  if (wait < 0 || warmup < 0 || active <= 0 || repeat < 0 || skip_first < 0) {
    throw std::invalid_argument("Invalid profiler schedule arguments");
  }
}

ProfilerAction Schedule::operator()(int step) const {
  if (step < 0) throw std::invalid_argument("profiler schedule: negative step");
  if (step < skip_first) return ProfilerAction::kNone;
  step -= skip_first;
  if (skip_first_wait != 0) step += wait;
  const int num_steps = wait + warmup + active;
  // PyTorch tests `step / num_steps >= repeat` in float division, which for
  // non-negative integers is exactly this.
  if (repeat > 0 && step >= repeat * num_steps) return ProfilerAction::kNone;
  const int mod_step = step % num_steps;
  if (mod_step < wait) return ProfilerAction::kNone;
  if (mod_step < wait + warmup) return ProfilerAction::kWarmup;
  return mod_step < num_steps - 1 ? ProfilerAction::kRecord : ProfilerAction::kRecordAndSave;
}

ScheduleFn MakeSchedule(int wait, int warmup, int active, int repeat, int skip_first,
                        int skip_first_wait) {
  const Schedule s{wait, warmup, active, repeat, skip_first, skip_first_wait};
  s.Validate();
  if (warmup == 0) {
    std::cerr << "[W profiler] Profiler won't be using warmup, this can skew profiler results\n";
  }
  return s;
}

std::vector<TransitionStep> TransitionSteps(ProfilerAction prev,
                                            std::optional<ProfilerAction> cur) {
  using A = ProfilerAction;
  using T = TransitionStep;
  const T prepare{T::kPrepare}, start{T::kStart}, stop{T::kStop}, ready{T::kTraceReady};
  if (!cur) {  // exit
    switch (prev) {
      case A::kNone: return {};
      case A::kWarmup: return {start, stop};
      case A::kRecord:
      case A::kRecordAndSave: return {stop, ready};
    }
  }
  switch (prev) {
    case A::kNone:
      if (*cur == A::kNone) return {};
      if (*cur == A::kWarmup) return {prepare};
      return {prepare, start};
    case A::kWarmup:
      if (*cur == A::kNone) {
        return {{T::kWarn, "Incorrect schedule: WARMUP followed by NONE"}, start, stop};
      }
      if (*cur == A::kWarmup) return {};
      return {start};
    case A::kRecord:
      if (*cur == A::kNone) return {{T::kWarn, "Incorrect schedule: RECORD followed by NONE"}, stop};
      if (*cur == A::kWarmup) {
        return {{T::kWarn, "Incorrect schedule: RECORD followed by WARMUP"}, stop};
      }
      return {};
    case A::kRecordAndSave:
      if (*cur == A::kNone) return {stop, ready};
      if (*cur == A::kWarmup) return {stop, ready, prepare};
      return {stop, ready, prepare, start};
  }
  return {};
}

}  // namespace prof
}  // namespace nsim
