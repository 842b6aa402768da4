#include "profiler/neuron_profiler.h"

#include <filesystem>
#include <fstream>
#include <set>
#include <stdexcept>

#include "profiler/artifacts.h"
#include "profiler/chrome_trace.h"
#include "profiler/csv_export.h"
#include "profiler/event_list.h"
#include "profiler/function_events.h"
#include "profiler/perfetto_trace.h"
#include "profiler/run_report_html.h"
#include "profiler/device_summary.h"
#include "profiler/profile.h"
#include "profiler/summary_report.h"

namespace nsim {
namespace prof {
namespace {

namespace fs = std::filesystem;

std::string WriteFile(const fs::path& path, const std::string& text) {
  return WriteFileAtomically(path.string(), text);
}

// Like Neuron's per-NEFF capture, a kernel's first execution stands for it.
void WriteKernelPairs(const Recording& rec, const fs::path& dir, ExportedFiles& files) {
  std::set<uint64_t> written;
  for (const RecordedExecution& e : rec.executions) {
    if (!e.captured || !written.insert(e.exec.kernel_hash).second) continue;
    files.neff.push_back(WriteFile(dir / NeffFileName(e.exec.kernel_hash), e.exec.kernel_text));
    files.ntff.push_back(WriteFile(dir / NtffFileName(e.exec.kernel_hash), NtffText(e.exec)));
  }
}

}  // namespace

std::string WriteFileAtomically(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".partial";
  {
    std::ofstream out(tmp, std::ios::binary);
    out << text;
    out.close();
    if (!out) throw std::runtime_error("profiler: cannot write " + path);
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) throw std::runtime_error("profiler: cannot write " + path + ": " + ec.message());
  return path;
}

ExportedFiles WriteProfileOutput(const Recording& rec, const std::string& dir, const RunDescription& run) {
  ExportedFiles files;
  files.dir = dir;
  fs::create_directories(dir);
  TraceOptions trace_options;
  trace_options.trace_name = (fs::path(dir) / "trace.json").string();
  const std::string trace = ChromeTraceJson(rec, trace_options);
  files.trace = WriteFile(trace_options.trace_name, trace);
  files.perfetto_trace = WriteFile(fs::path(dir) / "trace.perfetto-trace", PerfettoTraceFromChromeJson(trace));
  if (!rec.ops.empty()) {
    const EventList avg = EventList(BuildFunctionEvents(rec), rec.settings.use_device).key_averages();
    files.op_table_csv = WriteFile(fs::path(dir) / "op_table.csv", OpTableCsv(avg));
  }
  if (!rec.settings.device_lanes) return files;
  WriteKernelPairs(rec, dir, files);
  const ProfileDeviceSummary summary = SummarizeRecording(rec);
  files.summary_json =
      WriteFile(fs::path(dir) / "summary.json", SummaryDocument(summary, run.about).dump(2) + "\n");
  files.summary_text = WriteFile(fs::path(dir) / "summary.txt", SummaryText(summary));
  files.instructions_csv = WriteFile(fs::path(dir) / "instructions.csv", InstructionsCsv(rec));
  if (run.report_html) {
    files.report_html = WriteFile(fs::path(dir) / "report.html", RunReportHtml(rec, summary, run.title));
  }
  return files;
}

NeuronProfiler::NeuronProfiler(NeuronConfig config)
    : state_(std::make_shared<State>(State{std::move(config), {}})) {}

void NeuronProfiler::export_trace(Profile& prof) {
  fs::path dir = state_->config.profile_output_dir;
  if (!state_->exports.empty()) dir /= "export_" + std::to_string(state_->exports.size());
  RunDescription run;
  run.title = "nsim profile: " + dir.string();
  run.report_html = state_->exports.empty();
  state_->exports.push_back(WriteProfileOutput(prof.recording(), dir.string(), run));
}

}  // namespace prof
}  // namespace nsim
