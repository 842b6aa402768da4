// libFuzzer target: the kernel text parser. Any input either parses or throws
// SimError; a parsed kernel prints to text that parses back to the same
// kernel and hash (docs/kernel-format.md "What the printer writes"), loops
// included (docs/kernel-format.md "Loops").
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "sim/base/error.h"
#include "sim/kernel/hash.h"
#include "sim/kernel/parser.h"
#include "sim/kernel/printer.h"

// Loops unroll at parse time: a few thousand iterations keep every input fast.
constexpr int64_t kFuzzLoopWork = 4096;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  nsim::Kernel k;
  try {
    k = nsim::ParseKernel(text, "fuzz.nk", nsim::ProgramIndex{}, kFuzzLoopWork);
  } catch (const nsim::SimError&) {
    return 0;  // a clear error is the right answer to bad input
  }
  const std::string printed = nsim::FormatKernel(k);
  const nsim::Kernel again =
      nsim::ParseKernel(printed, "printed.nk", nsim::ProgramIndex{}, kFuzzLoopWork);  // must not throw
  if (nsim::FormatKernel(again) != printed || nsim::KernelHash(again) != nsim::KernelHash(k)) std::abort();
  return 0;
}
