// What profiling costs in real (wall-clock) time: per recorded event while a
// profile records, per event when none does, and per export of the table and
// the trace. Simulated time is never affected (profile_test checks that).
#include <benchmark/benchmark.h>

#include "profiler/chrome_trace.h"
#include "profiler/collector.h"
#include "profiler/device_summary.h"
#include "profiler/events.h"
#include "profiler/function_events.h"
#include "profiler/profile.h"
#include "profiler/synthetic.h"
#include "sim/base/sim_clock.h"

namespace nsim {
namespace prof {
namespace {

constexpr int kBatch = 1024;  // events per iteration, into a fresh collector

OpInfo MulInfo() {
  OpInfo info;
  info.name = "aten::mul";
  info.overload = "Tensor";
  return info;
}

// BeginOp + EndOp of one ATen op while a profile records.
void BM_RecordOp(benchmark::State& state) {
  const OpInfo prototype = MulInfo();
  for (auto _ : state) {
    Collector c({});
    c.Activate();
    for (int i = 0; i < kBatch; ++i) EndOp(BeginOp(prototype, i), i + 1);
    c.Deactivate();
    benchmark::DoNotOptimize(c.TakeEvents());
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
}
BENCHMARK(BM_RecordOp);

// The same op with nothing recording: what every dispatch pays for the hooks.
void BM_ScopedOpWhileDisabled(benchmark::State& state) {
  const OpInfo prototype = MulInfo();
  for (auto _ : state) {
    for (int i = 0; i < kBatch; ++i) {
      ScopedOp op([&] { return prototype; });
      benchmark::DoNotOptimize(op.correlation_id());
    }
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
}
BENCHMARK(BM_ScopedOpWhileDisabled);

// A launch as the runtime reports it: nrta_execute_schedule plus the
// execution without capture payload (RUNTIME mode).
void BM_RecordLaunch(benchmark::State& state) {
  for (auto _ : state) {
    Collector c({});
    c.Activate();
    for (int i = 0; i < kBatch; ++i) {
      DeviceExecution e;
      e.launch_id = RecordRuntimeCall({"nrta_execute_schedule", 0, 0, 1, i, i + 1, 0});
      e.start = i + 1;
      e.end = i + 2;
      e.kernel_hash = 101;
      RecordDeviceExecution(std::move(e));
    }
    c.Deactivate();
    benchmark::DoNotOptimize(c.TakeEvents());
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
}
BENCHMARK(BM_RecordLaunch);

// A recording of `steps` op-by-op RMSNorm steps with DEVICE capture
// (6 ops, 7 runtime calls, 6 executions of 7 instructions + 3 DMA pieces each).
Recording StudyRecording(int steps) {
  SimClock::Get().Reset();
  synthetic::Backend backend;
  Profile prof(ProfileOptions{});
  for (int i = 0; i < steps; ++i) {
    for (const synthetic::Op& op : synthetic::RmsNormEagerOps()) backend.Run(op);
    backend.Synchronize();
  }
  prof.stop();
  return prof.recording();
}

void BM_ExportChromeTrace(benchmark::State& state) {
  const Recording rec = StudyRecording(static_cast<int>(state.range(0)));
  size_t bytes = 0;
  for (auto _ : state) {
    const std::string trace = ChromeTraceJson(rec);
    bytes = trace.size();
    benchmark::DoNotOptimize(trace.data());
  }
  state.SetItemsProcessed(state.iterations() * rec.ops.size());
  state.SetBytesProcessed(state.iterations() * bytes);
}
BENCHMARK(BM_ExportChromeTrace)->Arg(10)->Arg(1000)->Unit(benchmark::kMillisecond);

void BM_KeyAveragesTable(benchmark::State& state) {
  const Recording rec = StudyRecording(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    const EventList events(BuildFunctionEvents(rec), rec.settings.use_device);
    benchmark::DoNotOptimize(events.key_averages().table("self_privateuse1_time_total"));
  }
  state.SetItemsProcessed(state.iterations() * rec.ops.size());
}
BENCHMARK(BM_KeyAveragesTable)->Arg(10)->Arg(1000)->Unit(benchmark::kMillisecond);

void BM_DeviceSummary(benchmark::State& state) {
  const Recording rec = StudyRecording(static_cast<int>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(SummarizeRecording(rec));
  state.SetItemsProcessed(state.iterations() * rec.executions.size());
}
BENCHMARK(BM_DeviceSummary)->Arg(1000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace prof
}  // namespace nsim
