// Simulator speed: simulated instructions per wall-clock second on a long
// mixed stream (DMA in, VectorE / ScalarE / TensorE / GpSimd work chained by
// semaphores, DMA out), per tile size. Run with
//   bazel run -c opt //benchmarks:sim_speed
// The counter `instr/s` is the figure to watch; `raw/s` is the rate of a bare
// SystemC wait() loop measured in the same binary right after the row, and
// `ratio` = instr/s over raw/s, both on this thread's CPU time (issue 12
// aims: compute-only >= 0.5, mixed with tiny tiles >= 0.25). Rows with
// values also report `fma_bound/s`: the instructions/s the row would reach
// if computing its matmul products at the host's peak multiply-add rate
// (measured in the same run, benchmarks/host_mac_rate.h) were all it did.
#include <benchmark/benchmark.h>

#include <algorithm>

#include "sim/config/loader.h"
#include "sim/isa/opcode_spec.h"
#include "sim/kernel/builder.h"
#include "benchmarks/host_mac_rate.h"
#include "benchmarks/raw_systemc_rate.h"
#include "sim/model/device.h"

namespace nsim {
namespace {

// `steps` rounds of: load a tile, square it on ScalarE, add on VectorE, reduce
// on VectorE, a matmul on TensorE, an iota on GpSimd, store. Semaphores pass
// each round's data along; engines overlap across rounds.
Kernel MixedStream(int steps, int64_t parts, int64_t free) {
  Kernel k;
  k.name = "mixed";
  const int x = AddTensor(k, "x", MemSpace::kHbm, DType::kBF16, {parts, free}, {TensorInit::kRandn, 0, 1});
  const int y = AddTensor(k, "y", MemSpace::kHbm, DType::kBF16, {parts, free});
  const int xs = AddTensor(k, "xs", MemSpace::kSbuf, DType::kBF16, {parts, free});
  const int sq = AddTensor(k, "sq", MemSpace::kSbuf, DType::kBF16, {parts, free});
  const int sm = AddTensor(k, "sm", MemSpace::kSbuf, DType::kBF16, {parts, free});
  const int red = AddTensor(k, "red", MemSpace::kSbuf, DType::kF32, {parts, 1});
  const int w = AddTensor(k, "w", MemSpace::kSbuf, DType::kBF16, {parts, parts});
  const int ps = AddTensor(k, "ps", MemSpace::kPsum, DType::kF32, {parts, free});
  const int io = AddTensor(k, "io", MemSpace::kSbuf, DType::kF32, {parts, free});
  const int loaded = AddSemaphore(k, "loaded"), squared = AddSemaphore(k, "squared");
  const int added = AddSemaphore(k, "added"), stored = AddSemaphore(k, "stored");
  for (int i = 0; i < steps; ++i) {
    Instruction ld = MakeInstruction(EngineId::kSync, Opcode::kDmaCopy);
    ld.dst = Full(k, xs);
    ld.src0 = Full(k, x);
    ld.waits = {{stored, i}};
    ld.signals = {{loaded, 1}};
    k.Append(ld);
    Instruction act = MakeInstruction(EngineId::kScalar, Opcode::kActivation);
    act.func = ActFunc::kSquare;
    act.dst = Full(k, sq);
    act.src0 = Full(k, xs);
    act.waits = {{loaded, i + 1}};
    act.signals = {{squared, 1}};
    k.Append(act);
    Instruction add = MakeInstruction(EngineId::kVector, Opcode::kTensorTensor);
    add.alu0 = AluOp::kAdd;
    add.dst = Full(k, sm);
    add.src0 = Full(k, sq);
    add.src1 = Full(k, xs);
    add.waits = {{squared, i + 1}};
    k.Append(add);
    Instruction rd = MakeInstruction(EngineId::kVector, Opcode::kTensorReduce);
    rd.dst = Full(k, red);
    rd.src0 = Full(k, sm);
    rd.signals = {{added, 1}};
    k.Append(rd);
    Instruction mm = MakeInstruction(EngineId::kTensor, Opcode::kMatmul);
    mm.dst = Full(k, ps);
    mm.src0 = Full(k, w);
    mm.src1 = Full(k, sm);
    mm.waits = {{added, i + 1}};
    k.Append(mm);
    Instruction iota = MakeInstruction(EngineId::kGpSimd, Opcode::kIota);
    iota.dst = Full(k, io);
    iota.free_step = 1;
    k.Append(iota);
    Instruction st = MakeInstruction(EngineId::kSync, Opcode::kDmaCopy);
    st.dst = Full(k, y);
    st.src0 = Full(k, sm);
    st.waits = {{added, i + 1}};
    st.signals = {{stored, 1}};
    k.Append(st);
  }
  return k;
}

// Compute only: VectorE, ScalarE, GpSimd and TensorE each run `steps` small
// instructions; every 16th one hands a semaphore to the next engine.
Kernel ComputeStream(int steps) {
  Kernel k;
  k.name = "compute";
  const int a = AddTensor(k, "a", MemSpace::kSbuf, DType::kBF16, {1, 8});
  const int b = AddTensor(k, "b", MemSpace::kSbuf, DType::kBF16, {1, 8});
  const int c = AddTensor(k, "c", MemSpace::kSbuf, DType::kBF16, {1, 8});
  const int d = AddTensor(k, "d", MemSpace::kSbuf, DType::kF32, {1, 8});
  const int p = AddTensor(k, "p", MemSpace::kPsum, DType::kF32, {8, 8});
  const int w = AddTensor(k, "w", MemSpace::kSbuf, DType::kBF16, {1, 8});
  const int sem = AddSemaphore(k, "step");
  for (int i = 0; i < steps; ++i) {
    const bool sync = i % 16 == 15;
    Instruction v = MakeInstruction(EngineId::kVector, Opcode::kTensorTensor);
    v.alu0 = AluOp::kAdd;
    v.dst = Full(k, b);
    v.src0 = v.src1 = Full(k, a);
    if (sync) v.signals = {{sem, 1}};
    k.Append(v);
    Instruction s = MakeInstruction(EngineId::kScalar, Opcode::kActivation);
    s.func = ActFunc::kIdentity;
    s.dst = Full(k, c);
    s.src0 = Full(k, a);
    if (sync) s.waits = {{sem, (i + 1) / 16}};
    k.Append(s);
    Instruction g = MakeInstruction(EngineId::kGpSimd, Opcode::kIota);
    g.dst = Full(k, d);
    k.Append(g);
    Instruction t = MakeInstruction(EngineId::kTensor, Opcode::kMatmul);
    t.dst = Full(k, p);
    t.src0 = Full(k, w);
    t.src1 = Full(k, w);
    k.Append(t);
  }
  return k;
}

// The TensorE multiply-adds of one execution of `k`: half the matmuls'
// FLOPs as the opcode registry counts them (K x M x N each).
double MatmulMultiplyAdds(const Kernel& k) {
  double flops = 0;
  for (const InstructionView& in : k.stream(EngineId::kTensor)) {
    if (in.opcode == Opcode::kMatmul) flops += static_cast<double>(Spec(in.opcode).flops(k, in));
  }
  return flops / 2;
}

void RunStream(benchmark::State& state, const Kernel& k, bool timing_only = false) {
  Device device(LoadHardwareConfig("trn2"));
  device.set_timing_only(timing_only);
  const auto loaded = device.Load(k);
  int64_t instructions = 0;
  double cpu_seconds = 0;
  Picos device_time = 0;
  for (auto _ : state) {
    const double start = bench::ThreadCpuSeconds();
    const ExecutionResult r = device.Execute(*loaded);
    cpu_seconds += bench::ThreadCpuSeconds() - start;
    instructions += static_cast<int64_t>(k.NumInstructions());
    device_time = r.device_time;
  }
  // The reference loop makes as many waits as the row simulated instructions
  // (at least 200k, so that it runs long enough to time).
  const double raw = bench::RawSystemCWaitRate(std::max<int64_t>(200000, instructions));
  const double rate = static_cast<double>(instructions) / cpu_seconds;
  state.counters["instr/s"] = benchmark::Counter(static_cast<double>(instructions), benchmark::Counter::kIsRate);
  state.counters["raw/s"] = raw;
  state.counters["ratio"] = rate / raw;
  state.counters["device_us"] = PicosToMicros(device_time);
  const double macs = MatmulMultiplyAdds(k);
  if (!timing_only && macs >= 1e8) {  // only where the products weigh: a fast row times nothing else
    const double mac_rate = bench::HostMultiplyAddRate(static_cast<int64_t>(std::min(macs, 4e9)));
    if (mac_rate > 0) state.counters["mac_bound/s"] = static_cast<double>(k.NumInstructions()) * mac_rate / macs;
  }
}

void BM_ComputeStream(benchmark::State& state) { RunStream(state, ComputeStream(5000)); }
BENCHMARK(BM_ComputeStream)->Unit(benchmark::kMillisecond);

void BM_MixedStream(benchmark::State& state) {
  RunStream(state, MixedStream(2000, state.range(0), state.range(1)));
}
BENCHMARK(BM_MixedStream)
    ->ArgsProduct({{1, 128}, {1, 64, 512}})
    ->ArgNames({"partitions", "free"})
    ->Unit(benchmark::kMillisecond);

// The same streams without values (--timing-only): identical device_us.
void BM_MixedStreamTimingOnly(benchmark::State& state) {
  RunStream(state, MixedStream(2000, state.range(0), state.range(1)), /*timing_only=*/true);
}
BENCHMARK(BM_MixedStreamTimingOnly)
    ->ArgsProduct({{1, 128}, {1, 512}})
    ->ArgNames({"partitions", "free"})
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace nsim
