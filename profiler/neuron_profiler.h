#pragma once
// NeuronProfiler(cfg).export_trace: the on_trace_ready callback that writes a
// record window into cfg.profile_output_dir:
//   trace.json                      framework + runtime + device trace (chrome_trace.h)
//   <hash>.neff / <hash>.ntff       per kernel captured in DEVICE mode: kernel text and the
//                                   instruction trace of its first captured execution
//   summary.json / summary.txt      DEVICE mode: per execution and profile totals
//                                   (schema: docs/output-schema.md)
//   report.html                     DEVICE mode: timeline, utilisation, roofline, top
//                                   instructions (run_report_html.h); first export only
//   instructions.csv                DEVICE mode: one row per instruction and DMA piece
//   op_table.csv                    the key_averages() rows, when the window has ops
// Files are written under a temporary name and renamed, so a file that
// exists is complete.
// The first export writes into the directory itself; a later one (a schedule
// with several cycles) into <dir>/export_<k>, so no export overwrites another.
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "profiler/neuron_config.h"
#include "profiler/recording.h"

namespace nsim {
namespace prof {

class Profile;

struct ExportedFiles {
  std::string dir;
  std::string trace;
  std::string perfetto_trace;  // trace.perfetto-trace: the same trace as Perfetto protobuf
  std::vector<std::string> neff;  // paths, in capture order
  std::vector<std::string> ntff;
  std::string summary_json;  // empty without DEVICE mode
  std::string summary_text;
  std::string report_html;
  std::string instructions_csv;
  std::string op_table_csv;  // empty when the window recorded no ops
};

// What a summary.json says about the run besides the device summary (tool,
// config, kernel, ...): merged into its top level.
struct RunDescription {
  std::string title = "nsim profile";  // report.html's heading
  nlohmann::json about = nlohmann::json::object();
  // report.html embeds ~0.9 MB of chart runtime: a schedule with many cycles
  // writes it for its first export only.
  bool report_html = true;
};

// Writes every file for `recording` into `dir` (created if missing). Throws
// std::runtime_error when a file cannot be written.
ExportedFiles WriteProfileOutput(const Recording& recording, const std::string& dir,
                                 const RunDescription& run = {});
// Writes `text` to `path` through a temporary file and a rename.
std::string WriteFileAtomically(const std::string& path, const std::string& text);

class NeuronProfiler {
 public:
  explicit NeuronProfiler(NeuronConfig config);

  void export_trace(Profile& prof);
  // Lets a NeuronProfiler be an on_trace_ready callback directly; copies
  // share one export counter.
  void operator()(Profile& prof) { export_trace(prof); }

  const NeuronConfig& config() const { return state_->config; }
  const std::vector<ExportedFiles>& exports() const { return state_->exports; }

 private:
  struct State {
    NeuronConfig config;
    std::vector<ExportedFiles> exports;
  };
  std::shared_ptr<State> state_;
};

}  // namespace prof
}  // namespace nsim
