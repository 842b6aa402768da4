#include "profiler/instruction_detail.h"

#include <cstdio>

namespace nsim {
namespace prof {
std::string NsText(Picos ps) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.3f", PicosToNanos(ps));
  return buf;
}

std::string SourceLine(const std::string& stack) {
  const std::string inner = stack.substr(0, stack.find(" < "));
  const std::string at = inner.substr(0, inner.find(' '));  // "PATH:LINE"
  const size_t slash = at.find_last_of('/');
  return slash == std::string::npos ? at : at.substr(slash + 1);
}

std::string InstructionName(const std::string& lane, int index) { return lane + "#" + std::to_string(index); }

std::vector<std::pair<std::string, std::string>> InstructionDetail(const InstructionSlice& s) {
  std::vector<std::pair<std::string, std::string>> out = s.args;
  out.emplace_back("index", std::to_string(s.index));
  if (!s.source.empty()) {
    out.emplace_back("source", SourceLine(s.source));
    out.emplace_back("source_stack", s.source);
  }
  if (!s.aten_op.empty()) out.emplace_back("aten_op", s.aten_op);
  const WaitCauses& w = s.waits;
  out.emplace_back("wait_ns", NsText(w.total()));
  out.emplace_back("semaphore_wait_ns", NsText(w.semaphore));
  out.emplace_back("engine_busy_wait_ns", NsText(w.engine_busy));
  out.emplace_back("dependency_wait_ns", NsText(w.dependency));
  if (w.table_load > 0) out.emplace_back("table_load_ns", NsText(w.table_load));
  if (w.signaller_index >= 0) out.emplace_back("signalled_by", InstructionName(w.signaller_lane, w.signaller_index));
  return out;
}

}  // namespace prof
}  // namespace nsim
