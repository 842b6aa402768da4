#pragma once
// torch.profiler.schedule and the ProfilerAction state machine of
// torch.profiler.profile, reproduced exactly (profiler-conventions section 2).
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace nsim {
namespace prof {

enum class ProfilerAction { kNone = 0, kWarmup = 1, kRecord = 2, kRecordAndSave = 3 };
const char* ActionName(ProfilerAction action);  // "NONE", "WARMUP", "RECORD", "RECORD_AND_SAVE"

// Skip `skip_first` steps, then cycle: `wait` idle steps, `warmup` steps,
// `active` recorded steps (the last one RECORD_AND_SAVE); stop after `repeat`
// cycles (0 = never). `skip_first_wait` skips the first cycle's wait.
struct Schedule {
  int wait = 0;
  int warmup = 0;
  int active = 1;
  int repeat = 0;
  int skip_first = 0;
  int skip_first_wait = 0;

  // Throws std::invalid_argument like PyTorch's assertion.
  void Validate() const;
  ProfilerAction operator()(int step) const;
};

// Any step -> action function may drive a Profile (as in PyTorch, where the
// schedule is any callable); Schedule is the usual one.
using ScheduleFn = std::function<ProfilerAction(int step)>;

// torch.profiler.schedule(): validates the arguments (std::invalid_argument)
// and, like PyTorch, warns on stderr when warmup is 0.
ScheduleFn MakeSchedule(int wait, int warmup, int active, int repeat = 0, int skip_first = 0,
                        int skip_first_wait = 0);

// One thing profile.step() does when the action changes.
struct TransitionStep {
  enum Kind { kPrepare, kStart, kStop, kTraceReady, kWarn } kind;
  const char* warning = nullptr;  // for kWarn
};

// PyTorch's action_map: what to do going from `prev` to `cur`; `cur` empty
// means the profile is exiting.
std::vector<TransitionStep> TransitionSteps(ProfilerAction prev,
                                            std::optional<ProfilerAction> cur);

}  // namespace prof
}  // namespace nsim
