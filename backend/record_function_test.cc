// Observers and the host cost hook: names, overloads, shapes, dtypes,
// correlation ids, nesting and simulated-clock timestamps.
#include "backend/library.h"
#include "backend/record_function.h"
#include "backend/test_util.h"
#include "runtime/clock.h"

namespace nsim {
namespace at {
namespace {

struct Event {
  std::string name, overload;
  std::vector<IntList> shapes;
  std::vector<std::string> dtypes;
  uint64_t id, parent;
  int depth;
  Picos start, end;
  DispatchKey key;
};

class Recorder : public OpObserver {
 public:
  Recorder() { AddOpObserver(this); }
  ~Recorder() override { RemoveOpObserver(this); }
  void OnOpBegin(const OpCall& c) override { ++begins; (void)c; }
  void OnOpEnd(const OpCall& c) override {
    events.push_back({c.schema->qualified_name(), c.schema->overload_name(), InputShapes(c),
                      InputDtypes(c), c.correlation_id, c.parent_id, c.depth, c.start, c.end,
                      c.key});
    EXPECT_NE(c.outputs, nullptr);
  }
  int begins = 0;
  std::vector<Event> events;  // in end order (children before parents)
};

TEST(RecordFunction, NoHooksByDefault) { EXPECT_FALSE(HooksActive()); }

TEST(RecordFunction, ReportsNameOverloadShapesAndDtypes) {
  const Tensor x = ones({4, 512}, kBFloat16), w = ones({512}, kBFloat16);
  Recorder rec;
  EXPECT_TRUE(HooksActive());
  (void)(x * w);
  ASSERT_EQ(rec.events.size(), 1u);
  const Event& e = rec.events[0];
  EXPECT_EQ(e.name, "aten::mul");
  EXPECT_EQ(e.overload, "Tensor");
  EXPECT_EQ(e.shapes, (std::vector<IntList>{{4, 512}, {512}}));
  EXPECT_EQ(e.dtypes, (std::vector<std::string>{"BFloat16", "BFloat16"}));
  EXPECT_EQ(e.depth, 0);
  EXPECT_EQ(e.parent, 0u);
  EXPECT_EQ(e.key, DispatchKey::CPU);
  (void)x.mean({-1}, true);
  EXPECT_EQ(rec.events[1].name, "aten::mean");
  EXPECT_EQ(rec.events[1].overload, "dim");
  EXPECT_EQ(rec.events[1].shapes, (std::vector<IntList>{{4, 512}, {}, {}, {}}));
  EXPECT_EQ(rec.events[1].dtypes, (std::vector<std::string>{"BFloat16", "ScalarList", "Scalar", ""}));
  EXPECT_EQ(rec.begins, 2);
}

TEST(RecordFunction, CorrelationIdsAreUniqueAndIncreasing) {
  const Tensor x = ones({2});
  Recorder rec;
  for (int i = 0; i < 5; ++i) (void)x.exp();
  ASSERT_EQ(rec.events.size(), 5u);
  for (size_t i = 1; i < 5; ++i) EXPECT_GT(rec.events[i].id, rec.events[i - 1].id);
}

TEST(RecordFunction, NestingFollowsTheCallTree) {
  const Tensor x = ones({2}, kBFloat16);
  Recorder rec;
  (void)x.add(Scalar(1.0));  // aten::add.Scalar -> aten::add.Tensor
  ASSERT_EQ(rec.events.size(), 2u);
  const Event& child = rec.events[0];
  const Event& parent = rec.events[1];
  EXPECT_EQ(parent.name + "." + parent.overload, "aten::add.Scalar");
  EXPECT_EQ(child.name + "." + child.overload, "aten::add.Tensor");
  EXPECT_EQ(child.parent, parent.id);
  EXPECT_EQ(child.depth, 1);
  EXPECT_LT(parent.id, child.id);  // ids are handed out at begin
  EXPECT_EQ(child.shapes, (std::vector<IntList>{{2}, {}, {}}));
  EXPECT_EQ(child.dtypes, (std::vector<std::string>{"BFloat16", "Float", "Scalar"}));
}

class FixedCost : public HostCostModel {
 public:
  Picos DispatchCost(const OpCall& c) override {
    names.push_back(c.schema->full_name());
    return 10 * kPicosPerNano;
  }
  std::vector<std::string> names;
};

TEST(RecordFunction, HostCostAdvancesTheClockForNeuronOpsOnly) {
  testing::FakeNeuronDevice dev;
  Library lib(Library::Kind::IMPL, "aten", DispatchKey::Neuron, __FILE__, __LINE__);
  lib.impl("exp", [](const Tensor& a) { return a; });
  const Tensor n = ones({2}, testing::Neuron0()), c = ones({2});
  FixedCost cost;
  EXPECT_EQ(SetHostCostModel(&cost), nullptr);
  Recorder rec;
  rt::SimClock& clock = rt::SimClock::Get();
  const Picos t0 = clock.now();
  (void)c.exp();  // CPU: free
  EXPECT_EQ(clock.now(), t0);
  (void)n.exp();  // Neuron: one dispatch cost
  EXPECT_EQ(clock.now(), t0 + 10 * kPicosPerNano);
  EXPECT_EQ(cost.names, (std::vector<std::string>{"aten::exp"}));
  ASSERT_EQ(rec.events.size(), 2u);
  EXPECT_EQ(rec.events[1].key, DispatchKey::Neuron);
  EXPECT_EQ(rec.events[1].start, t0);  // the cost is inside the op's span
  EXPECT_EQ(rec.events[1].end, t0 + 10 * kPicosPerNano);
  EXPECT_EQ(SetHostCostModel(nullptr), &cost);
}

TEST(RecordFunction, EndIsReportedWhenAnOpThrows) {
  class EndCounter : public OpObserver {
   public:
    void OnOpEnd(const OpCall& c) override { outputs.push_back(c.outputs); }
    std::vector<const Stack*> outputs;
  } counter;
  const Tensor a = ones({2}), b = ones({3});
  AddOpObserver(&counter);
  EXPECT_THROW(a * b, SimError);
  RemoveOpObserver(&counter);
  ASSERT_EQ(counter.outputs.size(), 1u);
  EXPECT_EQ(counter.outputs[0], nullptr);
  EXPECT_FALSE(HooksActive());
}

}  // namespace
}  // namespace at
}  // namespace nsim
