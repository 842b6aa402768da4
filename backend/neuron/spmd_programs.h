#pragma once
// One kernel per program of an SPMD launch on a logical core's physical
// cores (codegen/program_split.h makes them): the chip model and the runtime
// require every program to declare the same HBM tensors, alike, and share
// unbound HBM tensors (scratch) between programs. MakeProgramsAlike
// reconciles kernels generated separately:
// - a bound tensor (an operand) is declared with the largest extent any
//   program declares (each program's views stay inside its own);
// - an unbound one (a program's scratch) gets the program's own name
//   ("<name>_p<i>"), so programs never write each other's scratch;
// - each kernel declares every other program's HBM tensors too (unused).
#include <set>
#include <string>
#include <vector>

#include "sim/kernel/kernel.h"

namespace nsim {
namespace neuron {

// Throws SimError when a bound tensor's dtype differs between programs.
void MakeProgramsAlike(std::vector<Kernel>& programs, const std::set<std::string>& bound);

}  // namespace neuron
}  // namespace nsim
