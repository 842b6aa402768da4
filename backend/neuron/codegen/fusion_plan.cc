#include "backend/neuron/codegen/fusion_plan.h"

#include "backend/neuron/codegen/pointwise_lowering.h"

namespace nsim {
namespace neuron {
namespace codegen {
namespace {

bool IsImm(const Lowering& L, ValueId v) { return L.graph.node(L.Root(v)).kind == OpKind::kConstant; }

// p can disappear into its only user's activation without losing a rounding.
bool Foldable(const Lowering& L, const Stage& st, int s, ValueId p, ValueId user, bool allow_add) {
  const Node& n = L.graph.node(p);
  const ValueInfo& vi = L.info[p];
  const bool op_ok = n.kind == OpKind::kMul ||
                     (allow_add && (n.kind == OpKind::kAdd || n.kind == OpKind::kSub) && n.scalar == 1.0);
  return op_ok && L.plan.stage_of[p] == s && vi.where == Where::kTile && vi.outputs.empty() &&
         vi.tile_dtype == DType::kF32 && L.graph.Users(p) == std::vector<ValueId>{user} &&
         ScalarSide(L, st, n) >= 0;
}

}  // namespace

int ScalarSide(const Lowering& L, const Stage& stage, const Node& p) {
  auto scalar_like = [&](ValueId v) { return IsImm(L, v) || L.IsColumn(v, stage.space); };
  if (scalar_like(p.inputs[1]) && !IsImm(L, p.inputs[0])) return 1;
  if (p.kind != OpKind::kSub && scalar_like(p.inputs[0]) && !IsImm(L, p.inputs[1])) return 0;
  return -1;
}

FusionPlan PlanFusions(const Lowering& L, int s) {
  const Stage& st = L.plan.stages[s];
  FusionPlan plan;
  for (ValueId u : st.nodes) {
    const Node& n = L.graph.node(u);
    ActFunc f;
    if (DirectActivation(n.kind, &f) && Foldable(L, st, s, n.inputs[0], u, true)) {
      const ValueId p = n.inputs[0];
      plan.folded.insert(p);
      const Node& pn = L.graph.node(p);
      const ValueId q = pn.inputs[1 - ScalarSide(L, st, pn)];
      if (pn.kind != OpKind::kMul && Foldable(L, st, s, q, p, false)) plan.folded.insert(q);
    }
    if (n.kind == OpKind::kRowSum || n.kind == OpKind::kRowMean) {
      const ValueId e = n.inputs[0];
      if (L.plan.stage_of[e] == s && DirectActivation(L.graph.node(e).kind, &f) && !L.IsColumn(e, st.space) &&
          L.info[e].tile_dtype == DType::kF32 && !plan.acc_into.count(e)) {
        plan.acc_into[e] = u;
      }
    }
  }
  return plan;
}

}  // namespace codegen
}  // namespace neuron
}  // namespace nsim
