// StreamCursor (loop_stream.h) against the unrolled parse: for every example
// kernel and the loop shapes below, each engine's cursor yields exactly the
// unrolled stream (every field, the source line, the loop indices), the
// streamed parse counts the same instructions, and errors are the unrolled
// parse's errors.
#include "sim/kernel/loop_stream.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <functional>

#include "sim/base/error.h"
#include "sim/kernel/kernel_testing.h"

namespace nsim {
namespace {

// Runs every cursor of `text` to its end and compares it with ParseKernel's streams.
void ExpectStreamsAsUnrolled(const std::string& text, const std::string& name, const ProgramIndex& program = {}) {
  SCOPED_TRACE(name);
  const Kernel unrolled = ParseKernel(text, name, program);
  const StreamedKernel streamed = ParseStreamed(text, name, program);
  ASSERT_NE(streamed.decls.loops(), nullptr);
  EXPECT_EQ(streamed.decls.NumInstructions(), 0u);
  EXPECT_EQ(streamed.NumInstructions(), static_cast<int64_t>(unrolled.NumInstructions()));
  Kernel rebuilt = streamed.decls;
  for (int e = 0; e < kNumEngines; ++e) {
    StreamCursor cursor(streamed, e);
    Instruction in;
    size_t i = 0;
    while (cursor.Next(&in)) {
      ASSERT_LT(i, unrolled.stream(e).size()) << "engine " << e;
      EXPECT_EQ(in.line, unrolled.instruction(e, i).line) << "engine " << e << " instruction " << i;
      EXPECT_EQ(cursor.LoopIndices(), unrolled.LoopIndicesAt(e, i)) << "engine " << e << " instruction " << i;
      rebuilt.AppendToStream(e, in);
      ++i;
    }
    EXPECT_EQ(i, unrolled.stream(e).size()) << "engine " << e;
    EXPECT_EQ(static_cast<int64_t>(i), streamed.counts[static_cast<size_t>(e)]);
    EXPECT_EQ(cursor.position(), static_cast<int64_t>(i));
    EXPECT_FALSE(cursor.Next(&in));  // stays at its end
  }
  EXPECT_TRUE(KernelsEqual(unrolled, rebuilt));
}

TEST(LoopStream, EveryExampleKernel) {
  int with_loops = 0;
  for (const auto& entry : std::filesystem::directory_iterator("sim/kernel/examples")) {
    if (entry.path().extension() != ".nk") continue;
    const std::string text = ReadKernelFile(entry.path().string());
    ExpectStreamsAsUnrolled(text, entry.path().string());
    if (text.find("\nloop ") != std::string::npos) ++with_loops;
  }
  EXPECT_GE(with_loops, 3);  // double_buffer_loop, triangular_loops, looped_matmul
}

const char kDecls[] = R"(kernel shapes
tensor x   hbm  f32 [8, 8, 16] init=iota
tensor out hbm  f32 [8, 8, 16]
tensor buf sbuf f32 [8, 4, 16]
semaphore s
semaphore t
)";

TEST(LoopStream, LoopShapes) {
  const std::string d = kDecls;
  // Three deep, a stepped middle loop, lines between nested loops, instructions outside loops.
  ExpectStreamsAsUnrolled(d + R"(sync: dma_copy buf[:, 0], x[0] signal=s
loop i in 0:3 {
  vector: memset buf[:, i % 4] value=1 wait=s>=1
  loop j in 1:7:3 {
    loop k in 0:2 {
      gpsimd: dma_copy out[i, 2*k:2*k + 2], buf[2*k:2*k + 2, (i + j) % 4] queue=1 wait=t>=0
    }
    vector: tensor_scalar buf[:, j % 4], buf[:, j % 4] op0=add scalar0=1
  }
}
scalar: activation buf[:, 3], buf[:, 3] func=copy
)", "nested");
  // Triangular bounds, a loop that never runs, and one whose body has a single engine.
  ExpectStreamsAsUnrolled(d + R"(loop i in 0:4 {
  loop j in i:4 {
    sync: dma_copy buf[:, j % 4], x[i, :, :] wait=s>=i*(i+1)/2 signal=t
  }
  loop never in i:i {
    vector: memset buf[:, 0] value=0
  }
  loop j in 0:i {
    vector: tensor_tensor buf[:, j % 4], buf[:, j % 4], buf[:, (j + 1) % 4] op=add wait=t>=j - i + 4*i signal=s
  }
}
)", "triangular");
  // A loop whose stop is below its start, and a step larger than the range.
  ExpectStreamsAsUnrolled(d + R"(loop i in 5:2 {
  sync: dma_copy buf[:, 0], x[i] signal=s
}
loop i in 0:8:100 {
  sync: dma_copy buf[:, 1], x[i] signal=s
}
)", "short");
  // No loops at all: the cursor walks the written-out lines.
  ExpectStreamsAsUnrolled(d + "sync: dma_copy buf[:, 0], x[0] signal=s\nvector: memset buf[:, 1] value=2\n", "flat");
}

TEST(LoopStream, SpmdProgramsStreamTheirOwnIndices) {
  const std::string text = std::string(kDecls) + R"(loop i in 0:4 {
  sync: dma_copy buf[:, i], x[program_id * 4 + i] signal=s
}
)";
  for (int64_t p = 0; p < 2; ++p) ExpectStreamsAsUnrolled(text, "spmd", ProgramIndex{p, 2});
}

// Every iteration is checked up front, as the unrolled parse checks it: the
// same error, naming the body line, before any cursor runs.
TEST(LoopStream, ErrorsAreTheUnrolledParsesErrors) {
  const std::string bad = std::string(kDecls) + R"(loop i in 0:16 {
  sync: dma_copy buf[:, i % 4], x[i] signal=s
}
)";
  std::string unrolled_error, streamed_error;
  try {
    ParseKernel(bad, "bad.nk");
  } catch (const SimError& e) {
    unrolled_error = e.what();
  }
  try {
    ParseStreamed(bad, "bad.nk");
  } catch (const SimError& e) {
    streamed_error = e.what();
  }
  EXPECT_NE(unrolled_error.find("bad.nk:8:"), std::string::npos) << unrolled_error;
  EXPECT_EQ(streamed_error, unrolled_error);
  // The limit on unrolled work holds for the streamed parse too (it walks every iteration).
  const std::string runaway = std::string(kDecls) + "loop i in 0:1000 {\n  sync: dma_copy buf[:, 0], x[0]\n}\n";
  EXPECT_THROW(ParseStreamed(runaway, "runaway.nk", {}, 100), SimError);
}

std::string ErrorOf(const std::function<void()>& parse) {
  try {
    parse();
  } catch (const SimError& e) {
    return e.what();
  }
  return "no error";
}

// A body line is read once and compiled (line_template.h); a later iteration
// that fails must fail as the written-out line would, word for word: the
// error of `body` at `var` = `value` (line 8 of both texts) against `flat`.
TEST(LoopStream, LaterIterationsFailAsWrittenOutLines) {
  const struct {
    const char* body;
    const char* flat;
  } cases[] = {
      {"sync: dma_copy buf[:, i % 4], x[i] signal=s", "sync: dma_copy buf[:, 0], x[8] signal=s"},  // out of bounds at i=8
      {"sync: dma_copy buf[:, i % 4], x[8 / (8 - i) - 8] signal=s", "sync: dma_copy buf[:, 0], x[8 / (8 - 8) - 8] signal=s"},
      {"sync: dma_copy buf[:, 0:i - 3], x[0] signal=s", "sync: dma_copy buf[:, 0:5], x[0] signal=s"},
      {"sync: dma_copy buf[:, 0], x[(i - 7) * 100000000000000000 * 100] signal=s",
       "sync: dma_copy buf[:, 0], x[(8 - 7) * 100000000000000000 * 100] signal=s"},  // overflow
      {"sync: dma_copy buf[:, 0], x[-(7 - i) * 8] signal=s", "sync: dma_copy buf[:, 0], x[-(7 - 8) * 8] signal=s"},
      {"sync: dma_copy buf[:, 0], x[i % (8 - i)] signal=s", "sync: dma_copy buf[:, 0], x[8 % (8 - 8)] signal=s"},
      {"sync: dma_copy buf[:, 0], x[0] signal=s wait=t>=8 - i wait=s>=7 - i", "sync: dma_copy buf[:, 0], x[0] signal=s wait=t>=0 wait=s>=7 - 8"},
      {"sync: dma_copy buf[:, 0], x.ap(i * 128, [[16, 8], [1, 16]]) signal=s",
       "sync: dma_copy buf[:, 0], x.ap(8 * 128, [[16, 8], [1, 16]]) signal=s"},
      {"vector: tensor_scalar buf[:, 0], buf[:, 0] op0=add scalar0=buf[:, i - 4:i - 3]",
       "vector: tensor_scalar buf[:, 0], buf[:, 0] op0=add scalar0=buf[:, 4:5]"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.body);
    const std::string looped = std::string(kDecls) + "loop i in 7:9 {\n  " + c.body + "\n}\n";
    const std::string flat = std::string(kDecls) + "\n" + c.flat + "\n";
    const std::string want = ErrorOf([&] { ParseKernel(flat, "k.nk"); });
    EXPECT_NE(want.find("k.nk:8: "), std::string::npos) << want;
    EXPECT_EQ(ErrorOf([&] { ParseKernel(looped, "k.nk"); }), want);
    EXPECT_EQ(ErrorOf([&] { ParseStreamed(looped, "k.nk"); }), want);
  }
}

}  // namespace
}  // namespace nsim
