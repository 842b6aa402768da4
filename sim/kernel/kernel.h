#pragma once
// The kernel (our NEFF): declared tensors, semaphores and one in-order
// instruction stream per engine. Built by the text loader (kernel/parser.h)
// or programmatically by the backend; printed back by kernel/printer.h.
// Documented in docs/kernel-format.md.
#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "sim/base/dtype.h"
#include "sim/kernel/instruction.h"
#include "sim/kernel/instruction_store.h"

namespace nsim {

enum class MemSpace : uint8_t { kHbm, kSbuf, kPsum };
const char* MemSpaceName(MemSpace s);  // "hbm", "sbuf", "psum"
constexpr int kNumMemSpaces = 3;
bool ParseMemSpace(const std::string& s, MemSpace* out);

// Upper bound of an SBUF/PSUM tensor's partition dim (shape[0]).
constexpr int64_t kMaxPartitions = 128;
// Most elements one access pattern may walk (2^28, 18x the bf16 elements of a whole trn2 SBUF).
// Not a hardware limit: the model stages every access in host memory as
// fp32, so this bounds one instruction's host memory (1 GiB) and keeps every
// count derived from it (bytes, descriptors, cycles) far inside 64-bit
// arithmetic.
constexpr int64_t kMaxAccessElements = int64_t{1} << 28;

// How a standalone kernel initialises an HBM tensor that no caller binds.
struct TensorInit {
  enum Kind : uint8_t { kNone, kZeros, kOnes, kConst, kIota, kRandn, kRand } kind = kNone;
  double value = 0;   // kConst
  uint64_t seed = 0;  // kRandn / kRand
};

struct TensorDecl {
  std::string name;
  MemSpace space = MemSpace::kSbuf;
  DType dtype = DType::kF32;
  // HBM: any shape, row-major. SBUF/PSUM: shape[0] is the partition dim,
  // the rest are free dims, row-major within a partition.
  std::vector<int64_t> shape;
  TensorInit init;
  int line = 0;  // where declared (0 if built in code)
  // at=: the byte offset within every partition the kernel chose for an SBUF/PSUM tensor (a
  // compiler's allocation; tensors whose lifetimes do not overlap may share bytes), -1: the
  // loader's layout rule places it (sim/memory/onchip_layout.h).
  int64_t at = -1;
  // Placement, filled when a device loads the kernel (model/loaded_kernel.h): byte offset within
  // every partition for SBUF/PSUM; unused for HBM (the device binds addresses).
  int64_t partition_offset = -1;

  int64_t FreeElements() const;   // product of shape[1:] (on-chip) or of shape (HBM)
  int64_t NumElements() const;
};

// The loops of a kernel text (docs/kernel-format.md "Loops"). The parser
// unrolls them into the streams and keeps them here, so the printer writes the
// loop form back and records can name each instruction's iteration.
struct KernelLoops {
  // One line of an engine's loop-form stream, as the text wrote it (runs of
  // spaces collapsed): "loop i in 0:8 {", "}", or an instruction without its
  // "ENGINE:" prefix, e.g. "tensor_tensor t[i % 2], a[i], b op=add".
  struct Line {
    enum Kind : uint8_t { kInstruction, kOpen, kClose } kind = kInstruction;
    std::string text;
    int number = 0;  // its line in the kernel text (what errors and records name)
  };
  std::array<std::vector<Line>, kNumEngines> lines;
  // The iteration each unrolled instruction belongs to, per engine and
  // instruction index: an index into `iterations` (0: outside loops).
  std::array<std::vector<uint32_t>, kNumEngines> iteration_of;
  // An iteration: the variables of its loop nest (nests[nest], outermost
  // first) and their values (values[first...]).
  struct Iteration {
    uint32_t nest = 0;
    uint32_t first = 0;
  };
  std::vector<Iteration> iterations{Iteration{}};
  std::vector<std::vector<std::string>> nests{{}};
  std::vector<int64_t> values;
  std::string Label(uint32_t iteration) const;  // "i=3,j=0"; "" for 0
};

// The text of a kernel that uses program_id/num_programs (SPMD), so that a
// launch on N cores can parse its N program copies (ParseGrid).
struct SpmdSource {
  std::string text;
  std::string filename;
};

struct Kernel {
  std::string name;
  std::vector<TensorDecl> tensors;
  std::vector<std::string> semaphores;
  std::shared_ptr<const SpmdSource> spmd;  // set by the parser when the text uses program_id
  // Where a kernel line came from in the program that generated it: its
  // trailing `# ... src: FRAME < FRAME ...` comment (docs/kernel-format.md),
  // by kernel line. Profiles show it; it is no part of the kernel's hash.
  // LoadKernelFile fills it for the lines that name none: a kernel file a
  // person wrote is its own source ("FILE:LINE KERNEL").
  std::map<int, std::string> sources;
  // The source of kernel line `line` ("" when it names none).
  const std::string& SourceAt(int line) const;

  // The loop form, or nullptr for a kernel without loops. Any edit of the
  // streams drops it (it would no longer unroll to them).
  const KernelLoops* loops() const { return loops_.get(); }
  void SetLoops(std::shared_ptr<const KernelLoops> loops) { loops_ = std::move(loops); }
  // The loop indices of instruction i of stream `engine` ("i=3,j=0"; "" outside loops).
  std::string LoopIndicesAt(int engine, size_t i) const;

  int FindTensor(const std::string& name) const;     // -1 if absent
  int FindSemaphore(const std::string& name) const;  // -1 if absent
  size_t NumInstructions() const { return code_.total(); }

  // One in-order stream per engine, stored packed (instruction_store.h): read
  // through views, written by appending whole instructions.
  StreamView stream(int engine) const { return StreamView(&code_, engine); }
  StreamView stream(EngineId e) const { return stream(static_cast<int>(e)); }
  // Inline everywhere: a caller that reads a few fields decodes only those.
  __attribute__((always_inline)) InstructionView instruction(int engine, size_t i) const {
    return code_.Get(engine, i);
  }
  __attribute__((always_inline)) InstructionView instruction(EngineId e, size_t i) const {
    return code_.Get(static_cast<int>(e), i);
  }
  // Appends `in` to the stream of in.engine.
  void Append(const Instruction& in) {
    loops_.reset();
    code_.Append(static_cast<int>(in.engine), in);
  }
  // Appends `in` to stream `engine` even when in.engine differs (CheckInstruction
  // then rejects it): for tests of that check.
  void AppendToStream(int engine, const Instruction& in) {
    loops_.reset();
    code_.Append(engine, in);
  }
  // Instruction i of stream `engine` becomes `in` (views of it are then stale).
  void Replace(int engine, size_t i, const Instruction& in) {
    loops_.reset();
    code_.Replace(engine, i, in);
  }
  // Applies `edit(Instruction&)` to a fat copy of instruction i of stream `engine` and packs it back.
  template <class Edit>
  void EditInstruction(int engine, size_t i, Edit&& edit) {
    Instruction in = instruction(engine, i).ToInstruction();
    edit(in);
    Replace(engine, i, in);
  }
  void PopBack(int engine) {
    loops_.reset();
    code_.PopBack(engine);
  }
  // Inserts `in` before instruction i of stream `engine`.
  void Insert(int engine, size_t i, const Instruction& in) {
    loops_.reset();
    code_.Insert(engine, i, in);
  }
  // Where every view's waits and signals point into (for compact indices).
  const SemWait* wait_pool() const { return code_.wait_pool(); }
  const SemSignal* signal_pool() const { return code_.signal_pool(); }

 private:
  InstructionStore code_;
  std::shared_ptr<const KernelLoops> loops_;
};

}  // namespace nsim
