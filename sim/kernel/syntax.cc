#include "sim/kernel/syntax.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace nsim {
namespace kernel_syntax {
namespace {

using I = Instruction;
// The FieldOf of Instruction::name.
#define NSIM_FIELD(name)                                                           \
  FieldOf<decltype(I::name)> {                                                     \
    &I::name, [](const InstructionView& v) -> const decltype(I::name)& { return v.name; } \
  }

// Indexed by Opcode.
const std::vector<OpcodeSyntax>& Table() {
  static const std::vector<OpcodeSyntax> table = {
      {"DST, SRC", {{"queue", NSIM_FIELD(queue)}}},                                  // dma_copy
      {"DST, STATIONARY, MOVING", {{"accumulate", NSIM_FIELD(accumulate)}}},         // matmul
      {"DST, SRC", {}},                                                      // transpose
      {"DST, SRC0, SRC1", {{"op", NSIM_FIELD(alu0), true}}},                         // tensor_tensor
      {"DST, SRC",                                                           // tensor_scalar
       {{"op0", NSIM_FIELD(alu0), true},
        {"scalar0", NSIM_FIELD(scalar0), true},
        {"op1", NSIM_FIELD(alu1), false, "scalar1"},
        {"scalar1", NSIM_FIELD(scalar1), false, "op1"}}},
      {"DST, SRC", {{"op", NSIM_FIELD(reduce), true}, {"negate", NSIM_FIELD(negate)}}},  // tensor_reduce
      {"DST, SRC", {}},                                                      // tensor_copy
      {"DST", {{"value", NSIM_FIELD(scalar0), true}}},                               // memset
      {"DST, SRC",                                                           // activation
       {{"func", NSIM_FIELD(func), true}, {"scale", NSIM_FIELD(scalar0)}, {"bias", NSIM_FIELD(scalar1)}, {"acc", NSIM_FIELD(acc)}}},
      {"DST",                                                                // iota
       {{"base", NSIM_FIELD(base)}, {"partition_step", NSIM_FIELD(partition_step)}, {"free_step", NSIM_FIELD(free_step)}}},
      {"DST, SRC", {{"op", NSIM_FIELD(reduce), true}, {"broadcast", NSIM_FIELD(broadcast)}}},  // partition_reduce
      {"", {}},                                                              // wait
      {"DST, DATA0, DATA1",                                                  // tensor_tensor_scan
       {{"op0", NSIM_FIELD(alu0), true}, {"op1", NSIM_FIELD(alu1), true}, {"initial", NSIM_FIELD(scalar0), true}}},
      {"DST, SRC0, SRC1",                                                    // scalar_tensor_tensor
       {{"op0", NSIM_FIELD(alu0), true}, {"scalar0", NSIM_FIELD(scalar0), true}, {"op1", NSIM_FIELD(alu1), true}}},
      {"DST, SRC",                                                           // tensor_scalar_reduce
       {{"op0", NSIM_FIELD(alu0), true},
        {"scalar0", NSIM_FIELD(scalar0), true},
        {"reduce", NSIM_FIELD(reduce), true},
        {"acc", NSIM_FIELD(acc), true}}},
      {"DST, SRC, PREDICATE", {}},                                           // tensor_copy_predicated
      {"DST, SRC", {}},                                                      // max8
      {"DST, DATA, VALS", {}},                                               // nc_find_index8
      {"DST, SRC",                                                           // affine_select
       {{"op", NSIM_FIELD(alu0), true},
        {"value", NSIM_FIELD(scalar0), true},
        {"base", NSIM_FIELD(base)},
        {"partition_step", NSIM_FIELD(partition_step)},
        {"free_step", NSIM_FIELD(free_step)}}},
      {"DST, DATA", {}},                                                     // bn_stats
      {"DST, DATA", {}},                                                     // bn_aggr
      {"DST, DATA, VALS", {{"imm", NSIM_FIELD(scalar0), true}, {"idx", NSIM_FIELD(acc)}}},  // nc_match_replace8
      {"DST, SRC", {{"base", NSIM_FIELD(base)}, {"padding", NSIM_FIELD(scalar0), true}}},  // nonzero_with_count
      {"DST, DATA, INDICES", {}},                                            // nc_n_gather
      {"DST, SRC",                                                           // nc_stream_shuffle
       {{"from", NSIM_FIELD(base)},
        {"step", NSIM_FIELD(free_step)},
        {"first", NSIM_FIELD(scalar0)},
        {"count", NSIM_FIELD(partition_step), true}}},
      {"DST, SRC",                                                           // range_select
       {{"op0", NSIM_FIELD(alu0), true},
        {"bound0", NSIM_FIELD(scalar0), true},
        {"op1", NSIM_FIELD(alu1), true},
        {"bound1", NSIM_FIELD(scalar1), true},
        {"value", NSIM_FIELD(free_step), true},
        {"start", NSIM_FIELD(base)},
        {"reduce", NSIM_FIELD(reduce), false, "acc"},
        {"acc", NSIM_FIELD(acc), false, "reduce"}}},
      {"DST, SRC", {{"queue", NSIM_FIELD(queue)}}},                                  // dma_transpose
      {"DST, SRC", {{"queue", NSIM_FIELD(queue)}}},                                  // sendrecv
      {"", {}},                                                              // core_barrier
      {"DST, SRC, INDEX",                                                    // dma_indirect
       {{"queue", NSIM_FIELD(queue)},
        {"stride", NSIM_FIELD(free_step), true},
        {"scatter", NSIM_FIELD(broadcast)},
        {"skip", NSIM_FIELD(negate)}}},
  };
  return table;
}

// One row per opcode of opcode_table.h, checked once: a missing row would
// otherwise read past the table.
const std::vector<OpcodeSyntax>& CheckedTable() {
  static const std::vector<OpcodeSyntax>& table = [] () -> const std::vector<OpcodeSyntax>& {
    const std::vector<OpcodeSyntax>& t = Table();
    if (t.size() != static_cast<size_t>(kNumOpcodes)) {
      throw std::logic_error("sim/kernel/syntax.cc has " + std::to_string(t.size()) + " opcode rows, opcode_table.h " +
                             std::to_string(kNumOpcodes));
    }
    for (int op = 0; op < kNumOpcodes; ++op) {
      const std::string operands = t[op].operands;
      const int n = operands.empty() ? 0 : 1 + static_cast<int>(std::count(operands.begin(), operands.end(), ','));
      if (n != NumApOperands(static_cast<Opcode>(op))) {
        throw std::logic_error(std::string("sim/kernel/syntax.cc: ") + OpcodeName(static_cast<Opcode>(op)) +
                               " lists " + std::to_string(n) + " operands, opcode_table.h " +
                               std::to_string(NumApOperands(static_cast<Opcode>(op))));
      }
    }
    return t;
  }();
  return table;
}

}  // namespace

const OpcodeSyntax& SyntaxOf(Opcode op) { return CheckedTable()[static_cast<int>(op)]; }

const AttrDef* FindAttr(Opcode op, const std::string& key) {
  for (const AttrDef& a : SyntaxOf(op).attrs) {
    if (key == a.key) return &a;
  }
  return nullptr;
}

bool IsKnownAttr(const std::string& key) {
  if (key == "wait" || key == "signal") return true;
  for (int op = 0; op < kNumOpcodes; ++op) {
    if (FindAttr(static_cast<Opcode>(op), key)) return true;
  }
  return false;
}

std::string AttrNames(Opcode op) {
  std::string names;
  for (const AttrDef& a : SyntaxOf(op).attrs) names += std::string(a.key) + ", ";
  // A wait instruction only waits (docs/kernel-format.md).
  return names + (op == Opcode::kWait ? "wait" : "wait, signal");
}

Instruction OpcodeDefaults(Opcode op) {
  Instruction inst;
  inst.opcode = op;
  if (op == Opcode::kActivation) inst.scalar0 = Scalar{false, 1.0, {}};  // scale 1; bias is the struct's 0
  return inst;
}

}  // namespace kernel_syntax
}  // namespace nsim
