// Cross-core instructions (core_link.h) on the chip model: a core_barrier
// ends one remote semaphore write after the later of the two arrivals; a
// sendrecv moves each program's tile into its peer's; an unmatched one is a
// deadlock error naming both programs' lines. Times from configs/trn2.yaml.
#include "sim/model/core_link.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/base/error.h"
#include "sim/config/loader.h"
#include "sim/kernel/parser.h"
#include "sim/memory/access.h"
#include "sim/model/chip.h"
#include "sim/model/loaded_kernel.h"

namespace nsim {
namespace {

const InstructionRecord& RecordOf(const ExecutionResult& r, EngineId e, int index) {
  for (const InstructionRecord& rec : r.instructions) {
    if (rec.engine == e && rec.index == index) return rec;
  }
  throw SimError("no record");
}

GridResult Launch(Chip& chip, const std::vector<std::string>& texts) {
  std::vector<std::shared_ptr<const LoadedKernel>> programs;
  for (const std::string& t : texts) programs.push_back(chip.Load(ParseKernel(t, "link.nk")));
  return chip.Launch(programs);
}

const char* kHead = "kernel link\ntensor x hbm f32 [2, 128, 64]\ntensor t sbuf f32 [128, 64]\n";

TEST(CoreLink, BarrierEndsOneRemoteWriteAfterTheLaterArrival) {
  Chip chip(LoadHardwareConfig("trn2"));
  // Program 1 arrives late: its GpSimd first fills a tile.
  const GridResult r = Launch(chip, {std::string(kHead) + "gpsimd: core_barrier\n",
                                     std::string(kHead) + "gpsimd: memset t value=1\ngpsimd: core_barrier\n"});
  const InstructionRecord& early = RecordOf(r.programs[0], EngineId::kGpSimd, 0);
  const InstructionRecord& late = RecordOf(r.programs[1], EngineId::kGpSimd, 1);
  ASSERT_GT(late.start, early.start);
  const Picos dispatch = 3333;  // gpsimd.dispatch 4 cycles at 1.2 GHz
  const Picos remote = chip.config().chip.remote_semaphore_latency_ps;
  EXPECT_EQ(remote, 30000);
  EXPECT_EQ(early.end, late.start + dispatch + remote);
  EXPECT_EQ(late.end, early.end);
}

TEST(CoreLink, SendRecvSwapsThePairsTiles) {
  Chip chip(LoadHardwareConfig("trn2"));
  auto program = [](int p) {
    return std::string("kernel link\ntensor out hbm f32 [2, 128, 64]\ntensor a sbuf f32 [128, 64]\n"
                       "tensor b sbuf f32 [128, 64]\nsemaphore s\nsemaphore r\n") +
           "vector: memset a value=" + std::to_string(p + 1) + " signal=s\n" +
           "sync: sendrecv b, a wait=s>=1 signal=r\n" + "sync: dma_copy out[" + std::to_string(p) + "], b wait=r>=1\n";
  };
  const GridResult r = Launch(chip, {program(0), program(1)});
  const uint64_t out = r.scratch_addresses.at("out");
  std::vector<float> got(2 * 128 * 64);
  chip.hbm().Read(out, reinterpret_cast<uint8_t*>(got.data()), got.size() * sizeof(float));
  EXPECT_EQ(got[0], 2.0f);                // program 0 received program 1's tile
  EXPECT_EQ(got[128 * 64 + 5], 1.0f);     // and program 1 program 0's
  EXPECT_EQ(r.programs[0].device_time, r.programs[1].device_time);
}

TEST(CoreLink, UnmatchedAndPeerlessAreErrors) {
  Chip chip(LoadHardwareConfig("trn2"));
  try {
    Launch(chip, {std::string(kHead) + "gpsimd: core_barrier\ngpsimd: core_barrier\n",
                  std::string(kHead) + "gpsimd: core_barrier\n"});
    FAIL() << "no error";
  } catch (const SimError& e) {
    EXPECT_NE(std::string(e.what()).find("kernel 'link' line 5 (gpsimd core_barrier): program 0's 2nd core_barrier "
                                         "on gpsimd is never matched: program 1 reaches 1 core_barrier on gpsimd (the "
                                         "last at its line 4)"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(Launch(chip, {std::string(kHead) + "gpsimd: core_barrier\n"}), SimError);
}

}  // namespace
}  // namespace nsim
