// The event API: a single branch when nothing records, op nesting per
// thread, capture filtering, and sealing a window at export time.
#include "profiler/collector.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "profiler/events.h"
#include "profiler/recording.h"

namespace nsim {
namespace prof {
namespace {

OpInfo Named(const std::string& name) {
  OpInfo info;
  info.name = name;
  info.input_shapes = "[[1]]";
  return info;
}

TEST(CollectorTest, NothingRecordsWithoutAnActiveCollector) {
  EXPECT_FALSE(Enabled());
  EXPECT_EQ(BeginOp(Named("aten::mul"), 0), 0u);
  EXPECT_EQ(RecordRuntimeCall({"nrta_execute_schedule"}), 0u);
  EXPECT_FALSE(DeviceCaptureWanted(0));
  EXPECT_EQ(CurrentCorrelationId(), 0u);
  EndOp(0, 1);  // harmless
}

TEST(CollectorTest, RecordsNestedOpsAndTheirCorrelation) {
  Collector c({});
  c.Activate();
  EXPECT_TRUE(Enabled());
  const uint64_t outer = BeginOp(Named("aten::matmul"), 0);
  const uint64_t inner = BeginOp(Named("aten::mm"), 1);
  EXPECT_EQ(CurrentCorrelationId(), inner);
  const uint64_t launch =
      RecordRuntimeCall({"nrta_execute_schedule", 0, 0, CurrentCorrelationId(), 2, 3});
  EndOp(inner, 4);
  EXPECT_EQ(CurrentCorrelationId(), outer);
  EndOp(outer, 5);
  EXPECT_EQ(CurrentCorrelationId(), 0u);
  c.Deactivate();
  EXPECT_FALSE(Enabled());

  RawEvents raw = c.TakeEvents();
  ASSERT_EQ(raw.ops.size(), 2u);
  EXPECT_EQ(raw.ops[1].end, 4);
  EXPECT_EQ(raw.ops[0].info.input_shapes, "");  // record_shapes is off
  ASSERT_EQ(raw.runtime_calls.size(), 1u);
  EXPECT_EQ(raw.runtime_calls[0].call.op_correlation_id, inner);
  EXPECT_EQ(raw.runtime_calls[0].launch_id, launch);
  EXPECT_NE(launch, inner);
}

TEST(CollectorTest, OnlyOneCollectorAtATime) {
  Collector a({}), b({});
  a.Activate();
  EXPECT_THROW(b.Activate(), std::logic_error);
  a.Deactivate();
  b.Activate();
  b.Deactivate();
}

TEST(CollectorTest, OpOpenWhenTheWindowClosesIsDroppedAndStillPops) {
  Collector c({});
  c.Activate();
  const uint64_t op = BeginOp(Named("aten::mul"), 0);
  c.Deactivate();
  EndOp(op, 10);
  EXPECT_EQ(CurrentCorrelationId(), 0u);
  const Recording rec = Seal(c.TakeEvents(), {}, 0, 10);
  EXPECT_TRUE(rec.ops.empty());
}

TEST(CollectorTest, CaptureIsLimitedToSelectedCores) {
  CollectorOptions options;
  options.capture_ncs = NcSelection::Parse("1,3-4");
  Collector c(options);
  c.Activate();
  EXPECT_FALSE(DeviceCaptureWanted(0));
  EXPECT_TRUE(DeviceCaptureWanted(4));
  DeviceExecution e;
  e.nc = 0;
  e.kernel_text = "kernel";
  e.instructions.resize(3);
  RecordDeviceExecution(e);
  c.Deactivate();
  RawEvents raw = c.TakeEvents();
  ASSERT_EQ(raw.executions.size(), 1u);
  EXPECT_FALSE(raw.executions[0].captured);
  EXPECT_TRUE(raw.executions[0].exec.instructions.empty());
  EXPECT_TRUE(raw.executions[0].exec.kernel_text.empty());
}

TEST(CollectorTest, NcSelectionParsing) {
  EXPECT_TRUE(NcSelection::Parse("").Contains(17));
  const NcSelection sel = NcSelection::Parse(" 0, 2-5 ");
  EXPECT_TRUE(sel.Contains(0));
  EXPECT_FALSE(sel.Contains(1));
  EXPECT_TRUE(sel.Contains(5));
  EXPECT_FALSE(sel.Contains(6));
  EXPECT_THROW(NcSelection::Parse("0,x"), std::invalid_argument);
  EXPECT_THROW(NcSelection::Parse("5-2"), std::invalid_argument);
}

TEST(CollectorTest, SealDropsExecutionsNotCompleteAtExport) {
  RawEvents raw;
  raw.executions.resize(3);
  raw.executions[0].exec.start = 0;
  raw.executions[0].exec.end = 100;
  raw.executions[1].exec.start = 100;
  raw.executions[1].exec.end = 250;
  raw.executions[2].exec.start = 250;
  raw.executions[2].exec.end = 400;
  const Recording rec = Seal(std::move(raw), {}, 0, /*export_time=*/100);
  EXPECT_EQ(rec.executions.size(), 1u);
  EXPECT_EQ(rec.dropped_executions, 2);
  EXPECT_EQ(rec.dropped_device_time, 300);
  EXPECT_NE(MissingSyncWarning(rec).find("2 device execution(s)"), std::string::npos);
}

TEST(CollectorTest, FormatsShapesLikePythonStr) {
  EXPECT_EQ(FormatShapes({{4, 512}, {512}, {}}), "[[4, 512], [512], []]");
  EXPECT_EQ(FormatShapes({}), "[]");
  EXPECT_EQ(FormatDtypes({"c10::BFloat16", "Scalar"}), "[c10::BFloat16, Scalar]");
}

}  // namespace
}  // namespace prof
}  // namespace nsim
