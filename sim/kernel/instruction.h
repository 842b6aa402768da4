#pragma once
// One instruction of a kernel: engines, opcodes and their attributes, access
// patterns, semaphore waits and signals. `Instruction` is what writers fill
// (builder.h, the parser, the backend); `InstructionView` is what readers take.
// Documented in docs/kernel-format.md.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/kernel/alu_act_tables.h"
#include "sim/kernel/ap_dims.h"
#include "sim/kernel/opcode_table.h"

namespace nsim {

// Instruction sequencers of a NeuronCore. DMA engines are not here: DMA
// transfers are triggered from any of these streams and run on the DMA model.
enum class EngineId : uint8_t { kTensor, kVector, kScalar, kGpSimd, kSync };
constexpr int kNumEngines = 5;
const char* EngineName(EngineId e);     // "tensor", "vector", "scalar", "gpsimd", "sync"
const char* EngineLaneName(EngineId e); // "TensorE", "VectorE", "ScalarE", "GpSimd", "Sync"
bool ParseEngine(const std::string& s, EngineId* out);

// Engine masks: a bit per EngineId, as opcode_table.h states what may run where.
constexpr uint32_t EngineMask(EngineId e) { return 1u << static_cast<unsigned>(e); }
constexpr uint32_t kTensorMask = EngineMask(EngineId::kTensor);
constexpr uint32_t kVectorMask = EngineMask(EngineId::kVector);
constexpr uint32_t kScalarMask = EngineMask(EngineId::kScalar);
constexpr uint32_t kGpSimdMask = EngineMask(EngineId::kGpSimd);
constexpr uint32_t kSyncMask = EngineMask(EngineId::kSync);
constexpr uint32_t kAnyEngineMask = (1u << kNumEngines) - 1;

// The opcodes of opcode_table.h, in its order (what each computes is noted there).
enum class Opcode : uint8_t {
#define NSIM_OPCODE_ENUMERATOR(enumerator, name, hw_name, engines, operands) enumerator,
  NSIM_OPCODE_TABLE(NSIM_OPCODE_ENUMERATOR)
#undef NSIM_OPCODE_ENUMERATOR
};
#define NSIM_OPCODE_COUNT(enumerator, name, hw_name, engines, operands) +1
constexpr int kNumOpcodes = 0 NSIM_OPCODE_TABLE(NSIM_OPCODE_COUNT);
// The opcodes whose work is a transfer on the DMA model (the issuing engine only triggers it).
inline bool IsDma(Opcode op) {
  return op == Opcode::kDmaCopy || op == Opcode::kDmaTranspose || op == Opcode::kSendRecv ||
         op == Opcode::kDmaIndirect;
}
// The opcodes that meet the pair peer's matching instruction (model/core_link.h).
inline bool IsCoreLink(Opcode op) { return op == Opcode::kSendRecv || op == Opcode::kCoreBarrier; }
#undef NSIM_OPCODE_COUNT
const char* OpcodeName(Opcode o);    // the text-format name, e.g. "dma_copy", "tensor_tensor"
const char* OpcodeHwName(Opcode o);  // as Neuron's profiler names it, e.g. "TENSOR_TENSOR"
bool ParseOpcode(const std::string& s, Opcode* out);
// Bit per EngineId (EngineMask) of the engines that can execute `o`.
uint32_t OpcodeEngines(Opcode o);
// Whether engine `e` can execute `o` (dma_copy and wait run anywhere; see
// docs/kernel-format.md for the table).
bool OpcodeAllowedOn(Opcode o, EngineId e);
// Number of positional access-pattern operands of `o`; they fill dst, src0,
// src1 in that order (e.g. matmul: 3, memset: 1, wait: 0).
int NumApOperands(Opcode o);

#define NSIM_ALU_ENUMERATOR(e, name, nl_name, commutative, reciprocal_rate, value) e,
#define NSIM_ACT_ENUMERATOR(e, name, nl_name, table_set, value) e,
// kNone marks an unused op slot; the rest are alu_act_tables.h's rows.
enum class AluOp : uint8_t { kNone, NSIM_ALU_OP_TABLE(NSIM_ALU_ENUMERATOR) };
enum class ReduceOp : uint8_t { kSum, kMax, kMin, kMean };
enum class ActFunc : uint8_t { NSIM_ACT_FUNC_TABLE(NSIM_ACT_ENUMERATOR) };
#undef NSIM_ALU_ENUMERATOR
#undef NSIM_ACT_ENUMERATOR
#define NSIM_ALU_COUNT(e, name, nl_name, commutative, reciprocal_rate, value) +1
#define NSIM_ACT_COUNT(e, name, nl_name, table_set, value) +1
constexpr int kNumAluOps = 1 NSIM_ALU_OP_TABLE(NSIM_ALU_COUNT);  // including kNone
constexpr int kNumReduceOps = 4;
constexpr int kNumActFuncs = 0 NSIM_ACT_FUNC_TABLE(NSIM_ACT_COUNT);
#undef NSIM_ALU_COUNT
#undef NSIM_ACT_COUNT
// Names return the canonical text-format spelling ("subtract", "identity");
// AluOpName(kNone) is "none". The parsers also accept the aliases "sub",
// "mul" and "copy" but never "none".
const char* AluOpName(AluOp o);
const char* ReduceOpName(ReduceOp o);
const char* ActFuncName(ActFunc f);
bool ParseAluOp(const std::string& s, AluOp* out);
bool ParseReduceOp(const std::string& s, ReduceOp* out);
bool ParseActFunc(const std::string& s, ActFunc* out);

// An affine access pattern over one tensor. For SBUF/PSUM tensors dims[0] is
// the partition dim (stride 1 partition, starting at partition_start) and the
// rest walk the free dims in elements from `offset`. For HBM tensors every
// dim walks the flat row-major element index from `offset`
// (partition_start is 0). dims are outermost first. Patterns made by
// kernel/builder.h (and so by the parser) always have at least one dim and
// lie within their tensor.
struct AccessPattern {
  int tensor = -1;  // index into Kernel::tensors; -1 = absent
  int64_t partition_start = 0;
  int64_t offset = 0;
  ApDims dims;  // interned (ap_dims.h): a kernel's patterns share a few lists

  // Inline: these sit on the per-instruction paths of the load and the engines.
  bool present() const { return tensor >= 0; }
  int64_t Partitions() const { return dims.empty() ? 0 : dims[0].size; }  // on-chip: dims[0].size
  int64_t FreeElements() const {  // on-chip: product of dims[1:] sizes
    int64_t n = 1;
    for (size_t i = 1; i < dims.size(); ++i) n *= dims[i].size;
    return n;
  }
  int64_t NumElements() const {  // product of all sizes
    int64_t n = 1;
    for (const ApDim& d : dims) n *= d.size;
    return n;
  }
};
inline bool operator==(const AccessPattern& a, const AccessPattern& b) {
  return a.tensor == b.tensor && a.partition_start == b.partition_start && a.offset == b.offset &&
         a.dims == b.dims;
}
inline bool operator!=(const AccessPattern& a, const AccessPattern& b) { return !(a == b); }

struct Scalar {  // an immediate or a per-partition [P,1] column
  bool is_ap = false;
  double imm = 0;
  AccessPattern ap;
};
// Compares the meaningful part: imm for immediates, ap for columns.
bool operator==(const Scalar& a, const Scalar& b);
inline bool operator!=(const Scalar& a, const Scalar& b) { return !(a == b); }

// Not packed to 12 bytes: a packed 8-byte field is misaligned, and any
// reference bound to it (std::min, gtest's EXPECT_EQ) is undefined behaviour
// (the fuzz smoke run's UBSan found one); 4 bytes each are not worth that.
struct SemWait {
  int sem = -1;
  int64_t value = 0;  // proceed once semaphore >= value
};
struct SemSignal {
  int sem = -1;
  int64_t delta = 1;  // added when the instruction completes
};

struct Instruction {
  EngineId engine = EngineId::kSync;
  Opcode opcode = Opcode::kWait;
  int line = 0;
  AccessPattern dst;
  AccessPattern src0;
  AccessPattern src1;
  AccessPattern acc;        // activation accumulate target [P,1]
  Scalar scalar0, scalar1;  // tensor_scalar operands; activation scale (0) and bias (1); memset value (0)
  AluOp alu0 = AluOp::kNone, alu1 = AluOp::kNone;
  ReduceOp reduce = ReduceOp::kSum;
  ActFunc func = ActFunc::kIdentity;
  bool accumulate = false;  // matmul: add into PSUM instead of overwriting
  bool broadcast = false;   // partition_reduce: write the result to every dst partition
  bool negate = false;      // tensor_reduce: write the reduction's negative
  double base = 0, partition_step = 0, free_step = 0;  // iota
  int queue = 0;            // dma_copy: DMA queue id
  std::vector<SemWait> waits;
  std::vector<SemSignal> signals;
};

// A read-only run of a kernel's semaphore waits or signals (C++17 has no std::span).
template <class T>
class Span {
 public:
  Span() = default;
  Span(const T* data, size_t size) : data_(data), size_(size) {}
  Span(const std::vector<T>& v) : data_(v.data()), size_(v.size()) {}  // NOLINT: implicit, as a view of a vector
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }
  const T* data() const { return data_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const T& operator[](size_t i) const { return data_[i]; }

 private:
  const T* data_ = nullptr;
  size_t size_ = 0;
};

// What readers take: the fields of one instruction, by reference, with
// Instruction's names (so `in.dst.dims`, `in.waits` read the same). A Kernel
// stores its instructions packed (instruction_store.h) and hands out views
// into its pools; a fat Instruction converts implicitly, for code that builds
// one and checks or formats it before appending. A view lives no longer than
// what it refers to: the Kernel unchanged, or the Instruction.
struct InstructionView {
  InstructionView(const Instruction& in);  // NOLINT: implicit, a fat instruction is viewed as is
  // The references; the caller sets every other field.
  InstructionView(EngineId engine, Opcode opcode, int line, const AccessPattern& dst, const AccessPattern& src0,
                  const AccessPattern& src1, const AccessPattern& acc, const Scalar& scalar0, const Scalar& scalar1)
      : engine(engine), opcode(opcode), line(line), dst(dst), src0(src0), src1(src1), acc(acc), scalar0(scalar0),
        scalar1(scalar1) {}
  Instruction ToInstruction() const;  // a fat copy, for code that edits it

  EngineId engine;
  Opcode opcode;
  int line;
  const AccessPattern& dst;
  const AccessPattern& src0;
  const AccessPattern& src1;
  const AccessPattern& acc;
  const Scalar& scalar0;
  const Scalar& scalar1;
  // Set by whoever builds the view (no default: it is built per instruction on hot paths).
  AluOp alu0, alu1;
  ReduceOp reduce;
  ActFunc func;
  bool accumulate;
  bool broadcast;
  bool negate;
  double base, partition_step, free_step;
  int queue;
  Span<SemWait> waits;
  Span<SemSignal> signals;
};

}  // namespace nsim
