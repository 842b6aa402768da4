#pragma once
// ScalarE loads an activation table the first time a function needs one
// (scalar.table_load), and a kernel's first activation usually waits for
// its input DMA anyway. Compilers hoist that load to the start of the
// kernel; so does this pass: for the first activation whose function needs
// a table, it puts an activation of the same function on
// a 1-element scratch tile at the head of the ScalarE stream, so the table
// is loaded while the first DMA is in flight. Call it on a finished kernel.
#include "sim/kernel/kernel.h"

namespace nsim {
namespace neuron {
namespace codegen {

void PrewarmActivationTable(Kernel* kernel);

}  // namespace codegen
}  // namespace neuron
}  // namespace nsim
