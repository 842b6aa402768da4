#include "backend/compile/region_cache.h"

#include <atomic>

#include "backend/compile/graph_printer.h"
#include "backend/compile/host_costs.h"

namespace nsim {
namespace compiler {
namespace {

std::atomic<int> g_next_frame_id{0};

}  // namespace

void ResetFrameIds() { g_next_frame_id = 0; }

std::shared_ptr<const CompiledRegion> RegionCache::Get(int position, Graph graph,
                                                       const CompilerBackend& backend) {
  if (position >= static_cast<int>(positions_.size())) positions_.resize(position + 1);
  Position& p = positions_[position];
  const std::string key = Fingerprint(graph);
  auto it = p.by_fingerprint.find(key);
  if (it != p.by_fingerprint.end()) return it->second;

  const HostCosts costs = HostCosts::For(GraphDevice(graph));
  ChargeHost(costs.trace_op * static_cast<Picos>(graph.calls().size()) + costs.graph_compile);
  if (p.frame_id < 0) p.frame_id = g_next_frame_id++;
  const int recompile_id = static_cast<int>(p.by_fingerprint.size());
  std::unique_ptr<RegionExecutor> executor = backend.Compile(
      graph, "compiled_region_" + std::to_string(p.frame_id) + "_" + std::to_string(recompile_id));
  auto region = std::make_shared<const CompiledRegion>(p.frame_id, recompile_id, std::move(graph),
                                                       std::move(executor), costs);
  p.by_fingerprint.emplace(key, region);
  regions_.push_back(region);
  return region;
}

}  // namespace compiler
}  // namespace nsim
