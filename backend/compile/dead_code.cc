#include "backend/compile/dead_code.h"

namespace nsim {
namespace compiler {

Graph EliminateDeadCode(const Graph& g) {
  std::vector<bool> live(g.values().size(), false);
  for (int v : g.outputs()) live[v] = true;
  std::vector<bool> keep(g.calls().size(), false);
  for (size_t c = g.calls().size(); c-- > 0;) {
    const Graph::Call& call = g.calls()[c];
    for (int v : call.outputs) keep[c] = keep[c] || live[v];
    if (!keep[c]) continue;
    for (const Arg& a : call.args) {
      if (a.is_value()) live[a.value] = true;
    }
  }
  Graph out;
  std::vector<int> remap(g.values().size(), -1);
  for (const Graph::Placeholder& p : g.placeholders()) {
    remap[p.value] = out.AddPlaceholder(g.value(p.value).name, g.value(p.value).meta);
  }
  for (size_t c = 0; c < g.calls().size(); ++c) {
    if (!keep[c]) continue;
    const Graph::Call& call = g.calls()[c];
    std::vector<Arg> args = call.args;
    for (Arg& a : args) {
      if (a.is_value()) a.value = remap[a.value];
    }
    std::vector<ValueMeta> metas;
    for (int v : call.outputs) metas.push_back(g.value(v).meta);
    const std::vector<int> values = out.AddCall(call.op, std::move(args), std::move(metas),
                                                g.value(call.outputs[0]).name);
    for (size_t i = 0; i < values.size(); ++i) remap[call.outputs[i]] = values[i];
  }
  std::vector<int> outputs;
  for (int v : g.outputs()) outputs.push_back(remap[v]);
  out.SetOutputs(std::move(outputs));
  return out;
}

}  // namespace compiler
}  // namespace nsim
