// The bf16 store loop of access.cc (built with -O3 to vectorise) rounds
// exactly as FloatToBF16 (sim/base/dtype.h): every exponent and sign with the
// low half-words that decide rounding (ties to even both ways, just below and
// above a tie), zeros, infinities and every NaN class.
#include "sim/memory/access.h"

#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "sim/base/host_cpu.h"
#include "sim/memory/dtype_runs.h"

namespace nsim {
namespace {

// On-chip memory of `partitions` rows of `sbuf_bytes` and one PSUM bank of `psum_bytes`.
MemoryParams SmallMemory(int64_t partitions, int64_t sbuf_bytes, int64_t psum_bytes) {
  MemoryParams p;
  p.partitions = partitions;
  p.sbuf_bytes_per_partition = sbuf_bytes;
  p.psum_banks = 1;
  p.psum_bank_bytes = psum_bytes;
  return p;
}

// Every exponent and sign with the low half-words that decide rounding.
std::vector<float> RoundingCases() {
  std::vector<float> values;
  for (uint32_t high = 0; high < 0x10000; ++high) {
    for (uint32_t low : {0x0000u, 0x0001u, 0x7fffu, 0x8000u, 0x8001u, 0xffffu}) {
      const uint32_t bits = (high << 16) | low;
      float f;
      std::memcpy(&f, &bits, 4);
      values.push_back(f);
    }
  }
  return values;
}

TEST(Access, Bf16StoreRoundsLikeFloatToBF16) {
  const std::vector<float> values = RoundingCases();
  const int64_t n = static_cast<int64_t>(values.size());
  const MemoryParams p = SmallMemory(1, 2 * n, 2);
  OnChipMemory mem(p);
  HbmMemory hbm(0);
  BoundAccess a;
  a.space = MemSpace::kSbuf;
  a.dtype = DType::kBF16;
  a.dims.d[0] = ApDim{1, n};
  a.dims.n = 1;
  a.count = n;
  WriteFloats(a, mem, hbm, values.data());
  std::vector<uint16_t> stored(values.size());
  ReadRaw(a, mem, hbm, reinterpret_cast<uint8_t*>(stored.data()));
  int64_t mismatches = 0;
  for (size_t i = 0; i < values.size(); ++i) {
    if (stored[i] != FloatToBF16(values[i]) && ++mismatches <= 5) {
      uint32_t bits;
      std::memcpy(&bits, &values[i], 4);
      ADD_FAILURE() << std::hex << "0x" << bits << " stored 0x" << stored[i] << ", FloatToBF16 gives 0x"
                    << FloatToBF16(values[i]);
    }
  }
  EXPECT_EQ(mismatches, 0);
}

// LoadRun/StoreRun (what the simulator calls, the build chosen for this
// host) and every build of the bf16 loops round exactly as FloatToBF16 and
// load back exactly, for runs of every length up to 17 and around 32 and 64
// (vector bodies of 8, 16 and 32 values, and tails) and one long run.
void ExpectBf16RunsExact(void (*load)(const uint8_t*, int64_t, float*), void (*store)(const float*, int64_t, uint8_t*),
                         const std::string& build) {
  const std::vector<float> values = RoundingCases();
  std::vector<int64_t> lengths;
  for (int64_t n = 1; n <= 17; ++n) lengths.push_back(n);
  for (int64_t n : {31, 32, 33, 63, 64, 65}) lengths.push_back(n);
  lengths.push_back(static_cast<int64_t>(values.size()));
  std::vector<uint16_t> stored(values.size());
  std::vector<float> back(values.size());
  for (int64_t n : lengths) {
    int64_t mismatches = 0;
    for (size_t first = 0; first + n <= values.size(); first += n) {
      store(&values[first], n, reinterpret_cast<uint8_t*>(stored.data()));
      load(reinterpret_cast<const uint8_t*>(stored.data()), n, back.data());
      for (int64_t j = 0; j < n; ++j) {
        const uint16_t want = FloatToBF16(values[first + j]);
        uint32_t back_bits;
        std::memcpy(&back_bits, &back[j], 4);
        if ((stored[j] != want || back_bits != static_cast<uint32_t>(want) << 16) && ++mismatches <= 5) {
          ADD_FAILURE() << build << ": case " << first + j << " in a run of " << n;
        }
      }
    }
    EXPECT_EQ(mismatches, 0) << build << " runs of " << n;
  }
}

TEST(Access, Bf16RunsOfEveryBuildRoundLikeFloatToBF16) {
  ExpectBf16RunsExact([](const uint8_t* p, int64_t n, float* out) { LoadRun(DType::kBF16, p, n, out); },
                      [](const float* in, int64_t n, uint8_t* p) { StoreRun(DType::kBF16, p, n, in); }, "dispatch");
  ExpectBf16RunsExact(dtype_runs_internal::kPortableBf16Loops.load, dtype_runs_internal::kPortableBf16Loops.store,
                      "portable");
  if (HostHasAvx2Fma()) {
    ExpectBf16RunsExact(dtype_runs_internal::kAvx2Bf16Loops.load, dtype_runs_internal::kAvx2Bf16Loops.store, "avx2");
  }
  if (HostHasAvx512Bf16()) {
    ExpectBf16RunsExact(dtype_runs_internal::kAvx512Bf16Loops.load, dtype_runs_internal::kAvx512Bf16Loops.store,
                        "avx512");
  }
}

// An on-chip access whose rows are one run each (read and written row by row)
// moves the elements in pattern order, as the general walk does.
TEST(Access, OneRunRowsReadAndWriteInPatternOrder) {
  const MemoryParams p = SmallMemory(4, 64, 4);
  OnChipMemory mem(p);
  HbmMemory hbm(0);
  BoundAccess rows;  // partitions 1..2, f32 elements 2..7 of each as [2, 3] (one run of 6)
  rows.space = MemSpace::kSbuf;
  rows.dtype = DType::kF32;
  rows.partition_start = 1;
  rows.partitions = 2;
  rows.base = 8;
  rows.dims.d[0] = ApDim{3, 2};
  rows.dims.d[1] = ApDim{1, 3};
  rows.dims.n = 2;
  rows.count = 12;
  const std::vector<float> in = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  WriteFloats(rows, mem, hbm, in.data());
  for (int64_t part = 1; part <= 2; ++part) {
    const float* row = reinterpret_cast<const float*>(mem.Row(MemSpace::kSbuf, part));
    for (int64_t e = 0; e < 6; ++e) EXPECT_EQ(row[2 + e], in[(part - 1) * 6 + e]) << part << " " << e;
    EXPECT_EQ(row[1], 0.0f);
    EXPECT_EQ(row[8], 0.0f);
  }
  std::vector<float> out(12);
  ReadFloats(rows, mem, hbm, out.data());
  EXPECT_EQ(out, in);
  BoundAccess gapped = rows;  // stride 4 between the [2, 3] rows: not one run, the general walk
  gapped.dims.d[0] = ApDim{4, 2};
  ReadFloats(gapped, mem, hbm, out.data());
  EXPECT_EQ(out, (std::vector<float>{1, 2, 3, 5, 6, 0, 7, 8, 9, 11, 12, 0}));
}

// A DMA between a contiguous HBM range and a gapped on-chip pattern moves the
// same bytes to the same places as the staged ReadRaw/WriteRaw pair; other
// pairs are left to the caller.
TEST(Access, CopyRawDirectMatchesStagedCopy) {
  const MemoryParams p = SmallMemory(4, 64, 16);
  OnChipMemory direct_mem(p), staged_mem(p);
  HbmMemory direct_hbm(1 << 20), staged_hbm(1 << 20);
  BoundAccess hbm;  // 12 bf16 elements at 0x1f002 (crosses no page; any address works)
  hbm.space = MemSpace::kHbm;
  hbm.dtype = DType::kBF16;
  hbm.base = 0x1f002;
  hbm.dims.d[0] = ApDim{1, 12};
  hbm.dims.n = 1;
  hbm.count = 12;
  BoundAccess sbuf;  // partitions 1..3, elements 1, 3, 5 of each
  sbuf.space = MemSpace::kSbuf;
  sbuf.dtype = DType::kBF16;
  sbuf.partition_start = 1;
  sbuf.partitions = 3;
  sbuf.base = 2;
  sbuf.dims.d[0] = ApDim{2, 4};
  sbuf.dims.n = 1;
  sbuf.count = 12;
  std::vector<uint8_t> source(24), staging(24);
  for (size_t i = 0; i < source.size(); ++i) source[i] = static_cast<uint8_t>(i * 7 + 1);
  direct_hbm.Write(hbm.base, source.data(), source.size());
  staged_hbm.Write(hbm.base, source.data(), source.size());
  ASSERT_TRUE(CopyRawDirect(sbuf, hbm, direct_mem, direct_hbm));  // load
  ReadRaw(hbm, staged_mem, staged_hbm, staging.data());
  WriteRaw(sbuf, staged_mem, staged_hbm, staging.data());
  for (int64_t part = 0; part < 4; ++part) {
    EXPECT_EQ(std::memcmp(direct_mem.Row(MemSpace::kSbuf, part), staged_mem.Row(MemSpace::kSbuf, part), 64), 0)
        << part;
  }
  BoundAccess out = hbm;
  out.base = 0x3fff0;  // crosses a 64 KiB page boundary
  ASSERT_TRUE(CopyRawDirect(out, sbuf, direct_mem, direct_hbm));  // store
  ReadRaw(sbuf, staged_mem, staged_hbm, staging.data());
  WriteRaw(out, staged_mem, staged_hbm, staging.data());
  std::vector<uint8_t> a(24), b(24);
  direct_hbm.Read(out.base, a.data(), a.size());
  staged_hbm.Read(out.base, b.data(), b.size());
  EXPECT_EQ(a, b);
  EXPECT_EQ(a, source);
  BoundAccess gapped_hbm = hbm;
  gapped_hbm.dims.d[0] = ApDim{2, 12};
  EXPECT_FALSE(CopyRawDirect(sbuf, gapped_hbm, direct_mem, direct_hbm));
  EXPECT_FALSE(CopyRawDirect(sbuf, sbuf, direct_mem, direct_hbm));
}

}  // namespace
}  // namespace nsim
