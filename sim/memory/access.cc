#include "sim/memory/access.h"

#include <cstring>
#include <string>

#include "sim/base/error.h"
#include "sim/memory/dtype_runs.h"

namespace nsim {

namespace {
void CopyDims(const std::vector<ApDim>& from, size_t first, BoundDims* to) {
  if (from.size() - first > BoundDims::kMaxDims) {
    throw SimError("access pattern with " + std::to_string(from.size() - first) + " dims; the model supports " +
                   std::to_string(BoundDims::kMaxDims));
  }
  to->n = 0;
  for (size_t i = first; i < from.size(); ++i) to->d[to->n++] = from[i];
}
}  // namespace

BoundAccess Bind(const Kernel& k, const AccessPattern& ap, uint64_t hbm_address_of_tensor) {
  const TensorDecl& t = k.tensors[ap.tensor];
  BoundAccess a;
  a.space = t.space;
  a.dtype = t.dtype;
  const int64_t esize = DTypeSize(t.dtype);
  if (t.space == MemSpace::kHbm) {
    a.base = hbm_address_of_tensor + static_cast<uint64_t>(ap.offset * esize);
    CopyDims(ap.dims, 0, &a.dims);
  } else {
    a.partition_start = ap.partition_start;
    a.partitions = ap.dims.empty() ? 1 : ap.dims[0].size;
    a.base = static_cast<uint64_t>(t.partition_offset + ap.offset * esize);
    CopyDims(ap.dims, ap.dims.empty() ? 0 : 1, &a.dims);
  }
  a.count = ap.NumElements();
  return a;
}

namespace {
// True when `dims` (element strides) visit one run of consecutive elements.
bool OneRun(const BoundDims& dims) {
  int64_t expected = 1;  // the stride a dim needs to continue the run inside it
  for (size_t d = dims.size(); d-- > 0;) {
    if (dims[d].size == 1) continue;
    if (dims[d].stride != expected) return false;
    expected *= dims[d].size;
  }
  return true;
}
}  // namespace

uint8_t* ContiguousRows(const BoundAccess& a, OnChipMemory& mem, int64_t* pitch) {
  if (a.space == MemSpace::kHbm || a.count == 0 || !OneRun(a.dims)) return nullptr;
  *pitch = mem.Pitch(a.space);
  return mem.Row(a.space, a.partition_start) + a.base;
}

namespace {

// For an on-chip access whose free elements are one run in every partition
// (the common tile): calls f(row, elements) per partition, in order, and
// returns true. False, visiting nothing, for any other access. The same
// runs as VisitRuns, without its general walk: on small tiles that walk,
// not the data, is the cost.
template <class F>
bool VisitRows(const BoundAccess& a, OnChipMemory& mem, F&& f) {
  if (a.space == MemSpace::kHbm) return false;
  int64_t n = 1, expected = 1;  // OneRun, counting the run's elements on the way
  for (size_t d = a.dims.size(); d-- > 0;) {
    n *= a.dims[d].size;
    if (a.dims[d].size == 1) continue;
    if (a.dims[d].stride != expected) return false;
    expected *= a.dims[d].size;
  }
  if (n == 0) return true;
  const int64_t pitch = mem.Pitch(a.space);
  uint8_t* row = mem.Row(a.space, a.partition_start) + a.base;
  for (int64_t p = 0; p < a.partitions; ++p, row += pitch) f(row, n);
  return true;
}

// Visits (pointer-or-address, bytes) for every run; on-chip runs are pointers.
template <class OnChip, class Hbm>
void VisitRuns(const BoundAccess& a, OnChipMemory& mem, OnChip&& onchip, Hbm&& hbm) {
  const int64_t esize = DTypeSize(a.dtype);
  if (VisitRows(a, mem, [&](uint8_t* row, int64_t n) { onchip(row, n * esize); })) return;
  if (a.space == MemSpace::kHbm) {
    ForEachRun(a.dims, [&](int64_t off, int64_t n) { hbm(a.base + off * esize, n * esize); });
    return;
  }
  for (int64_t p = 0; p < a.partitions; ++p) {
    uint8_t* row = mem.Row(a.space, a.partition_start + p) + a.base;
    ForEachRun(a.dims, [&](int64_t off, int64_t n) { onchip(row + off * esize, n * esize); });
  }
}

}  // namespace

void ReadRaw(const BoundAccess& a, OnChipMemory& mem, const HbmMemory& hbm, uint8_t* out) {
  VisitRuns(
      a, mem, [&](const uint8_t* p, int64_t n) { std::memcpy(out, p, n); out += n; },
      [&](uint64_t addr, int64_t n) { hbm.Read(addr, out, n); out += n; });
}

void WriteRaw(const BoundAccess& a, OnChipMemory& mem, HbmMemory& hbm, const uint8_t* in) {
  VisitRuns(
      a, mem, [&](uint8_t* p, int64_t n) { std::memcpy(p, in, n); in += n; },
      [&](uint64_t addr, int64_t n) { hbm.Write(addr, in, n); in += n; });
}

bool CopyRawDirect(const BoundAccess& dst, const BoundAccess& src, OnChipMemory& mem, HbmMemory& hbm) {
  const bool load = src.space == MemSpace::kHbm && dst.space != MemSpace::kHbm && OneRun(src.dims);
  const bool store = dst.space == MemSpace::kHbm && src.space != MemSpace::kHbm && OneRun(dst.dims);
  if (!load && !store) return false;
  auto no_hbm_side = [](uint64_t, int64_t) {};  // the visited side is on chip
  if (load) {
    uint64_t addr = src.base;
    VisitRuns(dst, mem, [&](uint8_t* p, int64_t n) { hbm.Read(addr, p, n); addr += n; }, no_hbm_side);
  } else {
    uint64_t addr = dst.base;
    VisitRuns(src, mem, [&](const uint8_t* p, int64_t n) { hbm.Write(addr, p, n); addr += n; }, no_hbm_side);
  }
  return true;
}

namespace {

// ReadFloats and WriteFloats beyond the common tile, out of line so that the
// tile's path sets up nothing it does not use.
__attribute__((noinline)) void ReadFloatsGeneral(const BoundAccess& a, OnChipMemory& mem, const HbmMemory& hbm,
                                                 float* out) {
  const int esize = DTypeSize(a.dtype);
  std::vector<uint8_t> staging;
  VisitRuns(
      a, mem,
      [&](const uint8_t* p, int64_t n) { LoadRun(a.dtype, p, n / esize, out); out += n / esize; },
      [&](uint64_t addr, int64_t n) {
        staging.resize(static_cast<size_t>(n));
        hbm.Read(addr, staging.data(), n);
        LoadRun(a.dtype, staging.data(), n / esize, out);
        out += n / esize;
      });
}

__attribute__((noinline)) void WriteFloatsGeneral(const BoundAccess& a, OnChipMemory& mem, HbmMemory& hbm,
                                                  const float* in) {
  const int esize = DTypeSize(a.dtype);
  std::vector<uint8_t> staging;
  VisitRuns(
      a, mem,
      [&](uint8_t* p, int64_t n) { StoreRun(a.dtype, p, n / esize, in); in += n / esize; },
      [&](uint64_t addr, int64_t n) {
        staging.resize(static_cast<size_t>(n));
        StoreRun(a.dtype, staging.data(), n / esize, in);
        hbm.Write(addr, staging.data(), n);
        in += n / esize;
      });
}

}  // namespace

PartitionRows::PartitionRows(const BoundAccess& a, OnChipMemory& mem)
    : a_(a),
      mem_(mem),
      per_row_(a.partitions > 0 ? a.count / a.partitions : 0),
      one_run_(OneRun(a.dims)) {}

void PartitionRows::Read(int64_t first, int64_t n, float* out) const {
  const LoadRunFn load = LoadRunFor(a_.dtype);
  for (int64_t p = first; p < first + n; ++p, out += per_row_) {
    const uint8_t* row = mem_.Row(a_.space, a_.partition_start + p) + a_.base;
    if (one_run_) {
      load(row, per_row_, out);
      continue;
    }
    const int64_t esize = DTypeSize(a_.dtype);
    float* dst = out;
    ForEachRun(a_.dims, [&](int64_t off, int64_t len) { load(row + off * esize, len, dst); dst += len; });
  }
}

void PartitionRows::Write(int64_t first, int64_t n, const float* in) const {
  const StoreRunFn store = StoreRunFor(a_.dtype);
  for (int64_t p = first; p < first + n; ++p, in += per_row_) {
    uint8_t* row = mem_.Row(a_.space, a_.partition_start + p) + a_.base;
    if (one_run_) {
      store(in, per_row_, row);
      continue;
    }
    const int64_t esize = DTypeSize(a_.dtype);
    const float* src = in;
    ForEachRun(a_.dims, [&](int64_t off, int64_t len) { store(src, len, row + off * esize); src += len; });
  }
}

namespace {
// The bytes an on-chip access touches within each of its partitions, [lo, hi).
void ByteExtent(const BoundAccess& a, int64_t* lo, int64_t* hi) {
  int64_t first = 0, last = 0;  // element offsets from base
  for (const ApDim& d : a.dims) {
    const int64_t span = (d.size - 1) * d.stride;
    (span < 0 ? first : last) += span;
  }
  const int64_t esize = DTypeSize(a.dtype);
  *lo = static_cast<int64_t>(a.base) + first * esize;
  *hi = static_cast<int64_t>(a.base) + (last + 1) * esize;
}
}  // namespace

bool RowsWriteBehindReads(const BoundAccess& dst, const BoundAccess& src) {
  // dst row p is partition dst.partition_start + p; a source row q sharing
  // that partition comes later (q > p) only if dst starts above src.
  if (dst.space != src.space || dst.partition_start <= src.partition_start || dst.count == 0 || src.count == 0) {
    return true;
  }
  if (src.partition_start + src.partitions <= dst.partition_start) return true;  // no partition in common
  int64_t dlo, dhi, slo, shi;
  ByteExtent(dst, &dlo, &dhi);
  ByteExtent(src, &slo, &shi);
  return dhi <= slo || shi <= dlo;
}

void ReadFloats(const BoundAccess& a, OnChipMemory& mem, const HbmMemory& hbm, float* out) {
  const LoadRunFn load = LoadRunFor(a.dtype);
  if (VisitRows(a, mem, [&](const uint8_t* p, int64_t n) { load(p, n, out); out += n; })) return;
  ReadFloatsGeneral(a, mem, hbm, out);
}

void WriteFloats(const BoundAccess& a, OnChipMemory& mem, HbmMemory& hbm, const float* in) {
  const StoreRunFn store = StoreRunFor(a.dtype);
  if (VisitRows(a, mem, [&](uint8_t* p, int64_t n) { store(in, n, p); in += n; })) return;
  WriteFloatsGeneral(a, mem, hbm, in);
}

}  // namespace nsim
