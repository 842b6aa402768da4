// Loops in the kernel text (docs/kernel-format.md "Loops"): the parser
// unrolls them into exactly the streams of the written-out kernel, keeps the
// loop form for the printer and the hash, and labels every instruction with
// its iteration.
#include <gtest/gtest.h>

#include "sim/base/error.h"
#include "sim/kernel/hash.h"
#include "sim/kernel/kernel_testing.h"
#include "sim/kernel/parser.h"
#include "sim/kernel/printer.h"

namespace nsim {
namespace {

const char kDecls[] = R"(kernel pipe
tensor x   hbm  f32 [4, 8, 16]
tensor out hbm  f32 [4, 8, 16]
tensor buf sbuf f32 [8, 2, 16]
semaphore loaded
semaphore done
)";

// Double-buffered: sync loads tile i into buf[:, i % 2], vector scales it,
// sync stores it; the waits count whole iterations.
const char kLooped[] = R"(loop i in 0:4 {
  loop j in 0:8:4 {
    sync: dma_copy buf[j:j + 4, i % 2], x[i, j:j + 4] signal=loaded
  }
  vector: tensor_scalar buf[:, i % 2], buf[:, i % 2] op0=multiply scalar0=2 wait=loaded>=2*i+2 signal=done
  sync: dma_copy out[i], buf[:, i % 2] wait=done>=i + 1
}
)";

std::string Unrolled() {
  std::string text;
  for (int i = 0; i < 4; ++i) {
    const std::string b = std::to_string(i % 2);
    for (int j = 0; j < 8; j += 4) {
      text += "sync: dma_copy buf[" + std::to_string(j) + ":" + std::to_string(j + 4) + ", " + b + "], x[" +
              std::to_string(i) + ", " + std::to_string(j) + ":" + std::to_string(j + 4) + "] signal=loaded\n";
    }
    text += "vector: tensor_scalar buf[:, " + b + "], buf[:, " + b + "] op0=multiply scalar0=2 wait=loaded>=" +
            std::to_string(2 * i + 2) + " signal=done\n";
    text += "sync: dma_copy out[" + std::to_string(i) + "], buf[:, " + b + "] wait=done>=" + std::to_string(i + 1) + "\n";
  }
  return text;
}

TEST(Loops, UnrollToTheWrittenOutKernel) {
  const Kernel looped = ParseKernel(std::string(kDecls) + kLooped);
  const Kernel flat = ParseKernel(std::string(kDecls) + Unrolled());
  EXPECT_TRUE(KernelsEqual(looped, flat));
  EXPECT_EQ(looped.NumInstructions(), 16u);  // 4 x (2 loads + 1 scale + 1 store)
  ASSERT_NE(looped.loops(), nullptr);
  EXPECT_EQ(flat.loops(), nullptr);
}

TEST(Loops, PrintPerEngineAndReadBack) {
  const Kernel k = ParseKernel(std::string(kDecls) + kLooped);
  const std::string text = FormatKernel(k);
  const std::string streams = text.substr(text.find("semaphore done\n") + 15);
  EXPECT_EQ(streams,
            "\n"
            "loop i in 0:4 {\n"
            "  vector: tensor_scalar buf[:, i % 2], buf[:, i % 2] op0=multiply scalar0=2 wait=loaded>=2*i+2 "
            "signal=done\n"
            "}\n"
            "\n"
            "loop i in 0:4 {\n"
            "  loop j in 0:8:4 {\n"
            "    sync:   dma_copy buf[j:j + 4, i % 2], x[i, j:j + 4] signal=loaded\n"
            "  }\n"
            "  sync:   dma_copy out[i], buf[:, i % 2] wait=done>=i + 1\n"
            "}\n");
  const Kernel again = ParseKernel(text);
  EXPECT_TRUE(KernelsEqual(k, again));
  EXPECT_EQ(FormatKernel(again), text);
}

TEST(Loops, HashCoversTheLoopForm) {
  const uint64_t h = KernelHash(ParseKernel(std::string(kDecls) + kLooped));
  EXPECT_EQ(h, Fnv1a64(FormatKernel(ParseKernel(std::string(kDecls) + kLooped))));
  std::string fewer = kLooped;
  fewer.replace(fewer.find("0:4"), 3, "0:3");
  EXPECT_NE(h, KernelHash(ParseKernel(std::string(kDecls) + fewer)));
  // Comments and spacing are no part of it.
  std::string spaced = kLooped;
  spaced.replace(spaced.find("loop i in 0:4 {"), 15, "loop   i  in 0:4   {  # outer");
  EXPECT_EQ(h, KernelHash(ParseKernel(std::string(kDecls) + spaced)));
}

TEST(Loops, EveryInstructionNamesItsIteration) {
  const Kernel k = ParseKernel(std::string(kDecls) + kLooped);
  const int sync = static_cast<int>(EngineId::kSync), vector = static_cast<int>(EngineId::kVector);
  EXPECT_EQ(k.LoopIndicesAt(sync, 0), "i=0,j=0");
  EXPECT_EQ(k.LoopIndicesAt(sync, 1), "i=0,j=4");
  EXPECT_EQ(k.LoopIndicesAt(sync, 2), "i=0");
  EXPECT_EQ(k.LoopIndicesAt(sync, 11), "i=3");
  EXPECT_EQ(k.LoopIndicesAt(vector, 3), "i=3");
  EXPECT_EQ(ParseKernel(std::string(kDecls) + Unrolled()).LoopIndicesAt(sync, 0), "");
}

TEST(Loops, BoundsMayUseOuterVariablesAndProgramId) {
  const Kernel k = ParseKernel(std::string(kDecls) +
                                   "loop i in 0:3 {\n"
                                   "  loop j in i:3 {\n"
                                   "    vector: memset buf[j, program_id] value=0\n"
                                   "  }\n"
                                   "}\n"
                                   "loop e in 5:5 {\n"
                                   "  vector: memset buf[e] value=0\n"
                                   "}\n",
                               "tri.nk", ProgramIndex{1, 2});
  EXPECT_EQ(k.NumInstructions(), 6u);  // 3 + 2 + 1; the empty loop runs no times
  EXPECT_EQ(k.instruction(EngineId::kVector, 5).dst.partition_start, 2);
  EXPECT_EQ(k.instruction(EngineId::kVector, 5).dst.offset, 16);  // program 1's half
}

TEST(Loops, EditingTheStreamsDropsTheLoopForm) {
  Kernel k = ParseKernel(std::string(kDecls) + kLooped);
  k.PopBack(static_cast<int>(EngineId::kSync));
  EXPECT_EQ(k.loops(), nullptr);
  EXPECT_TRUE(KernelsEqual(k, ParseKernel(FormatKernel(k))));
}

struct LoopError {
  const char* text;
  int line;  // counted from the line after kDecls (1)
  const char* expected;
};

TEST(Loops, ErrorsNameTheLine) {
  const LoopError cases[] = {
      {"loop i in 0:4 {\n  vector: memset buf value=0\n", 1, "this loop has no closing '}'"},
      {"vector: memset buf value=0\n}\n", 2, "'}' without a 'loop' to close"},
      {"loop i in 0:4 {\n  tensor t sbuf f32 [1, 1]\n}\n", 2,
       "only instructions and loops may appear inside a loop, found 'tensor'"},
      {"loop i in 0:2 {\n loop i in 0:2 {\n }\n}\n", 2, "loop variable 'i' is already bound by an enclosing loop"},
      {"loop i in 0:4:0 {\n}\n", 1, "the loop step must be >= 1, found '0'"},
      {"loop i 0:4 {\n}\n", 1, "expected 'in' after the loop variable"},
      {"loop i in 0:4\n}\n", 1, "expected '{' at the end of the loop line"},
      {"loop i in 0:4 {\n  vector: memset buf[k] value=0\n}\n", 2, "expected an index (an integer), found 'k'"},
      {"loop i in 0:4 {\n  vector: memset buf[3 * i] value=0\n}\n", 2,
       "index 9 out of bounds for partition dim of tensor 'buf' (size 8)"},
      {"loop i in 0:4 {\n  vector: memset buf[i] value=0 wait=done>=i - 1\n}\n", 2,
       "the wait value must be >= 0, found '-1'"},
      {"loop i in 0:4 {\n  vector: memset buf[i + j] value=0\n}\n", 2,
       "expected an integer, program_id, num_programs or a loop variable, found 'j'"},
  };
  for (const LoopError& c : cases) {
    try {
      ParseKernel(std::string(kDecls) + c.text, "loops.nk");
      ADD_FAILURE() << "no error for:\n" << c.text;
    } catch (const SimError& e) {
      const std::string where = "loops.nk:" + std::to_string(6 + c.line) + ": ";
      EXPECT_EQ(std::string(e.what()).rfind(where, 0), 0u) << e.what();
      EXPECT_NE(std::string(e.what()).find(c.expected), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace nsim
