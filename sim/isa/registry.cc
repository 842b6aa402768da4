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
bool RegisterOpcode(const OpcodeModel& model) {
  const Opcode op = model.opcode;
  Slot& slot = Table()[static_cast<int>(op)];
  if (slot.registered) throw SimError(std::string("opcode registered twice: ") + OpcodeName(op));
  slot.spec = OpcodeSpec{model, OpcodeName(op), OpcodeHwName(op), OpcodeEngines(op)};
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
