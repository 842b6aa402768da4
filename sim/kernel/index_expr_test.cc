#include "sim/kernel/index_expr.h"

#include <gtest/gtest.h>

#include "sim/base/error.h"
#include "sim/kernel/parser.h"

namespace nsim {
namespace {

int64_t Eval(const std::string& text, ProgramIndex p = {}) {
  size_t pos = 0;
  std::string error;
  const auto v = EvalIndexExpr(text, &pos, p, &error);
  if (!v) throw SimError(error);
  return *v;
}

TEST(IndexExpr, ArithmeticOverProgramIndex) {
  EXPECT_EQ(Eval("program_id * 4", {3, 8}), 12);
  EXPECT_EQ(Eval("(program_id + 1) * 4", {3, 8}), 16);
  EXPECT_EQ(Eval("512 / num_programs * program_id", {2, 4}), 256);
  EXPECT_EQ(Eval("num_programs - program_id % 3", {4, 8}), 7);
  EXPECT_EQ(Eval("-2 + 5"), 3);
}

TEST(IndexExpr, ErrorsNameTheProblem) {
  EXPECT_THROW(Eval("program_id / 0"), SimError);
  EXPECT_THROW(Eval("(program_id + 1"), SimError);
  EXPECT_THROW(Eval("pid * 4"), SimError);
  EXPECT_THROW(Eval("9223372036854775807 * 2"), SimError);
}

TEST(IndexExpr, LoopVariablesInnermostFirst) {
  const LoopVars loops = {{"i", 3}, {"j", 5}, {"i2", 7}};
  size_t pos = 0;
  std::string error;
  EXPECT_EQ(EvalIndexExpr("2 * i + j % 2 - i2", &pos, ProgramIndex{}, &error, loops), 0);
  const LoopVars shadowed = {{"i", 3}, {"i", 4}};
  pos = 0;
  EXPECT_EQ(EvalIndexExpr("i", &pos, ProgramIndex{}, &error, shadowed), 4);
  EXPECT_TRUE(IndexExprFollows("i:8]", 0, loops));
  EXPECT_FALSE(IndexExprFollows("k:8]", 0, loops));  // not bound: read (and refused) as an integer
  pos = 0;
  EXPECT_FALSE(EvalIndexExpr("k + 1", &pos, ProgramIndex{}, &error, loops));
  EXPECT_EQ(error, "expected an integer, program_id, num_programs or a loop variable, found 'k'");
}

TEST(IndexExpr, OnlyExpressionsAreEvaluated) {
  EXPECT_FALSE(IndexExprFollows("4:8]", 0));
  EXPECT_FALSE(IndexExprFollows("-1, 2]", 0));
  EXPECT_TRUE(IndexExprFollows("program_id:8]", 0));
  EXPECT_TRUE(IndexExprFollows("(a+1)*4:8", 0));
}

const char* kText = R"(kernel k
tensor x hbm bf16 [16, 8]
tensor t sbuf bf16 [4, 8]
sync: dma_copy t, x[program_id * 4:(program_id + 1) * 4]
sync: dma_copy t, x.ap(program_id * 32, [[8, 4], [1, 8]])
)";

TEST(IndexExpr, ParserInstantiatesEachProgram) {
  const std::vector<Kernel> grid = ParseGrid(kText, "k.nk", 4);
  ASSERT_EQ(grid.size(), 4u);
  for (int64_t i = 0; i < 4; ++i) {
    const InstructionView& slice = grid[i].instruction(EngineId::kSync, 0);
    const InstructionView& ap = grid[i].instruction(EngineId::kSync, 1);
    EXPECT_EQ(slice.src0.offset, i * 32) << i;
    EXPECT_EQ(ap.src0.offset, i * 32) << i;
  }
  // Outside a grid a kernel is program 0 of 1.
  EXPECT_EQ(ParseKernel(kText, "k.nk").instruction(EngineId::kSync, 0).src0.offset, 0);
}

TEST(IndexExpr, ParserErrorsNameFileAndLine) {
  try {
    ParseKernel("kernel k\ntensor x hbm bf16 [4]\ntensor t sbuf bf16 [1, 4]\nsync: dma_copy t, x[program_id / 0:4]\n",
                "bad.nk");
    FAIL();
  } catch (const SimError& e) {
    EXPECT_NE(std::string(e.what()).find("bad.nk:4: in an index: division by zero"), std::string::npos) << e.what();
  }
  EXPECT_THROW(ParseGrid(kText, "k.nk", 5), SimError);  // program 4 reads past x's 16 rows
}

}  // namespace
}  // namespace nsim
