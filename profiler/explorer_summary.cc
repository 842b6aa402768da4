#include "profiler/explorer_summary.h"

#include <map>
#include <string>

namespace nsim {
namespace prof {
namespace {

using nlohmann::json;

double Seconds(Picos ps) { return static_cast<double>(ps) * 1e-12; }
double Percent(double part, double whole) { return whole > 0 ? 100.0 * part / whole : 0.0; }

const std::map<std::string, std::string>& ExplorerEngineNames() {
  static const std::map<std::string, std::string> names = {
      {"TensorE", "tensor"}, {"VectorE", "vector"}, {"ScalarE", "scalar"}, {"GpSimd", "gpsimd"}, {"Sync", "sync"}};
  return names;
}

int64_t Count(const std::map<std::string, int64_t>& by_opcode, const std::string& op) {
  auto it = by_opcode.find(op);
  return it == by_opcode.end() ? 0 : it->second;
}

}  // namespace

json ExplorerSummaryJson(const DeviceSummary& s) {
  int64_t model_flops = 0, transpose_flops = 0, matmuls = 0, activates = 0, dma_copies = 0;
  Picos activate_time = 0;
  json out = json::object();
  const double total = static_cast<double>(s.device_time);
  for (const EngineStats& e : s.engines) {
    dma_copies += Count(e.by_opcode, "dma_copy");
    activates += Count(e.by_opcode, "activation");
    auto t = e.time_by_opcode.find("activation");
    if (t != e.time_by_opcode.end()) activate_time += t->second;
    auto name = ExplorerEngineNames().find(e.lane);
    if (name == ExplorerEngineNames().end()) continue;  // a per-core lane of a multi-core execution
    const std::string engine = name->second + "_engine_";
    out[engine + "instruction_time"] = Seconds(e.instruction_time);
    out[engine + "active_time"] = Seconds(e.busy);
    out[engine + "active_time_percent"] = Percent(static_cast<double>(e.busy), total);
    out[engine + "instruction_count"] = e.instructions;
    if (e.lane != "TensorE") continue;
    model_flops = e.flops;
    transpose_flops = e.transpose_flops;
    matmuls = Count(e.by_opcode, "matmul");
  }
  const int64_t hardware_flops = model_flops + transpose_flops;
  const double hbm = static_cast<double>(s.hbm_bytes());
  const double ridge = s.roofline.ridge_point;
  out["total_time"] = Seconds(s.device_time);
  out["model_flops"] = model_flops;
  out["hardware_flops"] = hardware_flops;
  out["transpose_flops"] = transpose_flops;
  out["mm_arithmetic_intensity"] = hbm > 0 ? json((hardware_flops - transpose_flops) / hbm) : json(nullptr);
  out["peak_flops_bandwidth_ratio"] = ridge;
  out["mfu_estimated_percent"] = Percent(static_cast<double>(model_flops), s.peak_flop_capacity);
  out["hfu_estimated_percent"] = Percent(static_cast<double>(hardware_flops), s.peak_flop_capacity);
  out["mfu_max_achievable_estimated_percent"] =
      hbm > 0 && ridge > 0 ? json(100.0 * (model_flops / hbm) / ridge) : json(nullptr);
  out["mbu_estimated_percent"] = Percent(hbm, s.peak_hbm_byte_capacity);
  out["hbm_read_bytes"] = s.hbm_read_bytes;
  out["hbm_write_bytes"] = s.hbm_write_bytes;
  out["dma_transfer_count"] = dma_copies;
  out["dma_transfer_total_bytes"] = s.dma_bytes;
  out["dma_transfer_average_bytes"] = dma_copies > 0 ? static_cast<double>(s.dma_bytes) / dma_copies : 0.0;
  out["dma_active_time"] = Seconds(s.dma_active_time);
  out["dma_active_time_percent"] = Percent(static_cast<double>(s.dma_active_time), total);
  out["dma_packet_time"] = Seconds(s.dma_packet_time);
  out["dma_queue_count"] = static_cast<int64_t>(s.dma_queues.size());
  out["matmul_instruction_count"] = matmuls;
  out["activate_instruction_count"] = activates;
  out["activate_instruction_time"] = Seconds(activate_time);
  out["total_active_time"] = Seconds(s.active_time);
  out["total_active_time_percent"] = Percent(static_cast<double>(s.active_time), total);
  return out;
}

}  // namespace prof
}  // namespace nsim
