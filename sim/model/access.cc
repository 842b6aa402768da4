#include "sim/model/access.h"

#include <cstring>
#include <string>

#include "sim/base/error.h"

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

// Visits (pointer-or-address, bytes) for every run; on-chip runs are pointers.
template <class OnChip, class Hbm>
void VisitRuns(const BoundAccess& a, OnChipMemory& mem, OnChip&& onchip, Hbm&& hbm) {
  const int64_t esize = DTypeSize(a.dtype);
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

namespace {

// Converting loops with the dtype switch hoisted out of the element loop.
void LoadRun(DType t, const uint8_t* p, int64_t n, float* out) {
  switch (t) {
    case DType::kF32: std::memcpy(out, p, n * 4); return;
    case DType::kBF16:
      for (int64_t i = 0; i < n; ++i) { uint16_t h; std::memcpy(&h, p + 2 * i, 2); out[i] = BF16ToFloat(h); }
      return;
    default:
      for (int64_t i = 0; i < n; ++i) out[i] = LoadElement(t, p + i * DTypeSize(t));
  }
}

void StoreRun(DType t, uint8_t* p, int64_t n, const float* in) {
  switch (t) {
    case DType::kF32: std::memcpy(p, in, n * 4); return;
    case DType::kBF16:
      for (int64_t i = 0; i < n; ++i) { const uint16_t h = FloatToBF16(in[i]); std::memcpy(p + 2 * i, &h, 2); }
      return;
    default:
      for (int64_t i = 0; i < n; ++i) StoreElement(t, p + i * DTypeSize(t), in[i]);
  }
}

}  // namespace

void ReadFloats(const BoundAccess& a, OnChipMemory& mem, const HbmMemory& hbm, float* out) {
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

void WriteFloats(const BoundAccess& a, OnChipMemory& mem, HbmMemory& hbm, const float* in) {
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

}  // namespace nsim
