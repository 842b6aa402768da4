#pragma once
// RegionCache: the compiled regions of one compiled function, by position
// (its first region, the one after its first graph break, ...) and by graph.
// A graph seen before at that position is a hit; a new one is traced and
// compiled (charged to the host: host.trace_op per op + host.graph_compile)
// and becomes that position's next recompile. Positions get frame ids from
// one process-wide counter in the order they are first compiled, as
// TorchDynamo numbers frames.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "backend/compile/compiled_region.h"
#include "backend/compile/compiler_backend.h"

namespace nsim {
namespace compiler {

class RegionCache {
 public:
  std::shared_ptr<const CompiledRegion> Get(int position, Graph graph, const CompilerBackend& backend);
  // Every region compiled so far, in compilation order.
  const std::vector<std::shared_ptr<const CompiledRegion>>& regions() const { return regions_; }

 private:
  struct Position {
    int frame_id = -1;
    std::map<std::string, std::shared_ptr<const CompiledRegion>> by_fingerprint;
  };
  std::vector<Position> positions_;
  std::vector<std::shared_ptr<const CompiledRegion>> regions_;
};

// Restarts frame numbering at 0 for functions compiled from now on (what
// torch._dynamo.reset() does), so tests can expect "Torch-Compiled Region: 0/0".
void ResetFrameIds();

}  // namespace compiler
}  // namespace nsim
