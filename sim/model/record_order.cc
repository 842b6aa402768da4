#include "sim/model/record_order.h"

#include <algorithm>
#include <vector>

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
  SortBy(&result->instructions, [](const auto& a, const auto& b) { return InstructionBefore(a, b); });
  SortBy(&result->dma, [](const auto& a, const auto& b) { return PieceBefore(a, b); });
  SortBy(&result->dma_copy_ends, [](const auto& a, const auto& b) { return TransferEndBefore(a, b); });
}

}  // namespace nsim
