#pragma once
// The public profiling API, mirroring torch.profiler.profile:
//
//   NeuronConfig cfg;  cfg.profile_output_dir = "out";
//   ProfileOptions opts;
//   opts.schedule = MakeSchedule(/*wait=*/2, /*warmup=*/1, /*active=*/1);
//   opts.experimental_config = cfg;
//   opts.on_trace_ready = NeuronProfiler(cfg);
//   {
//     Profile prof(opts);            // start()
//     for (int i = 0; i < 4; ++i) { run_step(); synchronize(); prof.step(); }
//     std::cout << prof.key_averages().table("self_privateuse1_time_total");
//   }                                // stop() if not stopped yet
//
// One Profile records at a time. Simulated times come from SimClock.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "profiler/event_list.h"
#include "profiler/neuron_config.h"
#include "profiler/recording.h"
#include "profiler/schedule.h"

namespace nsim {
namespace prof {

enum class ProfilerActivity { kCPU, kPrivateUse1 };

class Profile;
using TraceReadyFn = std::function<void(Profile&)>;
using WarningFn = std::function<void(const std::string&)>;

struct ProfileOptions {
  std::vector<ProfilerActivity> activities = {ProfilerActivity::kCPU,
                                              ProfilerActivity::kPrivateUse1};
  // Empty: record from start to stop, no ProfilerStep#N ranges (PyTorch's default).
  ScheduleFn schedule;
  TraceReadyFn on_trace_ready;
  bool record_shapes = false;
  bool profile_memory = false;
  NeuronConfig experimental_config;
  // Where warnings go besides Profile::warnings(); default: stderr.
  WarningFn on_warning;
};

class Profile {
 public:
  explicit Profile(ProfileOptions options);  // starts
  ~Profile();                                // stops, if still running
  Profile(const Profile&) = delete;
  Profile& operator=(const Profile&) = delete;

  // Ends step `step_num()`, applies the schedule's next action, begins the next.
  void step();
  // Ends the profile (idempotent): the exit transition of the schedule.
  void stop();

  int step_num() const { return step_num_; }
  ProfilerAction current_action() const { return current_action_; }

  // Results of the last record window whose trace was stopped; empty before.
  const Recording& recording() const { return recording_; }
  EventList events() const;
  EventList key_averages(bool group_by_input_shape = false) const;

  // Every warning emitted so far (schedule mistakes, missing synchronisation).
  const std::vector<std::string>& warnings() const { return warnings_; }

 private:
  void Transit(ProfilerAction prev, std::optional<ProfilerAction> cur);
  void PrepareTrace();
  void StartTrace();
  void StopTrace();
  void BeginStepRange();
  void EndStepRange();
  void Warn(const std::string& message);
  bool Has(ProfilerActivity activity) const;

  ProfileOptions options_;
  RecordingSettings settings_;
  std::unique_ptr<class Collector> collector_;
  Picos window_start_ = 0;
  Recording recording_;
  std::vector<std::string> warnings_;
  int step_num_ = 0;
  ProfilerAction current_action_ = ProfilerAction::kRecord;
  uint64_t step_range_ = 0;  // correlation id of the open ProfilerStep#N
  bool stopped_ = false;
};

}  // namespace prof
}  // namespace nsim
