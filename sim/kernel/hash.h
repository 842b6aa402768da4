#pragma once
// Content hash of a kernel: FNV-1a 64 over its canonical text (FormatKernel),
// so it ignores comments, line numbers and layout, and equal kernels hash
// equally in every process and on every machine.
#include <cstdint>
#include <string>
#include <string_view>

#include "sim/kernel/kernel.h"
#include "sim/kernel/printer.h"

namespace nsim {

uint64_t Fnv1a64(const std::string& bytes);
uint64_t KernelHash(const Kernel& k);

// KernelHash one instruction at a time (KernelPieces' order: Add every
// instruction in stream order), for a caller that walks the streams anyway.
class KernelHasher {
 public:
  explicit KernelHasher(const Kernel& k);
  void Add(int engine, const InstructionView& in) { pieces_.Line(engine, in); }
  uint64_t hash() const { return h_; }

 private:
  uint64_t h_;
  KernelPieces pieces_;  // after h_: its callback updates h_
};

}  // namespace nsim
