#include "sim/kernel/kernel.h"

#include <gtest/gtest.h>

#include <cmath>

#include "sim/kernel/builder.h"

namespace nsim {
namespace {

// Every enum value's name parses back to it (the text format depends on it).
template <typename E>
void ExpectNamesRoundTrip(int first, int count, const char* (*name)(E),
                          bool (*parse)(const std::string&, E*)) {
  for (int i = first; i < count; ++i) {
    const E e = static_cast<E>(i);
    E back{};
    ASSERT_TRUE(parse(name(e), &back)) << name(e);
    EXPECT_EQ(back, e) << name(e);
  }
}

TEST(KernelNames, RoundTrip) {
  ExpectNamesRoundTrip(0, kNumMemSpaces, MemSpaceName, ParseMemSpace);
  ExpectNamesRoundTrip(0, kNumEngines, EngineName, ParseEngine);
  ExpectNamesRoundTrip(0, kNumOpcodes, OpcodeName, ParseOpcode);
  ExpectNamesRoundTrip(1, kNumAluOps, AluOpName, ParseAluOp);
  ExpectNamesRoundTrip(0, kNumReduceOps, ReduceOpName, ParseReduceOp);
  ExpectNamesRoundTrip(0, kNumActFuncs, ActFuncName, ParseActFunc);
}

TEST(KernelNames, AliasesAndCanonicalSpellings) {
  AluOp alu;
  EXPECT_TRUE(ParseAluOp("sub", &alu));
  EXPECT_EQ(alu, AluOp::kSub);
  EXPECT_TRUE(ParseAluOp("mul", &alu));
  EXPECT_EQ(alu, AluOp::kMul);
  EXPECT_FALSE(ParseAluOp("none", &alu));
  EXPECT_STREQ(AluOpName(AluOp::kSub), "subtract");
  EXPECT_STREQ(AluOpName(AluOp::kNone), "none");
  ActFunc f;
  EXPECT_TRUE(ParseActFunc("copy", &f));
  EXPECT_EQ(f, ActFunc::kIdentity);
  EXPECT_STREQ(ActFuncName(ActFunc::kIdentity), "identity");
  EXPECT_STREQ(EngineLaneName(EngineId::kGpSimd), "GpSimd");
  EXPECT_STREQ(OpcodeName(Opcode::kPartitionReduce), "partition_reduce");
  EngineId e;
  EXPECT_FALSE(ParseEngine("pool", &e));
}

TEST(KernelOpcodes, EnginesAndOperands) {
  for (int e = 0; e < kNumEngines; ++e) {
    EXPECT_TRUE(OpcodeAllowedOn(Opcode::kDmaCopy, static_cast<EngineId>(e)));
    EXPECT_TRUE(OpcodeAllowedOn(Opcode::kWait, static_cast<EngineId>(e)));
  }
  EXPECT_TRUE(OpcodeAllowedOn(Opcode::kMatmul, EngineId::kTensor));
  EXPECT_FALSE(OpcodeAllowedOn(Opcode::kMatmul, EngineId::kVector));
  EXPECT_TRUE(OpcodeAllowedOn(Opcode::kTensorCopy, EngineId::kScalar));
  EXPECT_TRUE(OpcodeAllowedOn(Opcode::kMemset, EngineId::kGpSimd));
  EXPECT_FALSE(OpcodeAllowedOn(Opcode::kTensorTensor, EngineId::kGpSimd));
  EXPECT_FALSE(OpcodeAllowedOn(Opcode::kActivation, EngineId::kVector));
  EXPECT_EQ(NumApOperands(Opcode::kMatmul), 3);
  EXPECT_EQ(NumApOperands(Opcode::kMemset), 1);
  EXPECT_EQ(NumApOperands(Opcode::kWait), 0);
}

TEST(KernelSizes, TensorAndAccessPattern) {
  TensorDecl hbm{"h", MemSpace::kHbm, DType::kBF16, {4, 3, 2}};
  EXPECT_EQ(hbm.NumElements(), 24);
  EXPECT_EQ(hbm.FreeElements(), 24);
  TensorDecl sb{"s", MemSpace::kSbuf, DType::kF32, {128, 3, 2}};
  EXPECT_EQ(sb.NumElements(), 768);
  EXPECT_EQ(sb.FreeElements(), 6);
  AccessPattern ap{0, 2, 1, {{1, 8}, {2, 3}, {1, 2}}};
  EXPECT_EQ(ap.Partitions(), 8);
  EXPECT_EQ(ap.FreeElements(), 6);
  EXPECT_EQ(ap.NumElements(), 48);
}

TEST(KernelLookup, FindAndCount) {
  Kernel k;
  k.tensors.push_back({"x"});
  k.tensors.push_back({"y"});
  k.semaphores = {"s0", "s1"};
  for (EngineId e : {EngineId::kTensor, EngineId::kTensor, EngineId::kSync, EngineId::kSync, EngineId::kSync}) {
    k.Append(MakeInstruction(e, Opcode::kWait));
  }
  EXPECT_EQ(k.FindTensor("y"), 1);
  EXPECT_EQ(k.FindTensor("s0"), -1);
  EXPECT_EQ(k.FindSemaphore("s1"), 1);
  EXPECT_EQ(k.FindSemaphore("nope"), -1);
  EXPECT_EQ(k.NumInstructions(), 5u);
}

TEST(KernelEquality, ScalarsCompareTheirMeaningfulPart) {
  Scalar a{false, 2.0, {}};
  Scalar b{false, 2.0, AccessPattern{3, 0, 0, {{1, 1}}}};
  EXPECT_EQ(a, b);  // an immediate's unused ap does not matter
  Scalar nan1{false, NAN, {}}, nan2{false, NAN, {}};
  EXPECT_EQ(nan1, nan2);
  Scalar col{true, 0, AccessPattern{0, 0, 0, {{1, 4}}}};
  EXPECT_NE(a, col);
}

}  // namespace
}  // namespace nsim
