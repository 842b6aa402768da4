#include "backend/neuron/spmd_programs.h"

#include <map>

#include "sim/base/error.h"

namespace nsim {
namespace neuron {

void MakeProgramsAlike(std::vector<Kernel>& programs, const std::set<std::string>& bound) {
  std::map<std::string, TensorDecl> hbm;  // the declaration every program gets
  for (size_t p = 0; p < programs.size(); ++p) {
    for (TensorDecl& t : programs[p].tensors) {
      if (t.space != MemSpace::kHbm) continue;
      if (bound.count(t.name) == 0) t.name += "_p" + std::to_string(p);
      auto [it, added] = hbm.emplace(t.name, t);
      if (added) continue;
      if (it->second.dtype != t.dtype || it->second.shape.size() != 1 || t.shape.size() != 1) {
        throw SimError("SPMD programs: HBM tensor '" + t.name + "' is declared differently by program " +
                       std::to_string(p) + " ('" + programs[p].name + "')");
      }
      it->second.shape[0] = std::max(it->second.shape[0], t.shape[0]);
    }
  }
  for (Kernel& k : programs) {
    for (TensorDecl& t : k.tensors) {
      if (t.space == MemSpace::kHbm) t.shape = hbm.at(t.name).shape;
    }
    for (const auto& [name, decl] : hbm) {
      if (k.FindTensor(name) >= 0) continue;
      TensorDecl unused = decl;
      unused.init = TensorInit{};
      k.tensors.push_back(unused);
    }
  }
}

}  // namespace neuron
}  // namespace nsim
