#include "backend/neuron/codegen/activation_warmup.h"

#include "sim/kernel/builder.h"

namespace nsim {
namespace neuron {
namespace codegen {
namespace {

// identity, square and relu are in every table (set 0 of
// sim/isa/activation.cc): they never trigger a load.
bool NeedsTable(ActFunc f) { return f != ActFunc::kIdentity && f != ActFunc::kSquare && f != ActFunc::kRelu; }

}  // namespace

void PrewarmActivationTable(Kernel* k) {
  for (const InstructionView& in : k->stream(EngineId::kScalar)) {
    if (in.opcode != Opcode::kActivation || !NeedsTable(in.func)) continue;
    const ActFunc func = in.func;
    const int t = AddTensor(*k, "act_table_warmup", MemSpace::kSbuf, DType::kF32, {1, 1});
    Instruction warm = MakeInstruction(EngineId::kScalar, Opcode::kActivation);
    warm.dst = warm.src0 = Full(*k, t);
    warm.func = func;
    k->Insert(static_cast<int>(EngineId::kScalar), 0, warm);
    return;
  }
}

}  // namespace codegen
}  // namespace neuron
}  // namespace nsim
