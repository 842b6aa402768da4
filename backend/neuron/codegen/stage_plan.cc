#include "backend/neuron/codegen/stage_plan.h"

#include <algorithm>

namespace nsim {
namespace neuron {
namespace codegen {
namespace {

bool Broadcasts(const std::vector<int64_t>& a, const std::vector<int64_t>& b, std::vector<int64_t>* out) {
  const size_t n = std::max(a.size(), b.size());
  out->assign(n, 1);
  for (size_t i = 0; i < n; ++i) {
    const int64_t x = i < n - a.size() ? 1 : a[i - (n - a.size())];
    const int64_t y = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (x != y && x != 1 && y != 1) return false;
    (*out)[i] = x == 1 ? y : x;
  }
  return true;
}

// The space a node needs: a reduction iterates over its input's shape.
const std::vector<int64_t>& NeededSpace(const Graph& g, const Node& n) {
  return IsRowReduce(n.kind) ? g.node(n.inputs[0]).sizes : n.sizes;
}

bool TryJoin(const Graph& g, const Node& n, Stage* s) {
  const std::vector<int64_t>& need = NeededSpace(g, n);
  if (s->kind == StageKind::kMatmul) return !IsRowReduce(n.kind) && n.sizes == s->space;
  std::vector<int64_t> grown;
  if (!Broadcasts(s->space, need, &grown)) return false;
  const bool whole_rows = IsRowReduce(n.kind) || IsRowScan(n.kind);
  if (whole_rows && grown != need) return false;  // must reduce (scan) the space's last dim
  if (grown != s->space && s->has_reduction) return false;  // would change what was reduced
  s->space = grown;
  s->has_reduction |= whole_rows;
  return true;
}

}  // namespace

StagePlan PlanStages(const Graph& g) {
  StagePlan p;
  p.stage_of.assign(g.nodes().size(), -1);
  for (ValueId v = 0; v < static_cast<ValueId>(g.nodes().size()); ++v) {
    const Node& n = g.node(v);
    if (n.kind == OpKind::kInput || n.kind == OpKind::kConstant) continue;
    int latest = -1;
    for (ValueId in : n.inputs) latest = std::max(latest, p.stage_of[in]);
    // An iota reads nothing: it is computed in the latest stage its shape fits.
    if (n.kind == OpKind::kIota && !p.stages.empty() && p.stages.back().kind == StageKind::kPointwise) {
      latest = static_cast<int>(p.stages.size()) - 1;
    }
    if (n.kind == OpKind::kView) {  // an alias: lives where its input does
      p.stage_of[v] = latest;
      if (latest >= 0) p.stages[latest].nodes.push_back(v);
      continue;
    }
    if (n.kind != OpKind::kMatmul && latest >= 0 && TryJoin(g, n, &p.stages[latest])) {
      p.stage_of[v] = latest;
      p.stages[latest].nodes.push_back(v);
      continue;
    }
    Stage s;
    s.kind = n.kind == OpKind::kMatmul ? StageKind::kMatmul : StageKind::kPointwise;
    s.nodes = {v};
    s.space = NeededSpace(g, n);
    s.has_reduction = IsRowReduce(n.kind) || IsRowScan(n.kind);
    p.stage_of[v] = static_cast<int>(p.stages.size());
    p.stages.push_back(std::move(s));
  }
  return p;
}

bool IsCrossing(const Graph& g, const StagePlan& p, ValueId v) {
  for (ValueId u : g.Users(v)) {
    if (g.node(u).kind == OpKind::kMatmul || p.stage_of[u] != p.stage_of[v]) return true;
    if (g.node(u).kind == OpKind::kView && IsCrossing(g, p, u)) return true;
  }
  return false;
}

}  // namespace codegen
}  // namespace neuron
}  // namespace nsim
