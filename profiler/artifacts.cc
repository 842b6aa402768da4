#include "profiler/artifacts.h"

#include <nlohmann/json.hpp>

#include "profiler/json_writer.h"

namespace nsim {
namespace prof {

std::string NeffFileName(uint64_t kernel_hash) { return std::to_string(kernel_hash) + ".neff"; }
std::string NtffFileName(uint64_t kernel_hash) { return std::to_string(kernel_hash) + ".ntff"; }

std::string NtffText(const DeviceExecution& exec) {
  using nlohmann::json;
  json instructions = json::array();
  for (const InstructionSlice& s : exec.instructions) {
    json operands = json::object();
    for (const auto& [k, v] : s.args) operands[k] = IsPlainNumber(v) ? json(std::stod(v)) : json(v);
    instructions.push_back({{"engine", s.lane},
                            {"opcode", s.opcode},
                            {"operands", operands},
                            {"start_ns", PicosToNanos(s.start)},
                            {"end_ns", PicosToNanos(s.end)},
                            {"model_flops", s.flops}});
  }
  json dma = json::array();
  for (const DmaSlice& d : exec.dma) {
    dma.push_back({{"queue", d.queue},
                   {"dma_engine", d.dma_engine},
                   {"bytes", d.bytes},
                   {"start_ns", PicosToNanos(d.start)},
                   {"end_ns", PicosToNanos(d.end)},
                   {"touches_hbm", d.touches_hbm}});
  }
  // Times are relative to the execution start, as in the simulator's records.
  json doc = {{"schema", "nsim-ntff"},
              {"schema_version", 1},
              {"kernel_hash", std::to_string(exec.kernel_hash)},
              {"kernel_name", exec.kernel_name},
              {"neff", NeffFileName(exec.kernel_hash)},
              {"nc", exec.nc},
              {"total_time_ns", PicosToNanos(exec.end - exec.start)},
              {"hbm_read_bytes", exec.hbm_read_bytes},
              {"hbm_write_bytes", exec.hbm_write_bytes},
              {"instructions", instructions},
              {"dma", dma}};
  return doc.dump(1) + "\n";
}

}  // namespace prof
}  // namespace nsim
