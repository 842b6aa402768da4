// Simulator speed with several busy cores: an SPMD kernel (load a tile of
// its own rows, scale it on VectorE, store it, `rounds` times, chained by
// semaphores; tiles [128, free]) launched on 1 and on 8 cores of one trn2 chip. Run with
//   bazel run -c opt //benchmarks:chip_speed
// `instr/s` counts simulated instructions of all cores per wall-clock second.
#include <benchmark/benchmark.h>

#include <string>

#include "sim/config/loader.h"
#include "sim/kernel/parser.h"
#include "sim/model/chip.h"
#include "sim/model/loaded_kernel.h"

namespace nsim {
namespace {

std::string Rounds(int rounds, int64_t free) {
  const std::string f = std::to_string(free);
  std::string k = "kernel chip_speed\ntensor x hbm bf16 [1024, " + f + "] init=ones\ntensor out hbm bf16 [1024, " + f +
                  "]\ntensor xt sbuf bf16 [128, " + f + "]\ntensor yt sbuf bf16 [128, " + f +
                  "]\nsemaphore loaded\nsemaphore scaled\nsemaphore stored\n";
  for (int i = 0; i < rounds; ++i) {
    const std::string n = std::to_string(i);
    k += "sync: dma_copy xt, x[program_id * 128:(program_id + 1) * 128] wait=stored>=" + n + " signal=loaded\n";
    k += "vector: tensor_scalar yt, xt op0=multiply scalar0=2 wait=loaded>=" + std::to_string(i + 1) + " signal=scaled\n";
    k += "sync: dma_copy out[program_id * 128:(program_id + 1) * 128], yt wait=scaled>=" + std::to_string(i + 1) +
         " signal=stored\n";
  }
  return k;
}

void BM_ChipCores(benchmark::State& state) {
  const int cores = static_cast<int>(state.range(0));
  const int64_t free = state.range(1);
  const int rounds = 200;
  Chip chip(LoadHardwareConfig("trn2"));
  std::vector<std::shared_ptr<const LoadedKernel>> programs;
  for (const Kernel& k : ParseGrid(Rounds(rounds, free), "chip_speed.nk", cores)) programs.push_back(chip.Load(k));
  int64_t instructions = 0;
  for (auto _ : state) {
    const GridResult r = chip.Launch(programs);
    for (const ExecutionResult& p : r.programs) instructions += static_cast<int64_t>(p.instructions.size());
    benchmark::DoNotOptimize(r.device_time);
  }
  state.counters["instr/s"] = benchmark::Counter(static_cast<double>(instructions), benchmark::Counter::kIsRate);
}
// Small tiles show the cost of simulating; large ones the cost of computing the values.
BENCHMARK(BM_ChipCores)->ArgNames({"cores", "free"})->ArgsProduct({{1, 8}, {8, 512}})->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace nsim
