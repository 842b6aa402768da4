#include "runtime/observer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "runtime/runtime.h"
#include "runtime/test_util.h"

namespace nsim {
namespace rt {
namespace {

using testing::ErrorOf;
using ::testing::HasSubstr;
using testing::Iota;
using testing::kScaleTensorBytes;
using testing::ScaleKernel;

// Keeps what it was told, as the profiler will.
class Recorder : public RuntimeObserver {
 public:
  void OnExecution(const ExecutionRecord& r) override { seen.push_back("exec " + r.kernel_name); }
  void OnCopy(const ExecutionRecord& r) override { seen.push_back(std::string("copy ") + r.api); }
  std::vector<std::string> seen;
};

class ObserverTest : public testing::FreshRuntimeTest {
 protected:
  // One write, one execution, one read on core 0, with correlation ids 1..3.
  void RunOneOp() {
    NeuronCoreDevice& nc = Runtime::Get().core(0);
    const uint64_t x = nc.Allocate(kScaleTensorBytes), out = nc.Allocate(kScaleTensorBytes);
    std::vector<float> data = Iota(32);
    nc.CopyToDevice(x, data.data(), kScaleTensorBytes, 0, 1);
    nc.ExecuteAsync(nc.LoadKernel(ScaleKernel()), {{"x", x}, {"out", out}}, 0, 2);
    nc.CopyFromDevice(data.data(), out, kScaleTensorBytes, 0, 3);
  }
};

TEST_F(ObserverTest, SeesEveryExecutionAndCopyInOrder) {
  Recorder recorder;
  EXPECT_FALSE(RuntimeObserversActive());
  AddRuntimeObserver(&recorder);
  EXPECT_TRUE(RuntimeObserversActive());
  RunOneOp();
  RemoveRuntimeObserver(&recorder);
  EXPECT_FALSE(RuntimeObserversActive());
  EXPECT_EQ(recorder.seen,
            (std::vector<std::string>{"copy nrta_tensor_write", "exec scale", "copy nrta_tensor_read"}));
  RunOneOp();  // no longer observed
  EXPECT_EQ(recorder.seen.size(), 3u);
}

TEST_F(ObserverTest, RecordsAreKeptInSubmissionOrder) {
  RunOneOp();
  const std::vector<ExecutionHandle>& records = Runtime::Get().core(0).records();
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[0]->kind, RecordKind::kCopyToDevice);
  EXPECT_EQ(records[1]->kind, RecordKind::kExecution);
  EXPECT_EQ(records[2]->kind, RecordKind::kCopyFromDevice);
  for (size_t i = 0; i < records.size(); ++i) {
    EXPECT_EQ(records[i]->correlation_id, i + 1);
    EXPECT_EQ(records[i]->core, 0);
    EXPECT_EQ(records[i]->stream, 0);
    EXPECT_LE(records[i]->submit_start, records[i]->submit_end);
    EXPECT_LE(records[i]->submit_end, records[i]->device_start);
    if (i > 0) {
      EXPECT_GE(records[i]->device_start, records[i - 1]->device_end);  // one stream
    }
  }
  Runtime::Get().core(0).ClearRecords();
  EXPECT_TRUE(Runtime::Get().core(0).records().empty());
}

TEST_F(ObserverTest, ObserversSeeRecordsTheCoreDoesNotKeep) {
  Runtime::Get().core(0).set_keep_records(false);
  Recorder recorder;
  AddRuntimeObserver(&recorder);
  RunOneOp();
  RemoveRuntimeObserver(&recorder);
  EXPECT_EQ(recorder.seen.size(), 3u);
  EXPECT_TRUE(Runtime::Get().core(0).records().empty());
}

TEST_F(ObserverTest, RegistrationErrors) {
  Recorder recorder;
  AddRuntimeObserver(&recorder);
  EXPECT_THAT(ErrorOf([&] { AddRuntimeObserver(&recorder); }), HasSubstr("already registered"));
  RemoveRuntimeObserver(&recorder);
  EXPECT_THAT(ErrorOf([&] { RemoveRuntimeObserver(&recorder); }), HasSubstr("not registered"));
}

}  // namespace
}  // namespace rt
}  // namespace nsim
