// FunctionEvent semantics: CPU nesting by time containment per thread, Self
// times, device time attributed through correlation ids, PyTorch's name
// rewriting, filtering and duplicate folding.
#include "profiler/function_events.h"

#include <gtest/gtest.h>

#include "profiler/event_list.h"

namespace nsim {
namespace prof {
namespace {

constexpr Picos kUs = 1000000;

class FunctionEventsTest : public ::testing::Test {
 protected:
  FunctionEventsTest() { rec_.settings.use_device = kBackendName; }

  uint64_t Op(const std::string& name, Picos start, Picos end, int64_t thread = 0,
              OpKind kind = OpKind::kAtenOp) {
    RecordedOp op;
    op.info.name = name;
    op.info.kind = kind;
    op.info.thread_id = thread;
    op.correlation_id = ++next_id_;
    op.start = start;
    op.end = end;
    rec_.ops.push_back(op);
    return op.correlation_id;
  }
  uint64_t Runtime(const std::string& name, uint64_t op, Picos start, Picos end) {
    RecordedRuntimeCall rc;
    rc.call.name = name;
    rc.call.op_correlation_id = op;
    rc.call.start = start;
    rc.call.end = end;
    rc.launch_id = ++next_id_;
    rec_.runtime_calls.push_back(rc);
    return rc.launch_id;
  }
  void Exec(uint64_t op, Picos start, Picos end) {
    RecordedExecution e;
    e.exec.op_correlation_id = op;
    e.exec.start = start;
    e.exec.end = end;
    rec_.executions.push_back(e);
  }
  EventList Events() const { return EventList(BuildFunctionEvents(rec_), rec_.settings.use_device); }

  Recording rec_;
  uint64_t next_id_ = 0;
};

TEST_F(FunctionEventsTest, SelfTimesFollowNestingAndCorrelation) {
  const uint64_t outer = Op("aten::matmul", 0, 100 * kUs);
  const uint64_t inner = Op("aten::mm", 10 * kUs, 50 * kUs);
  Runtime("nrta_execute_schedule", inner, 20 * kUs, 30 * kUs);
  Exec(inner, 40 * kUs, 240 * kUs);  // runs past the op: async

  const EventList events = Events();
  ASSERT_EQ(events.size(), 4u);
  const EventStats* mm = events.Find("aten::mm");
  const EventStats* matmul = events.Find("aten::matmul");
  const EventStats* rt = events.Find("nrta_execute_schedule");
  const EventStats* dev = events.Find(kDeviceExecutionName, DeviceType::kPrivateUse1);
  ASSERT_TRUE(mm && matmul && rt && dev);
  EXPECT_EQ(matmul->cpu_time_total, 100 * kUs);
  EXPECT_EQ(matmul->self_cpu_time_total, 60 * kUs);
  EXPECT_EQ(matmul->device_time_total, 200 * kUs);
  EXPECT_EQ(matmul->self_device_time_total, 0);
  EXPECT_EQ(mm->cpu_time_total, 40 * kUs);
  EXPECT_EQ(mm->self_cpu_time_total, 30 * kUs);  // the runtime call is its child
  EXPECT_EQ(mm->self_device_time_total, 200 * kUs);
  EXPECT_TRUE(rt->has_cpu_parent);
  EXPECT_EQ(dev->self_device_time_total, 200 * kUs);
  EXPECT_EQ(dev->cpu_time_total, 0);
  (void)outer;
}

TEST_F(FunctionEventsTest, RuntimeCallsJoinTheirOpsThread) {
  const uint64_t op = Op("aten::add", 0, 10 * kUs, /*thread=*/7);
  Runtime("nrta_tensor_write", op, 2 * kUs, 4 * kUs);
  const EventList events = Events();
  EXPECT_EQ(events.Find("aten::add")->self_cpu_time_total, 8 * kUs);
  EXPECT_TRUE(events.Find("nrta_tensor_write")->has_cpu_parent);
}

TEST_F(FunctionEventsTest, ProfilerStepsAggregateAndBookkeepingIsFiltered) {
  Op("ProfilerStep#3", 0, 10 * kUs, 0, OpKind::kUserAnnotation);
  Op("ProfilerStep#4", 10 * kUs, 20 * kUs, 0, OpKind::kUserAnnotation);
  Op("aten::is_leaf", 1 * kUs, 2 * kUs);
  Op("profiler::_record_function_enter_new", 3 * kUs, 4 * kUs);
  const EventList averaged = Events().key_averages();
  ASSERT_EQ(averaged.size(), 1u);
  EXPECT_EQ(averaged[0].key, "ProfilerStep*");
  EXPECT_EQ(averaged[0].count, 2);
  EXPECT_TRUE(averaged[0].is_user_annotation);
  EXPECT_EQ(averaged[0].self_cpu_time_total, 20 * kUs);
}

TEST_F(FunctionEventsTest, SameNameSingleChildIsFolded) {
  const uint64_t outer = Op("aten::to", 0, 100 * kUs);
  const uint64_t inner = Op("aten::to", 10 * kUs, 90 * kUs);
  Op("aten::copy_", 20 * kUs, 80 * kUs);
  Exec(inner, 100 * kUs, 150 * kUs);
  const EventList averaged = Events().key_averages();
  const EventStats* to = averaged.Find("aten::to");
  ASSERT_NE(to, nullptr);
  EXPECT_EQ(to->count, 1);
  EXPECT_EQ(to->cpu_time_total, 100 * kUs);
  EXPECT_EQ(to->self_cpu_time_total, 40 * kUs);   // minus aten::copy_
  EXPECT_EQ(to->self_device_time_total, 50 * kUs);  // the inner op's kernels moved up
  (void)outer;
}

TEST_F(FunctionEventsTest, CompiledRegionOwnsItsDeviceTime) {
  const uint64_t region = Op("Torch-Compiled Region: 0/0", 0, 98 * kUs, 0, OpKind::kCompiledRegion);
  Runtime("nrta_execute_schedule", region, 40 * kUs, 45 * kUs);
  Exec(region, 45 * kUs, 420 * kUs);
  const EventList averaged = Events().key_averages();  // Find points into it: keep it alive
  const EventStats* r = averaged.Find("Torch-Compiled Region: 0/0");
  ASSERT_NE(r, nullptr);
  EXPECT_FALSE(r->is_user_annotation);
  EXPECT_EQ(r->self_device_time_total, 375 * kUs);
  EXPECT_EQ(r->self_cpu_time_total, 93 * kUs);
}

TEST_F(FunctionEventsTest, WithoutPrivateUse1ThereIsNoDeviceTime) {
  const uint64_t op = Op("aten::mul", 0, 10 * kUs);
  Exec(op, 10 * kUs, 20 * kUs);
  rec_.settings.use_device.clear();
  const EventList events = Events();
  EXPECT_EQ(events.Find(kDeviceExecutionName, DeviceType::kPrivateUse1), nullptr);
  EXPECT_EQ(events.Find("aten::mul")->device_time_total, 0);
  EXPECT_EQ(events.table().find("NEURON"), std::string::npos);
}

TEST_F(FunctionEventsTest, CorrelateDeviceTimeOffHidesNeuronColumns) {
  const uint64_t op = Op("aten::mul", 0, 10 * kUs);
  Exec(op, 10 * kUs, 20 * kUs);
  rec_.settings.correlate_device_time = false;
  EXPECT_EQ(Events().table().find("NEURON"), std::string::npos);
}

TEST_F(FunctionEventsTest, GroupByInputShapeSplitsRows) {
  Op("aten::mul", 0, 10 * kUs);
  rec_.ops.back().info.input_shapes = "[[4, 512], [4, 512]]";
  Op("aten::mul", 10 * kUs, 20 * kUs);
  rec_.ops.back().info.input_shapes = "[[4, 512], [4, 1]]";
  EXPECT_EQ(Events().key_averages().size(), 1u);
  const EventList by_shape = Events().key_averages(/*group_by_input_shape=*/true);
  ASSERT_EQ(by_shape.size(), 2u);
  EXPECT_EQ(by_shape[1].input_shapes, "[[4, 512], [4, 1]]");
  EXPECT_NE(by_shape.table().find("Input Shapes"), std::string::npos);
}

}  // namespace
}  // namespace prof
}  // namespace nsim
