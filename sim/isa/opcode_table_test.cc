// One table per opcode: every opcode of sim/kernel/opcode_table.h round-trips
// name -> Opcode -> name, has a registered model (cost, semantics) whose
// names and engines are the table's, and the builder (so the parser) allows
// it exactly on the table's engines. The Python side of the same check is
// python/tests/test_opcode_table.py (the extension's table and the docs).
#include <gtest/gtest.h>

#include <string>

#include "sim/base/error.h"
#include "sim/isa/opcode_spec.h"
#include "sim/kernel/builder.h"

namespace nsim {
namespace {

TEST(OpcodeTable, EveryOpcodeRoundTripsThroughEveryTable) {
  EXPECT_TRUE(AllOpcodesRegistered());
  for (int i = 0; i < kNumOpcodes; ++i) {
    const Opcode op = static_cast<Opcode>(i);
    const std::string name = OpcodeName(op);
    SCOPED_TRACE(name);
    Opcode parsed;
    ASSERT_TRUE(ParseOpcode(name, &parsed));
    EXPECT_EQ(parsed, op);
    const OpcodeSpec& spec = Spec(op);
    EXPECT_EQ(spec.opcode, op);
    EXPECT_EQ(spec.name, name);
    EXPECT_STREQ(spec.hw_name, OpcodeHwName(op));
    EXPECT_EQ(spec.engines, OpcodeEngines(op));
    EXPECT_NE(spec.engines, 0u);
    EXPECT_TRUE(spec.validate && spec.cost && spec.execute && spec.flops);
    for (int e = 0; e < kNumEngines; ++e) {
      const EngineId engine = static_cast<EngineId>(e);
      const bool allowed = (OpcodeEngines(op) & EngineMask(engine)) != 0;
      EXPECT_EQ(OpcodeAllowedOn(op, engine), allowed) << EngineName(engine);
      Kernel k;
      if (allowed) {
        EXPECT_NO_THROW(k.Append(MakeInstruction(engine, op))) << EngineName(engine);
      } else {
        EXPECT_THROW(k.Append(MakeInstruction(engine, op)), SimError) << EngineName(engine);
      }
    }
  }
  Opcode unused;
  EXPECT_FALSE(ParseOpcode("no_such_opcode", &unused));
}

TEST(OpcodeTable, RegistryRejectsASecondModelOfAnOpcode) {
  const OpcodeModel again = Spec(Opcode::kMatmul);
  try {
    isa_internal::RegisterOpcode(again);
    FAIL() << "no error";
  } catch (const SimError& e) {
    EXPECT_STREQ(e.what(), "opcode registered twice: matmul");
  }
}

}  // namespace
}  // namespace nsim
