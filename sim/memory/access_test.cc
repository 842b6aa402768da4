// The bf16 store loop of access.cc (built with -O3 to vectorise) rounds
// exactly as FloatToBF16 (sim/base/dtype.h): every exponent and sign with the
// low half-words that decide rounding (ties to even both ways, just below and
// above a tie), zeros, infinities and every NaN class.
#include "sim/memory/access.h"

#include <cstring>
#include <vector>

#include <gtest/gtest.h>

#include "sim/base/host_cpu.h"
#include "sim/memory/dtype_runs.h"

namespace nsim {
namespace {

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
  MemoryParams p;
  p.partitions = 1;
  p.sbuf_bytes_per_partition = 2 * n;
  p.psum_banks = 1;
  p.psum_bank_bytes = 2;
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

// Runs of fewer than 4 elements convert one element at a time (no build
// dispatch): the same bits as FloatToBF16 for every rounding case, and loads
// back exactly.
TEST(Access, ShortBf16RunsRoundLikeFloatToBF16) {
  const std::vector<float> values = RoundingCases();
  int64_t mismatches = 0;
  for (size_t i = 0; i + 3 <= values.size(); i += 3) {
    for (int64_t n = 1; n <= 3; ++n) {
      uint16_t stored[3] = {};
      StoreRun(DType::kBF16, reinterpret_cast<uint8_t*>(stored), n, &values[i]);
      float back[3] = {};
      LoadRun(DType::kBF16, reinterpret_cast<const uint8_t*>(stored), n, back);
      for (int64_t j = 0; j < n; ++j) {
        const uint32_t expected_bits = static_cast<uint32_t>(FloatToBF16(values[i + j])) << 16;
        uint32_t back_bits;
        std::memcpy(&back_bits, &back[j], 4);
        if ((stored[j] != FloatToBF16(values[i + j]) || back_bits != expected_bits) && ++mismatches <= 5) {
          ADD_FAILURE() << "case " << i + j << " in a run of " << n;
        }
      }
    }
  }
  EXPECT_EQ(mismatches, 0);
}

// An on-chip access whose rows are one run each (read and written row by row)
// moves the elements in pattern order, as the general walk does.
TEST(Access, OneRunRowsReadAndWriteInPatternOrder) {
  MemoryParams p;
  p.partitions = 4;
  p.sbuf_bytes_per_partition = 64;
  p.psum_banks = 1;
  p.psum_bank_bytes = 4;
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
  MemoryParams p;
  p.partitions = 4;
  p.sbuf_bytes_per_partition = 64;
  p.psum_banks = 1;
  p.psum_bank_bytes = 16;
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

// The AVX2 build of the conversion loops (used on this host when it has AVX2)
// gives the portable build's bits, including odd lengths (vector tails).
TEST(Access, Bf16LoopsOfEveryBuildAgree) {
  if (!HostHasAvx2Fma()) GTEST_SKIP() << "host without AVX2";
  const std::vector<float> values = RoundingCases();
  for (int64_t n : {int64_t{1}, int64_t{7}, int64_t{13}, static_cast<int64_t>(values.size())}) {
    std::vector<uint16_t> portable(n), avx2(n);
    dtype_runs_internal::Bf16StorePortable(values.data(), n, reinterpret_cast<uint8_t*>(portable.data()));
    dtype_runs_internal::Bf16StoreAvx2(values.data(), n, reinterpret_cast<uint8_t*>(avx2.data()));
    ASSERT_EQ(portable, avx2) << n;
    std::vector<float> back_portable(n), back_avx2(n);
    dtype_runs_internal::Bf16LoadPortable(reinterpret_cast<const uint8_t*>(portable.data()), n, back_portable.data());
    dtype_runs_internal::Bf16LoadAvx2(reinterpret_cast<const uint8_t*>(portable.data()), n, back_avx2.data());
    ASSERT_EQ(std::memcmp(back_portable.data(), back_avx2.data(), n * 4), 0) << n;
    for (int64_t i = 0; i < n; ++i) {
      uint32_t loaded;
      std::memcpy(&loaded, &back_portable[i], 4);
      ASSERT_EQ(loaded, static_cast<uint32_t>(portable[i]) << 16) << i;
    }
  }
}

}  // namespace
}  // namespace nsim
