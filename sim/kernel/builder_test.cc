#include "sim/kernel/builder.h"

#include <gtest/gtest.h>

#include "sim/base/error.h"
#include "sim/kernel/printer.h"

namespace nsim {
namespace {

using S = SliceSpec;

// Expects `f` to throw SimError whose message contains `part`.
template <typename F>
void ExpectError(F f, const std::string& part) {
  try {
    f();
    ADD_FAILURE() << "no error; expected one containing '" << part << "'";
  } catch (const SimError& e) {
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

AccessPattern MakeAp(int t, int64_t p0, int64_t off, std::vector<ApDim> dims) {
  AccessPattern ap;
  ap.tensor = t;
  ap.partition_start = p0;
  ap.offset = off;
  ap.dims = dims;
  return ap;
}

class BuilderTest : public ::testing::Test {
 protected:
  Kernel k;
  int h = AddTensor(k, "h", MemSpace::kHbm, DType::kBF16, {4, 6, 5});
  int s = AddTensor(k, "s", MemSpace::kSbuf, DType::kF32, {128, 6, 5});
  int p = AddTensor(k, "p", MemSpace::kPsum, DType::kF32, {64});
};

TEST_F(BuilderTest, AddTensorAndSemaphore) {
  EXPECT_EQ(h, 0);
  EXPECT_EQ(s, 1);
  EXPECT_EQ(AddSemaphore(k, "sem"), 0);
  EXPECT_EQ(k.tensors[1].shape, (std::vector<int64_t>{128, 6, 5}));
  const int r = AddTensor(k, "r", MemSpace::kHbm, DType::kF32, {2}, TensorInit{TensorInit::kRandn, 0, 9});
  EXPECT_EQ(k.tensors[r].init.seed, 9u);
}

TEST_F(BuilderTest, AddTensorRejectsBadDeclarations) {
  ExpectError([&] { AddTensor(k, "h", MemSpace::kHbm, DType::kF32, {1}); }, "duplicate name 'h'");
  AddSemaphore(k, "sem");
  ExpectError([&] { AddTensor(k, "sem", MemSpace::kHbm, DType::kF32, {1}); },
              "already declared as a semaphore");
  ExpectError([&] { AddSemaphore(k, "s"); }, "already declared as a tensor");
  ExpectError([&] { AddTensor(k, "9x", MemSpace::kHbm, DType::kF32, {1}); }, "invalid name '9x'");
  ExpectError([&] { AddTensor(k, "inf", MemSpace::kHbm, DType::kF32, {1}); }, "invalid name 'inf'");
  ExpectError([&] { AddTensor(k, "e", MemSpace::kHbm, DType::kF32, {}); }, "at least one dim");
  ExpectError([&] { AddTensor(k, "z", MemSpace::kHbm, DType::kF32, {3, 0}); }, "dim 1 of tensor 'z' is 0");
  ExpectError([&] { AddTensor(k, "big", MemSpace::kSbuf, DType::kF32, {129, 2}); }, "must be 1..128");
  ExpectError([&] { AddTensor(k, "i", MemSpace::kSbuf, DType::kF32, {4}, TensorInit{TensorInit::kOnes}); },
              "only valid for hbm");
}

TEST_F(BuilderTest, FullAccess) {
  EXPECT_EQ(Full(k, h), MakeAp(h, 0, 0, {{30, 4}, {5, 6}, {1, 5}}));
  EXPECT_EQ(Full(k, s), MakeAp(s, 0, 0, {{1, 128}, {5, 6}, {1, 5}}));
  EXPECT_EQ(Full(k, p), MakeAp(p, 0, 0, {{1, 64}}));
}

TEST_F(BuilderTest, HbmSlicesWalkTheFlatIndex) {
  // h[1:4:2, 2, 1:] -> rows 1 and 3, column 2 dropped, last dim from 1.
  EXPECT_EQ(Slice(k, h, {S::Range(1, 4, 2), S::At(2), S::Range(1)}),
            MakeAp(h, 0, 30 + 10 + 1, {{60, 2}, {1, 4}}));
  // Fewer indices than dims: the rest are whole.
  EXPECT_EQ(Slice(k, h, {S::At(3)}), MakeAp(h, 0, 90, {{5, 6}, {1, 5}}));
  // Every dim indexed: one element, still one dim.
  EXPECT_EQ(Slice(k, h, {S::At(3), S::At(5), S::At(4)}), MakeAp(h, 0, 119, {{1, 1}}));
  // Step larger than what remains: one element.
  EXPECT_EQ(Slice(k, h, {S::All(), S::Range(4, S::kEnd, 3)}), MakeAp(h, 0, 20, {{30, 4}, {15, 1}, {1, 5}}));
}

TEST_F(BuilderTest, OnChipSlicesKeepThePartitionDim) {
  EXPECT_EQ(Slice(k, s, {S::Range(8, 16)}), MakeAp(s, 8, 0, {{1, 8}, {5, 6}, {1, 5}}));
  // A single partition index keeps a partition dim of size 1.
  EXPECT_EQ(Slice(k, s, {S::At(3), S::At(1)}), MakeAp(s, 3, 5, {{1, 1}, {1, 5}}));
  EXPECT_EQ(Slice(k, s, {S::All(), S::Range(0, 6, 2), S::Range(4)}),
            MakeAp(s, 0, 4, {{1, 128}, {10, 3}, {1, 1}}));
  // Dropping every free dim leaves only the partition dim: a [P] column.
  EXPECT_EQ(Slice(k, s, {S::All(), S::At(0), S::At(0)}), MakeAp(s, 0, 0, {{1, 128}}));
}

TEST_F(BuilderTest, SliceErrors) {
  ExpectError([&] { Slice(k, h, {S::At(4)}); }, "index 4 out of bounds for dim 0 of tensor 'h' (size 4)");
  ExpectError([&] { Slice(k, h, {S::At(-1)}); }, "index -1 out of bounds");
  ExpectError([&] { Slice(k, h, {S::All(), S::Range(0, 7)}); }, "slice :7 out of bounds for dim 1");
  ExpectError([&] { Slice(k, h, {S::Range(2, 2)}); }, "slice 2:2 of dim 0 of tensor 'h' (size 4) is empty");
  ExpectError([&] { Slice(k, h, {S::Range(0, 4, 0)}); }, "needs a positive step");
  ExpectError([&] { Slice(k, h, {S::All(), S::All(), S::All(), S::All()}); }, "too many indices (4)");
  ExpectError([&] { Slice(k, s, {S::Range(0, 8, 2)}); },
              "partition index :8:2 of tensor 's' must be contiguous");
  ExpectError([&] { Slice(k, s, {S::Range(120, 130)}); }, "slice 120:130 out of bounds for partition dim");
  ExpectError([&] { Slice(k, 7, {}); }, "no tensor with index 7");
}

TEST_F(BuilderTest, ExplicitAp) {
  EXPECT_EQ(Ap(k, h, 7, {{0, 3}, {2, 4}}), MakeAp(h, 0, 7, {{0, 3}, {2, 4}}));
  // On-chip: offset 2*30+4 = partition 2, free offset 4; the partition pair is stored as {1, size}.
  EXPECT_EQ(Ap(k, s, 64, {{30, 4}, {6, 5}}), MakeAp(s, 2, 4, {{1, 4}, {6, 5}}));
  ExpectError([&] { Ap(k, s, 0, {{1, 4}}); }, "its stride must be 30 (the free size), not 1");
  ExpectError([&] { Ap(k, h, 0, {}); }, "at least one [stride, size] pair");
  ExpectError([&] { Ap(k, h, -1, {{1, 1}}); }, "negative");
  ExpectError(
      [&] {
        Ap(k, h, 100, {{1, 21}});
      },
      "elements [100, 120] of the access to tensor 'h' are outside [0, 120)");
  ExpectError([&] { Ap(k, s, 126 * 30, {{30, 4}}); }, "partitions [126, 130)");
  ExpectError([&] { Ap(k, s, 0, {{30, 1}, {5, 6}, {2, 4}}); }, "elements [0, 31]");
  ExpectError([&] { Ap(k, h, 0, {{1, 0}}); }, "size 0 of dim 0");
  ExpectError([&] { Ap(k, h, 5, {{-1, 2}}); }, "negative stride -1");
  ExpectError([&] { Ap(k, h, 0, {{INT64_MAX / 2, 4}}); }, "outside [0, 120)");
}

TEST_F(BuilderTest, EmitAppliesDefaultsAndChecksTheEngine) {
  Instruction act = MakeInstruction(EngineId::kScalar, Opcode::kActivation);
  EXPECT_EQ(act.engine, EngineId::kScalar);
  EXPECT_EQ(act.scalar0, Imm(1));  // scale
  EXPECT_EQ(act.scalar1, Imm(0));  // bias
  k.Append(act);
  k.Append(MakeInstruction(EngineId::kGpSimd, Opcode::kDmaCopy));
  EXPECT_EQ(k.stream(EngineId::kScalar).size(), 1u);
  EXPECT_EQ(k.stream(EngineId::kGpSimd).size(), 1u);
  EXPECT_EQ(k.instruction(EngineId::kScalar, 0).scalar0, Imm(1));
  ExpectError([&] { MakeInstruction(EngineId::kVector, Opcode::kMatmul); },
              "opcode 'matmul' cannot run on engine 'vector' (runs on: tensor)");
  ExpectError([&] { MakeInstruction(EngineId::kScalar, Opcode::kMemset); }, "(runs on: vector, gpsimd)");
}

// The example of docs/kernel-format.md ("Building kernels in code").
TEST(BuilderDocExample, BuildsAndPrints) {
  Kernel k;
  k.name = "scale";
  const int x = AddTensor(k, "x", MemSpace::kHbm, DType::kBF16, {4, 512}, TensorInit{TensorInit::kRandn, 0, 1});
  const int xt = AddTensor(k, "xt", MemSpace::kSbuf, DType::kBF16, {4, 512});
  const int done = AddSemaphore(k, "done");
  Instruction load = MakeInstruction(EngineId::kSync, Opcode::kDmaCopy);
  load.dst = Slice(k, xt, {SliceSpec::All(), SliceSpec::Range(0, 256)});
  load.src0 = Slice(k, x, {SliceSpec::All(), SliceSpec::Range(0, 256)});
  load.signals.push_back({done, 1});
  k.Append(load);
  Instruction mul = MakeInstruction(EngineId::kVector, Opcode::kTensorScalar);
  mul.dst = mul.src0 = Full(k, xt);
  mul.alu0 = AluOp::kMul;
  mul.scalar0 = Imm(2);
  mul.waits.push_back({done, 1});
  k.Append(mul);
  EXPECT_EQ(FormatKernel(k), R"(kernel scale

tensor x  hbm  bf16 [4, 512] init=randn(seed=1)
tensor xt sbuf bf16 [4, 512]

semaphore done

vector: tensor_scalar xt, xt op0=multiply scalar0=2 wait=done>=1

sync:   dma_copy xt[:, :256], x[:, :256] signal=done
)");
}

TEST(SliceSpecText, Forms) {
  EXPECT_EQ(FormatSliceSpec(S::At(3)), "3");
  EXPECT_EQ(FormatSliceSpec(S::All()), ":");
  EXPECT_EQ(FormatSliceSpec(S::Range(2)), "2:");
  EXPECT_EQ(FormatSliceSpec(S::Range(0, 8)), ":8");
  EXPECT_EQ(FormatSliceSpec(S::Range(1, 8, 2)), "1:8:2");
  EXPECT_EQ(FormatSliceSpec(S::Range(0, S::kEnd, 2)), "::2");
}

}  // namespace
}  // namespace nsim
