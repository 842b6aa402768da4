#include "sim/model/record_order.h"

#include <algorithm>
#include <tuple>

namespace nsim {
namespace {

auto InstructionKey(const InstructionRecord& r) { return std::make_tuple(r.start, static_cast<int>(r.engine), r.index); }

auto PieceKey(const DmaRecord& r) {
  return std::make_tuple(r.start, r.dma_engine, r.end, static_cast<int>(r.trigger_engine), r.index, r.queue, r.bytes,
                         r.descriptors);
}

auto TransferEndKey(const DmaTransferRecord& r) {
  return std::make_tuple(r.end, static_cast<int>(r.trigger_engine), r.index);
}

// Sorts by `key`, skipping the sort when already in order (a run with one
// busy engine produces its records in order).
template <typename T, typename Key>
void SortBy(std::vector<T>* records, Key key) {
  auto less = [&key](const T& a, const T& b) { return key(a) < key(b); };
  if (!std::is_sorted(records->begin(), records->end(), less)) std::sort(records->begin(), records->end(), less);
}

}  // namespace

void SortRecords(ExecutionResult* result) {
  SortBy(&result->instructions, InstructionKey);
  SortBy(&result->dma, PieceKey);
  SortBy(&result->dma_copy_ends, TransferEndKey);
}

}  // namespace nsim
