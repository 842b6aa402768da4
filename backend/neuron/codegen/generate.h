#pragma once
// GenerateKernel: one Graph (graph.h) -> one kernel in the model's IR
// (sim/kernel/kernel.h), ready for rt::NeuronCoreDevice::LoadKernel.
//
//   GeneratedKernel gk = GenerateKernel(g, core.config(), {"my_op"});
//   KernelRef k = core.LoadKernel(gk.kernel);
//   core.ExecuteAsync(k, {{"x", x_addr}, {"w", w_addr}, {"y", y_addr}});
//
// How the graph is lowered (see plan.h for the details):
// - It is cut into stages, run one after another inside the kernel: a
//   pointwise stage (pointwise nodes and row reductions over one iteration
//   space) or a matmul stage (TensorE, K tiled with PSUM accumulation,
//   M <= 128 and N <= tensor.moving_free_max per tile) whose pointwise users
//   become its epilogue, applied while PSUM is evacuated.
// - Values passed between stages stay in SBUF when they fit, else they go
//   through HBM scratch tensors (unbound; the runtime places them).
// - Every stage tiles rows over the partitions and the innermost dim over
//   the free dim (chunked to fit SBUF, checked against the config); loads
//   run on several DMA queues, and with more than one tile the next tile's
//   loads are issued before the current tile's compute (double buffering),
//   ordered by semaphores that scheduler.h inserts from the data each
//   instruction reads and writes.
// - VectorE runs binary ops and reductions, ScalarE the transcendental
//   activations (folding a preceding multiply/add by a scalar into the
//   activation's scale/bias when no rounding is lost), TensorE matmuls and
//   transposes.
// - Numerics: engines compute in fp32; each node's result is stored in a tile
//   of the node's dtype, i.e. rounded exactly where eager PyTorch rounds.
//   The one deliberate difference: a tile divided by a per-row scalar (a
//   row sum, a 0-dim tensor, a constant) is multiplied by its reciprocal, as
//   NKI kernels do, which is within one fp32 ulp of the true quotient.
#include <string>
#include <vector>

#include "backend/neuron/codegen/graph.h"
#include "sim/config/hw_config.h"
#include "sim/kernel/kernel.h"

namespace nsim {
namespace neuron {
namespace codegen {

struct GenerateOptions {
  std::string kernel_name = "fused";  // Kernel::name (an identifier)
  // true: every intermediate is rounded to its node's dtype (eager
  // semantics). false: intermediates that are not graph outputs stay fp32
  // (what an Inductor-style fused kernel does); outputs are still rounded.
  bool round_intermediates = true;
  // Upper bound on the rows (partitions) of one tile; 0 means the config's
  // partition count. Lower it to force several tiles in tests.
  int64_t max_tile_rows = 0;
  // Upper bound on the free elements of one tile of a pointwise stage; 0
  // means as many as SBUF allows.
  int64_t max_tile_cols = 0;
};

struct GeneratedKernel {
  Kernel kernel;
  std::vector<std::string> inputs;   // HBM tensors to bind, in graph order
  std::vector<std::string> outputs;  // in graph output order
};

// Throws SimError when a node's kind or dtype cannot run on the device
// ("codegen: 'exp' does not support dtype i32"), when a shape is outside what
// the lowering handles, or when the working set cannot fit SBUF/PSUM.
GeneratedKernel GenerateKernel(const Graph& graph, const HardwareConfig& config,
                               const GenerateOptions& options = {});

}  // namespace codegen
}  // namespace neuron
}  // namespace nsim
