#pragma once
// The kernel (our NEFF): declared tensors, semaphores and one in-order
// instruction stream per engine. Built by the text loader (kernel/parser.h)
// or programmatically by the backend; printed back by kernel/printer.h.
// Documented in docs/kernel-format.md.
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sim/base/dtype.h"
#include "sim/kernel/opcode_table.h"

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

enum class AluOp : uint8_t { kNone, kAdd, kSub, kMul, kMax, kMin, kDivide, kPow, kBypass };
enum class ReduceOp : uint8_t { kSum, kMax, kMin, kMean };
enum class ActFunc : uint8_t {
  kIdentity, kExp, kRsqrt, kSqrt, kReciprocal, kSilu, kGelu, kTanh, kSigmoid, kSquare, kRelu, kLog,
};
constexpr int kNumAluOps = 9;  // including kNone
constexpr int kNumReduceOps = 4;
constexpr int kNumActFuncs = 12;
// Names return the canonical text-format spelling ("subtract", "identity");
// AluOpName(kNone) is "none". The parsers also accept the aliases "sub",
// "mul" and "copy" but never "none".
const char* AluOpName(AluOp o);
const char* ReduceOpName(ReduceOp o);
const char* ActFuncName(ActFunc f);
bool ParseAluOp(const std::string& s, AluOp* out);
bool ParseReduceOp(const std::string& s, ReduceOp* out);
bool ParseActFunc(const std::string& s, ActFunc* out);

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
  // Placement, filled when a device loads the kernel (model/loaded_kernel.h): byte offset within
  // every partition for SBUF/PSUM; unused for HBM (the device binds addresses).
  int64_t partition_offset = -1;

  int64_t FreeElements() const;   // product of shape[1:] (on-chip) or of shape (HBM)
  int64_t NumElements() const;
};

// An affine access pattern over one tensor. For SBUF/PSUM tensors dims[0] is
// the partition dim (stride 1 partition, starting at partition_start) and the
// rest walk the free dims in elements from `offset`. For HBM tensors every
// dim walks the flat row-major element index from `offset`
// (partition_start is 0). dims are outermost first. Patterns made by
// kernel/builder.h (and so by the parser) always have at least one dim and
// lie within their tensor.
struct ApDim {
  int64_t stride = 0;
  int64_t size = 0;
};
inline bool operator==(const ApDim& a, const ApDim& b) { return a.stride == b.stride && a.size == b.size; }
inline bool operator!=(const ApDim& a, const ApDim& b) { return !(a == b); }
struct AccessPattern {
  int tensor = -1;  // index into Kernel::tensors; -1 = absent
  int64_t partition_start = 0;
  int64_t offset = 0;
  std::vector<ApDim> dims;

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
  double base = 0, partition_step = 0, free_step = 0;  // iota
  int queue = 0;            // dma_copy: DMA queue id
  std::vector<SemWait> waits;
  std::vector<SemSignal> signals;
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
  std::array<std::vector<Instruction>, kNumEngines> streams;
  std::shared_ptr<const SpmdSource> spmd;  // set by the parser when the text uses program_id

  int FindTensor(const std::string& name) const;     // -1 if absent
  int FindSemaphore(const std::string& name) const;  // -1 if absent
  size_t NumInstructions() const;
};

}  // namespace nsim
