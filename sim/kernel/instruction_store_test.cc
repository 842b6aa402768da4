// The packed instruction storage (instruction_store.h): every field reads
// back exactly as written, equal access patterns are kept once, and a copied
// kernel's views point into the copy.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "sim/base/error.h"
#include "sim/kernel/builder.h"
#include "sim/kernel/kernel.h"

namespace nsim {
namespace {

Kernel TwoTensors() {
  Kernel k;
  AddTensor(k, "a", MemSpace::kSbuf, DType::kF32, {4, 8});
  AddTensor(k, "x", MemSpace::kHbm, DType::kF32, {16, 8});
  AddSemaphore(k, "s");
  return k;
}

bool SameBits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// Every field of `a` and the view `b`, compared exactly (doubles by their bits).
void ExpectSame(const Instruction& a, const InstructionView& b) {
  const Instruction c = b.ToInstruction();
  EXPECT_EQ(a.engine, c.engine);
  EXPECT_EQ(a.opcode, c.opcode);
  EXPECT_EQ(a.line, c.line);
  EXPECT_EQ(a.dst, c.dst);
  EXPECT_EQ(a.src0, c.src0);
  EXPECT_EQ(a.src1, c.src1);
  EXPECT_EQ(a.acc, c.acc);
  for (const auto& [x, y] : {std::make_pair(&a.scalar0, &c.scalar0), std::make_pair(&a.scalar1, &c.scalar1)}) {
    EXPECT_EQ(x->is_ap, y->is_ap);
    EXPECT_TRUE(SameBits(x->imm, y->imm));
    EXPECT_EQ(x->ap, y->ap);
  }
  EXPECT_EQ(a.alu0, c.alu0);
  EXPECT_EQ(a.alu1, c.alu1);
  EXPECT_EQ(a.reduce, c.reduce);
  EXPECT_EQ(a.func, c.func);
  EXPECT_EQ(a.accumulate, c.accumulate);
  EXPECT_EQ(a.broadcast, c.broadcast);
  EXPECT_TRUE(SameBits(a.base, c.base));
  EXPECT_TRUE(SameBits(a.partition_step, c.partition_step));
  EXPECT_TRUE(SameBits(a.free_step, c.free_step));
  EXPECT_EQ(a.queue, c.queue);
  ASSERT_EQ(a.waits.size(), c.waits.size());
  for (size_t i = 0; i < a.waits.size(); ++i) {
    EXPECT_EQ(a.waits[i].sem, c.waits[i].sem);
    EXPECT_EQ(a.waits[i].value, c.waits[i].value);
  }
  ASSERT_EQ(a.signals.size(), c.signals.size());
  for (size_t i = 0; i < a.signals.size(); ++i) {
    EXPECT_EQ(a.signals[i].sem, c.signals[i].sem);
    EXPECT_EQ(a.signals[i].delta, c.signals[i].delta);
  }
}

TEST(InstructionStore, EveryFieldReadsBackExactly) {
  Kernel k = TwoTensors();
  Instruction full;  // every field away from its default, some to odd values
  full.engine = EngineId::kGpSimd;
  full.opcode = Opcode::kActivation;
  full.line = 1234567;
  full.dst = Full(k, 0);
  full.src0 = Slice(k, 0, {SliceSpec::Range(1, 3)});
  full.src1 = Ap(k, 1, 8, {{8, 2}, {1, 8}});
  full.acc = Slice(k, 0, {SliceSpec::All(), SliceSpec::At(0)});
  full.scalar0 = Imm(-0.0);
  full.scalar1 = Column(Slice(k, 0, {SliceSpec::All(), SliceSpec::At(1)}));
  full.scalar1.imm = std::numeric_limits<double>::quiet_NaN();  // unused, and still kept
  full.alu0 = AluOp::kPow;
  full.alu1 = AluOp::kBypass;
  full.reduce = ReduceOp::kMean;
  full.func = ActFunc::kLog;
  full.accumulate = full.broadcast = true;
  full.base = -0.0;
  full.partition_step = 1e300;
  full.free_step = -2.5;
  full.queue = -7;
  for (int i = 0; i < 300; ++i) full.waits.push_back({0, i});  // past the header's count
  full.signals = {{0, 3}, {0, std::numeric_limits<int64_t>::max()}};
  const Instruction bare = MakeInstruction(EngineId::kVector, Opcode::kWait);
  k.Append(full);
  k.Append(bare);
  k.Append(full);
  ExpectSame(full, k.instruction(EngineId::kGpSimd, 0));
  ExpectSame(full, k.instruction(EngineId::kGpSimd, 1));
  ExpectSame(bare, k.instruction(EngineId::kVector, 0));
  EXPECT_EQ(k.NumInstructions(), 3u);
}

TEST(InstructionStore, EqualPatternsAreKeptOnce) {
  Kernel k = TwoTensors();
  for (int i = 0; i < 3; ++i) {
    Instruction in = MakeInstruction(EngineId::kVector, Opcode::kTensorCopy);
    in.dst = Full(k, 0);
    in.src0 = Slice(k, 0, {SliceSpec::All()});  // the same pattern as dst, built apart
    k.Append(in);
  }
  const InstructionView first = k.instruction(EngineId::kVector, 0);
  EXPECT_EQ(&first.dst, &first.src0);
  EXPECT_EQ(&first.dst, &k.instruction(EngineId::kVector, 2).dst);
  Instruction other = MakeInstruction(EngineId::kVector, Opcode::kTensorCopy);
  other.dst = other.src0 = Slice(k, 0, {SliceSpec::Range(0, 2)});
  k.Append(other);
  EXPECT_NE(&k.instruction(EngineId::kVector, 3).dst, &first.dst);
  EXPECT_EQ(k.instruction(EngineId::kVector, 3).dst, other.dst);
}

TEST(InstructionStore, CopiesAreIndependent) {
  Kernel k = TwoTensors();
  Instruction in = MakeInstruction(EngineId::kVector, Opcode::kTensorCopy);
  in.dst = in.src0 = Full(k, 0);
  in.signals = {{0, 1}};
  k.Append(in);
  Kernel copy = k;
  const InstructionView a = k.instruction(EngineId::kVector, 0), b = copy.instruction(EngineId::kVector, 0);
  EXPECT_NE(&a.dst, &b.dst);
  EXPECT_NE(a.signals.data(), b.signals.data());
  EXPECT_EQ(a.dst, b.dst);
  Kernel assigned;
  assigned = copy;
  EXPECT_NE(&assigned.instruction(EngineId::kVector, 0).dst, &b.dst);
  ExpectSame(in, assigned.instruction(EngineId::kVector, 0));
  copy = Kernel();  // the first copy's views no longer matter; k's still read
  ExpectSame(in, k.instruction(EngineId::kVector, 0));
}

TEST(InstructionStore, EditInsertAndPop) {
  Kernel k = TwoTensors();
  Instruction in = MakeInstruction(EngineId::kVector, Opcode::kTensorCopy);
  in.dst = in.src0 = Full(k, 0);
  k.Append(in);
  k.EditInstruction(static_cast<int>(EngineId::kVector), 0, [](Instruction& i) { i.signals.push_back({0, 2}); });
  ASSERT_EQ(k.instruction(EngineId::kVector, 0).signals.size(), 1u);
  EXPECT_EQ(k.instruction(EngineId::kVector, 0).signals[0].delta, 2);
  Instruction first = MakeInstruction(EngineId::kVector, Opcode::kMemset);
  first.dst = Full(k, 0);
  k.Insert(static_cast<int>(EngineId::kVector), 0, first);
  EXPECT_EQ(k.instruction(EngineId::kVector, 0).opcode, Opcode::kMemset);
  EXPECT_EQ(k.instruction(EngineId::kVector, 1).opcode, Opcode::kTensorCopy);
  k.PopBack(static_cast<int>(EngineId::kVector));
  EXPECT_EQ(k.stream(EngineId::kVector).size(), 1u);
  Instruction odd = in;
  odd.engine = static_cast<EngineId>(9);
  EXPECT_THROW(k.Append(odd), SimError);
}

TEST(StreamWriter, KeepsEmitOrderPerStream) {
  Kernel k = TwoTensors();
  {
    StreamWriter w(k);
    Instruction& a = w.Emit(EngineId::kSync, Opcode::kDmaCopy);
    Instruction& v = w.Emit(EngineId::kVector, Opcode::kMemset);  // another engine: `a` stays open
    a.dst = Full(k, 0);
    a.src0 = Slice(k, 1, {SliceSpec::Range(0, 4)});
    v.dst = Full(k, 0);
    w.Emit(EngineId::kSync, Opcode::kWait).waits = {{0, 1}};
    EXPECT_THROW(w.Emit(EngineId::kVector, Opcode::kMatmul), SimError);
    w.Flush();
    EXPECT_EQ(k.NumInstructions(), 3u);
  }
  EXPECT_EQ(k.NumInstructions(), 3u);
  EXPECT_EQ(k.instruction(EngineId::kSync, 0).opcode, Opcode::kDmaCopy);
  EXPECT_EQ(k.instruction(EngineId::kSync, 0).dst, Full(k, 0));
  EXPECT_EQ(k.instruction(EngineId::kSync, 1).opcode, Opcode::kWait);
  EXPECT_EQ(k.instruction(EngineId::kVector, 0).dst, Full(k, 0));
}

}  // namespace
}  // namespace nsim
