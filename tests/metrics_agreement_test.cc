// One producer of per-execution metrics (sim/model/execution_metrics.h): the
// same kernel reports the same DMA transfer count, bytes, HBM bytes, engine
// busy time and active time through the runtime's record, the profiler's
// device summary of a profiled runtime run, and `nsim run`'s summary.json;
// and the model's busy and active times equal unions recomputed from its
// records (all three reports come from Summarize, so they cannot disagree
// among themselves when Summarize is wrong).
// Before, the model counted a queue's transfers as dma_copy instructions and
// the profiler counted them as DMA pieces.
#include <gtest/gtest.h>

#include <utility>

#include <nlohmann/json.hpp>

#include "profiler/counters.h"
#include "profiler/device_summary.h"
#include "profiler/profile.h"
#include "runtime/runtime.h"
#include "sim/config/loader.h"
#include "sim/kernel/parser.h"
#include "sim/model/device.h"
#include "sim/model/interval_union.h"
#include "tools/run_output.h"

namespace nsim {
namespace {

// [128, 64] rows spread over several DMA engines, so every dma_copy is several
// pieces; a casting store (bf16 -> f32: HBM bytes differ from piece bytes)
// and an HBM -> HBM copy (HBM read and written).
Kernel PiecesKernel() {
  return ParseKernel(
      "kernel pieces\n"
      "tensor x   hbm  bf16 [128, 64]\n"
      "tensor y   hbm  f32  [128, 64]\n"
      "tensor z   hbm  bf16 [128, 64]\n"
      "tensor t   sbuf bf16 [128, 64]\n"
      "tensor u   sbuf f32  [128, 64]\n"
      "semaphore loaded\n"
      "semaphore done\n"
      "sync:   dma_copy t, x signal=loaded\n"
      "vector: tensor_copy u, t wait=loaded>=1 signal=done\n"
      "scalar: dma_copy y, u queue=1 wait=done>=1\n"
      "gpsimd: dma_copy z, x\n",
      "pieces.nk");
}

constexpr int64_t kElements = 128 * 64;

// Busy and active time the plain way (sort, merge, sum: interval_union.h),
// an independent check of Summarize's unions built as records arrive.
Picos UnionLength(Intervals spans) { return IntervalsLength(MergeIntervals(std::move(spans))); }

// The profiler's view of one run of PiecesKernel through the runtime.
struct ProfiledRun {
  std::shared_ptr<const ExecutionResult> record;  // the runtime's ExecutionRecord::result
  prof::DeviceSummary summary;
  std::vector<prof::CounterSample> counters;
  Picos device_time = 0;
};

ProfiledRun RunThroughRuntime(const Kernel& kernel) {
  rt::Runtime::Get().Reset();
  rt::NeuronCoreDevice& core = rt::Runtime::Get().core(0);
  const uint64_t x = core.Allocate(kElements * 2), y = core.Allocate(kElements * 4), z = core.Allocate(kElements * 2);
  const rt::KernelRef loaded = core.LoadKernel(kernel);
  prof::ProfileOptions opts;
  opts.experimental_config.modes = {prof::ProfileMode::kRuntime, prof::ProfileMode::kDevice};
  prof::Profile p(opts);
  const rt::ExecutionHandle h = core.ExecuteAsync(loaded, {{"x", x}, {"y", y}, {"z", z}});
  core.Synchronize();
  p.stop();
  const prof::ProfileDeviceSummary s = prof::SummarizeRecording(p.recording());
  EXPECT_EQ(s.executions.size(), 1u);
  ProfiledRun out;
  out.record = h->result;
  out.summary = s.executions.at(0);
  out.counters = prof::UtilisationTimeline(p.recording().executions.at(0).exec, 50);
  out.device_time = h->device_end - h->device_start;
  return out;
}

TEST(MetricsAgreement, RuntimeRecordProfilerSummaryAndNsimRunReportTheSameNumbers) {
  const Kernel kernel = PiecesKernel();
  const ProfiledRun profiled = RunThroughRuntime(kernel);
  const ExecutionResult& rec = *profiled.record;

  // The model's metrics, checked against the kernel by hand.
  EXPECT_EQ(rec.dma_transfers, static_cast<int64_t>(rec.dma.size()));
  EXPECT_GT(rec.dma_transfers, 3);  // more pieces than dma_copy instructions
  EXPECT_EQ(rec.hbm_bytes_read, 2 * kElements * 2);                  // x twice, bf16
  EXPECT_EQ(rec.hbm_bytes_written, kElements * 4 + kElements * 2);  // y in f32, z in bf16
  EXPECT_EQ(rec.dma_bytes, kElements * 2 + kElements * 4 + kElements * 2);  // pieces count the wider dtype
  int64_t queue_transfers = 0;
  for (const auto& [name, q] : rec.dma_queues) queue_transfers += q.transfers;
  EXPECT_EQ(queue_transfers, rec.dma_transfers);
  // Busy time per engine and active time, recomputed from the records.
  Intervals all;
  for (int e = 0; e < kNumEngines; ++e) {
    Intervals mine;
    for (const InstructionRecord& r : rec.instructions) {
      if (static_cast<int>(r.engine) == e) mine.push_back({r.start, r.end});
    }
    EXPECT_EQ(rec.engines[e].busy, UnionLength(mine)) << EngineName(static_cast<EngineId>(e));
    all.insert(all.end(), mine.begin(), mine.end());
  }
  for (const DmaRecord& d : rec.dma) all.push_back({d.start, d.end});
  EXPECT_GT(rec.active_time, 0);
  EXPECT_EQ(rec.active_time, UnionLength(all));

  // The profiler's device summary of the runtime execution.
  const prof::DeviceSummary& s = profiled.summary;
  EXPECT_EQ(s.dma_transfers, rec.dma_transfers);
  EXPECT_EQ(s.dma_bytes, rec.dma_bytes);
  EXPECT_EQ(s.hbm_read_bytes, rec.hbm_bytes_read);
  EXPECT_EQ(s.hbm_write_bytes, rec.hbm_bytes_written);
  EXPECT_EQ(s.active_time, rec.active_time);
  ASSERT_EQ(s.dma_queues.size(), rec.dma_queues.size());
  for (const prof::DmaQueueStats& q : s.dma_queues) {
    const DmaQueueSummary& m = rec.dma_queues.at(q.queue);
    EXPECT_EQ(q.transfers, m.transfers) << q.queue;
    EXPECT_EQ(q.bytes, m.bytes) << q.queue;
    EXPECT_EQ(q.busy, m.busy) << q.queue;
  }
  ASSERT_EQ(s.engines.size(), static_cast<size_t>(kNumEngines));
  for (int e = 0; e < kNumEngines; ++e) {
    EXPECT_EQ(s.engines[e].lane, EngineLaneName(static_cast<EngineId>(e)));
    EXPECT_EQ(s.engines[e].busy, rec.engines[e].busy);
    EXPECT_EQ(s.engines[e].instructions, rec.engines[e].instructions);
    EXPECT_EQ(s.engines[e].flops, rec.engines[e].flops);
  }

  // The HBM counter track integrates to the summary's HBM bytes.
  double counted = 0;
  for (size_t i = 0; i + 1 < profiled.counters.size(); ++i) {
    counted += profiled.counters[i].hbm_gb_per_s *
               PicosToNanos(profiled.counters[i + 1].time - profiled.counters[i].time);
  }
  EXPECT_NEAR(counted, static_cast<double>(s.hbm_bytes()), 1e-6 * s.hbm_bytes());

  // `nsim run`'s summary.json of the same kernel on a Device of the same config.
  const HardwareConfig config = rt::Runtime::Get().core(0).config();
  Device device(config);
  const ExecutionResult run = device.Execute(kernel);
  const nlohmann::json total = RunSummaryJson(config, kernel, run, {}, false)["total"];
  EXPECT_EQ(total["dma_transfer_count"].get<int64_t>(), rec.dma_transfers);
  EXPECT_EQ(total["dma_transfer_total_bytes"].get<int64_t>(), rec.dma_bytes);
  EXPECT_EQ(total["hbm_read_bytes"].get<int64_t>(), rec.hbm_bytes_read);
  EXPECT_EQ(total["hbm_write_bytes"].get<int64_t>(), rec.hbm_bytes_written);
  EXPECT_DOUBLE_EQ(total["total_active_time_ns"].get<double>(), PicosToNanos(rec.active_time));
  ASSERT_EQ(total["dma_queues"].size(), rec.dma_queues.size());  // no queue skipped by the loop below
  for (const nlohmann::json& q : total["dma_queues"]) {
    const DmaQueueSummary& m = rec.dma_queues.at(q["queue"].get<std::string>());
    EXPECT_EQ(q["transfers"].get<int64_t>(), m.transfers);
    EXPECT_EQ(q["bytes"].get<int64_t>(), m.bytes);
  }
  ASSERT_EQ(total["engines"].size(), static_cast<size_t>(kNumEngines));
  for (int e = 0; e < kNumEngines; ++e) {
    EXPECT_DOUBLE_EQ(total["engines"][e]["active_time_ns"].get<double>(), PicosToNanos(rec.engines[e].busy));
  }
}

}  // namespace
}  // namespace nsim
