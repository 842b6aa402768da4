#include "profiler/profile.h"

#include <algorithm>
#include <iostream>
#include <utility>

#include "profiler/collector.h"
#include "profiler/function_events.h"
#include "sim/base/sim_clock.h"

namespace nsim {
namespace prof {
namespace {

Picos Now() { return SimClock::Get().now(); }

}  // namespace

Profile::Profile(ProfileOptions options) : options_(std::move(options)) {
  const NeuronConfig& cfg = options_.experimental_config;
  settings_.use_device = Has(ProfilerActivity::kPrivateUse1) ? kBackendName : "";
  settings_.correlate_device_time = cfg.correlate_device_time;
  settings_.runtime_lanes = cfg.Has(ProfileMode::kRuntime);
  settings_.device_lanes = cfg.Has(ProfileMode::kDevice);
  settings_.record_shapes = options_.record_shapes;
  if (options_.schedule) current_action_ = options_.schedule(step_num_);
  // start(): as if coming from NONE, then open ProfilerStep#0.
  Transit(ProfilerAction::kNone, current_action_);
  BeginStepRange();
}

Profile::~Profile() { stop(); }

void Profile::step() {
  if (stopped_) return;
  EndStepRange();
  const ProfilerAction prev = current_action_;
  ++step_num_;
  if (options_.schedule) current_action_ = options_.schedule(step_num_);
  Transit(prev, current_action_);
  BeginStepRange();
}

void Profile::stop() {
  if (stopped_) return;
  stopped_ = true;
  EndStepRange();
  Transit(current_action_, std::nullopt);
}

void Profile::Transit(ProfilerAction prev, std::optional<ProfilerAction> cur) {
  for (const TransitionStep& t : TransitionSteps(prev, cur)) {
    switch (t.kind) {
      case TransitionStep::kPrepare: PrepareTrace(); break;
      case TransitionStep::kStart: StartTrace(); break;
      case TransitionStep::kStop: StopTrace(); break;
      case TransitionStep::kTraceReady:
        if (options_.on_trace_ready) options_.on_trace_ready(*this);
        break;
      case TransitionStep::kWarn: Warn(t.warning); break;
    }
  }
}

void Profile::PrepareTrace() {
  CollectorOptions c;
  c.record_ops = Has(ProfilerActivity::kCPU);
  c.record_runtime = Has(ProfilerActivity::kCPU) || Has(ProfilerActivity::kPrivateUse1);
  c.record_device = Has(ProfilerActivity::kPrivateUse1);
  c.record_shapes = options_.record_shapes;
  c.profile_memory = options_.profile_memory;
  c.device_capture = settings_.device_lanes;
  c.capture_ncs = NcSelection::Parse(options_.experimental_config.capture_enabled_for_nc);
  collector_ = std::make_unique<Collector>(std::move(c));
}

void Profile::StartTrace() {
  // WARMUP -> NONE starts without a prepare of its own in PyTorch's table.
  if (!collector_) PrepareTrace();
  window_start_ = Now();
  collector_->Activate();
}

void Profile::StopTrace() {
  if (!collector_) return;
  collector_->Deactivate();
  recording_ = Seal(collector_->TakeEvents(), settings_, window_start_, Now());
  collector_.reset();
  const std::string warning = MissingSyncWarning(recording_);
  if (!warning.empty()) Warn(warning);
}

// ProfilerStep#N ranges exist only with a schedule (PyTorch's record_steps);
// they are recorded only while a window is active, like any other op.
void Profile::BeginStepRange() {
  if (!options_.schedule) return;
  OpInfo info;
  info.name = "ProfilerStep#" + std::to_string(step_num_);
  info.kind = OpKind::kUserAnnotation;
  step_range_ = BeginOp(std::move(info), Now());
}

void Profile::EndStepRange() {
  EndOp(step_range_, Now());
  step_range_ = 0;
}

void Profile::Warn(const std::string& message) {
  warnings_.push_back(message);
  if (options_.on_warning) {
    options_.on_warning(message);
  } else {
    std::cerr << "[W profiler] " << message << "\n";
  }
}

bool Profile::Has(ProfilerActivity activity) const {
  const auto& a = options_.activities;
  return std::find(a.begin(), a.end(), activity) != a.end();
}

EventList Profile::events() const {
  return EventList(BuildFunctionEvents(recording_), recording_.settings.use_device);
}

EventList Profile::key_averages(bool group_by_input_shape) const {
  return events().key_averages(group_by_input_shape);
}

}  // namespace prof
}  // namespace nsim
