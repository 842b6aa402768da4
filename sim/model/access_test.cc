// The bf16 store loop of access.cc (built with -O3 to vectorise) rounds
// exactly as FloatToBF16 (sim/base/dtype.h): every exponent and sign with the
// low half-words that decide rounding (ties to even both ways, just below and
// above a tie), zeros, infinities and every NaN class.
#include "sim/model/access.h"

#include <cstring>
#include <vector>

#include <gtest/gtest.h>

namespace nsim {
namespace {

TEST(Access, Bf16StoreRoundsLikeFloatToBF16) {
  std::vector<float> values;
  for (uint32_t high = 0; high < 0x10000; ++high) {
    for (uint32_t low : {0x0000u, 0x0001u, 0x7fffu, 0x8000u, 0x8001u, 0xffffu}) {
      const uint32_t bits = (high << 16) | low;
      float f;
      std::memcpy(&f, &bits, 4);
      values.push_back(f);
    }
  }
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

}  // namespace
}  // namespace nsim
