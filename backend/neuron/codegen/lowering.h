#pragma once
// Internal to the codegen: the state shared while one Graph is lowered to a
// kernel — the plan, where every value lives, the tiling of every stage,
// the kernel under construction and its scheduler — plus the small
// helpers (buffer declaration, DMA queues, value sources) the stage
// emitters use. generate.cc fills it; stage_emitter.cc and
// matmul_operands.cc read it.
#include <map>
#include <string>
#include <vector>

#include "backend/neuron/codegen/generate.h"
#include "backend/neuron/codegen/scheduler.h"
#include "backend/neuron/codegen/stage_plan.h"
#include "backend/neuron/codegen/tiling.h"

namespace nsim {
namespace neuron {
namespace codegen {

enum class Where {
  kTile,      // only inside its stage, in per-tile buffers
  kResident,  // in SBUF for the whole kernel: one tensor per row block of its stage
  kScratch,   // in an HBM scratch tensor (written by its stage, read by later ones)
};

struct ValueInfo {
  Where where = Where::kTile;
  DType tile_dtype = DType::kF32;       // what its tiles hold (its dtype unless kept fp32)
  std::vector<int> outputs;             // indices into Graph::outputs()
  int scratch = -1;                     // HBM tensor (kScratch)
  std::map<int64_t, int> resident;      // first flattened row of a block -> SBUF tensor (kResident)
  int64_t resident_cols = 0;            // free size of each resident block
};

// Where a leaf operand of a stage comes from: HBM (a graph input or a
// scratch tensor, with the view read) or SBUF-resident blocks.
struct Source {
  bool resident = false;
  int tensor = -1;  // HBM tensor (when !resident)
  TensorDesc desc;  // the view read (when !resident)
  ValueId root = -1;  // the value whose blocks are read (when resident)
};

struct Lowering {
  Lowering(const Graph& g, const StagePlan& p, const HardwareConfig& c, const GenerateOptions& o);

  const Graph& graph;
  const StagePlan& plan;
  const HardwareConfig& config;
  const GenerateOptions& options;
  Kernel kernel;
  Scheduler sched{&kernel};
  std::vector<ValueInfo> info;             // per value
  std::vector<TiledSpace> tiling;          // per stage
  std::vector<int64_t> stage_cols;         // per stage: free elements per tile (the cap used for tiling)
  std::vector<int> input_tensor;           // per value: HBM tensor of a kInput
  std::vector<int> output_tensor;          // per graph output
  int next_queue = 0;

  int Sbuf(const std::string& name, DType dtype, int64_t partitions, int64_t free);
  int Psum(const std::string& name, int64_t partitions, int64_t free);
  int Hbm(const std::string& name, DType dtype, int64_t elements);
  int NextQueue();  // round robin over the DMA queues
  // The value a chain of views aliases.
  ValueId Root(ValueId v) const;
  Source SourceOf(ValueId v) const;
  // Whether `v` does not vary along the last dim of `space` (a [p, 1] column).
  bool IsColumn(ValueId v, const std::vector<int64_t>& space) const;
  int64_t MaxRows() const;  // partitions per tile
};

// `desc` seen with `sizes`, which only adds or removes size-1 dims.
TensorDesc ViewDesc(const TensorDesc& desc, const std::vector<int64_t>& sizes);

// Emits every tile of stage `s` (stage_emitter.cc).
void EmitStage(Lowering& L, int s);

}  // namespace codegen
}  // namespace neuron
}  // namespace nsim
