// GenerateKernel: plans where every value lives and how every stage tiles,
// emits the stages, and retries with smaller tiles (or fewer SBUF-resident
// values) until the kernel fits the config's SBUF and PSUM.
#include "backend/neuron/codegen/generate.h"

#include <algorithm>
#include <set>

#include "backend/neuron/codegen/activation_warmup.h"
#include "backend/neuron/codegen/cast_folding.h"
#include "backend/neuron/codegen/lowering.h"
#include "backend/neuron/codegen/pointwise_lowering.h"
#include "sim/base/error.h"
#include "sim/kernel/builder.h"
#include "sim/memory/onchip_layout.h"

namespace nsim {
namespace neuron {
namespace codegen {
namespace {

// What one generation attempt may use; shrunk between attempts.
struct Budget {
  std::vector<int64_t> col_cap;  // per stage
  std::set<ValueId> demoted;     // crossing values forced to HBM scratch
};

bool IsLeaf(const StagePlan& p, ValueId v) { return p.stage_of[v] < 0; }

void CheckDtypes(const Graph& g) {
  for (const Node& n : g.nodes()) {
    if (n.kind == OpKind::kInput || n.kind == OpKind::kConstant || n.kind == OpKind::kView) continue;
    if (n.kind == OpKind::kIota) {  // GpSimd writes the values as floats: an integer result is a cast of them
      if (!IsFloat(n.dtype)) throw SimError(std::string("codegen: 'iota' does not support dtype ") + DTypeName(n.dtype) + " on the device");
      continue;
    }
    const DType in = g.node(n.inputs[0]).dtype;
    if (n.kind == OpKind::kMatmul) {
      for (ValueId v : n.inputs) {
        if (g.node(v).dtype == DType::kI32) {
          throw SimError(std::string("codegen: 'matmul' does not support dtype i32 on the device"));
        }
      }
    }
    CheckSupported(n, in);
  }
}

DType TileDtype(const Lowering& L, ValueId v) {
  const Node& n = L.graph.node(v);
  if (n.kind == OpKind::kView) return L.info[L.Root(v)].tile_dtype;
  // Values other stages or a matmul read are materialised in their dtype
  // (IsCrossing covers matmul users), as a fused compiler would.
  if (L.options.round_intermediates || IsCrossing(L.graph, L.plan, v)) return n.dtype;
  return DType::kF32;
}

std::vector<int64_t> Contiguous(const std::vector<int64_t>& sizes) {
  return TensorDesc::Contiguous(DType::kF32, sizes).strides;
}

// Strides over `space` of everything a pointwise stage reads from or
// writes to HBM: row dims merge only where all of them allow.
std::vector<std::vector<int64_t>> StageOperandStrides(const Lowering& L, int s) {
  const Stage& st = L.plan.stages[s];
  std::vector<std::vector<int64_t>> out;
  auto add = [&](const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides) {
    out.push_back(BroadcastStrides(sizes, strides, st.space.empty() ? std::vector<int64_t>{1} : st.space));
  };
  for (ValueId v : st.nodes) {
    for (ValueId in : L.graph.node(v).inputs) {
      if (L.plan.stage_of[in] == s) continue;
      const Node& n = L.graph.node(in);
      const Node& root = L.graph.node(L.Root(in));
      if (root.kind == OpKind::kInput) {
        add(n.sizes, ViewDesc(root.desc, n.sizes).strides);
      } else if (root.kind != OpKind::kConstant) {
        add(n.sizes, Contiguous(n.sizes));
      }
    }
    for (int o : L.info[v].outputs) {
      const GraphOutput& go = L.graph.outputs()[o];
      add(L.graph.node(v).sizes, ViewDesc(go.desc, L.graph.node(v).sizes).strides);
    }
  }
  return out;
}

void TileStages(Lowering& L, const Budget& b) {
  for (size_t s = 0; s < L.plan.stages.size(); ++s) {
    const Stage& st = L.plan.stages[s];
    if (st.kind == StageKind::kMatmul) {
      const int64_t rows = std::min(L.MaxRows(), L.config.tensor.cols);
      L.tiling.push_back(TileSpace(st.space, {}, rows, b.col_cap[s], false, true));
    } else {
      const int64_t cols = st.space.empty() ? 1 : st.space.back();
      L.tiling.push_back(TileSpace(st.space, StageOperandStrides(L, static_cast<int>(s)), L.MaxRows(),
                                   st.has_reduction ? cols : b.col_cap[s], true));
    }
  }
}

// The row blocks a matmul reads its b operand in: K chunks of each batch.
std::vector<std::pair<int64_t, int64_t>> KBlocks(const Lowering& L, ValueId mm) {
  const std::vector<int64_t>& sb = L.graph.node(L.graph.node(mm).inputs[1]).sizes;
  const int64_t K = sb[sb.size() - 2];
  const int64_t kc = std::min({K, L.config.tensor.rows, kMaxPartitions});
  int64_t batches = 1;
  for (size_t d = 0; d + 2 < sb.size(); ++d) batches *= sb[d];
  std::vector<std::pair<int64_t, int64_t>> blocks;
  for (int64_t bi = 0; bi < batches; ++bi) {
    for (int64_t k0 = 0; k0 < K; k0 += kc) blocks.push_back({bi * K + k0, std::min(kc, K - k0)});
  }
  return blocks;
}

// Whether every reader of crossing value v can use its producer's SBUF row
// blocks as they are (same rows on the same partitions, no broadcast).
bool CanStayInSbuf(const Lowering& L, ValueId v) {
  const int p = L.plan.stage_of[v];
  const std::vector<int64_t>& sizes = L.graph.node(v).sizes;
  const std::vector<int64_t>& space = L.plan.stages[p].space;
  auto same_rows = [&](const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end() - 1, b.begin());
  };
  const bool column = !sizes.empty() && sizes.back() == 1;
  if (sizes.empty() || !(sizes == space || (column && same_rows(sizes, space)))) return false;
  const auto blocks = L.tiling[p].RowBlocks();
  for (ValueId u : L.graph.Users(v)) {
    const Node& un = L.graph.node(u);
    const int c = L.plan.stage_of[u];
    if (un.kind == OpKind::kView) return false;
    if (c == p) continue;
    if (un.kind == OpKind::kMatmul) {
      if (column) return false;
      if (un.inputs[0] == v && L.tiling[c].RowBlocks() != blocks) return false;
      if (un.inputs[1] == v && KBlocks(L, u) != blocks) return false;
      continue;
    }
    const std::vector<int64_t>& cs = L.plan.stages[c].space;
    if (!(sizes == cs || (column && same_rows(sizes, cs)))) return false;
    if (L.tiling[c].RowBlocks() != blocks) return false;
  }
  return true;
}

void PlaceCrossingValues(Lowering& L, const Budget& b) {
  for (ValueId v = 0; v < static_cast<ValueId>(L.graph.nodes().size()); ++v) {
    const Node& n = L.graph.node(v);
    if (IsLeaf(L.plan, v) || n.kind == OpKind::kView || !IsCrossing(L.graph, L.plan, v)) continue;
    ValueInfo& vi = L.info[v];
    if (!b.demoted.count(v) && CanStayInSbuf(L, v)) {
      vi.where = Where::kResident;
      vi.resident_cols = n.sizes.back();
      int i = 0;
      for (const auto& [row, parts] : L.tiling[L.plan.stage_of[v]].RowBlocks()) {
        vi.resident[row] = L.Sbuf("res_v" + std::to_string(v) + "_r" + std::to_string(i++), vi.tile_dtype, parts,
                                  vi.resident_cols);
      }
    } else {
      vi.where = Where::kScratch;
      int64_t numel = 1;
      for (int64_t s : n.sizes) numel *= s;
      vi.scratch = L.Hbm("_scratch_v" + std::to_string(v), vi.tile_dtype, numel);
    }
  }
}

void Build(Lowering& L, const Budget& b, GeneratedKernel* out) {
  const Graph& g = L.graph;
  for (size_t o = 0; o < g.outputs().size(); ++o) L.info[g.outputs()[o].value].outputs.push_back(static_cast<int>(o));
  for (ValueId v = 0; v < static_cast<ValueId>(g.nodes().size()); ++v) {
    const Node& n = g.node(v);
    L.info[v].tile_dtype = TileDtype(L, v);
    if (n.kind == OpKind::kInput) {
      L.input_tensor[v] = L.Hbm(n.name, n.desc.dtype, n.desc.Extent());
      out->inputs.push_back(n.name);
    }
  }
  for (const GraphOutput& o : g.outputs()) {
    L.output_tensor.push_back(L.Hbm(o.name, o.desc.dtype, o.desc.Extent()));
    out->outputs.push_back(o.name);
  }
  TileStages(L, b);
  PlaceCrossingValues(L, b);
  for (size_t s = 0; s < L.plan.stages.size(); ++s) EmitStage(L, static_cast<int>(s));
}

// Gives the next attempt less SBUF: first drop the largest resident value
// to HBM scratch, then halve the column tiles of every stage that can.
bool Shrink(const Lowering& L, Budget* b) {
  ValueId largest = -1;
  int64_t largest_bytes = 0;
  for (ValueId v = 0; v < static_cast<ValueId>(L.info.size()); ++v) {
    const ValueInfo& vi = L.info[v];
    if (vi.where != Where::kResident) continue;
    const int64_t bytes = static_cast<int64_t>(vi.resident.size()) * vi.resident_cols * DTypeSize(vi.tile_dtype);
    if (bytes > largest_bytes) largest = v, largest_bytes = bytes;
  }
  if (largest >= 0) {
    b->demoted.insert(largest);
    return true;
  }
  bool shrunk = false;
  for (size_t s = 0; s < L.plan.stages.size(); ++s) {
    const Stage& st = L.plan.stages[s];
    if (st.kind == StageKind::kPointwise && st.has_reduction) continue;
    if (L.tiling[s].tile_cols > 1) {
      b->col_cap[s] = L.tiling[s].tile_cols / 2;
      shrunk = true;
    }
  }
  return shrunk;
}

// Outputs that are graph leaves get a same-dtype cast, so that a stage
// stores them (a pure copy: the cast aliases its loaded tile).
Graph WithComputedOutputs(const Graph& g, const StagePlan& p) {
  bool changed = false;
  for (const GraphOutput& o : g.outputs()) changed |= IsLeaf(p, o.value);
  if (!changed) return g;
  Graph rebuilt;
  // Re-add the nodes, then the outputs, casting leaf outputs.
  for (const Node& n : g.nodes()) {
    switch (n.kind) {
      case OpKind::kInput: rebuilt.Input(n.name, n.desc); break;
      case OpKind::kConstant: rebuilt.Constant(n.scalar, n.dtype); break;
      case OpKind::kView: rebuilt.View(n.inputs[0], n.sizes); break;
      case OpKind::kIota: rebuilt.Iota(n.sizes, n.scalar, n.step, n.dtype); break;
      case OpKind::kMatmul: rebuilt.Matmul(n.inputs[0], n.inputs[1], n.dtype); break;
      case OpKind::kPowScalar: rebuilt.Pow(n.inputs[0], n.scalar, n.dtype); break;
      case OpKind::kCast: rebuilt.Cast(n.inputs[0], n.dtype); break;
      case OpKind::kWhere: rebuilt.Where(n.inputs[0], n.inputs[1], n.inputs[2], n.dtype); break;
      default:
        if (IsBinary(n.kind)) rebuilt.Binary(n.kind, n.inputs[0], n.inputs[1], n.dtype, n.scalar);
        else if (IsRowReduce(n.kind)) rebuilt.RowReduce(n.kind, n.inputs[0], n.dtype);
        else if (IsRowScan(n.kind)) rebuilt.RowScan(n.kind, n.inputs[0], n.dtype);
        else rebuilt.Unary(n.kind, n.inputs[0], n.dtype);
    }
  }
  for (const GraphOutput& o : g.outputs()) {
    const ValueId v = IsLeaf(p, o.value) ? rebuilt.Cast(o.value, g.node(o.value).dtype) : o.value;
    rebuilt.Output(v, o.name, o.desc);
  }
  return rebuilt;
}

}  // namespace

GeneratedKernel GenerateKernel(const Graph& graph_in, const HardwareConfig& config, const GenerateOptions& options) {
  if (graph_in.outputs().empty()) throw SimError("codegen: the graph has no outputs");
  if (!IsIdentifier(options.kernel_name)) throw SimError("codegen: kernel name '" + options.kernel_name + "' is not an identifier");
  CheckDtypes(graph_in);
  const Graph folded = FoldCasts(graph_in);
  const Graph graph = WithComputedOutputs(folded, PlanStages(folded));
  const StagePlan plan = PlanStages(graph);
  Budget budget;
  for (const Stage& st : plan.stages) {
    int64_t cap = st.space.empty() ? 1 : st.space.back();
    if (st.kind == StageKind::kMatmul) {
      cap = std::min({cap, config.tensor.moving_free_max, config.memory.psum_bank_bytes / 4});
    }
    if (options.max_tile_cols > 0) cap = std::min(cap, options.max_tile_cols);
    budget.col_cap.push_back(std::max<int64_t>(1, cap));
  }
  while (true) {
    Lowering L(graph, plan, config, options);
    GeneratedKernel out;
    Build(L, budget, &out);
    const OnChipLayout layout = LayOut(L.kernel, config.memory.psum_bank_bytes);  // as the loader places them
    const int64_t sbuf = layout.sbuf_used();
    const int64_t psum = layout.psum_used();
    const bool fits = sbuf <= config.memory.sbuf_bytes_per_partition &&
                      psum <= config.memory.psum_banks * config.memory.psum_bank_bytes;
    if (fits) {
      if (static_cast<int64_t>(L.kernel.semaphores.size()) > config.kernel.semaphores) {
        throw SimError("codegen: kernel '" + options.kernel_name + "' needs " +
                       std::to_string(L.kernel.semaphores.size()) + " semaphores, " + config.name + " has " +
                       std::to_string(config.kernel.semaphores) + " (split the graph)");
      }
      out.kernel = std::move(L.kernel);
      PrewarmActivationTable(&out.kernel);
      return out;
    }
    if (!Shrink(L, &budget)) {
      throw SimError("codegen: kernel '" + options.kernel_name + "' does not fit on " + config.name + ": it needs " +
                     std::to_string(sbuf) + " bytes of SBUF per partition (has " +
                     std::to_string(config.memory.sbuf_bytes_per_partition) + ") and " + std::to_string(psum) +
                     " bytes of PSUM (has " +
                     std::to_string(config.memory.psum_banks * config.memory.psum_bank_bytes) +
                     ") even with the smallest tiles (a row reduction needs its whole row in SBUF)");
    }
  }
}

}  // namespace codegen
}  // namespace neuron
}  // namespace nsim
