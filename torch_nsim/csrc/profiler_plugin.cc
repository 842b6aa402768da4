// Kineto's activity metadata uses fmt, which torch does not export: header-only.
#define FMT_HEADER_ONLY 1
#include "torch_nsim/csrc/profiler_plugin.h"

#include <IActivityProfiler.h>
#include <libkineto.h>
#include <output_base.h>
#include <torch/csrc/profiler/standalone/privateuse1_profiler.h>

#include <chrono>
#include <map>
#include <mutex>

#include "profiler/neuron_config.h"
#include "runtime/observer.h"
#include "torch_nsim/core/nsim_profile_session.h"
#include "torch_nsim/csrc/device.h"

namespace torch_nsim {
namespace {

namespace rt = nsim::rt;
namespace prof = nsim::prof;
using libkineto::ActivityType;

// Settings of the NeuronConfig most recently made in Python (TorchNeuron
// passes it as experimental_config; see torch_nsim/profiler.py).
struct Settings {
  prof::NeuronConfig config;
  bool export_trace = false;  // only once a NeuronConfig names a directory
};
Settings& GetSettings() {
  static Settings s;
  return s;
}

int64_t WallNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

struct Execution {
  int core;
  uint64_t torch_correlation;  // the torch op on top of the correlation stack
  int64_t wall_ns;             // when it was submitted, on the trace's clock
  nsim::Picos device_start, device_end;
  std::string kernel;
  uint64_t kernel_hash;
};

class Session : public libkineto::IActivityProfilerSession, public rt::RuntimeObserver {
 public:
  void start() override {
    status_ = libkineto::TraceStatus::RECORDING;
    nsim_profile_ = std::make_unique<nsim::torch_bridge::NsimProfileSession>(GetSettings().config,
                                                                             GetSettings().export_trace);
    rt::AddRuntimeObserver(this);
  }
  void stop() override {
    rt::RemoveRuntimeObserver(this);
    if (nsim_profile_) {
      try {
        nsim_profile_->Stop();
      } catch (const std::exception& e) {
        errors_.push_back(e.what());
      }
      nsim_profile_.reset();
    }
    status_ = libkineto::TraceStatus::PROCESSING;
  }
  std::vector<std::string> errors() override { return errors_; }

  void processTrace(libkineto::ActivityLogger& logger) override { Emit(logger, nullptr); }
  void processTrace(libkineto::ActivityLogger& logger, libkineto::getLinkedActivityCallback linked, int64_t,
                    int64_t) override {
    Emit(logger, &linked);
  }
  std::unique_ptr<libkineto::DeviceInfo> getDeviceInfo() override {
    return std::make_unique<libkineto::DeviceInfo>(libkineto::DeviceInfo{kPid, kPid, "neuron", "NeuronCore (simulated)"});
  }
  std::vector<libkineto::ResourceInfo> getResourceInfos() override {
    std::vector<libkineto::ResourceInfo> out;
    for (int core : cores_) out.push_back({core, core, kPid, "neuron_hw/NC" + std::to_string(core)});
    return out;
  }
  std::unique_ptr<libkineto::CpuTraceBuffer> getTraceBuffer() override { return nullptr; }

  void pushCorrelationId(uint64_t id) override { correlation_.push_back(id); }
  void popCorrelationId() override {
    if (!correlation_.empty()) correlation_.pop_back();
  }

  // The runtime tells us about every kernel execution when it has completed
  // on the chip; the torch op that submitted it is noted at submission.
  void OnSubmit(rt::ExecutionRecord& r) override {
    std::lock_guard<std::mutex> lock(mu_);
    submitted_[&r] = {correlation_.empty() ? 0 : correlation_.back(), WallNs()};
  }
  void OnCopy(const rt::ExecutionRecord& r) override {
    std::lock_guard<std::mutex> lock(mu_);
    submitted_.erase(&r);
  }
  void OnExecution(const rt::ExecutionRecord& r) override {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = submitted_.find(&r);
    if (it == submitted_.end()) return;  // submitted before this trace began
    executions_.push_back({r.core, it->second.first, it->second.second, r.device_start, r.device_end, r.kernel_name,
                           r.kernel_hash});
    submitted_.erase(it);
    cores_.insert(r.core);
  }

 private:
  static constexpr int kPid = 1000;  // the device's "process" in the trace (not a real pid)

  void Emit(libkineto::ActivityLogger& logger, libkineto::getLinkedActivityCallback* linked) {
    std::lock_guard<std::mutex> lock(mu_);
    if (executions_.empty()) return;
    span_ = std::make_unique<libkineto::TraceSpan>(executions_.front().wall_ns, WallNs(), "neuron");
    for (const Execution& e : executions_) {
      auto a = std::make_unique<libkineto::GenericTraceActivity>(*span_, ActivityType::CONCURRENT_KERNEL,
                                                                 "nc_exec_running");
      a->startTime = e.wall_ns;
      // The simulated device time: what the NEURON columns add up.
      a->endTime = e.wall_ns + static_cast<int64_t>((e.device_end - e.device_start) / 1000);
      a->id = static_cast<int32_t>(++next_id_);
      a->device = kPid;
      a->resource = e.core;
      if (linked != nullptr && e.torch_correlation != 0) a->linked = (*linked)(static_cast<int32_t>(e.torch_correlation));
      a->addMetadataQuoted("kernel", e.kernel);
      a->addMetadataQuoted("kernel_hash", std::to_string(e.kernel_hash));
      a->addMetadata("device_time_us", std::to_string(nsim::PicosToMicros(e.device_end - e.device_start)));
      a->addMetadata("simulated_device_start_us", std::to_string(nsim::PicosToMicros(e.device_start)));
      logger.handleGenericActivity(*a);
      activities_.push_back(std::move(a));
    }
  }

  std::mutex mu_;
  std::vector<uint64_t> correlation_;
  std::vector<Execution> executions_;
  // Records submitted during the trace: their torch correlation id and wall time then.
  std::map<const rt::ExecutionRecord*, std::pair<uint64_t, int64_t>> submitted_;
  std::set<int> cores_;
  std::vector<std::string> errors_;
  std::unique_ptr<nsim::torch_bridge::NsimProfileSession> nsim_profile_;
  std::unique_ptr<libkineto::TraceSpan> span_;
  std::vector<std::unique_ptr<libkineto::GenericTraceActivity>> activities_;  // kept alive for the logger
  int64_t next_id_ = 0;
};

class NeuronActivityProfiler : public libkineto::IActivityProfiler {
 public:
  const std::string& name() const override { return name_; }
  const std::set<ActivityType>& availableActivities() const override { return activities_; }
  std::unique_ptr<libkineto::IActivityProfilerSession> configure(const std::set<ActivityType>& types,
                                                                 const libkineto::Config&) override {
    if (types.count(ActivityType::CONCURRENT_KERNEL) == 0 && types.count(ActivityType::PRIVATEUSE1_RUNTIME) == 0) {
      return nullptr;
    }
    return std::make_unique<Session>();
  }
  std::unique_ptr<libkineto::IActivityProfilerSession> configure(int64_t, int64_t,
                                                                 const std::set<ActivityType>& types,
                                                                 const libkineto::Config& config) override {
    return configure(types, config);
  }

 private:
  std::string name_ = "nsim_neuron";
  std::set<ActivityType> activities_ = {ActivityType::CONCURRENT_KERNEL, ActivityType::PRIVATEUSE1_RUNTIME};
};

REGISTER_PRIVATEUSE1_PROFILER(NeuronActivityProfiler);

// ------------------------------------------------------------ test helpers

std::map<int, size_t>& Marks() {
  static std::map<int, size_t> marks;
  return marks;
}

}  // namespace

void MarkExecutions(int device) {
  const int index = device < 0 ? CurrentDevice() : device;
  Marks()[index] = Core(index).records().size();
}

py::list ExecutionsSinceMark(int device) {
  const int index = device < 0 ? CurrentDevice() : device;
  const auto& records = Core(index).records();
  py::list out;
  for (size_t i = Marks()[index]; i < records.size(); ++i) {
    const rt::ExecutionRecord& r = *records[i];
    if (r.is_copy()) continue;
    // (kernel, model device time in ps without capture, on-device span in µs with capture)
    out.append(py::make_tuple(r.kernel_name, r.result->device_time, nsim::PicosToMicros(r.device_end - r.device_start)));
  }
  return out;
}

void RegisterProfilerBindings(py::module& m) {
  m.def(
      "set_neuron_config",
      [](std::vector<std::string> modes, const std::string& capture_nc, bool correlate, const std::string& dir,
         bool export_trace) {
        prof::NeuronConfig c;
        c.modes.clear();
        for (const std::string& mode : modes) {
          if (mode == "DEVICE") {
            c.modes.push_back(prof::ProfileMode::kDevice);
          } else if (mode == "RUNTIME") {
            c.modes.push_back(prof::ProfileMode::kRuntime);
          } else {
            throw std::invalid_argument("NeuronConfig: unknown profile mode '" + mode + "' (DEVICE or RUNTIME)");
          }
        }
        nsim::torch_bridge::CheckNcSelection(capture_nc);  // a bad list is an error now, not at the first step
        c.capture_enabled_for_nc = capture_nc;
        c.correlate_device_time = correlate;
        c.profile_output_dir = dir;
        GetSettings() = Settings{c, export_trace};
      },
      py::arg("modes"), py::arg("capture_enabled_for_nc"), py::arg("correlate_device_time"),
      py::arg("profile_output_dir"), py::arg("export_trace"));
}

}  // namespace torch_nsim
