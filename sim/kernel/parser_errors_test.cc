// One case per class of loader error: the message names the file, the line
// and the offending token.
#include <random>

#include <gtest/gtest.h>

#include "sim/base/error.h"
#include "sim/kernel/kernel_testing.h"
#include "sim/kernel/parser.h"
#include "sim/kernel/printer.h"

namespace nsim {
namespace {

// Lines 1-5; each case's text follows as line 6 onwards.
const char kPrelude[] =
    "kernel k\n"
    "tensor a hbm f32 [4, 3]\n"
    "tensor s sbuf f32 [128, 8]\n"
    "tensor c sbuf f32 [128, 1]\n"
    "semaphore sem\n";

struct ErrorCase {
  const char* name;
  const char* text;      // appended to kPrelude unless `whole` is set
  int line;              // expected line of the error
  const char* expected;  // must appear in the message (names the offending token)
  bool whole = false;    // `text` is the whole file
};

const ErrorCase kCases[] = {
    // Syntax.
    {"UnclosedShape", "tensor b hbm f32 [4, 3", 6, "expected ']' to close the shape, found end of line"},
    {"BadShapeSeparator", "tensor b hbm f32 [4; 3]", 6, "expected ']' to close the shape, found ';'"},
    {"ShapeNotANumber", "tensor b hbm f32 [4, x]", 6, "expected a dim size (an integer), found 'x'"},
    {"TrailingGarbage", "semaphore t extra", 6, "unexpected 'extra'"},
    {"NotAStatement", "42 = 1", 6, "expected 'kernel', 'tensor', 'semaphore' or 'ENGINE:', found '42'"},
    {"UnknownStatement", "tensr b hbm f32 [1]", 6, "unknown statement 'tensr'"},
    {"MissingKernelLine", "# only a comment\ntensor a hbm f32 [1]\n", 2,
     "expected 'kernel NAME' before anything else, found 'tensor'", true},
    {"EmptyFile", "# nothing\n", 1, "no 'kernel NAME' line", true},
    {"DuplicateKernelLine", "kernel again", 6, "duplicate 'kernel' line (the kernel is already named 'k')"},
    {"DanglingComma", "sync: dma_copy a,", 6,
     "expected an access pattern (a tensor name), found end of line"},
    {"AttributeWithoutValue", "sync: dma_copy a, a queue", 6,
     "expected an attribute KEY=VALUE, found 'queue'"},
    {"SpaceBeforeIndex", "sync: dma_copy a, a [0]", 6, "expected an attribute KEY=VALUE, found '['"},
    {"UnclosedSlice", "sync: dma_copy a[0:2, a", 6, "expected an index (an integer), found 'a'"},
    {"BadWaitSyntax", "sync: wait wait=sem=1", 6, "expected '>=' in wait=SEMAPHORE>=N, found '='"},
    {"BadNumber", "scalar: activation s, s func=exp scale=1.2.3", 6,
     "expected 'scale' (a number), found '1.2.3'"},
    {"BadBool", "tensor: matmul s, s, s accumulate=yes", 6,
     "expected true or false for 'accumulate', found 'yes'"},
    {"NegativeQueue", "sync: dma_copy a, a queue=-1", 6, "'queue' must be >= 0, found '-1'"},
    {"ZeroSignalIncrement", "sync: dma_copy a, a signal=sem+0", 6,
     "the signal increment must be >= 1, found '0'"},
    {"BadApSyntax", "sync: dma_copy a.ap(0, [1, 3]), a", 6,
     "expected '[' to open a [STRIDE, SIZE] pair, found '1'"},
    {"UnknownMethod", "sync: dma_copy a.view(0), a", 6, "unknown access method '.view'"},
    {"BadInit", "tensor b hbm f32 [2] init=gauss", 6, "unknown init 'gauss'"},
    {"BadInitSeed", "tensor b hbm f32 [2] init=randn(seed=-3)", 6,
     "expected the seed (an unsigned 64-bit integer), found '-3'"},
    {"UnknownTensorAttribute", "tensor b hbm f32 [2] fill=1", 6, "unknown tensor attribute 'fill'"},
    {"AtOnHbm", "tensor b hbm f32 [2] at=64", 6, "at= places an SBUF or PSUM tensor"},
    {"AtNegative", "tensor b sbuf f32 [2, 2] at=-4", 6, "at=-4: a byte offset is not negative"},
    {"AtMisaligned", "tensor b sbuf f32 [2, 2] at=6", 6, "at=6: not a multiple of the f32 element size"},
    // Unknown names.
    {"UnknownEngine", "vectr: memset s value=0", 6,
     "unknown engine 'vectr' (known: tensor, vector, scalar, gpsimd, sync)"},
    {"UnknownOpcode", "vector: foo s", 6,
     "unknown opcode 'foo' (known: dma_copy, matmul, transpose, tensor_tensor"},
    {"UnknownDtype", "tensor b hbm f64 [2]", 6, "unknown dtype 'f64' (known: f32, bf16, f16, i32)"},
    {"UnknownSpace", "tensor b dram f32 [2]", 6, "unknown memory space 'dram' (known: hbm, sbuf, psum)"},
    {"UnknownTensor", "sync: dma_copy a, nope", 6, "unknown tensor 'nope'"},
    {"SemaphoreAsTensor", "sync: dma_copy a, sem", 6, "'sem' is a semaphore, not a tensor"},
    {"UnknownSemaphore", "sync: dma_copy a, a wait=nope>=1", 6, "unknown semaphore 'nope'"},
    {"TensorAsSemaphore", "sync: dma_copy a, a signal=a", 6, "'a' is a tensor, not a semaphore"},
    {"UnknownAluOp", "vector: tensor_tensor s, s, s op=xor", 6, "unknown alu op 'xor' (known: add, subtract"},
    {"NoneIsNotAnAluOp", "vector: tensor_tensor s, s, s op=none", 6, "unknown alu op 'none'"},
    {"UnknownReduceOp", "vector: tensor_reduce c, s op=prod", 6,
     "unknown reduce op 'prod' (known: sum, max, min, mean)"},
    {"UnknownFunction", "scalar: activation s, s func=softmax", 6, "unknown activation function 'softmax'"},
    {"UnknownAttribute", "sync: dma_copy a, a colour=red", 6,
     "unknown attribute 'colour' (valid for dma_copy: queue, wait, signal)"},
    // Attributes and operands that do not fit the opcode.
    {"AttributeNotValidForOpcode", "tensor: matmul s, s, s queue=1", 6,
     "attribute 'queue' is not valid for matmul (valid for matmul: accumulate, wait, signal)"},
    {"DuplicateAttribute", "vector: tensor_tensor s, s, s op=add op=max", 6, "duplicate attribute 'op'"},
    {"MissingRequiredAttribute", "vector: tensor_tensor s, s, s", 6, "tensor_tensor needs attribute 'op'"},
    {"MissingPartner", "vector: tensor_scalar s, s op0=add scalar0=1 op1=max", 6,
     "attribute 'op1' of tensor_scalar needs 'scalar1' as well"},
    {"WaitWithSignal", "sync: wait wait=sem>=1 signal=sem", 6,
     "'wait' only waits: signal= is not valid for it"},
    {"WaitWithoutWaits", "sync: wait", 6, "'wait' needs at least one wait=SEMAPHORE>=N"},
    {"PartitionReduceMean", "gpsimd: partition_reduce c, c op=mean", 6,
     "partition_reduce supports op=sum, max or min, not 'mean'"},
    {"WrongEngine", "vector: matmul s, s, s", 6,
     "opcode 'matmul' cannot run on engine 'vector' (runs on: tensor)"},
    {"TooFewOperands", "tensor: matmul s, s", 6,
     "'matmul' takes 3 operands (DST, STATIONARY, MOVING), got 2"},
    {"TooManyOperands", "vector: memset s, s value=0", 6, "'memset' takes 1 operand (DST), got 2"},
    {"OperandsOnWait", "sync: wait s wait=sem>=1", 6, "'wait' takes 0 operands, got 1"},
    {"NumberAsOperand", "vector: memset 3 value=0", 6,
     "expected an access pattern (a tensor name), found '3'"},
    {"NumberAsAccAttribute", "scalar: activation s, s func=exp acc=3", 6,
     "expected an access pattern (a tensor name), found '3'"},
    // Declarations.
    {"DuplicateTensor", "tensor a hbm f32 [2]", 6,
     "duplicate name 'a': already declared as a tensor on line 2"},
    {"DuplicateSemaphore", "semaphore sem", 6, "duplicate name 'sem': already declared as a semaphore"},
    {"SemaphoreNamedLikeTensor", "semaphore s", 6,
     "duplicate name 's': already declared as a tensor on line 3"},
    {"ReservedName", "tensor inf hbm f32 [2]", 6, "invalid name 'inf'"},
    {"ZeroDim", "tensor b hbm f32 [2, 0]", 6, "dim 1 of tensor 'b' is 0, must be > 0"},
    {"TooManyPartitions", "tensor b sbuf f32 [129, 2]", 6,
     "partition dim of sbuf tensor 'b' is 129, must be 1..128"},
    {"InitOnChip", "tensor b psum f32 [2, 2] init=zeros", 6,
     "init= is only valid for hbm tensors ('b' is psum)"},
    // Access patterns out of bounds.
    {"IndexOutOfBounds", "sync: dma_copy a[4], a[0]", 6,
     "index 4 out of bounds for dim 0 of tensor 'a' (size 4)"},
    {"SliceOutOfBounds", "sync: dma_copy a[:, 1:4], a", 6,
     "slice 1:4 out of bounds for dim 1 of tensor 'a' (size 3)"},
    {"NegativeIndex", "sync: dma_copy a[-1], a", 6, "index -1 out of bounds"},
    {"EmptySlice", "sync: dma_copy a[2:2], a", 6, "slice 2:2 of dim 0 of tensor 'a' (size 4) is empty"},
    {"ZeroStep", "sync: dma_copy a[::0], a", 6,
     "slice ::0 of dim 0 of tensor 'a' (size 4) needs a positive step"},
    {"TooManyIndices", "sync: dma_copy a[0, 0, 0], a", 6, "too many indices (3) for tensor 'a' with 2 dims"},
    {"PartitionsOutOfBounds", "vector: memset s[100:200] value=0", 6,
     "slice 100:200 out of bounds for partition dim of tensor 's' (size 128)"},
    {"StridedPartitions", "vector: memset s[0:8:2] value=0", 6,
     "partition index :8:2 of tensor 's' must be contiguous"},
    {"ApOutOfBounds", "sync: dma_copy a.ap(6, [[1, 7]]), a", 6,
     "elements [6, 12] of the access to tensor 'a' are outside [0, 12)"},
    {"ApPartitionsOutOfBounds", "vector: memset s.ap(1000, [[8, 4]]) value=0", 6,
     "partitions [125, 129) of the access to tensor 's' are outside [0, 128)"},
    {"ApBadPartitionStride", "vector: memset s.ap(0, [[1, 4]]) value=0", 6,
     "its stride must be 8 (the free size), not 1"},
    {"ApNegativeStride", "sync: dma_copy a.ap(5, [[-1, 2]]), a", 6, "negative stride -1"},
    {"ScalarColumnOutOfBounds", "vector: tensor_scalar s, s op0=add scalar0=c[0:129]", 6,
     "slice :129 out of bounds for partition dim of tensor 'c' (size 128)"},
};

class ParserErrors : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(ParserErrors, NamesFileLineAndToken) {
  const ErrorCase& c = GetParam();
  const std::string text = c.whole ? std::string(c.text) : std::string(kPrelude) + c.text + "\n";
  try {
    ParseKernel(text, "k.nk");
    FAIL() << "no error for:\n" << text;
  } catch (const SimError& e) {
    const std::string msg = e.what();
    const std::string where = "k.nk:" + std::to_string(c.line) + ": ";
    EXPECT_EQ(msg.rfind(where, 0), 0u) << "message does not start with '" << where << "': " << msg;
    EXPECT_NE(msg.find(c.expected), std::string::npos) << "message: " << msg << "\nexpected: " << c.expected;
  }
}

INSTANTIATE_TEST_SUITE_P(AllClasses, ParserErrors, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<ErrorCase>& info) { return info.param.name; });

TEST(ParserErrorsFile, DefaultFileNameAndMissingFile) {
  try {
    ParseKernel("kernel k\nbogus\n");
    FAIL();
  } catch (const SimError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("<kernel>:2: unknown statement 'bogus'", 0), 0u) << e.what();
  }
  try {
    LoadKernelFile("/nonexistent/x.nk");
    FAIL();
  } catch (const SimError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot open kernel file '/nonexistent/x.nk'"), std::string::npos);
  }
}

// Randomly damaged kernels either parse (and then round-trip through the
// printer) or fail with a SimError; nothing else may happen.
TEST(ParserFuzz, DamagedTextFailsCleanly) {
  const std::string valid = std::string(kPrelude) +
                            "tensor p psum f32 [64, 8]\n"
                            "sync: dma_copy s[0:4, 1:3], a.ap(1, [[3, 4], [1, 2]]) queue=1 signal=sem+2\n"
                            "vector: tensor_scalar s, s op0=add scalar0=c op1=mul scalar1=-1.5e3\n"
                            "scalar: activation s[:, ::2], s[:, 1::2] func=exp scale=0.5 acc=c wait=sem>=1\n"
                            "tensor: matmul p, s[:, :4], s accumulate=true\n"
                            "gpsimd: iota c base=1 partition_step=2\n";
  ASSERT_NO_THROW(ParseKernel(valid));
  const std::string alphabet = "ab sc0123456789[]():,.=+-#>\n_xyz";
  std::mt19937 rng(7);
  int parsed = 0;
  for (int iter = 0; iter < 3000; ++iter) {
    std::string text = valid;
    for (int edits = 1 + iter % 3; edits > 0; --edits) {
      const size_t pos = rng() % text.size();
      const char ch = alphabet[rng() % alphabet.size()];
      switch (rng() % 3) {
        case 0: text.erase(pos, 1); break;
        case 1: text.insert(pos, 1, ch); break;
        default: text[pos] = ch; break;
      }
    }
    try {
      const Kernel k = ParseKernel(text, "fuzz.nk");
      ++parsed;
      ASSERT_TRUE(KernelsEqual(k, ParseKernel(FormatKernel(k)))) << text;
    } catch (const SimError& e) {
      ASSERT_EQ(std::string(e.what()).rfind("fuzz.nk:", 0), 0u) << e.what();
    }
  }
  EXPECT_GT(parsed, 50);  // some mutations hit comments, spacing or harmless digits
}

}  // namespace
}  // namespace nsim
