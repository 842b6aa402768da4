#pragma once
// Writes kernels in the text format of docs/kernel-format.md. FormatKernel's
// output is canonical: ParseKernel reads it back to an equal kernel, and
// equal kernels print identically (which is what KernelHash relies on).
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "sim/kernel/kernel.h"

namespace nsim {

// The whole kernel: `kernel` line, tensors, semaphores, then the streams
// grouped by engine in EngineId order, names and columns aligned.
std::string FormatKernel(const Kernel& k);
// The same text in pieces, in order (their concatenation is FormatKernel):
// for hashing a long kernel without holding its whole text. Instruction
// lines come in fragments (names, numbers, separators), never built whole.
void FormatKernelPieces(const Kernel& k, const std::function<void(std::string_view)>& piece);

// FormatKernelPieces one instruction at a time, for a caller that walks the
// streams anyway (LoadedKernel hashes a kernel while preparing it). The
// constructor puts the kernel line, tensors and semaphores; then Line() must
// be called for every instruction in stream order (Kernel::streams, engine
// by engine). Access pattern texts are memoised for the object's life.
class KernelPieces {
 public:
  KernelPieces(const Kernel& k, std::function<void(std::string_view)> piece);
  ~KernelPieces();
  KernelPieces(const KernelPieces&) = delete;
  KernelPieces& operator=(const KernelPieces&) = delete;
  void Line(int engine, const InstructionView& inst);

 private:
  struct Memo;
  const Kernel& k_;
  std::function<void(std::string_view)> piece_;
  std::unique_ptr<Memo> memo_;
  int engine_ = -1;     // stream of the last line
  std::string prefix_;  // its engine prefix
};

// The shortest text that reads back to `ap`: the bare tensor name when the
// access is the whole tensor, else a slice `t[...]` when one reproduces it,
// else the explicit `t.ap(offset, [[stride, size], ...])`. "<none>" if absent.
std::string FormatAccessPattern(const Kernel& k, const AccessPattern& ap);

// Everything after the opcode except wait=/signal=: the positional access
// patterns and the opcode's attributes (those at their default are left
// out), e.g. "tc, ta, tb op=add".
std::string FormatOperands(const Kernel& k, const InstructionView& inst);

// One instruction line: "vector: tensor_tensor tc, ta, tb op=add wait=loaded>=2 signal=added".
// Used for instruction records and profiler arguments too.
std::string FormatInstruction(const Kernel& k, const InstructionView& inst);

// Shortest decimal text that parses back to exactly `v` ("1", "0.1", "1e-06", "-inf", "nan").
std::string FormatNumber(double v);

}  // namespace nsim
