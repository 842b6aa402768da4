#pragma once
// A kernel whose loops stay loops (issue 26 stage 2, docs/kernel-format.md
// "Loops"): its memory grows with the text, not with the iterations. The one
// representation of a loop body is the kernel's loop form (KernelLoops: each
// engine's lines as written, inside the loops that enclose them); a
// StreamCursor walks one engine's loop nest and reads the next instruction
// from its body line with the loop variables bound, through the parser's own
// code, so each instruction is exactly the one the unrolled parse appends
// (same fields, same checks, same errors naming the body line).
//
// ParseStreamed checks the whole text first, every line at every iteration
// as ParseKernel does (so a cursor never meets an error the unrolled parse
// would not have raised first), but keeps only each engine's count.
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sim/kernel/index_expr.h"
#include "sim/kernel/kernel.h"
#include "sim/kernel/parser.h"

namespace nsim {

struct StreamedKernel {
  // Name, tensors, semaphores, sources and the loop form (decls.loops(),
  // never null; a text without loops is one instruction line after another);
  // no instructions.
  Kernel decls;
  std::array<int64_t, kNumEngines> counts{};  // the instructions of each engine's stream
  std::string filename;                       // what errors name
  ProgramIndex program;
  int64_t NumInstructions() const {
    int64_t n = 0;
    for (const int64_t c : counts) n += c;
    return n;
  }
};

// Throws SimError as ParseKernel does on the same text.
StreamedKernel ParseStreamed(const std::string& text, const std::string& filename = "<kernel>",
                             const ProgramIndex& program = {}, int64_t max_loop_work = kMaxLoopWork);

// One engine's stream of a StreamedKernel, one instruction at a time. Holds
// the engine's loop form, the loop nest's current values and a copy of the
// declarations: nothing per iteration.
class StreamCursor {
 public:
  StreamCursor(const StreamedKernel& k, int engine);
  ~StreamCursor();
  StreamCursor(StreamCursor&&) noexcept;
  // The next instruction of the stream into `out`; false at its end.
  bool Next(Instruction* out);
  // The loop indices of the instruction Next returned last ("i=3,j=0"; ""
  // outside loops), as Kernel::LoopIndicesAt names it in the unrolled form.
  std::string LoopIndices() const;
  int64_t position() const { return position_; }  // instructions returned so far

 private:
  class LineReader;  // the parser reading one line with the loop variables bound (parser.cc)
  struct Frame {
    size_t open;  // its `loop` line in lines_
    int64_t stop, step;
  };
  EngineId engine_;
  const std::vector<KernelLoops::Line>* lines_;
  std::vector<size_t> close_of_;  // by line: a `loop` line's matching `}`
  std::vector<Frame> frames_;     // the loops entered, outermost first
  std::unique_ptr<LineReader> reader_;
  size_t pc_ = 0;                 // the next line to read
  int64_t position_ = 0;
};

}  // namespace nsim
