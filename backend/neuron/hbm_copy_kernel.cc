#include "backend/neuron/hbm_copy_kernel.h"

#include <numeric>

#include "sim/base/error.h"
#include "sim/kernel/builder.h"

namespace nsim {
namespace neuron {

Kernel HbmCopyKernel(uint64_t nbytes) {
  if (nbytes == 0 || nbytes % 2 != 0) throw SimError("HbmCopyKernel: " + std::to_string(nbytes) + " bytes is not a whole number of 16-bit elements");
  // Raw bytes: the widest element that divides the size (dtype equal on both sides, so no conversion).
  const DType t = nbytes % 4 == 0 ? DType::kF32 : DType::kBF16;
  const int64_t n = static_cast<int64_t>(nbytes) / DTypeSize(t);
  Kernel k;
  k.name = "hbm_copy";
  const int src = AddTensor(k, "src", MemSpace::kHbm, t, {n});
  const int dst = AddTensor(k, "dst", MemSpace::kHbm, t, {n});
  // The DMA model spreads an HBM-to-HBM transfer over engines by the rows
  // of its first dim: up to 128 rows, so all engines take part.
  const int64_t rows = std::gcd(n, kMaxPartitions);
  Instruction in = MakeInstruction(EngineId::kSync, Opcode::kDmaCopy);
  in.dst = Ap(k, dst, 0, {{n / rows, rows}, {1, n / rows}});
  in.src0 = Ap(k, src, 0, {{n / rows, rows}, {1, n / rows}});
  k.Append(in);
  return k;
}

}  // namespace neuron
}  // namespace nsim
