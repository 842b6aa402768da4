#include "tools/run_output.h"

#include <cstdio>
#include <filesystem>

#include "profiler/csv_export.h"
#include "profiler/device_summary.h"
#include "profiler/instruction_detail.h"
#include "profiler/json_writer.h"
#include "profiler/summary_report.h"
#include "runtime/profiling/device_capture.h"
#include "tools/npy.h"

namespace nsim {
namespace {

nlohmann::json Records(const prof::Recording& rec) {
  nlohmann::json out = nlohmann::json::array();
  for (const prof::RecordedExecution& e : rec.executions) {
    for (const prof::InstructionSlice& s : e.exec.instructions) {
      nlohmann::json r = {{"lane", s.lane}, {"opcode", s.opcode}, {"start_ns", PicosToNanos(s.start)},
                          {"end_ns", PicosToNanos(s.end)}, {"model_flops", s.flops}};
      for (const auto& [k, v] : prof::InstructionDetail(s)) {
        if (prof::IsPlainNumber(v)) r[k] = std::stod(v);  // index, line, the waits: numbers
        else r[k] = v;
      }
      out.push_back(r);
    }
    for (const prof::DmaSlice& d : e.exec.dma) {
      out.push_back({{"lane", d.queue}, {"opcode", "dma_transfer"}, {"start_ns", PicosToNanos(d.start)},
                     {"end_ns", PicosToNanos(d.end)}, {"bytes", d.bytes}, {"dma_engine", d.dma_engine},
                     {"touches_hbm", d.touches_hbm}});
    }
  }
  return out;
}

void SaveTensors(const std::string& dir, Device& device, const Kernel& kernel, const ExecutionResult& result) {
  std::filesystem::create_directories(dir);
  for (const TensorDecl& t : kernel.tensors) {
    auto it = result.scratch_addresses.find(t.name);
    if (t.space != MemSpace::kHbm || it == result.scratch_addresses.end()) continue;
    const int64_t n = t.NumElements();
    std::vector<uint8_t> bytes(static_cast<size_t>(n * DTypeSize(t.dtype)));
    device.hbm().Read(it->second, bytes.data(), bytes.size());
    WriteNpy(dir + "/" + t.name + ".npy", t.dtype, t.shape, bytes);
  }
}

}  // namespace

prof::Recording RecordingOfExecution(const HardwareConfig& config, const Kernel& kernel, const ExecutionResult& r) {
  prof::RecordedExecution e;
  e.captured = true;
  e.exec.nc = 0;
  e.exec.start = 0;
  e.exec.end = r.device_time;
  e.exec.kernel_hash = r.kernel_hash;
  e.exec.kernel_name = kernel.name;
  e.exec.hbm_read_bytes = r.hbm_bytes_read;
  e.exec.hbm_write_bytes = r.hbm_bytes_written;
  rt::CaptureExecution(kernel, r, config, &e.exec);
  prof::Recording rec;
  rec.settings.runtime_lanes = false;  // no host or runtime: the kernel alone
  rec.settings.device_lanes = true;
  rec.executions.push_back(std::move(e));
  rec.export_time = r.device_time;
  return rec;
}

prof::RunDescription DescribeRun(const HardwareConfig& config, const Kernel& kernel, const ExecutionResult& r,
                                 const RunDescriptionInput& in) {
  prof::RunDescription d;
  d.title = kernel.name + " on " + config.name;
  d.about = {{"tool", in.tool},
             {"config", {{"name", config.name}, {"generation", config.generation},
                         {"dma_engine_bytes_per_s", config.dma.bytes_per_ns * 1e9}}},
             {"kernel", {{"name", kernel.name}, {"file", in.kernel_file}, {"hash", std::to_string(r.kernel_hash)},
                         {"instruction_count", kernel.NumInstructions()}}},
             {"launch_ns", PicosToNanos(r.launch)},
             {"teardown_ns", PicosToNanos(r.teardown)}};
  return d;
}

nlohmann::json RunSummaryJson(const HardwareConfig& config, const Kernel& kernel, const ExecutionResult& r,
                              const RunDescriptionInput& in, bool records) {
  const prof::Recording rec = RecordingOfExecution(config, kernel, r);
  nlohmann::json doc = prof::SummaryDocument(prof::SummarizeRecording(rec), DescribeRun(config, kernel, r, in).about);
  if (records) doc["records"] = Records(rec);
  return doc;
}

std::string RunSummaryText(const HardwareConfig& config, const Kernel& kernel, const ExecutionResult& r,
                           bool records) {
  const prof::Recording rec = RecordingOfExecution(config, kernel, r);
  char head[256];
  std::snprintf(head, sizeof head, "kernel %s on %s (%s): device time %.3f us (launch %.1f ns, teardown %.1f ns)\n",
                kernel.name.c_str(), config.name.c_str(), config.generation.c_str(), PicosToMicros(r.device_time),
                PicosToNanos(r.launch), PicosToNanos(r.teardown));
  std::string out = head + prof::SummaryText(prof::SummarizeRecording(rec));
  if (records) out += "\nstart_ns,end_ns,...: one row per instruction and DMA piece\n" + prof::InstructionsCsv(rec);
  return out;
}

prof::ExportedFiles WriteRunOutput(const std::string& dir, Device& device, const Kernel& kernel,
                                   const ExecutionResult& r, const RunOutputOptions& o) {
  const HardwareConfig& config = device.config();
  prof::ExportedFiles files = prof::WriteProfileOutput(RecordingOfExecution(config, kernel, r), dir,
                                                       DescribeRun(config, kernel, r, o.description));
  if (o.save_tensors) SaveTensors(dir + "/tensors", device, kernel, r);
  return files;
}

}  // namespace nsim
