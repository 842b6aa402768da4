// Runtime::AllReduce: the ring of sim/model/all_reduce.h submitted into the
// chip scheduler. Values against a CPU sum; each step's device time against
// the same step launched alone on a Chip (whose total all_reduce_test checks
// against the analytic ring cost, within 1 %).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

#include "runtime/test_util.h"
#include "sim/config/loader.h"
#include "sim/model/all_reduce.h"

namespace nsim {
namespace rt {
namespace {

using testing::ErrorOf;
using ::testing::HasSubstr;

using CollectiveTest = testing::FreshRuntimeTest;

float Value(int64_t i, int device) { return static_cast<float>((i * 7 + device * 3) % 17); }  // exact sums

TEST_F(CollectiveTest, AllReduceSumsAndTakesTheRingsTime) {
  for (int n : {2, 4, 8}) {
    Runtime::Get().Reset();
    const int64_t elements = int64_t{128} * 256 * n;
    const uint64_t bytes = static_cast<uint64_t>(elements) * sizeof(float);
    std::vector<CollectiveBuffer> buffers;
    for (int d = 0; d < n; ++d) {
      NeuronCoreDevice& nc = Runtime::Get().core(d);
      std::vector<float> v(static_cast<size_t>(elements));
      for (int64_t i = 0; i < elements; ++i) v[i] = Value(i, d);
      buffers.push_back({d, nc.Allocate(bytes)});
      nc.CopyToDevice(buffers.back().address, v.data(), bytes);
      nc.Synchronize();
    }
    const ExecutionHandle h = Runtime::Get().AllReduce(buffers, elements, DType::kF32);
    Runtime::Get().core(0).Wait(h);
    for (int d = 0; d < n; ++d) {
      NeuronCoreDevice& nc = Runtime::Get().core(d);
      std::vector<float> got(static_cast<size_t>(elements));
      nc.CopyFromDevice(got.data(), buffers[d].address, bytes);
      for (int64_t i = 0; i < elements; ++i) {
        float want = 0;
        for (int c = 0; c < n; ++c) want += Value(i, c);
        ASSERT_EQ(got[i], want) << "neuron:" << d << " element " << i << " of " << n;
      }
      // 2(N-1) steps, one record each on every device, all on its stream 0.
      int steps = 0;
      for (const ExecutionHandle& r : nc.records()) steps += r->is_copy() ? 0 : 1;
      EXPECT_EQ(steps, 2 * (n - 1)) << "neuron:" << d;
    }
    // The same steps launched back to back on a chip of their own, with the
    // buffers at the same addresses (so on the same stacks).
    Chip chip(LoadHardwareConfig("trn2"));
    std::vector<uint64_t> addresses;
    for (const CollectiveBuffer& b : buffers) addresses.push_back(b.address);
    const AllReduceResult ring = RingAllReduce(chip, addresses, elements, DType::kF32);
    Picos total = 0;
    for (const ExecutionHandle& r : Runtime::Get().core(0).records()) {
      if (!r->is_copy()) total += r->device_end - r->device_start;
    }
    EXPECT_EQ(total, ring.device_time) << n << " devices";
    Picos last_end = 0;
    for (const ExecutionHandle& r : Runtime::Get().core(n - 1).records()) {
      if (!r->is_copy()) last_end = r->device_end;
    }
    EXPECT_EQ(h->device_end, last_end) << "the handle is the last step";
  }
}

TEST_F(CollectiveTest, AllReduceErrors) {
  NeuronCoreDevice& nc0 = Runtime::Get().core(0);
  NeuronCoreDevice& nc1 = Runtime::Get().core(1);
  const uint64_t a = nc0.Allocate(4096), b = nc1.Allocate(4096);
  EXPECT_THAT(ErrorOf([&] { Runtime::Get().AllReduce({{0, a}}, 256, DType::kF32); }),
              HasSubstr("AllReduce: needs buffers on at least 2 logical devices, got 1"));
  EXPECT_THAT(ErrorOf([&] { Runtime::Get().AllReduce({{0, a}, {0, a}}, 256, DType::kF32); }),
              HasSubstr("neuron:0 is given twice"));
  EXPECT_THAT(ErrorOf([&] { Runtime::Get().AllReduce({{0, a}, {1, b}}, 100, DType::kF32); }),
              HasSubstr("must be a positive multiple of 128 x cores (256)"));
  EXPECT_THAT(ErrorOf([&] { Runtime::Get().AllReduce({{0, a}, {1, b}}, 2048, DType::kF32); }),
              HasSubstr("runs past the end of its allocation"));
  EXPECT_THAT(ErrorOf([&] { Runtime::Get().AllReduce({{0, a}, {1, b}}, 256, DType::kF32, 4); }),
              HasSubstr("AllReduce on unknown stream 4"));
  Runtime::Get().ConfigureCore(2, "trn1");
  const uint64_t c = Runtime::Get().core(2).Allocate(4096);
  EXPECT_THAT(ErrorOf([&] { Runtime::Get().AllReduce({{0, a}, {2, c}}, 256, DType::kF32); }),
              HasSubstr("neuron:2 is on another chip than neuron:0"));
}

}  // namespace
}  // namespace rt
}  // namespace nsim
