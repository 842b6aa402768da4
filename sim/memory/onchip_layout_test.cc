#include "sim/memory/onchip_layout.h"

#include <gtest/gtest.h>

namespace nsim {
namespace {

TEST(OnChipLayout, SbufTensorsStartOn64ByteBoundaries) {
  OnChipLayout l(2048);
  EXPECT_EQ(l.Place(MemSpace::kSbuf, 100), 0);
  EXPECT_EQ(l.Place(MemSpace::kSbuf, 64), 128);  // 100 B rounded up to 128
  EXPECT_EQ(l.Place(MemSpace::kSbuf, 1), 192);
  EXPECT_EQ(l.sbuf_used(), 256);
  EXPECT_EQ(l.psum_used(), 0);
}

TEST(OnChipLayout, PsumPacksAt4BytesWithoutStraddlingABank) {
  OnChipLayout l(2048);
  EXPECT_EQ(l.Place(MemSpace::kPsum, 1024), 0);
  EXPECT_EQ(l.Place(MemSpace::kPsum, 512), 1024);   // fits after it in bank 0
  EXPECT_EQ(l.Place(MemSpace::kPsum, 1024), 2048);  // would straddle banks 0 and 1: starts bank 1
  EXPECT_EQ(l.Place(MemSpace::kPsum, 6), 3072);
  EXPECT_EQ(l.Place(MemSpace::kPsum, 4), 3080);     // 6 B end rounded up to 4 B
  EXPECT_EQ(l.Place(MemSpace::kPsum, 3000), 4096);  // larger than a bank: starts at a bank
  EXPECT_EQ(l.psum_used(), 7096);
}

TEST(OnChipLayout, LayOutSkipsHbmAndUsesDtypeSizes) {
  Kernel k;
  TensorDecl hbm, sbuf, psum;
  hbm.space = MemSpace::kHbm;
  hbm.dtype = DType::kF32;
  hbm.shape = {1024, 1024};
  sbuf.space = MemSpace::kSbuf;
  sbuf.dtype = DType::kBF16;
  sbuf.shape = {128, 33};  // 66 B per partition
  psum.space = MemSpace::kPsum;
  psum.dtype = DType::kF32;
  psum.shape = {128, 512};  // 2048 B: one whole bank
  k.tensors = {hbm, sbuf, psum};
  const OnChipLayout l = LayOut(k, 2048);
  EXPECT_EQ(l.sbuf_used(), 128);
  EXPECT_EQ(l.psum_used(), 2048);
}

}  // namespace
}  // namespace nsim
