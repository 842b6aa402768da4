// The chip model: SPMD launches on 1..8 cores share one time base and the HBM
// stacks; launches continue the host's clock (SimClock). Expected times are
// derived from the config figures in comments.
#include "sim/model/chip.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/base/error.h"
#include "sim/base/sim_clock.h"
#include "sim/config/loader.h"
#include "sim/kernel/parser.h"
#include "sim/memory/access.h"
#include "sim/model/device.h"
#include "sim/model/loaded_kernel.h"

namespace nsim {
namespace {

std::vector<std::shared_ptr<const LoadedKernel>> LoadGrid(const Chip& chip, const std::string& text, int n) {
  std::vector<std::shared_ptr<const LoadedKernel>> out;
  for (const Kernel& k : ParseGrid(text, "grid.nk", n)) out.push_back(chip.Load(k));
  return out;
}

std::vector<float> ReadHbm(Chip& chip, uint64_t addr, DType dtype, int64_t n) {
  std::vector<uint8_t> raw(static_cast<size_t>(n * DTypeSize(dtype)));
  chip.hbm().Read(addr, raw.data(), raw.size());
  std::vector<float> out(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) out[i] = LoadElement(dtype, &raw[i * DTypeSize(dtype)]);
  return out;
}

// Each program doubles its own 4 rows of a shared [32, 512] tensor: one DMA
// engine per load (4 partitions < 8 per engine), 23 B/ns on trn2. Even 8 cores
// (8 flows x 23 B/ns = 184 B/ns) stay far below one stack's 750 B/ns.
const char* kScale = R"(kernel scale
tensor x   hbm  bf16 [32, 512] init=randn(seed=3)
tensor out hbm  bf16 [32, 512]
tensor xt  sbuf bf16 [4, 512]
tensor yt  sbuf bf16 [4, 512]
semaphore loaded
semaphore done
sync:   dma_copy xt, x[program_id * 4:(program_id + 1) * 4] signal=loaded
vector: tensor_scalar yt, xt op0=multiply scalar0=2 wait=loaded>=1 signal=done
sync:   dma_copy out[program_id * 4:program_id * 4 + 4], yt wait=done>=1
)";

TEST(Chip, IndependentWorkScalesWithCores) {
  Device device(LoadHardwareConfig("trn2"));
  const Picos one_core = device.Execute(ParseKernel(kScale, "scale.nk")).device_time;
  for (int n : {1, 2, 4, 8}) {
    Chip chip(LoadHardwareConfig("trn2"));
    const Picos before = SimClock::Get().now();
    const GridResult r = chip.Launch(LoadGrid(chip, kScale, n));
    ASSERT_EQ(r.programs.size(), static_cast<size_t>(n));
    // N copies of independent work take the time of one: N x the throughput.
    EXPECT_EQ(r.device_time, one_core) << n << " cores";
    for (const ExecutionResult& p : r.programs) EXPECT_EQ(p.device_time, one_core);
    EXPECT_EQ(r.start, before);
    EXPECT_EQ(SimClock::Get().now(), before + one_core);
    // Every program wrote its rows, computed from its rows; the rest is untouched.
    const std::vector<float> x = ReadHbm(chip, r.scratch_addresses.at("x"), DType::kBF16, 32 * 512);
    const std::vector<float> out = ReadHbm(chip, r.scratch_addresses.at("out"), DType::kBF16, 32 * 512);
    for (int64_t i = 0; i < 32 * 512; ++i) {
      const float want = i < n * 4 * 512 ? 2 * x[i] : 0.0f;
      ASSERT_EQ(out[i], want) << "element " << i << " with " << n << " cores";
    }
  }
}

TEST(Chip, ScratchLivesInTheFirstCoresHomeRegion) {
  Chip chip(LoadHardwareConfig("trn2"));
  EXPECT_EQ(chip.CoreMemoryBase(0), 0u);
  EXPECT_EQ(chip.CoreMemoryBase(1), uint64_t{12} << 30);  // second half of stack 0
  EXPECT_EQ(chip.CoreMemoryBase(2), uint64_t{24} << 30);  // stack 1
  EXPECT_EQ(chip.StackOfAddress(chip.CoreMemoryBase(7)), 3);
  const GridResult r = chip.Launch(LoadGrid(chip, kScale, 2), {}, {5, 6});
  EXPECT_EQ(chip.StackOfAddress(r.scratch_addresses.at("x")), 2);  // core 5's stack
  EXPECT_EQ(r.cores, (std::vector<int>{5, 6}));
}

// Each program streams [128, 2048] bf16 from its own tensor x<i> over all 16
// DMA engines: 16 pieces of 8 partitions x 4 KiB = 32768 B.
std::string StreamKernel(int program, int programs) {
  std::string text = "kernel stream" + std::to_string(program) + "\n";
  for (int i = 0; i < programs; ++i) text += "tensor x" + std::to_string(i) + " hbm bf16 [128, 2048]\n";
  text += "tensor t sbuf bf16 [128, 2048]\nsync: dma_copy t, x" + std::to_string(program) + "\n";
  return text;
}

// Piece time (end - start, fixed costs excluded) of each program's first DMA
// piece when program i's tensor is placed at stack stacks[i].
std::vector<Picos> StreamPieceTimes(const std::string& config, const std::vector<int>& stacks) {
  Chip chip(LoadHardwareConfig(config));
  const int n = static_cast<int>(stacks.size());
  std::vector<std::shared_ptr<const LoadedKernel>> programs;
  std::map<std::string, uint64_t> bindings;
  for (int i = 0; i < n; ++i) {
    programs.push_back(chip.Load(ParseKernel(StreamKernel(i, n), "stream.nk")));
    // Each tensor gets its own 1 MiB slot inside its stack.
    bindings["x" + std::to_string(i)] = chip.StackBase(stacks[i]) + (uint64_t{1} << 20) * i;
  }
  const GridResult r = chip.Launch(programs, bindings);
  std::vector<Picos> times;
  // Fixed costs before the bytes move: the engine's piece setup and 8
  // descriptors (8 partitions x one 4 KiB run).
  const DmaParams& d = chip.config().dma;
  const Picos fixed = d.piece_setup_ps + 8 * d.descriptor_ps;
  for (const ExecutionResult& p : r.programs) {
    EXPECT_EQ(p.dma.size(), 16u);
    times.push_back(p.dma[0].end - p.dma[0].start - fixed);
  }
  return times;
}

TEST(Chip, TwoCoresOnOneStackTakeLongerThanOnTwo) {
  // trn1: one core per stack, stack 410 B/ns, 16 engines x 17 B/ns = 272 B/ns per core.
  // Own stacks: every flow at its engine's 17 B/ns: 32768 / 17 = 1927.53 ns.
  for (Picos t : StreamPieceTimes("trn1", {0, 1})) EXPECT_EQ(t, 1927530);
  // One stack: 32 flows want 544 B/ns of 410: each gets 410 / 32 = 12.8125 B/ns,
  // 32768 / 12.8125 = 2557.502 ns (rounded up to the ps), 33 % longer.
  for (Picos t : StreamPieceTimes("trn1", {0, 0})) EXPECT_EQ(t, 2557503);
}

TEST(Chip, Trn2StacksFitTwoCoresButNotFour) {
  // trn2: a core's 16 x 23 = 368 B/ns fits its 375 B/ns share, and two cores'
  // 736 B/ns fit one stack's 750 B/ns (S2/S16 figures): no slow-down, 32768 / 23 = 1424.70 ns.
  for (Picos t : StreamPieceTimes("trn2", {0, 0})) EXPECT_EQ(t, 1424696);
  // Four cores on one stack: 64 flows share 750 B/ns, 11.71875 B/ns each:
  // 32768 / 11.71875 = 2796.203 ns. Spread over two stacks they fit again.
  for (Picos t : StreamPieceTimes("trn2", {0, 0, 0, 0})) EXPECT_EQ(t, 2796203);
  for (Picos t : StreamPieceTimes("trn2", {0, 0, 1, 1})) EXPECT_EQ(t, 1424696);
}

// Two chips, one clock: each launch starts where the host is, after the one before.
TEST(Chip, LaunchesAreDeterministicAndAdvanceTheHostClock) {
  Chip a(LoadHardwareConfig("trn2"));
  Chip b(LoadHardwareConfig("trn2"));
  const Picos t0 = SimClock::Get().now();
  const GridResult ra = a.Launch(LoadGrid(a, kScale, 8));
  const GridResult rb = b.Launch(LoadGrid(b, kScale, 8));
  for (size_t i = 0; i < ra.programs.size(); ++i) {
    ASSERT_EQ(ra.programs[i].dma.size(), rb.programs[i].dma.size());
    for (size_t j = 0; j < ra.programs[i].dma.size(); ++j) {
      EXPECT_EQ(ra.programs[i].dma[j].start, rb.programs[i].dma[j].start);
      EXPECT_EQ(ra.programs[i].dma[j].end, rb.programs[i].dma[j].end);
    }
  }
  const GridResult again = a.Launch(LoadGrid(a, kScale, 8));
  EXPECT_EQ(ra.start, t0);
  EXPECT_EQ(rb.start, t0 + ra.device_time);
  EXPECT_EQ(again.start, rb.start + rb.device_time);
  EXPECT_EQ(again.device_time, ra.device_time);
  EXPECT_EQ(SimClock::Get().now(), again.start + again.device_time);
}

TEST(Chip, BadGridsAreClearErrors) {
  Chip chip(LoadHardwareConfig("trn1"));
  try {
    chip.Launch(LoadGrid(chip, kScale, 3));
    FAIL() << "expected an error";
  } catch (const SimError& e) {
    EXPECT_NE(std::string(e.what()).find("3 programs but config 'trn1' has 2 cores"), std::string::npos) << e.what();
  }
  EXPECT_THROW(chip.Launch(LoadGrid(chip, kScale, 2), {}, {1, 1}), SimError);
  // A deadlock on one core names it and leaves the chip usable.
  const char* stuck = "kernel stuck\ntensor a sbuf f32 [1, 8]\nsemaphore never\nvector: memset a value=0 wait=never>=1\n";
  EXPECT_THROW(chip.Launch(LoadGrid(chip, stuck, 2)), SimError);
  EXPECT_NO_THROW(chip.Launch(LoadGrid(chip, kScale, 2)));
}

// Configs are identified by their resolved values, not their file name.
TEST(Chip, KernelsLoadedForOtherValuesOfOneConfigAreRejected) {
  Device plain(LoadHardwareConfig("trn2"));
  Device faster(LoadHardwareConfig("trn2", {"vector.freq=2GHz"}));
  Device same(LoadHardwareConfig(ConfigDirectory() + "/trn2.yaml"));
  EXPECT_NE(plain.config_hash(), faster.config_hash());
  EXPECT_EQ(plain.config_hash(), same.config_hash());  // by name or by path: the same part
  const auto loaded = plain.Load(ParseKernel(kScale, "scale.nk"));
  EXPECT_NO_THROW(same.Execute(*loaded));
  try {
    faster.Execute(*loaded);
    FAIL() << "expected an error";
  } catch (const SimError& e) {
    EXPECT_NE(std::string(e.what()).find("with different values"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace nsim
