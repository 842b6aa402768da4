#include "sim/kernel/parser.h"

#include <gtest/gtest.h>

#include <cmath>

#include "sim/kernel/builder.h"

namespace nsim {
namespace {

const char kTrivialAdd[] = R"(# comment to end of line
kernel trivial_add   # also after content

tensor a   hbm  bf16 [4, 3] init=randn(seed=1)
tensor b   hbm  bf16 [4, 3] init=ones
tensor out hbm  bf16 [4, 3]
tensor ta  sbuf bf16 [4, 3]
tensor tb  sbuf bf16 [4, 3]
tensor tc  sbuf bf16 [4, 3]
tensor acc psum f32  [128, 512]
semaphore loaded
semaphore added

sync:   dma_copy ta, a queue=0 signal=loaded
sync:   dma_copy tb, b queue=1 signal=loaded
vector: tensor_tensor tc, ta, tb op=add wait=loaded>=2 signal=added
sync:   dma_copy out, tc wait=added>=1
)";

StreamView Stream(const Kernel& k, EngineId e) { return k.stream(e); }

AccessPattern MakeAp(int t, int64_t p0, int64_t off, std::vector<ApDim> dims) {
  AccessPattern ap;
  ap.tensor = t;
  ap.partition_start = p0;
  ap.offset = off;
  ap.dims = dims;
  return ap;
}

TEST(Parser, TrivialAdd) {
  const Kernel k = ParseKernel(kTrivialAdd, "trivial_add.nk");
  EXPECT_EQ(k.name, "trivial_add");
  ASSERT_EQ(k.tensors.size(), 7u);
  const TensorDecl& a = k.tensors[0];
  EXPECT_EQ(a.name, "a");
  EXPECT_EQ(a.space, MemSpace::kHbm);
  EXPECT_EQ(a.dtype, DType::kBF16);
  EXPECT_EQ(a.shape, (std::vector<int64_t>{4, 3}));
  EXPECT_EQ(a.init.kind, TensorInit::kRandn);
  EXPECT_EQ(a.init.seed, 1u);
  EXPECT_EQ(a.line, 4);
  EXPECT_EQ(k.tensors[1].init.kind, TensorInit::kOnes);
  EXPECT_EQ(k.tensors[2].init.kind, TensorInit::kNone);
  EXPECT_EQ(k.tensors[6].space, MemSpace::kPsum);
  EXPECT_EQ(k.tensors[6].dtype, DType::kF32);
  EXPECT_EQ(k.semaphores, (std::vector<std::string>{"loaded", "added"}));

  const auto& sync = Stream(k, EngineId::kSync);
  ASSERT_EQ(sync.size(), 3u);
  EXPECT_EQ(sync[0].opcode, Opcode::kDmaCopy);
  EXPECT_EQ(sync[0].engine, EngineId::kSync);
  EXPECT_EQ(sync[0].dst, MakeAp(3, 0, 0, {{1, 4}, {1, 3}}));
  EXPECT_EQ(sync[0].src0, MakeAp(0, 0, 0, {{3, 4}, {1, 3}}));
  EXPECT_EQ(sync[0].queue, 0);
  EXPECT_EQ(sync[0].line, 14);
  ASSERT_EQ(sync[0].signals.size(), 1u);
  EXPECT_EQ(sync[0].signals[0].sem, 0);
  EXPECT_EQ(sync[0].signals[0].delta, 1);
  EXPECT_EQ(sync[1].queue, 1);
  ASSERT_EQ(sync[2].waits.size(), 1u);
  EXPECT_EQ(sync[2].waits[0].sem, 1);
  EXPECT_EQ(sync[2].waits[0].value, 1);

  const auto& vec = Stream(k, EngineId::kVector);
  ASSERT_EQ(vec.size(), 1u);
  EXPECT_EQ(vec[0].opcode, Opcode::kTensorTensor);
  EXPECT_EQ(vec[0].alu0, AluOp::kAdd);
  EXPECT_EQ(vec[0].dst.tensor, 5);
  EXPECT_EQ(vec[0].src0.tensor, 3);
  EXPECT_EQ(vec[0].src1.tensor, 4);
  EXPECT_EQ(vec[0].waits[0].value, 2);
  EXPECT_EQ(vec[0].signals[0].sem, 1);
  EXPECT_EQ(k.NumInstructions(), 4u);
}

// One instruction of every opcode, on the engines that run it.
TEST(Parser, EveryOpcode) {
  const std::string text = R"(kernel every_opcode
tensor h   hbm  f32  [128, 64] init=const(2.5)
tensor s   sbuf bf16 [128, 64]
tensor s2  sbuf bf16 [128, 64]
tensor col sbuf f32  [128, 1]
tensor w   sbuf bf16 [128, 32]
tensor ps  psum f32  [64, 128]
semaphore s0
semaphore s1
gpsimd: dma_copy s, h queue=3
tensor: matmul ps[:, :32], s2[:, :64], w accumulate=true
tensor: transpose ps[:32, :64], w[:64]
vector: tensor_tensor s2, s, s op=sub
vector: tensor_scalar s2, s op0=mul scalar0=col op1=max scalar1=-0.5
gpsimd: tensor_scalar s2, s op0=divide scalar0=3
vector: tensor_reduce col, s op=mean
scalar: tensor_copy s2, s
vector: memset col value=-inf
gpsimd: memset col value=col[0:128]
scalar: activation s2, s func=gelu scale=0.5 bias=col acc=col
scalar: activation s2, s func=copy
gpsimd: iota col base=1 partition_step=2 free_step=0.25
gpsimd: partition_reduce col[0:1], col op=max broadcast=true
tensor: wait wait=s0>=1 wait=s1>=3
scalar: dma_copy h, s2 signal=s0+2 signal=s1
)";
  const Kernel k = ParseKernel(text);
  const auto& te = Stream(k, EngineId::kTensor);
  const auto& ve = Stream(k, EngineId::kVector);
  const auto& se = Stream(k, EngineId::kScalar);
  const auto& ge = Stream(k, EngineId::kGpSimd);
  ASSERT_EQ(te.size(), 3u);
  ASSERT_EQ(ve.size(), 4u);
  ASSERT_EQ(se.size(), 4u);
  ASSERT_EQ(ge.size(), 5u);

  EXPECT_EQ(ge[0].opcode, Opcode::kDmaCopy);
  EXPECT_EQ(ge[0].queue, 3);
  EXPECT_EQ(k.tensors[0].init.kind, TensorInit::kConst);
  EXPECT_EQ(k.tensors[0].init.value, 2.5);

  EXPECT_EQ(te[0].opcode, Opcode::kMatmul);
  EXPECT_TRUE(te[0].accumulate);
  EXPECT_EQ(te[0].dst, MakeAp(5, 0, 0, {{1, 64}, {1, 32}}));
  EXPECT_EQ(te[0].src0, MakeAp(2, 0, 0, {{1, 128}, {1, 64}}));
  EXPECT_EQ(te[0].src1, Full(k, 4));
  EXPECT_EQ(te[1].opcode, Opcode::kTranspose);
  EXPECT_EQ(te[1].dst, MakeAp(5, 0, 0, {{1, 32}, {1, 64}}));
  EXPECT_EQ(te[1].src0, MakeAp(4, 0, 0, {{1, 64}, {1, 32}}));
  EXPECT_EQ(te[2].opcode, Opcode::kWait);
  ASSERT_EQ(te[2].waits.size(), 2u);
  EXPECT_EQ(te[2].waits[1].sem, 1);
  EXPECT_EQ(te[2].waits[1].value, 3);

  EXPECT_EQ(ve[0].alu0, AluOp::kSub);
  EXPECT_EQ(ve[1].alu0, AluOp::kMul);
  EXPECT_TRUE(ve[1].scalar0.is_ap);
  EXPECT_EQ(ve[1].scalar0.ap, Full(k, 3));
  EXPECT_EQ(ve[1].alu1, AluOp::kMax);
  EXPECT_EQ(ve[1].scalar1, Imm(-0.5));
  EXPECT_EQ(ve[2].opcode, Opcode::kTensorReduce);
  EXPECT_EQ(ve[2].reduce, ReduceOp::kMean);
  EXPECT_EQ(ve[3].opcode, Opcode::kMemset);
  EXPECT_TRUE(std::isinf(ve[3].scalar0.imm) && ve[3].scalar0.imm < 0);

  EXPECT_EQ(ge[1].opcode, Opcode::kTensorScalar);
  EXPECT_EQ(ge[1].alu0, AluOp::kDivide);
  EXPECT_EQ(ge[1].scalar0, Imm(3));
  EXPECT_EQ(ge[1].alu1, AluOp::kNone);
  EXPECT_EQ(ge[2].opcode, Opcode::kMemset);
  EXPECT_EQ(ge[2].scalar0, Column(Full(k, 3)));
  EXPECT_EQ(ge[3].opcode, Opcode::kIota);
  EXPECT_EQ(ge[3].base, 1);
  EXPECT_EQ(ge[3].partition_step, 2);
  EXPECT_EQ(ge[3].free_step, 0.25);
  EXPECT_EQ(ge[4].opcode, Opcode::kPartitionReduce);
  EXPECT_EQ(ge[4].reduce, ReduceOp::kMax);
  EXPECT_TRUE(ge[4].broadcast);
  EXPECT_EQ(ge[4].dst, MakeAp(3, 0, 0, {{1, 1}, {1, 1}}));

  EXPECT_EQ(se[0].opcode, Opcode::kTensorCopy);
  EXPECT_EQ(se[1].opcode, Opcode::kActivation);
  EXPECT_EQ(se[1].func, ActFunc::kGelu);
  EXPECT_EQ(se[1].scalar0, Imm(0.5));
  EXPECT_EQ(se[1].scalar1, Column(Full(k, 3)));
  EXPECT_EQ(se[1].acc, Full(k, 3));
  EXPECT_EQ(se[2].func, ActFunc::kIdentity);
  EXPECT_EQ(se[2].scalar0, Imm(1));  // default scale
  EXPECT_EQ(se[2].scalar1, Imm(0));  // default bias
  EXPECT_FALSE(se[2].acc.present());
  EXPECT_EQ(se[3].opcode, Opcode::kDmaCopy);
  ASSERT_EQ(se[3].signals.size(), 2u);
  EXPECT_EQ(se[3].signals[0].delta, 2);
  EXPECT_EQ(se[3].signals[1].delta, 1);
}

class ParserSlices : public ::testing::Test {
 protected:
  // Parses `access` as the dst of a memset (one operand) on a fixed set of tensors.
  AccessPattern Parse(const std::string& access) {
    k = ParseKernel(
        "kernel t\n"
        "tensor h hbm f32 [4, 6, 5]\n"
        "tensor s sbuf f32 [16, 6, 5]\n"
        "vector: memset " +
        access + " value=0\n");
    return k.instruction(EngineId::kVector, 0).dst;
  }
  Kernel k;
};

TEST_F(ParserSlices, HbmForms) {
  EXPECT_EQ(Parse("h"), MakeAp(0, 0, 0, {{30, 4}, {5, 6}, {1, 5}}));
  EXPECT_EQ(Parse("h[:]"), Parse("h"));
  EXPECT_EQ(Parse("h[1:3]"), MakeAp(0, 0, 30, {{30, 2}, {5, 6}, {1, 5}}));
  EXPECT_EQ(Parse("h[1:, :4:2, 3]"), MakeAp(0, 0, 33, {{30, 3}, {10, 2}}));
  EXPECT_EQ(Parse("h[::3]"), MakeAp(0, 0, 0, {{90, 2}, {5, 6}, {1, 5}}));
  EXPECT_EQ(Parse("h[2]"), MakeAp(0, 0, 60, {{5, 6}, {1, 5}}));
  EXPECT_EQ(Parse("h[2, 1, 4]"), MakeAp(0, 0, 69, {{1, 1}}));
  EXPECT_EQ(Parse("h[ 0 : 4 : 2 , 5 ]"), MakeAp(0, 0, 25, {{60, 2}, {1, 5}}));
}

TEST_F(ParserSlices, PartitionDim) {
  EXPECT_EQ(Parse("s"), MakeAp(1, 0, 0, {{1, 16}, {5, 6}, {1, 5}}));
  EXPECT_EQ(Parse("s[4:12]"), MakeAp(1, 4, 0, {{1, 8}, {5, 6}, {1, 5}}));
  EXPECT_EQ(Parse("s[7]"), MakeAp(1, 7, 0, {{1, 1}, {5, 6}, {1, 5}}));  // kept, size 1
  EXPECT_EQ(Parse("s[:, 2, 1:5:2]"), MakeAp(1, 0, 11, {{1, 16}, {2, 2}}));
  EXPECT_EQ(Parse("s[3, 0, 0]"), MakeAp(1, 3, 0, {{1, 1}}));
}

TEST_F(ParserSlices, ExplicitAp) {
  EXPECT_EQ(Parse("h.ap(7, [[0, 3], [2, 4]])"), MakeAp(0, 0, 7, {{0, 3}, {2, 4}}));
  // On-chip: 64 = partition 2 (free size 30) + 4.
  EXPECT_EQ(Parse("s.ap(64, [[30, 4], [6, 5]])"), MakeAp(1, 2, 4, {{1, 4}, {6, 5}}));
  EXPECT_EQ(Parse("s.ap(0,[[30,16],[0,8],[1,30]])"), MakeAp(1, 0, 0, {{1, 16}, {0, 8}, {1, 30}}));
}

TEST(Parser, NamesMayShadowKeywords) {
  // Keywords are only keywords in their position.
  const Kernel k = ParseKernel(R"(kernel k
tensor tensor sbuf f32 [2, 2]
tensor queue sbuf f32 [2, 2]
semaphore wait
vector: tensor_copy tensor, queue wait=wait>=1
sync: wait wait=wait>=2
)");
  EXPECT_EQ(k.instruction(1, 0).dst.tensor, 0);
  EXPECT_EQ(k.instruction(1, 0).src0.tensor, 1);
  EXPECT_EQ(k.instruction(4, 0).waits[0].value, 2);
}

TEST(Parser, NumbersAndDtypeAliases) {
  const Kernel k = ParseKernel(R"(kernel k
tensor x hbm float32 [2] init=const(-1.5e-3)
tensor y sbuf bfloat16 [2, 2]
vector: tensor_scalar y, y op0=add scalar0=+2 op1=pow scalar1=1E+2
gpsimd: memset y value=nan
gpsimd: memset y value=inf
)");
  EXPECT_EQ(k.tensors[0].dtype, DType::kF32);
  EXPECT_EQ(k.tensors[0].init.value, -1.5e-3);
  EXPECT_EQ(k.tensors[1].dtype, DType::kBF16);
  EXPECT_EQ(k.instruction(1, 0).scalar0.imm, 2);
  EXPECT_EQ(k.instruction(1, 0).scalar1.imm, 100);
  EXPECT_TRUE(std::isnan(k.instruction(3, 0).scalar0.imm));
  EXPECT_TRUE(std::isinf(k.instruction(3, 1).scalar0.imm));
}

TEST(Parser, ProgramOrderIsOrderOfAppearance) {
  const Kernel k = ParseKernel(R"(kernel k
semaphore a
semaphore b
sync: wait wait=a>=1
vector: wait wait=b>=1
sync: wait wait=b>=2
)");
  ASSERT_EQ(k.stream(4).size(), 2u);
  EXPECT_EQ(k.instruction(4, 0).waits[0].sem, 0);
  EXPECT_EQ(k.instruction(4, 1).waits[0].value, 2);
  EXPECT_EQ(k.instruction(4, 1).line, 6);
}

}  // namespace
}  // namespace nsim
