// The Neuron backend on the runtime: what the study counts and times.
// Op-by-op RMSNorm is six device executions plus one host-to-device copy
// (the epsilon), rms_norm one execution; ops return after submission and
// reading a result waits for the device; kernels are generated once per
// shape; the fused kernel takes less device time than the six ops.
#include <cstdio>

#include "backend/neuron/kernel_launch.h"
#include "backend/neuron/neuron_test_util.h"

namespace nsim {
namespace neuron {
namespace {

using at::kBFloat16;
using at::Tensor;
using testing::Core0;
using testing::CountRecords;
using testing::Dev;
using testing::ExpectClose;
using testing::Now;

Tensor OpByOp(const Tensor& x, const Tensor& w) { return x * at::rsqrt(x.mul(x).mean({-1}, true) + 1e-6) * w; }

class NeuronRuntime : public ::testing::Test {
 protected:
  void SetUp() override {
    xc_ = at::randn({4, 512}, 1, kBFloat16);
    wc_ = at::randn({512}, 2, kBFloat16);
    x_ = Dev(xc_);
    w_ = Dev(wc_);
    Synchronize();
    Core0().ClearRecords();
  }
  Picos DeviceTime() const {
    Picos sum = 0;
    for (const rt::ExecutionHandle& r : Core0().records()) {
      if (r->kind == rt::RecordKind::kExecution) sum += r->result->device_time;
    }
    return sum;
  }
  Tensor xc_, wc_, x_, w_;
};

TEST_F(NeuronRuntime, OpByOpRmsNormIsSixExecutionsPlusTheScalarCopy) {
  const Tensor y = OpByOp(x_, w_);
  EXPECT_EQ(CountRecords(rt::RecordKind::kExecution), 6);
  EXPECT_EQ(CountRecords(rt::RecordKind::kCopyToDevice), 1);
  EXPECT_EQ(CountRecords(rt::RecordKind::kCopyFromDevice), 0);
  ExpectClose(y, OpByOp(xc_, wc_), "op by op vs the CPU op by op", 0);  // the same roundings: bit-exact
  Core0().ClearRecords();
  const Tensor fused = at::rms_norm(x_, {512}, w_, 1e-6);
  EXPECT_EQ(CountRecords(rt::RecordKind::kExecution), 1);
  EXPECT_EQ(CountRecords(rt::RecordKind::kCopyToDevice), 0);
  ExpectClose(fused, at::rms_norm(xc_, {512}, wc_, 1e-6), "rms_norm vs the CPU reference", 0);
  // The op-by-op form rounds x*x, the mean, the sum and rsqrt to bf16 on the
  // way; the fused kernel does not: a few rounding steps apart at most.
  ExpectClose(y, at::rms_norm(xc_, {512}, wc_, 1e-6), "op by op vs rms_norm", 4);
}

TEST_F(NeuronRuntime, FusedRmsNormTakesLessDeviceTimeThanTheSixOps) {
  OpByOp(x_, w_);
  const Picos op_by_op = DeviceTime();
  for (const rt::ExecutionHandle& r : Core0().records()) {
    if (r->kind == rt::RecordKind::kExecution) {
      std::printf("  %-22s %.3f us\n", r->kernel_name.c_str(), PicosToMicros(r->result->device_time));
    }
  }
  Core0().ClearRecords();
  at::rms_norm(x_, {512}, w_, 1e-6);
  const Picos fused = DeviceTime();
  std::printf("device time on %s at [4, 512] bf16: op by op %.3f us (6 executions), rms_norm %.3f us\n",
              Core0().config().name.c_str(), PicosToMicros(op_by_op), PicosToMicros(fused));
  EXPECT_LT(fused, op_by_op);
}

TEST_F(NeuronRuntime, OpsReturnAfterSubmissionAndReadingWaits) {
  const Tensor y = x_ * x_;
  const rt::ExecutionHandle exec = Core0().in_flight().back();
  ASSERT_EQ(exec->kind, rt::RecordKind::kExecution);
  EXPECT_FALSE(Core0().IsComplete(exec)) << "the host went on while the device runs";
  const Tensor host = y.cpu();  // nrta_tensor_read: waits for the stream
  EXPECT_TRUE(exec->completed);
  EXPECT_GE(Now(), exec->device_end);
  const Tensor z = y + y;
  const rt::ExecutionHandle next = Core0().in_flight().back();
  EXPECT_FALSE(Core0().IsComplete(next));
  Synchronize();
  EXPECT_GE(Now(), next->device_end);
  EXPECT_TRUE(Core0().IsComplete(next));
  (void)host;
  (void)z;
}

TEST_F(NeuronRuntime, HostPaysDispatchSubmitAndAllocationPerOp) {
  const HostParams& h = Core0().config().host;
  const Picos before = Now();
  const Tensor y = x_ * x_;
  const rt::ExecutionHandle exec = Core0().records().back();
  const Picos host = Now() - before;
  EXPECT_GE(host, h.framework_dispatch_ps + h.runtime_submit_ps + h.alloc_ps);
  EXPECT_EQ(exec->submit_end - exec->submit_start, h.runtime_submit_ps);
  EXPECT_NE(exec->correlation_id, 0u);
}

TEST_F(NeuronRuntime, RepeatedOpsReuseTheirKernels) {
  const Tensor a = x_ * w_;
  const int64_t generated = GeneratedKernelCount();
  const int64_t loads = Core0().kernel_cache_stats().misses;
  for (int i = 0; i < 3; ++i) (void)(x_ * w_);
  EXPECT_EQ(GeneratedKernelCount(), generated);
  EXPECT_EQ(Core0().kernel_cache_stats().misses, loads);
  EXPECT_EQ(CountRecords(rt::RecordKind::kExecution), 4);
  (void)(x_.slice(0, 0, 2) * w_);  // another shape: another kernel
  EXPECT_EQ(GeneratedKernelCount(), generated + 1);
}

TEST_F(NeuronRuntime, DeviceMemoryIsFreedWithTheTensor) {
  const uint64_t live = Core0().memory_stats().live_allocations;
  {
    const Tensor y = x_ * x_;
    EXPECT_EQ(Core0().memory_stats().live_allocations, live + 1);
  }
  EXPECT_EQ(Core0().memory_stats().live_allocations, live);
}

}  // namespace
}  // namespace neuron
}  // namespace nsim
