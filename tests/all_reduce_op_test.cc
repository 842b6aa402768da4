// neuron::all_reduce_, the ATen-level all-reduce: one tensor per device,
// summed in place through rt::Runtime::AllReduce (a ring over DMA on the chip
// model). Values against a CPU sum; time against the analytic ring cost.
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <string>
#include <vector>

#include "backend/factories.h"
#include "backend/neuron/collectives.h"
#include "backend/neuron/neuron_test_util.h"
#include "backend/ops.h"
#include "runtime/runtime.h"
#include "sim/base/error.h"

namespace nsim {
namespace {

using at::Tensor;

class AllReduceOp : public ::testing::Test {
 protected:
  void SetUp() override {
    rt::Runtime::Get().Reset();
    rt::Runtime::Get().Configure("trn2");
  }
  void TearDown() override { rt::Runtime::Get().Reset(); }
};

at::Device Neuron(int i) { return at::Device("neuron:" + std::to_string(i)); }

// x_d = (i * 7 + d * 3) % 17 on device d: small integers, exact sums in f32.
std::vector<Tensor> ExactInputs(int n, const std::vector<int64_t>& shape, std::vector<Tensor>* cpu) {
  std::vector<Tensor> dev;
  int64_t numel = 1;
  for (int64_t s : shape) numel *= s;
  for (int d = 0; d < n; ++d) {
    std::vector<float> v(static_cast<size_t>(numel));
    for (int64_t i = 0; i < numel; ++i) v[i] = static_cast<float>((i * 7 + d * 3) % 17);
    const Tensor x = at::tensor(v, shape);
    cpu->push_back(x);
    dev.push_back(x.to(Neuron(d)));
  }
  return dev;
}

TEST_F(AllReduceOp, EveryDeviceEndsWithTheSum) {
  for (int n : {2, 4}) {
    std::vector<Tensor> cpu;
    const std::vector<Tensor> dev = ExactInputs(n, {8, 128 * n}, &cpu);
    neuron::AllReduce_(dev);
    Tensor want = cpu[0];
    for (int d = 1; d < n; ++d) want = want + cpu[d];
    for (int d = 0; d < n; ++d) {
      EXPECT_EQ(at::testing::Values(dev[d].cpu()), at::testing::Values(want)) << "neuron:" << d << " of " << n;
    }
  }
}

TEST_F(AllReduceOp, Bf16SumsWithinTheRingsRoundings) {
  // The ring adds one chunk at a time and stores bf16 after each of the N-1
  // additions: within N-1 bf16 rounding steps of the exact sum.
  const int n = 4;
  std::vector<Tensor> cpu, dev;
  for (int d = 0; d < n; ++d) {
    cpu.push_back(at::randn({4, 512}, 10 + d, at::TensorOptions().dtype(at::kBFloat16)));
    dev.push_back(cpu.back().to(Neuron(d)));
  }
  neuron::AllReduce_(dev);
  Tensor exact = cpu[0].to(at::kFloat);
  for (int d = 1; d < n; ++d) exact = exact + cpu[d].to(at::kFloat);
  for (int d = 0; d < n; ++d) {
    neuron::testing::ExpectClose(dev[d].cpu().to(at::kFloat), exact.to(at::kBFloat16).to(at::kFloat),
                                 "neuron:" + std::to_string(d), (n - 1) * 1.0f / 128 / 1e-5f);
  }
}

// The analytic ring (as sim/model/all_reduce_test.cc states it): 2(N-1)
// steps; per core and step a chunk of C bytes moves through the core's 16 DMA
// engines at B = 16 x 23 = 368 B/ns.
//   all-gather step:     launch + teardown + 2 x (trigger + DMA start + piece setup
//                        + queue completion) + semaphore + 2C/B
//   reduce-scatter step: the same + a 3rd transfer (C/B), the VectorE add (fp32:
//                        2 cycles per element of a 128-partition row + 100 cycles)
//                        and a semaphore
// T = (N-1) x (reduce-scatter + all-gather), within 1 % of the model.
TEST_F(AllReduceOp, TimeMatchesTheAnalyticRingCost) {
  for (int n : {2, 4}) {
    rt::Runtime::Get().Reset();
    const int64_t free = 2048;  // elements per partition per chunk: 1 MiB chunks
    std::vector<Tensor> cpu;
    const std::vector<Tensor> dev = ExactInputs(n, {128 * n, free}, &cpu);
    for (int d = 0; d < n; ++d) rt::Runtime::Get().core(d).Synchronize();
    rt::NeuronCoreDevice& nc0 = rt::Runtime::Get().core(0);
    nc0.ClearRecords();
    neuron::AllReduce_(dev);
    nc0.Synchronize();
    // Device time of the ring: its steps' executions (the host submits each
    // step, and loads new step kernels, in between: host time, not the ring's).
    Picos device = 0;
    int steps = 0;
    for (const rt::ExecutionHandle& r : nc0.records()) {
      if (r->is_copy()) continue;
      ++steps;
      device += r->device_end - r->device_start;
    }
    EXPECT_EQ(steps, 2 * (n - 1));
    const HardwareConfig& c = nc0.config();
    const double chunk = static_cast<double>(128 * free * sizeof(float));
    const double b = static_cast<double>(c.dma.engines) * c.dma.bytes_per_ns;
    const Picos transfer = c.dma.trigger_ps + c.dma.start_latency_ps + c.dma.piece_setup_ps + c.dma.queue_completion_ps;
    const double fixed =
        PicosToNanos(c.kernel.launch_ps + c.kernel.teardown_ps + 2 * transfer + c.kernel.semaphore_latency_ps);
    const double add = (2.0 * free + 100) / (c.vector.freq_hz / 1e9);
    const double gather = fixed + 2 * chunk / b;
    const double reduce = fixed + 3 * chunk / b + add + PicosToNanos(c.kernel.semaphore_latency_ps);
    const double analytic = (n - 1) * (gather + reduce);
    const double model = PicosToNanos(device);
    std::cout << "neuron::all_reduce_ over " << n << " trn2 cores, " << 2 * (n - 1) << " steps of "
              << chunk / 1048576 << " MiB chunks: model " << model << " ns, analytic " << analytic << " ns\n";
    EXPECT_NEAR(model / analytic, 1.0, 0.01) << n << " devices";
  }
}

TEST_F(AllReduceOp, BadOperandsAreClearErrors) {
  const Tensor a = at::ones({4, 256}).to(Neuron(0)), b = at::ones({4, 256}).to(Neuron(1));
  EXPECT_THROW_MSG(neuron::AllReduce_({a}), "neuron::all_reduce_: needs one tensor per device, at least 2; got 1");
  EXPECT_THROW_MSG(neuron::AllReduce_({a, a}), "neuron::all_reduce_: tensor 1: two tensors on neuron:0");
  EXPECT_THROW_MSG(neuron::AllReduce_({a, at::ones({4, 256})}),
                   "neuron::all_reduce_: tensor 1 is on cpu, not a neuron device");
  EXPECT_THROW_MSG(neuron::AllReduce_({a, at::ones({4, 128}).to(Neuron(1))}),
                   "neuron::all_reduce_: tensor 1 is Float[4, 128], tensor 0 is Float[4, 256]");
  EXPECT_THROW_MSG(neuron::AllReduce_({a, b.t()}), "neuron::all_reduce_: tensor 1 is Float[256, 4], tensor 0 is Float[4, 256]");
  EXPECT_THROW_MSG(neuron::AllReduce_({a.t(), b.t()}), "neuron::all_reduce_: tensor 0 is not contiguous");
  // An element count the ring cannot cut: the runtime's error, not a crash.
  const Tensor odd0 = at::ones({3, 5}).to(Neuron(0)), odd1 = at::ones({3, 5}).to(Neuron(1));
  EXPECT_THROW(neuron::AllReduce_({odd0, odd1}), SimError);
}

}  // namespace
}  // namespace nsim
