#pragma once
// Internal to sim/kernel: the per-opcode syntax of an instruction line (its
// operands and key=value attributes). The parser, the printer and the
// builder all read this one table, so names, kinds and defaults cannot drift
// apart between reading and writing.
#include <string>
#include <variant>
#include <vector>

#include "sim/kernel/kernel.h"

namespace nsim {
namespace kernel_syntax {

// The Instruction field an attribute sets; its type decides the value syntax
// (int: non-negative integer, bool: true|false, double: number, Scalar:
// number or access pattern, AccessPattern, and the enum names). Writers (the
// parser) set it in a fat Instruction, readers (the printer) read it from a
// view of the same field.
template <class T>
struct FieldOf {
  T Instruction::*fat;
  const T& (*view)(const InstructionView&);
};
using Field = std::variant<FieldOf<int>, FieldOf<bool>, FieldOf<double>, FieldOf<Scalar>, FieldOf<AccessPattern>,
                           FieldOf<AluOp>, FieldOf<ReduceOp>, FieldOf<ActFunc>>;

struct AttrDef {
  const char* key;
  Field field;
  bool required = false;
  const char* partner = nullptr;  // must be given together with this one, or neither
};

struct OpcodeSyntax {
  const char* operands;        // e.g. "DST, STATIONARY, MOVING"; NumApOperands(op) of them
  std::vector<AttrDef> attrs;  // besides wait= and signal=, in printing order
};

const OpcodeSyntax& SyntaxOf(Opcode op);
const AttrDef* FindAttr(Opcode op, const std::string& key);  // nullptr if `op` has no such attribute
bool IsKnownAttr(const std::string& key);                    // some opcode (or wait/signal) has it
std::string AttrNames(Opcode op);                            // "op0, scalar0, op1, scalar1, wait, signal"

// An instruction of opcode `op` with every field at its default: the value a
// missing optional attribute means and the printer leaves out.
Instruction OpcodeDefaults(Opcode op);

}  // namespace kernel_syntax
}  // namespace nsim
