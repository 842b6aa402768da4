// trace.json parsed back and checked structurally: named processes and lanes,
// strict nesting per lane, flows bound inside slices along op -> runtime ->
// hardware, Kineto timestamp format, counters, and agreement with the table.
#include "profiler/chrome_trace.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <regex>
#include <set>

#include <nlohmann/json.hpp>

#include "profiler/function_events.h"
#include "profiler/profile.h"
#include "profiler/synthetic.h"
#include "sim/base/sim_clock.h"

namespace nsim {
namespace prof {
namespace {

using nlohmann::json;
using synthetic::Backend;
using synthetic::Op;
using synthetic::RmsNormEagerOps;

int64_t Ns(const json& v) { return std::llround(v.get<double>() * 1000.0); }

struct Slice {
  std::string name, cat;
  int pid, tid;
  int64_t ts, end;
  json args;
};

struct Parsed {
  std::string text;
  json doc;
  std::map<int, std::string> processes;
  std::map<std::pair<int, int>, std::string> threads;
  std::vector<Slice> slices;
  std::vector<json> flows, counters, instants;

  std::set<std::string> ThreadNames() const {
    std::set<std::string> names;
    for (const auto& [key, name] : threads) names.insert(name);
    return names;
  }
  std::vector<const Slice*> Named(const std::string& name) const {
    std::vector<const Slice*> out;
    for (const Slice& s : slices) {
      if (s.name == name) out.push_back(&s);
    }
    return out;
  }
  // The slice a flow event binds to: the innermost one on its lane that
  // encloses its ts.
  const Slice* Owner(const json& flow) const {
    const int64_t t = Ns(flow["ts"]);
    const Slice* best = nullptr;
    for (const Slice& s : slices) {
      if (s.pid != flow["pid"] || s.tid != flow["tid"] || t < s.ts || t > s.end) continue;
      if (t == s.end && s.end > s.ts) continue;  // [ts, end)
      if (!best || s.ts > best->ts || (s.ts == best->ts && s.end < best->end)) best = &s;
    }
    return best;
  }
};

Parsed Parse(const std::string& text) {
  Parsed p;
  p.text = text;
  p.doc = json::parse(text);
  for (const json& e : p.doc.at("traceEvents")) {
    const std::string ph = e.at("ph");
    if (ph == "M" && e["name"] == "process_name") p.processes[e["pid"]] = e["args"]["name"];
    if (ph == "M" && e["name"] == "thread_name") p.threads[{e["pid"], e["tid"]}] = e["args"]["name"];
    if (ph == "X") {
      p.slices.push_back({e["name"], e["cat"], e["pid"], e["tid"], Ns(e["ts"]),
                          Ns(e["ts"]) + Ns(e["dur"]), e["args"]});
    }
    if (ph == "s" || ph == "f") p.flows.push_back(e);
    if (ph == "C") p.counters.push_back(e);
    if (ph == "i") p.instants.push_back(e);
  }
  return p;
}

class ChromeTraceTest : public ::testing::Test {
 protected:
  void SetUp() override { SimClock::Get().Reset(); }

  // The study's set-up with synchronisation; returns the recorded window.
  Recording RecordStudy(NeuronConfig cfg = {}) {
    ProfileOptions opts;
    opts.schedule = MakeSchedule(2, 1, 1);
    opts.experimental_config = cfg;
    Backend backend;
    Profile prof(opts);
    for (int i = 0; i < 4; ++i) {
      for (const Op& op : RmsNormEagerOps()) backend.Run(op);
      backend.Synchronize();
      prof.step();
    }
    averages_ = prof.key_averages();
    return prof.recording();
  }

  EventList averages_;
};

TEST_F(ChromeTraceTest, HasKinetoContainerAndTimestampFormat) {
  const Parsed p = Parse(ChromeTraceJson(RecordStudy()));
  EXPECT_EQ(p.doc["schemaVersion"], 1);
  EXPECT_EQ(p.doc["displayTimeUnit"], "ms");
  EXPECT_EQ(p.doc["baseTimeNanoseconds"], 0);
  EXPECT_TRUE(p.doc["deviceProperties"].is_array());
  EXPECT_EQ(p.doc["traceName"], "trace.json");
  // Every ts/dur is microseconds on the 2^-16 us grid: an exact binary
  // fraction (at most 16 decimals) that Perfetto's llround(us * 1000) maps
  // back to integer ns.
  const std::regex number(R"re("(ts|dur)": ([0-9.]+))re");
  int checked = 0;
  for (auto it = std::sregex_iterator(p.text.begin(), p.text.end(), number);
       it != std::sregex_iterator(); ++it) {
    const std::string value = (*it)[2];
    EXPECT_TRUE(std::regex_match(value, std::regex(R"(\d+(\.\d{1,16})?)"))) << value;
    const double ticks = std::stod(value) * 65536.0;
    EXPECT_EQ(ticks, std::floor(ticks)) << value;
    ++checked;
  }
  EXPECT_GT(checked, 100);
}

// What speedscope and DevTools do: ts + dur in floating point, no rounding.
// Slices on one lane must still nest or follow one another exactly.
TEST_F(ChromeTraceTest, FloatingPointEndsNest) {
  const Parsed p = Parse(ChromeTraceJson(RecordStudy()));
  std::map<std::pair<int, int>, std::vector<std::pair<double, double>>> lanes;
  for (const json& e : p.doc["traceEvents"]) {
    if (e["ph"] != "X") continue;
    const double ts = e["ts"].get<double>();
    lanes[{e["pid"], e["tid"]}].push_back({ts, ts + e["dur"].get<double>()});
  }
  int nested = 0;
  for (auto& [lane, spans] : lanes) {
    std::sort(spans.begin(), spans.end(), [](auto a, auto b) { return a.first != b.first ? a.first < b.first : a.second > b.second; });
    std::vector<double> open;  // ends of the enclosing slices
    for (const auto& [ts, end] : spans) {
      while (!open.empty() && open.back() <= ts) open.pop_back();
      if (!open.empty()) {
        EXPECT_LE(end, open.back()) << "lane " << lane.first << "/" << lane.second << " slice at " << ts;
        ++nested;
      }
      open.push_back(end);
    }
  }
  EXPECT_GT(nested, 10);
}

TEST_F(ChromeTraceTest, LanesAreNamedLikeNeuronExplorer) {
  const Parsed p = Parse(ChromeTraceJson(RecordStudy()));
  const std::set<std::string> names = p.ThreadNames();
  for (const char* lane : {"framework/TID:0", "framework/Stream:0", "neuron_rt/NC:0",
                           "neuron_hw/NC0", "TensorE", "VectorE", "VectorE (2)", "ScalarE", "GpSimd",
                           "Sync", "DMA q0", "DMA q1"}) {
    EXPECT_EQ(names.count(lane), 1u) << lane;
  }
  for (const Slice& s : p.slices) {
    EXPECT_EQ(p.processes.count(s.pid), 1u) << s.name;
    EXPECT_EQ(p.threads.count({s.pid, s.tid}), 1u) << s.name;
  }
  EXPECT_EQ(p.processes.size(), 3u);  // host, NC0, NEURON 0 Counters
}

TEST_F(ChromeTraceTest, SlicesNestStrictlyOnEveryLane) {
  const Parsed p = Parse(ChromeTraceJson(RecordStudy()));
  std::map<std::pair<int, int>, std::vector<const Slice*>> lanes;
  for (const Slice& s : p.slices) lanes[{s.pid, s.tid}].push_back(&s);
  for (auto& [lane, slices] : lanes) {
    std::stable_sort(slices.begin(), slices.end(), [](const Slice* a, const Slice* b) {
      return a->ts != b->ts ? a->ts < b->ts : a->end > b->end;
    });
    std::vector<const Slice*> open;
    for (const Slice* s : slices) {
      while (!open.empty() && open.back()->end <= s->ts) open.pop_back();
      if (!open.empty()) {
        EXPECT_LE(s->end, open.back()->end)
            << s->name << " overlaps " << open.back()->name << " on " << p.threads.at(lane);
      }
      open.push_back(s);
    }
  }
}

TEST_F(ChromeTraceTest, FlowsRunOpToRuntimeToHardwareInsideSlices) {
  const Parsed p = Parse(ChromeTraceJson(RecordStudy()));
  std::map<int64_t, std::vector<json>> by_id;
  for (const json& f : p.flows) by_id[f["id"]].push_back(f);
  ASSERT_EQ(by_id.size(), 7u + 6u);  // op -> 7 runtime calls, 6 executions -> runtime
  for (const auto& [id, ends] : by_id) {
    ASSERT_EQ(ends.size(), 2u) << id;
    const json& s = ends[0]["ph"] == "s" ? ends[0] : ends[1];
    const json& f = ends[0]["ph"] == "f" ? ends[0] : ends[1];
    ASSERT_EQ(s["ph"], "s");
    ASSERT_EQ(f["ph"], "f");
    EXPECT_EQ(f["bp"], "e");
    EXPECT_EQ(s["cat"], "ac2g");
    EXPECT_EQ(s["name"], f["name"]);
    EXPECT_LE(Ns(s["ts"]), Ns(f["ts"]));
    const Slice* from = p.Owner(s);
    const Slice* to = p.Owner(f);
    ASSERT_TRUE(from && to) << id;
    EXPECT_EQ(from->args["External id"], to->args["External id"]);
    if (from->cat == "cpu_op") {
      EXPECT_EQ(to->cat, "privateuse1_runtime");
    } else {
      EXPECT_EQ(from->name, "nrta_execute_schedule");
      EXPECT_EQ(to->name, kDeviceExecutionName);
      EXPECT_EQ(from->args["correlation"], to->args["correlation"]);
    }
  }
  // Selecting one aten::mul leads to its hardware execution.
  const Slice* mul = p.Named("aten::mul").front();
  std::set<std::string> reached;
  for (const json& s : p.flows) {
    if (s["ph"] != "s" || p.Owner(s) != mul) continue;
    for (const json& f : p.flows) {
      if (f["ph"] == "f" && f["id"] == s["id"]) reached.insert(p.Owner(f)->name);
    }
  }
  EXPECT_EQ(reached, (std::set<std::string>{"nrta_execute_schedule"}));
}

TEST_F(ChromeTraceTest, HardwareSlicesAgreeWithTheTable) {
  const Parsed p = Parse(ChromeTraceJson(RecordStudy()));
  const std::vector<const Slice*> hw = p.Named(kDeviceExecutionName);
  ASSERT_EQ(hw.size(), 6u);
  int64_t total_ns = 0;
  for (const Slice* s : hw) total_ns += s->end - s->ts;
  // Each slice is floored to whole ns, so the sum may be short by < 1 ns each.
  const int64_t table_ns = averages_.self_device_time_total() / kPicosPerNano;
  EXPECT_NEAR(total_ns, table_ns, 6);
  // Per op: the executions whose External id names an aten::mul add up to its row.
  std::set<int64_t> mul_ids;
  for (const Slice* s : p.Named("aten::mul")) mul_ids.insert(s->args["External id"].get<int64_t>());
  int64_t mul_ns = 0;
  for (const Slice* s : hw) {
    if (mul_ids.count(s->args["External id"].get<int64_t>())) mul_ns += s->end - s->ts;
  }
  EXPECT_NEAR(mul_ns, averages_.Find("aten::mul")->self_device_time_total / kPicosPerNano, 3);
}

TEST_F(ChromeTraceTest, InstructionsAndCountersInDeviceMode) {
  const Recording rec = RecordStudy();
  const Parsed p = Parse(ChromeTraceJson(rec));
  int instructions = 0, dma = 0;
  for (const Slice& s : p.slices) {
    instructions += s.cat == "neuron_instruction";
    dma += s.cat == "neuron_dma";
  }
  EXPECT_EQ(instructions, 6 * 7);
  EXPECT_EQ(dma, 6 * 3);
  EXPECT_EQ(p.Named("matmul").front()->args["dst"], "t_out[0:4, 0:512]");
  std::set<std::string> counter_names;
  for (const json& c : p.counters) {
    counter_names.insert(c["name"]);
    for (const auto& [series, value] : c["args"].items()) {
      ASSERT_TRUE(value.is_number()) << series;
      if (c["name"] == "Engine utilisation") {
        EXPECT_GE(value.get<double>(), 0.0);
        EXPECT_LE(value.get<double>(), 100.0 + 1e-9);
      }
    }
  }
  EXPECT_EQ(counter_names, (std::set<std::string>{"HBM bandwidth", "Engine utilisation"}));
  ASSERT_FALSE(p.instants.empty());
  EXPECT_EQ(p.instants.back()["name"], "Record Window End");
  EXPECT_EQ(Ns(p.instants.back()["ts"]), rec.export_time / kPicosPerNano);
}

// A frontend's source provider (torch_nsim's names Python frames) tags each
// op; every instruction of the execution an op launched names that op and,
// its kernel naming no source of its own, the op's source.
std::string FakeUserStack() { return "/home/me/model.py:7 scale < /home/me/model.py:12 main"; }

TEST_F(ChromeTraceTest, InstructionsNameTheirOpAndItsSource) {
  SetSourceProvider(&FakeUserStack);
  const Recording rec = RecordStudy();
  SetSourceProvider(nullptr);
  const Parsed p = Parse(ChromeTraceJson(rec));
  std::map<int64_t, std::string> op_of;
  for (const Slice& s : p.slices)
    if (s.cat == "cpu_op") op_of[s.args["External id"].get<int64_t>()] = s.name;
  std::set<std::string> ops;
  int instructions = 0;
  for (const RecordedExecution& e : rec.executions) {
    for (const InstructionSlice& s : e.exec.instructions) {
      EXPECT_EQ(s.aten_op, op_of.at(static_cast<int64_t>(e.exec.op_correlation_id)));
      EXPECT_EQ(s.source, FakeUserStack());
      ops.insert(s.aten_op);
      ++instructions;
    }
  }
  EXPECT_EQ(instructions, 6 * 7);
  EXPECT_EQ(ops, (std::set<std::string>{"aten::mul", "aten::mean", "aten::add", "aten::rsqrt"}));
  for (const Slice& s : p.slices) {
    if (s.cat != "neuron_instruction") continue;
    EXPECT_EQ(s.args["source"], "model.py:7");
    EXPECT_EQ(s.args["source_stack"], FakeUserStack());
    EXPECT_TRUE(ops.count(s.args["aten_op"].get<std::string>()));
  }
}

TEST_F(ChromeTraceTest, ModesSelectLanes) {
  NeuronConfig runtime_only;
  runtime_only.modes = {ProfileMode::kRuntime};
  Parsed p = Parse(ChromeTraceJson(RecordStudy(runtime_only)));
  EXPECT_EQ(p.ThreadNames().count("TensorE"), 0u);
  EXPECT_TRUE(p.counters.empty());
  EXPECT_EQ(p.Named(kDeviceExecutionName).size(), 6u);

  SimClock::Get().Reset();
  NeuronConfig device_only;
  device_only.modes = {ProfileMode::kDevice};
  p = Parse(ChromeTraceJson(RecordStudy(device_only)));
  EXPECT_EQ(p.ThreadNames().count("neuron_rt/NC:0"), 0u);
  EXPECT_TRUE(p.Named(kDeviceExecutionName).empty());
  EXPECT_TRUE(p.flows.empty());
  EXPECT_EQ(p.ThreadNames().count("TensorE"), 1u);
  EXPECT_EQ(p.ThreadNames().count("framework/Stream:0"), 1u);
}

TEST_F(ChromeTraceTest, StreamSlicesNameTheKernelTheyQueue) {
  const Parsed p = Parse(ChromeTraceJson(RecordStudy()));
  std::map<int64_t, const Slice*> hw_by_launch;
  for (const Slice* h : p.Named(kDeviceExecutionName)) hw_by_launch[h->args["correlation"]] = h;
  int executions = 0, copies = 0;
  for (const Slice& s : p.slices) {
    if (s.cat != "privateuse1_driver") continue;
    EXPECT_EQ(p.threads.at({s.pid, s.tid}), "framework/Stream:0");
    auto hw = hw_by_launch.find(s.args["correlation"]);
    if (hw == hw_by_launch.end()) {
      EXPECT_EQ(s.name, "nrta_tensor_write");
      ++copies;
      continue;
    }
    EXPECT_EQ(s.name, hw->second->args["kernel"]);
    EXPECT_EQ(s.args["NEFF"], hw->second->args["NEFF"]);
    EXPECT_LE(s.end, hw->second->ts);  // submitted before it runs
    ++executions;
  }
  EXPECT_EQ(executions, 6);
  EXPECT_EQ(copies, 1);
}

TEST_F(ChromeTraceTest, MemoryEventsAreInstantsOnTheirThread) {
  ProfileOptions opts;
  opts.profile_memory = true;
  Profile prof(opts);
  MemoryEvent m;
  m.bytes = 4096;
  m.total_allocated = 4096;
  m.time = 5000;
  RecordMemory(m);
  prof.stop();
  const Parsed p = Parse(ChromeTraceJson(prof.recording()));
  ASSERT_EQ(p.instants.size(), 2u);
  EXPECT_EQ(p.instants[0]["name"], "[memory]");
  EXPECT_EQ(p.instants[0]["args"]["Bytes"], 4096);
  EXPECT_EQ(p.threads.at({p.instants[0]["pid"], p.instants[0]["tid"]}), "framework/TID:0");
}

TEST_F(ChromeTraceTest, EscapesNames) {
  Recording rec;
  RecordedOp op;
  op.info.name = "weird \"op\"\n\\name";
  op.correlation_id = 1;
  op.start = 0;
  op.end = 1000;
  rec.ops.push_back(op);
  const Parsed p = Parse(ChromeTraceJson(rec));
  EXPECT_EQ(p.slices.at(0).name, op.info.name);
}

}  // namespace
}  // namespace prof
}  // namespace nsim
