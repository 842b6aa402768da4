#include "backend/neuron/codegen/lowering.h"

#include <algorithm>

#include "sim/base/error.h"
#include "sim/kernel/builder.h"

namespace nsim {
namespace neuron {
namespace codegen {

Lowering::Lowering(const Graph& g, const StagePlan& p, const HardwareConfig& c, const GenerateOptions& o)
    : graph(g), plan(p), config(c), options(o) {
  kernel.name = o.kernel_name;
  info.resize(g.nodes().size());
  input_tensor.assign(g.nodes().size(), -1);
}

int Lowering::Sbuf(const std::string& name, DType dtype, int64_t partitions, int64_t free) {
  return AddTensor(kernel, name, MemSpace::kSbuf, dtype, {partitions, std::max<int64_t>(1, free)});
}

int Lowering::Psum(const std::string& name, int64_t partitions, int64_t free) {
  return AddTensor(kernel, name, MemSpace::kPsum, DType::kF32, {partitions, std::max<int64_t>(1, free)});
}

int Lowering::Hbm(const std::string& name, DType dtype, int64_t elements) {
  return AddTensor(kernel, name, MemSpace::kHbm, dtype, {std::max<int64_t>(1, elements)});
}

int Lowering::NextQueue() {
  const int q = next_queue;
  next_queue = (next_queue + 1) % static_cast<int>(config.dma.queues_per_engine);
  return q;
}

ValueId Lowering::Root(ValueId v) const {
  while (graph.node(v).kind == OpKind::kView) v = graph.node(v).inputs[0];
  return v;
}

Source Lowering::SourceOf(ValueId v) const {
  const Node& n = graph.node(v);
  Source s;
  if (n.kind == OpKind::kView) {
    s = SourceOf(n.inputs[0]);
    if (s.resident) throw SimError("codegen: internal: a view of an SBUF-resident value");
    s.desc = ViewDesc(s.desc, n.sizes);
    return s;
  }
  if (n.kind == OpKind::kInput) {
    s.tensor = input_tensor[v];
    s.desc = n.desc;
    return s;
  }
  const ValueInfo& vi = info[v];
  if (vi.where == Where::kResident) {
    s.resident = true;
    s.root = v;
    return s;
  }
  if (vi.where != Where::kScratch) {
    throw SimError("codegen: internal: value %" + std::to_string(v) + " is not available outside its stage");
  }
  s.tensor = vi.scratch;
  s.desc = TensorDesc::Contiguous(vi.tile_dtype, n.sizes);
  return s;
}

bool Lowering::IsColumn(ValueId v, const std::vector<int64_t>& space) const {
  const std::vector<int64_t>& sizes = graph.node(v).sizes;
  return space.empty() || sizes.empty() || sizes.back() == 1;
}

int64_t Lowering::MaxRows() const {
  int64_t rows = std::min<int64_t>(config.memory.partitions, kMaxPartitions);
  if (options.max_tile_rows > 0) rows = std::min(rows, options.max_tile_rows);
  return rows;
}

TensorDesc ViewDesc(const TensorDesc& desc, const std::vector<int64_t>& sizes) {
  std::vector<int64_t> strides;  // of desc's non-1 dims, in order
  for (size_t i = 0; i < desc.sizes.size(); ++i) {
    if (desc.sizes[i] != 1) strides.push_back(desc.strides[i]);
  }
  TensorDesc out = desc;
  out.sizes = sizes;
  out.strides.assign(sizes.size(), 0);
  size_t next = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] != 1) out.strides[i] = strides.at(next++);
  }
  return out;
}

}  // namespace codegen
}  // namespace neuron
}  // namespace nsim
