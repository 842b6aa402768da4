#pragma once
// report.html's "Source" section (docs/profile-tables.md): the kernel's
// source with, per line, the device time of the instructions it made (its
// own, and with the helpers it calls), their engines and their waiting time
// by cause; above it a ranked list of findings derived from those causes,
// each naming the lines involved. Lines come from the instructions' source
// stacks (InstructionSlice::source); the files are read when the page is
// written.
#include <string>
#include <vector>

#include "profiler/device_summary.h"
#include "profiler/html_page.h"
#include "profiler/recording.h"

namespace nsim {
namespace prof {

struct Finding {
  Picos cost = 0;     // the time it accounts for: findings are ranked by it
  std::string text;   // names the lines, e.g. "k.py:42"
};

std::vector<Finding> Findings(const Recording& rec, const ProfileDeviceSummary& s);
HtmlSection SourceSection(const Recording& rec, const ProfileDeviceSummary& s);

}  // namespace prof
}  // namespace nsim
