#include "sim/model/record_order.h"

#include <algorithm>
#include <vector>

#include "sim/model/run_merge.h"

namespace nsim {
namespace {

// The comparisons below are written out (not as tuples built per call): a
// long run sorts millions of records.
bool InstructionBefore(const InstructionRecord& a, const InstructionRecord& b) {
  if (a.start != b.start) return a.start < b.start;
  if (a.engine != b.engine) return a.engine < b.engine;
  return a.index < b.index;
}

bool PieceBefore(const DmaRecord& a, const DmaRecord& b) {
  if (a.start != b.start) return a.start < b.start;
  if (a.dma_engine != b.dma_engine) return a.dma_engine < b.dma_engine;
  // Only zero-length pieces tie so far (an engine serves one piece at a time).
  if (a.end != b.end) return a.end < b.end;
  if (a.trigger_engine != b.trigger_engine) return a.trigger_engine < b.trigger_engine;
  if (a.index != b.index) return a.index < b.index;
  if (a.queue != b.queue) return a.queue < b.queue;
  if (a.bytes != b.bytes) return a.bytes < b.bytes;
  return a.descriptors < b.descriptors;
}

bool TransferEndBefore(const DmaTransferRecord& a, const DmaTransferRecord& b) {
  if (a.end != b.end) return a.end < b.end;
  if (a.trigger_engine != b.trigger_engine) return a.trigger_engine < b.trigger_engine;
  return a.index < b.index;
}

// Sorts in place, skipping the sort when already in order (a run with one
// busy engine produces its records in order).
template <typename T, typename Less>
void SortBy(std::vector<T>* records, Less less) {
  if (!std::is_sorted(records->begin(), records->end(), less)) std::sort(records->begin(), records->end(), less);
}

}  // namespace

void SortRecords(ExecutionResult* result) {
  // Lambdas, not function pointers: std::sort then inlines the comparison.
  // Each engine issues in order, so its records are in order already: merge
  // the engines' runs (run_merge.h). At most 4096 + a 32nd of the records
  // may wait in the merge: engines far apart in time (e.g. no semaphores
  // between them) fall back to a sort.
  auto& instructions = result->instructions;
  auto instruction_before = [](const auto& a, const auto& b) { return InstructionBefore(a, b); };
  if (!std::is_sorted(instructions.begin(), instructions.end(), instruction_before)) {
    MergeInterleavedRuns<kNumEngines>(
        &instructions, [](const InstructionRecord& r) { return r.start; },
        [](const InstructionRecord& r) { return static_cast<int>(r.engine); }, instruction_before,
        4096 + instructions.size() / 32);
  }
  SortBy(&result->dma, [](const auto& a, const auto& b) { return PieceBefore(a, b); });
  SortBy(&result->dma_copy_ends, [](const auto& a, const auto& b) { return TransferEndBefore(a, b); });
}

}  // namespace nsim
