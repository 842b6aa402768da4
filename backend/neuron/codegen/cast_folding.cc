#include "backend/neuron/codegen/cast_folding.h"

#include <vector>

namespace nsim {
namespace neuron {
namespace codegen {
namespace {

// Ops that compute in fp32 from any float operand and round on write
// (where selects: reading a narrower operand and rounding once is exact).
bool ComputesInF32(OpKind k) {
  return (IsBinary(k) || IsUnary(k) || IsRowReduce(k) || k == OpKind::kWhere) && k != OpKind::kCast;
}

bool ReadOnlyByComputes(const Graph& g, ValueId v) {
  for (ValueId u : g.Users(v)) {
    if (!ComputesInF32(g.node(u).kind)) return false;
  }
  return true;
}

// The node `v` folds into (itself when it stays), and its dtype after folding.
struct Fold {
  std::vector<ValueId> into;
  std::vector<DType> dtype;
};

Fold PlanFolds(const Graph& g) {
  const size_t n = g.nodes().size();
  Fold f;
  std::vector<bool> output(n, false);
  for (const GraphOutput& o : g.outputs()) output[o.value] = true;
  for (size_t v = 0; v < n; ++v) {
    f.into.push_back(static_cast<ValueId>(v));
    f.dtype.push_back(g.node(static_cast<ValueId>(v)).dtype);
  }
  for (size_t v = 0; v < n; ++v) {
    const Node& c = g.node(static_cast<ValueId>(v));
    if (c.kind != OpKind::kCast) continue;
    const ValueId a = c.inputs[0];
    const Node& in = g.node(a);
    if (IsFloat16Bit(in.dtype) && c.dtype == DType::kF32 && !output[v] &&
        ReadOnlyByComputes(g, static_cast<ValueId>(v))) {
      f.into[v] = a;
    } else if (in.dtype == DType::kF32 && IsFloat16Bit(c.dtype) && ComputesInF32(in.kind) &&
               !IsRowReduce(in.kind) && !output[a] &&
               g.Users(a).size() == 1) {
      f.into[v] = a;
      f.dtype[a] = c.dtype;
    }
  }
  return f;
}

}  // namespace

Graph FoldCasts(const Graph& g) {
  const Fold f = PlanFolds(g);
  Graph out;
  std::vector<ValueId> id(g.nodes().size(), -1);  // old value -> new value
  for (size_t v = 0; v < g.nodes().size(); ++v) {
    if (f.into[v] != static_cast<ValueId>(v)) {
      id[v] = id[f.into[v]];  // folded into an earlier node
      continue;
    }
    const Node& n = g.node(static_cast<ValueId>(v));
    std::vector<ValueId> in;
    for (ValueId u : n.inputs) in.push_back(id[u]);
    const DType t = f.dtype[v];
    switch (n.kind) {
      case OpKind::kInput: id[v] = out.Input(n.name, n.desc); break;
      case OpKind::kConstant: id[v] = out.Constant(n.scalar, t); break;
      case OpKind::kView: id[v] = out.View(in[0], n.sizes); break;
      case OpKind::kIota: id[v] = out.Iota(n.sizes, n.scalar, n.step, t); break;
      case OpKind::kMatmul: id[v] = out.Matmul(in[0], in[1], t); break;
      case OpKind::kPowScalar: id[v] = out.Pow(in[0], n.scalar, t); break;
      case OpKind::kCast: id[v] = out.Cast(in[0], t); break;
      case OpKind::kWhere: id[v] = out.Where(in[0], in[1], in[2], t); break;
      default:
        if (IsBinary(n.kind)) id[v] = out.Binary(n.kind, in[0], in[1], t, n.scalar);
        else if (IsRowReduce(n.kind)) id[v] = out.RowReduce(n.kind, in[0], t);
        else if (IsRowScan(n.kind)) id[v] = out.RowScan(n.kind, in[0], t);
        else id[v] = out.Unary(n.kind, in[0], t);
    }
  }
  for (const GraphOutput& o : g.outputs()) out.Output(id[o.value], o.name, o.desc);
  return out;
}

}  // namespace codegen
}  // namespace neuron
}  // namespace nsim
