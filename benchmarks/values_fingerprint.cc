// Prints a fingerprint (FNV-1a over bytes) of every HBM tensor after running
// a kernel that uses every opcode, ALU op, activation function, reduce op
// and dtype conversion, and after each example kernel. Speed work on the
// value kernels must leave every line unchanged (issue 12: values bit-exact):
//   bazel run -c opt //benchmarks:values_fingerprint > before.txt
//   ... change ... ; bazel run -c opt //benchmarks:values_fingerprint | diff before.txt -
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "sim/config/loader.h"
#include "sim/kernel/builder.h"
#include "sim/kernel/parser.h"
#include "sim/model/device.h"

namespace nsim {
namespace {

constexpr int64_t kParts = 16, kFree = 64;

// Serialises every instruction on one semaphore, so the kernel needs no
// reasoning about engine overlap: instruction i waits for i signals.
struct Chain {
  Kernel& k;
  int sem;
  int n = 0;
  Instruction pending;  // filled by the caller; appended by the next Next or by Close
  bool open = false;
  Instruction& Next(EngineId e, Opcode op) {
    Close();
    pending = MakeInstruction(e, op);
    open = true;
    if (n > 0) pending.waits = {{sem, n}};
    pending.signals = {{sem, 1}};
    ++n;
    return pending;
  }
  void Close() {
    if (open) k.Append(pending);
    open = false;
  }
  int Tile(const std::string& name, DType t, int64_t free = kFree, MemSpace s = MemSpace::kSbuf) {
    return AddTensor(k, name, s, t, {kParts, free});
  }
  void Store(int tile) {  // to an HBM tensor of the same shape and dtype
    const TensorDecl d = k.tensors[tile];
    const int out = AddTensor(k, "out_" + d.name, MemSpace::kHbm, d.dtype, d.shape);
    Instruction& st = Next(EngineId::kSync, Opcode::kDmaCopy);
    st.dst = Full(k, out);
    st.src0 = Full(k, tile);
  }
};

Kernel EveryOp() {
  Kernel k;
  k.name = "every_op";
  Chain c{k, AddSemaphore(k, "step")};
  const int xh = AddTensor(k, "x", MemSpace::kHbm, DType::kBF16, {kParts, kFree}, {TensorInit::kRandn, 0, 7});
  const int yh = AddTensor(k, "y", MemSpace::kHbm, DType::kF32, {kParts, kFree}, {TensorInit::kRand, 0, 8});
  const int x = c.Tile("xs", DType::kBF16), y = c.Tile("ys", DType::kF32), xf = c.Tile("xf", DType::kF32);
  const int col = c.Tile("col", DType::kF32, 1);
  Instruction* in = &c.Next(EngineId::kSync, Opcode::kDmaCopy);
  in->dst = Full(k, x), in->src0 = Full(k, xh);
  in = &c.Next(EngineId::kSync, Opcode::kDmaCopy);
  in->dst = Full(k, y), in->src0 = Full(k, yh);
  in = &c.Next(EngineId::kSync, Opcode::kDmaCopy);  // a casting DMA
  in->dst = Full(k, xf), in->src0 = Full(k, xh);
  in = &c.Next(EngineId::kVector, Opcode::kTensorReduce);
  in->dst = Full(k, col), in->src0 = Full(k, y), in->reduce = ReduceOp::kMax;
  for (int op = 1; op < kNumAluOps; ++op) {
    const AluOp alu = static_cast<AluOp>(op);
    const std::string name = AluOpName(alu);
    if (alu != AluOp::kBypass) {
      for (DType t : {DType::kBF16, DType::kF32}) {
        const int d = c.Tile("tt_" + name + "_" + DTypeName(t), t);
        in = &c.Next(EngineId::kVector, Opcode::kTensorTensor);
        in->dst = Full(k, d), in->src0 = Full(k, x), in->src1 = Full(k, y), in->alu0 = alu;
        c.Store(d);
      }
    }
    const int d = c.Tile("ts_" + name, DType::kBF16);
    in = &c.Next(EngineId::kVector, Opcode::kTensorScalar);
    in->dst = Full(k, d), in->src0 = Full(k, y), in->alu0 = alu, in->alu1 = AluOp::kMul;
    in->scalar0.is_ap = true, in->scalar0.ap = Full(k, col), in->scalar1.imm = 0.37;
    c.Store(d);
  }
  for (int f = 0; f < kNumActFuncs; ++f) {
    const ActFunc func = static_cast<ActFunc>(f);
    const int d = c.Tile(std::string("act_") + ActFuncName(func), DType::kBF16);
    const int acc = c.Tile(std::string("acc_") + ActFuncName(func), DType::kF32, 1);
    in = &c.Next(EngineId::kScalar, Opcode::kActivation);
    in->dst = Full(k, d), in->src0 = Full(k, y), in->func = func, in->acc = Full(k, acc);
    in->scalar0.imm = 1.5, in->scalar1.is_ap = true, in->scalar1.ap = Full(k, col);
    c.Store(d);
    c.Store(acc);
  }
  for (int r = 0; r < kNumReduceOps; ++r) {
    for (DType t : {DType::kBF16, DType::kF32}) {
      const int d = c.Tile(std::string("red_") + ReduceOpName(static_cast<ReduceOp>(r)) + "_" + DTypeName(t), t, 1);
      in = &c.Next(EngineId::kVector, Opcode::kTensorReduce);
      in->dst = Full(k, d), in->src0 = Full(k, t == DType::kBF16 ? x : y), in->reduce = static_cast<ReduceOp>(r);
      c.Store(d);
    }
  }
  const int ps = AddTensor(k, "ps", MemSpace::kPsum, DType::kF32, {kParts, kFree});
  for (bool accumulate : {false, true}) {
    in = &c.Next(EngineId::kTensor, Opcode::kMatmul);
    in->dst = Full(k, ps), in->src0 = Slice(k, x, {SliceSpec::All(), SliceSpec::Range(0, kParts)});
    in->src1 = Full(k, x), in->accumulate = accumulate;
  }
  c.Store(ps);
  // A matrix-vector product (N = 1): Eigen summed these in its GEMV order;
  // since sim/isa/gemm.h every output sums in partition order (by design).
  const int mv = AddTensor(k, "mv", MemSpace::kPsum, DType::kF32, {kParts, 1});
  in = &c.Next(EngineId::kTensor, Opcode::kMatmul);
  in->dst = Full(k, mv), in->src0 = Slice(k, x, {SliceSpec::All(), SliceSpec::Range(0, kParts)});
  in->src1 = Slice(k, x, {SliceSpec::All(), SliceSpec::Range(0, 1)});
  c.Store(mv);
  const int tp = AddTensor(k, "tp", MemSpace::kPsum, DType::kF32, {kParts, kParts});
  in = &c.Next(EngineId::kTensor, Opcode::kTranspose);
  in->dst = Full(k, tp), in->src0 = Slice(k, xf, {SliceSpec::All(), SliceSpec::Range(0, kParts)});
  c.Store(tp);
  const int io = c.Tile("io", DType::kF32);
  in = &c.Next(EngineId::kGpSimd, Opcode::kIota);
  in->dst = Full(k, io), in->base = 0.25, in->partition_step = 3, in->free_step = 0.5;
  c.Store(io);
  for (bool broadcast : {false, true}) {
    const int d = AddTensor(k, broadcast ? "pr_b" : "pr", MemSpace::kSbuf, DType::kBF16,
                            {broadcast ? kParts : 1, kFree});
    in = &c.Next(EngineId::kGpSimd, Opcode::kPartitionReduce);
    in->dst = Full(k, d), in->src0 = Full(k, y), in->reduce = broadcast ? ReduceOp::kMax : ReduceOp::kSum;
    in->broadcast = broadcast;
    c.Store(d);
  }
  for (bool column : {false, true}) {  // initial: an immediate, then a [P, 1] column
    const int d = c.Tile(column ? "scan_col" : "scan_imm", DType::kBF16);
    in = &c.Next(EngineId::kVector, Opcode::kTensorTensorScan);
    in->dst = Full(k, d), in->src0 = Full(k, y), in->src1 = Full(k, x);
    in->alu0 = column ? AluOp::kMax : AluOp::kMul, in->alu1 = AluOp::kAdd;
    if (column) {
      in->scalar0.is_ap = true, in->scalar0.ap = Full(k, col);
    } else {
      in->scalar0.imm = 0.25;
    }
    c.Store(d);
  }
  const int ms = c.Tile("ms", DType::kBF16), cp = c.Tile("cp", DType::kBF16);
  in = &c.Next(EngineId::kVector, Opcode::kMemset);
  in->dst = Full(k, ms), in->scalar0.imm = 1.0 / 3.0;
  c.Store(ms);
  in = &c.Next(EngineId::kScalar, Opcode::kTensorCopy);
  in->dst = Full(k, cp), in->src0 = Full(k, xf);
  c.Store(cp);
  c.Close();
  return k;
}

uint64_t Fnv1a(const std::vector<uint8_t>& bytes) {
  uint64_t h = 1469598103934665603ull;
  for (uint8_t b : bytes) h = (h ^ b) * 1099511628211ull;
  return h;
}

void Print(const Kernel& k, const std::string& config) {
  Device device(LoadHardwareConfig(config));
  const ExecutionResult r = device.Execute(k);
  for (const auto& [name, addr] : r.scratch_addresses) {
    const TensorDecl& t = k.tensors[k.FindTensor(name)];
    std::vector<uint8_t> bytes(static_cast<size_t>(t.NumElements() * DTypeSize(t.dtype)));
    device.hbm().Read(addr, bytes.data(), bytes.size());
    std::printf("%s %s %s %016llx\n", config.c_str(), k.name.c_str(), name.c_str(),
                static_cast<unsigned long long>(Fnv1a(bytes)));
  }
}

}  // namespace
}  // namespace nsim

int main(int argc, char** argv) {
  for (const char* config : {"trn1", "trn2"}) nsim::Print(nsim::EveryOp(), config);
  for (int i = 1; i < argc; ++i) nsim::Print(nsim::LoadKernelFile(argv[i]), "trn2");
  return 0;
}
