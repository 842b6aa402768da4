#pragma once
// CSV exports (times in ns, one header row, RFC 4180 quoting):
//   instructions.csv  one row per captured instruction and DMA piece
//   op_table.csv      the key_averages() rows
#include <string>

#include "profiler/event_list.h"
#include "profiler/recording.h"

namespace nsim {
namespace prof {

std::string InstructionsCsv(const Recording& recording);
std::string OpTableCsv(const EventList& key_averages);

}  // namespace prof
}  // namespace nsim
