#pragma once
// aten::_fused_rms_norm as one hand-scheduled kernel, in the style of the
// NKI RMSNorm tutorial: per tile of up to 128 rows (one per partition),
//
//   DMA in        x tile (the weight row once, broadcast to every partition)
//   ScalarE       square with accumulate: sum of x^2 per row, in fp32
//   VectorE       sum / n + eps            ([p, 1])
//   ScalarE       rsqrt                    ([p, 1], the rstd output)
//   VectorE       x * rstd, then * weight  (while the tile sits in SBUF)
//   DMA out       y tile and rstd
//
// with the next tile's load issued before this tile's compute. Everything
// is computed in fp32 and rounded once into y, as the CPU reference does.
// HBM tensors: "x" [rows, n] (any strides), "w" [n] (when has_weight),
// "y" [rows, n] and "rstd" [rows] (fp32), bound at their element 0.
// On an LNC=2 core each physical core runs the kernel of its share of the
// rows, bound at the same addresses (SplitRmsNorm).
#include <vector>

#include "backend/neuron/codegen/tensor_desc.h"
#include "sim/config/hw_config.h"
#include "sim/kernel/kernel.h"

namespace nsim {
namespace neuron {

struct RmsNormSpec {
  codegen::TensorDesc x;  // [rows..., n]
  codegen::TensorDesc w;  // [n]; ignored without weight
  bool has_weight = true;
  codegen::TensorDesc y;  // like x
  // [rows..., 1] fp32 (the last dim is ignored): Contiguous over the op's
  // rows, or one program's slice of that (SplitRmsNorm).
  codegen::TensorDesc rstd;
  float eps = 0;
};

Kernel RmsNormKernel(const RmsNormSpec& spec, const HardwareConfig& config);

// The op's rows shared out over `programs` cores (codegen/program_split.h):
// one spec per program, along the outermost row dim of at least `programs`
// rows; empty when there is none.
std::vector<RmsNormSpec> SplitRmsNorm(const RmsNormSpec& spec, int programs);

}  // namespace neuron
}  // namespace nsim
