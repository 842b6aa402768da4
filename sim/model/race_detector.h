#pragma once
// The race detector: after an execution, finds pairs of memory accesses by
// different agents (an engine's instruction, a DMA transfer) that touch the
// same bytes while both are in flight, at least one of them writing. Such a
// kernel reads stale or half-written data on hardware, which gives no
// warning; here it is an error by default, or a warning when races are
// allowed.
//
// An access is in flight from issue to commit for an engine instruction, and
// from its trigger's issue to its last piece's completion for a DMA transfer
// (once triggered, its destination may change at any moment). Instructions of one engine
// are ordered by the engine itself (in order, RAW interlock) and are never
// compared with each other. Regions are the bounding boxes the loader
// computed (partitions x bytes on chip; bound byte addresses in HBM, so two
// HBM tensors bound to the same memory conflict too).
#include <cstdint>
#include <string>
#include <vector>

#include "sim/model/execution_result.h"
#include "sim/model/loaded_kernel.h"

namespace nsim {

// One race, described for a person: both instructions (engine, opcode,
// line), what each does to which tensor, the overlapping bytes and times.
struct Race {
  Picos start = 0, end = 0;  // the overlap in time, relative to the execution start
  std::string description;
};

// The races of one finished execution, in order of time. `hbm_address` is
// the device address of each HBM tensor in that execution. Its instruction
// records must be in order of start, as SortRecords leaves them
// (record_order.h); records out of order are a SimError.
std::vector<Race> FindRaces(const LoadedKernel& kernel, const std::vector<uint64_t>& hbm_address,
                            const ExecutionResult& result);

// What an execution does about its races: by default the first one is a
// SimError (naming the others' count); with `allow_races` each becomes a
// warning in result->warnings (and on stderr) and the result stands.
void CheckRaces(const LoadedKernel& kernel, const std::vector<uint64_t>& hbm_address, bool allow_races,
                ExecutionResult* result);

}  // namespace nsim
