#pragma once
// Helpers for code that builds kernels (the backend lowering ATen ops, tests).
// The text parser (kernel/parser.h) is built on the same functions, so a
// kernel made in code and one read from text obey exactly the same rules and
// every error is worded the same way. All of them throw SimError; messages
// carry no file/line (the parser adds those).
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "sim/base/dtype.h"
#include "sim/kernel/kernel.h"

namespace nsim {

// One index of a numpy-style slice (the `[...]` of the text format).
struct SliceSpec {
  static constexpr int64_t kEnd = std::numeric_limits<int64_t>::max();  // "to the end of the dim"
  bool index = false;  // a single integer `start`: selects it and drops the dim
                       // (the partition dim of an on-chip tensor is kept, size 1)
  int64_t start = 0;
  int64_t stop = kEnd;  // exclusive
  int64_t step = 1;     // > 0

  static SliceSpec At(int64_t i) { return SliceSpec{true, i, kEnd, 1}; }
  static SliceSpec Range(int64_t start = 0, int64_t stop = kEnd, int64_t step = 1) {
    return SliceSpec{false, start, stop, step};
  }
  static SliceSpec All() { return Range(); }
};

// Text form of one index: "3", ":", "2:", ":8", "0:8:2", "::2", ...
std::string FormatSliceSpec(const SliceSpec& s);

// [A-Za-z_][A-Za-z0-9_]*, except "inf" and "nan" (they read as numbers where
// a scalar operand may be a number or a tensor).
bool IsIdentifier(const std::string& s);

// Declares a tensor and returns its index. Checks the name (identifier,
// unique among tensors and semaphores), the shape (at least one dim, all > 0;
// on-chip: partition dim 1..kMaxPartitions) and that `init` is only given
// for HBM tensors.
int AddTensor(Kernel& k, const std::string& name, MemSpace space, DType dtype, std::vector<int64_t> shape,
              TensorInit init = {});
int AddSemaphore(Kernel& k, const std::string& name);

// The whole tensor: the text `name`.
AccessPattern Full(const Kernel& k, int tensor);
// The text `name[i0, i1, ...]`: fewer indices than dims leave the remaining
// dims whole. For on-chip tensors the first index is the partition dim and
// must be contiguous. Throws when any index lies outside its dim, the slice
// is empty or a step is not positive. Every access pattern has at least one
// dim: indexing every dim of an HBM tensor gives dims {{1, 1}}.
AccessPattern Slice(const Kernel& k, int tensor, const std::vector<SliceSpec>& idx);
// The text `name.ap(offset, [[stride, size], ...])`: `offset` is a flat
// element offset into the tensor. On-chip, the first pair is the partition
// pair and its stride must be the tensor's free size; it is stored as
// {1, size} with partition_start = offset / free size.
AccessPattern Ap(const Kernel& k, int tensor, int64_t offset, std::vector<ApDim> dims);
// Throws unless every element of `ap` lies inside its tensor (and, on-chip,
// its partitions inside [0, shape[0]) with a unit partition stride).
void CheckAccessPattern(const Kernel& k, const AccessPattern& ap);

// Throws unless every tensor, access pattern and semaphore reference of `k`
// obeys the rules above, naming the tensor or instruction and its line. For
// kernels assembled field by field rather than through these helpers;
// Device::Load calls it, so no kernel reaches the model unchecked.
void CheckKernel(const Kernel& k);
// CheckKernel in two steps, for a caller that walks the streams anyway:
// CheckTensors, then CheckInstruction on every instruction of stream
// `engine`, in stream order (the same checks, errors and messages).
void CheckTensors(const Kernel& k);
void CheckInstruction(const Kernel& k, int engine, const InstructionView& in);

inline Scalar Imm(double v) { return Scalar{false, v, {}}; }
inline Scalar Column(AccessPattern ap) { return Scalar{true, 0, std::move(ap)}; }

// A fresh instruction with the opcode's defaults (activation: scale 1, bias 0).
// Throws if `engine` cannot execute `op`. Fill it, then k.Append(it): the
// kernel packs it (instruction_store.h).
Instruction MakeInstruction(EngineId engine, Opcode op);

// For code that emits an instruction and fills it afterwards, perhaps after
// emitting on other engines: Emit returns a fresh instruction that is
// appended to `k` at the next Emit on the same engine, at Flush, or when the
// writer goes out of scope, so streams keep their emit order. The reference is
// invalidated by the next Emit on the same engine. Flush before reading the
// kernel's streams.
class StreamWriter {
 public:
  explicit StreamWriter(Kernel& k) : k_(k) {}
  ~StreamWriter() { Flush(); }
  StreamWriter(const StreamWriter&) = delete;
  StreamWriter& operator=(const StreamWriter&) = delete;
  Instruction& Emit(EngineId engine, Opcode op);
  void Flush();

 private:
  Kernel& k_;
  Instruction pending_[kNumEngines];
  bool open_[kNumEngines] = {};
};

}  // namespace nsim
