#include <array>
#include <sstream>

#include "sim/base/error.h"
#include "sim/isa/opcode_spec.h"

namespace nsim {
namespace {

struct Slot {
  bool registered = false;
  OpcodeSpec spec{};
};

std::array<Slot, kNumOpcodes>& Table() {
  static std::array<Slot, kNumOpcodes> table{};
  return table;
}

}  // namespace

namespace isa_internal {
bool RegisterOpcode(const OpcodeSpec& spec) {
  const Opcode op = spec.opcode;
  Slot& slot = Table()[static_cast<int>(op)];
  // The names and engines are opcode_table.h's: a registration may leave them
  // out (nullptr, 0) but never contradict them.
  auto differs = [](const char* given, const char* table) { return given != nullptr && std::string(given) != table; };
  if (differs(spec.name, OpcodeName(op)) || differs(spec.hw_name, OpcodeHwName(op)) ||
      (spec.engines != 0 && spec.engines != OpcodeEngines(op))) {
    std::ostringstream os;
    os << "the model of opcode " << OpcodeName(op) << " registers name/hw_name/engines "
       << (spec.name ? spec.name : "-") << "/" << (spec.hw_name ? spec.hw_name : "-") << "/" << spec.engines
       << " but sim/kernel/opcode_table.h says " << OpcodeName(op) << "/" << OpcodeHwName(op) << "/"
       << OpcodeEngines(op);
    throw SimError(os.str());
  }
  if (slot.registered) throw SimError(std::string("opcode registered twice: ") + OpcodeName(op));
  slot.spec = spec;
  slot.spec.name = OpcodeName(op);
  slot.spec.hw_name = OpcodeHwName(op);
  slot.spec.engines = OpcodeEngines(op);
  slot.registered = true;
  return true;
}
}  // namespace isa_internal

const OpcodeSpec& Spec(Opcode op) {
  const Slot& s = Table()[static_cast<int>(op)];
  if (!s.registered) {
    std::ostringstream os;
    os << "no model registered for opcode #" << static_cast<int>(op)
       << " (is //sim/isa linked with alwayslink?)";
    throw SimError(os.str());
  }
  return s.spec;
}

bool AllOpcodesRegistered() {
  for (const Slot& s : Table()) {
    if (!s.registered) return false;
  }
  return true;
}

ScratchFloats& ExecContext::Read(const AccessPattern& ap, int slot) {
  const BoundAccess* a = Resolve(ap);
  buf[slot].resize(static_cast<size_t>(a->count));
  ReadFloats(*a, mem, hbm, buf[slot].data());
  return buf[slot];
}

void ExecContext::Write(const AccessPattern& ap, const ScratchFloats& values) {
  WriteFloats(*Resolve(ap), mem, hbm, values.data());
}

}  // namespace nsim
