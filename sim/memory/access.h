#pragma once
// Moving the elements an access pattern names between device memory and a
// packed buffer, in the pattern's element order (partitions outermost for
// on-chip tensors). Compute works on packed fp32 copies, as the engines'
// data paths compute in fp32 with zero-overhead casting at the ports.
#include <cstdint>
#include <vector>

#include "sim/base/dtype.h"
#include "sim/kernel/kernel.h"
#include "sim/memory/dtype_runs.h"
#include "sim/memory/hbm.h"
#include "sim/memory/onchip_memory.h"

namespace nsim {

// Up to kMaxDims dims inline: binding sits on the per-instruction path and
// must not allocate.
struct BoundDims {
  static constexpr int kMaxDims = 8;
  ApDim d[kMaxDims];
  int n = 0;
  size_t size() const { return static_cast<size_t>(n); }
  const ApDim& operator[](size_t i) const { return d[i]; }
  const ApDim* begin() const { return d; }
  const ApDim* end() const { return d + n; }
};

// An access pattern bound to memory: where its tensor lives on this device.
struct BoundAccess {
  MemSpace space = MemSpace::kSbuf;
  DType dtype = DType::kF32;
  int64_t partition_start = 0;  // on-chip only
  int64_t partitions = 1;       // on-chip: dims[0].size; HBM: 1
  uint64_t base = 0;            // HBM: byte address of element `offset`; on-chip: byte offset in the partition
  BoundDims dims;               // free dims (on-chip) or all dims (HBM), element strides
  int64_t count = 0;            // total elements

  int64_t FreeCount() const { return count / partitions; }
};

BoundAccess Bind(const Kernel& k, const AccessPattern& ap, uint64_t hbm_address_of_tensor);

// Calls f(element_offset_from_base, run_length) for each maximal run of
// consecutive elements, in pattern order.
template <class Dims, class F>
void ForEachRun(const Dims& dims, F&& f);

// For an on-chip access whose free elements are one contiguous run in every
// partition: the address of the first partition's run, with the bytes from
// one partition's run to the next in *pitch. nullptr otherwise (HBM, or
// strided / gapped free dims). Compute then reads or writes rows in place.
uint8_t* ContiguousRows(const BoundAccess& a, OnChipMemory& mem, int64_t* pitch);

// Packed element bytes (dtype of the access) in pattern order.
void ReadRaw(const BoundAccess& a, OnChipMemory& mem, const HbmMemory& hbm, uint8_t* out);
void WriteRaw(const BoundAccess& a, OnChipMemory& mem, HbmMemory& hbm, const uint8_t* in);

// Copies src's elements to dst (same dtype and count) without staging when
// one side is a single contiguous HBM byte range and the other on chip: each
// on-chip run moves straight from / to its place in HBM. False (nothing
// copied) for any other pair; the caller then stages through ReadRaw/WriteRaw.
bool CopyRawDirect(const BoundAccess& dst, const BoundAccess& src, OnChipMemory& mem, HbmMemory& hbm);

// The same, converting to/from fp32 (stores round to the access's dtype).
void ReadFloats(const BoundAccess& a, OnChipMemory& mem, const HbmMemory& hbm, float* out);
void WriteFloats(const BoundAccess& a, OnChipMemory& mem, HbmMemory& hbm, const float* in);

// An on-chip access read or written a block of partitions at a time,
// converting to/from fp32: element-wise instructions process a [P, F] tile
// in blocks of rows small enough that their fp32 copies stay in L1, instead
// of staging whole operands (issue 12: 256 KB per [128, 512] operand, out of
// L1 and L2). Row p holds partition p's free elements in pattern order.
class PartitionRows {
 public:
  PartitionRows(const BoundAccess& a, OnChipMemory& mem);
  int64_t partitions() const { return a_.partitions; }
  int64_t per_row() const { return per_row_; }
  // Rows [first, first + n) to/from out/in, row r at (r - first) * per_row().
  void Read(int64_t first, int64_t n, float* out) const;
  void Write(int64_t first, int64_t n, const float* in) const;

 private:
  const BoundAccess& a_;
  OnChipMemory& mem_;
  int64_t per_row_;
  bool one_run_;  // each row is one run of consecutive elements
};

// True when writing `dst` row by row (row p after reading every source's row
// p) leaves each source row unchanged until it is read: no later source row
// shares bytes with an earlier dst row. Both on chip.
bool RowsWriteBehindReads(const BoundAccess& dst, const BoundAccess& src);

// ---- implementation of the template ----
template <class Dims, class F>
void ForEachRun(const Dims& dims, F&& f) {
  const int nd = static_cast<int>(dims.size());
  if (nd == 0) { f(int64_t{0}, int64_t{1}); return; }
  for (const ApDim& d : dims) if (d.size == 0) return;
  const ApDim inner = dims[nd - 1];
  const bool contiguous = inner.stride == 1;
  int64_t idx[BoundDims::kMaxDims] = {};
  int64_t off = 0;
  while (true) {
    if (contiguous) {
      f(off, inner.size);
    } else {
      for (int64_t i = 0; i < inner.size; ++i) f(off + i * inner.stride, int64_t{1});
    }
    int d = nd - 2;
    for (; d >= 0; --d) {
      off += dims[d].stride;
      if (++idx[d] < dims[d].size) break;
      off -= dims[d].stride * dims[d].size;
      idx[d] = 0;
    }
    if (d < 0) return;
  }
}

}  // namespace nsim
