#pragma once
// What every output says about one instruction beyond its lane and times:
// its operands, the user's source location and why it waited
// (docs/profile-tables.md). One list, so the trace's args, summary.json's
// records and instructions.csv name the same fields the same way.
#include <string>
#include <utility>
#include <vector>

#include "profiler/events.h"

namespace nsim {
namespace prof {

// The innermost frame of a source stack as "FILE:LINE" with the file's base
// name (Neuron Explorer's nki_source_location), "" for no stack.
std::string SourceLine(const std::string& stack);

// The slice's args followed by index, source, source_stack, aten_op, the wait causes
// in ns (semaphore_wait_ns, engine_busy_wait_ns, dependency_wait_ns,
// table_load_ns, wait_ns = their sum without table_load_ns) and signalled_by
// ("LANE#INDEX"), as key/value text.
std::vector<std::pair<std::string, std::string>> InstructionDetail(const InstructionSlice& s);

// ps as ns with three decimals (exact): how the text outputs write times.
std::string NsText(Picos ps);

// "LANE#INDEX": how the outputs name one instruction of an execution.
std::string InstructionName(const std::string& lane, int index);

}  // namespace prof
}  // namespace nsim
