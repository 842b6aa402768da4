#include "sim/model/access.h"

#include <cstring>

namespace nsim {

BoundAccess Bind(const Kernel& k, const AccessPattern& ap, uint64_t hbm_address_of_tensor) {
  const TensorDecl& t = k.tensors[ap.tensor];
  BoundAccess a;
  a.space = t.space;
  a.dtype = t.dtype;
  const int64_t esize = DTypeSize(t.dtype);
  if (t.space == MemSpace::kHbm) {
    a.base = hbm_address_of_tensor + static_cast<uint64_t>(ap.offset * esize);
    a.dims = ap.dims;
  } else {
    a.partition_start = ap.partition_start;
    a.partitions = ap.dims.empty() ? 1 : ap.dims[0].size;
    a.base = static_cast<uint64_t>(t.partition_offset + ap.offset * esize);
    a.dims.assign(ap.dims.begin() + (ap.dims.empty() ? 0 : 1), ap.dims.end());
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

void ReadFloats(const BoundAccess& a, OnChipMemory& mem, const HbmMemory& hbm, float* out) {
  if (a.dtype == DType::kF32) {
    ReadRaw(a, mem, hbm, reinterpret_cast<uint8_t*>(out));
    return;
  }
  std::vector<uint8_t> raw(static_cast<size_t>(a.count * DTypeSize(a.dtype)));
  ReadRaw(a, mem, hbm, raw.data());
  const int esize = DTypeSize(a.dtype);
  for (int64_t i = 0; i < a.count; ++i) out[i] = LoadElement(a.dtype, &raw[i * esize]);
}

void WriteFloats(const BoundAccess& a, OnChipMemory& mem, HbmMemory& hbm, const float* in) {
  if (a.dtype == DType::kF32) {
    WriteRaw(a, mem, hbm, reinterpret_cast<const uint8_t*>(in));
    return;
  }
  const int esize = DTypeSize(a.dtype);
  std::vector<uint8_t> raw(static_cast<size_t>(a.count * esize));
  for (int64_t i = 0; i < a.count; ++i) StoreElement(a.dtype, &raw[i * esize], in[i]);
  WriteRaw(a, mem, hbm, raw.data());
}

}  // namespace nsim
