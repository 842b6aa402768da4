#include "profiler/chrome_trace.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

#include "profiler/artifacts.h"
#include "profiler/counters.h"
#include "profiler/engine_lanes.h"
#include "profiler/function_events.h"
#include "profiler/instruction_detail.h"
#include "profiler/json_writer.h"
#include "profiler/lane_packer.h"

namespace nsim {
namespace prof {
namespace {

// Device and counter processes sort below the host, as Kineto sorts GPUs.
constexpr int kDevicePidBase = 1000000;
constexpr int kCounterPidBase = 2000000;

// Display order of lanes within a process.
enum LaneRank : int {
  kThreadRank = 0,
  kStreamRank = 1,
  kRuntimeRank = 2,
  kHardwareRank = 0,
  kEngineRank = 1,
  kDmaRank = 2,
};

struct LaneId {
  int pid;
  int rank;
  int64_t number;
  std::string name;
  bool operator<(const LaneId& o) const {
    return std::tie(pid, rank, number, name) < std::tie(o.pid, o.rank, o.number, o.name);
  }
};

struct Slice {
  int lane;
  std::string name;
  const char* cat;
  int64_t ts;   // ns
  int64_t end;  // ns
  std::string args;
  int tid = 0;
};

struct Flow {
  uint64_t id;
  int from;          // slice the arrow leaves ("s")
  int to;            // slice it enters ("f"), bound at its start
  int64_t from_ts;   // when `from` caused `to`: inside `from`, ns
  const char* name = "ac2g";  // Kineto's op -> kernel arrows; "semaphore" for a signal -> wait
};

const char* OpCategory(OpKind kind) {
  return kind == OpKind::kUserAnnotation ? "user_annotation" : "cpu_op";
}

std::string KernelLabel(const DeviceExecution& exec) {
  return exec.kernel_name.empty() ? "neff_" + std::to_string(exec.kernel_hash) : exec.kernel_name;
}

class TraceBuilder {
 public:
  TraceBuilder(const Recording& rec, const TraceOptions& opts) : rec_(rec), opts_(opts) {}

  std::string Build() {
    AddOps();
    IndexExecutions();
    AddStreams();
    if (rec_.settings.runtime_lanes) {
      AddRuntimeCalls();
      AddHardware();
    }
    if (rec_.settings.device_lanes) AddDeviceLanes();
    AssignTids();
    return Document();
  }

 private:
  int HostPid() const { return opts_.host_pid; }

  int Lane(LaneId id) {
    auto it = lane_index_.find(id);
    if (it != lane_index_.end()) return it->second;
    const int index = static_cast<int>(lanes_.size());
    lane_index_.emplace(id, index);
    lanes_.push_back(std::move(id));
    lane_slices_.emplace_back();
    return index;
  }

  int ThreadLane(int64_t thread) {
    return Lane({HostPid(), kThreadRank, thread, "framework/TID:" + std::to_string(thread)});
  }

  int AddSlice(int lane, std::string name, const char* cat, Picos start, Picos end,
               std::string args) {
    const int index = static_cast<int>(slices_.size());
    // Both ends are floored to ns, so nesting in ps survives the rounding.
    slices_.push_back({lane, std::move(name), cat, TraceNanos(start),
                       std::max(TraceNanos(start), TraceNanos(end)), std::move(args)});
    lane_slices_[lane].push_back(index);
    return index;
  }

  // The arrow leaves `from` when `to` began if that lies inside `from` (an op
  // issuing a runtime call), else at `from`'s start (a call queuing work that
  // runs later). At that moment the issuing op is the innermost slice open on
  // its lane, so both viewers bind the start to it even when a parent
  // (ProfilerStep#N) starts at the same time as the op.
  void AddFlow(int from, int to) {
    const Slice& f = slices_[from];
    const int64_t t = slices_[to].ts;
    const int64_t issued = (t >= f.ts && t < f.end) ? t : f.ts;
    flows_.push_back({next_flow_id_++, from, to, issued});
  }

  void AddOps() {
    for (const RecordedOp& op : rec_.ops) {
      JsonArgs args;
      args.Int("External id", static_cast<int64_t>(op.correlation_id));
      if (!op.info.overload.empty()) args.Str("Overload Name", op.info.overload);
      if (!op.info.input_shapes.empty()) args.Str("Input Dims", op.info.input_shapes);
      if (!op.info.input_dtypes.empty()) args.Str("Input type", op.info.input_dtypes);
      op_slice_[op.correlation_id] =
          AddSlice(ThreadLane(op.info.thread_id), op.info.name, OpCategory(op.info.kind), op.start,
                   op.end, args.Done());
    }
  }

  void IndexExecutions() {
    for (const RecordedExecution& e : rec_.executions) {
      if (e.exec.launch_id != 0) exec_by_launch_[e.exec.launch_id] = &e.exec;
    }
  }

  // Runtime and device events carry the op's id as "External id" and their
  // launch id as "correlation", as Kineto links cpu_op / runtime / kernel;
  // like Kineto, no "External id" when no op caused the event.
  static JsonArgs LinkArgs(uint64_t op_id, uint64_t launch_id) {
    JsonArgs args;
    if (op_id != 0) args.Int("External id", static_cast<int64_t>(op_id));
    args.Int("correlation", static_cast<int64_t>(launch_id));
    return args;
  }

  // The framework's device interaction per stream (Kineto's
  // privateuse1_driver): the host-side submission of each piece of work,
  // named by the kernel it queues and naming its NEFF, as Neuron Explorer's
  // stream events do. Submissions are sequential, so the lane never splits.
  void AddStreams() {
    for (const RecordedRuntimeCall& rc : rec_.runtime_calls) {
      const RuntimeCall& c = rc.call;
      JsonArgs args = LinkArgs(c.op_correlation_id, rc.launch_id);
      std::string name = c.name;
      auto it = exec_by_launch_.find(rc.launch_id);
      if (it != exec_by_launch_.end()) {
        name = KernelLabel(*it->second);
        args.Str("kernel_hash", std::to_string(it->second->kernel_hash))
            .Str("NEFF", NeffFileName(it->second->kernel_hash));
      }
      const int lane = Lane({HostPid(), kStreamRank, c.stream,
                             "framework/Stream:" + std::to_string(c.stream)});
      AddSlice(lane, name, "privateuse1_driver", c.start, c.end, args.Done());
    }
  }

  void AddRuntimeCalls() {
    for (const RecordedRuntimeCall& rc : rec_.runtime_calls) {
      const RuntimeCall& c = rc.call;
      JsonArgs args = LinkArgs(c.op_correlation_id, rc.launch_id);
      args.Int("nc", c.nc).Int("stream", c.stream);
      if (c.bytes > 0) args.Int("bytes", c.bytes);
      const int lane =
          Lane({HostPid(), kRuntimeRank, c.nc, "neuron_rt/NC:" + std::to_string(c.nc)});
      const int slice = AddSlice(lane, c.name, "privateuse1_runtime", c.start, c.end, args.Done());
      if (rc.launch_id != 0) runtime_slice_[rc.launch_id] = slice;
      auto op = op_slice_.find(c.op_correlation_id);
      if (op != op_slice_.end()) AddFlow(op->second, slice);
    }
  }

  void AddHardware() {
    for (const RecordedExecution& e : rec_.executions) {
      const DeviceExecution& x = e.exec;
      JsonArgs args = LinkArgs(x.op_correlation_id, x.launch_id);
      args.Str("kernel", KernelLabel(x))
          .Str("kernel_hash", std::to_string(x.kernel_hash))
          .Str("NEFF", NeffFileName(x.kernel_hash))
          .Int("device", x.nc);
      const int lane = Lane({kDevicePidBase + x.nc, kHardwareRank, 0,
                             "neuron_hw/NC" + std::to_string(x.nc)});
      const int slice =
          AddSlice(lane, kDeviceExecutionName, "kernel", x.start, x.end, args.Done());
      auto rt = runtime_slice_.find(x.launch_id);
      if (rt != runtime_slice_.end()) AddFlow(rt->second, slice);
    }
  }

  void AddDeviceLanes() {
    for (const RecordedExecution& e : rec_.executions) {
      if (!e.captured) continue;
      AddInstructions(e.exec);
      AddCounters(e.exec);
    }
  }

  void AddInstructions(const DeviceExecution& x) {
    const int pid = kDevicePidBase + x.nc;
    std::map<std::pair<std::string, int>, int> slice_of;  // (lane, index) -> slice
    for (const InstructionSlice& s : x.instructions) {
      JsonArgs args;
      for (const auto& [k, v] : InstructionDetail(s)) args.Value(k, v);
      if (s.flops > 0) args.Int("flops", s.flops);
      slice_of[{s.lane, s.index}] =
          AddSlice(Lane({pid, kEngineRank, EngineLaneRank(s.lane), s.lane}), s.opcode, "neuron_instruction",
                   x.start + s.start, x.start + s.end, args.Done());
    }
    AddSignalFlows(x, slice_of);
    for (const DmaSlice& d : x.dma) {
      JsonArgs args;
      args.Int("bytes", d.bytes).Int("dma_engine", d.dma_engine).Int("touches_hbm", d.touches_hbm);
      args.Str("dma_copy", InstructionName(d.trigger_lane, d.trigger_index));
      args.Num("queue_wait_ns", PicosToNanos(d.ready - d.submitted)).Num("dma_engine_wait_ns", PicosToNanos(d.start - d.ready));
      AddSlice(Lane({pid, kDmaRank, 0, d.queue}), "dma_transfer", "neuron_dma", x.start + d.start,
               x.start + d.end, args.Done());
    }
  }

  // An arrow from each instruction whose signal released a semaphore wait
  // to the instruction that waited (InstructionSlice::waits).
  void AddSignalFlows(const DeviceExecution& x, const std::map<std::pair<std::string, int>, int>& slice_of) {
    for (const InstructionSlice& s : x.instructions) {
      if (s.waits.signaller_index < 0) continue;
      auto from = slice_of.find({s.waits.signaller_lane, s.waits.signaller_index});
      auto to = slice_of.find({s.lane, s.index});
      if (from == slice_of.end() || to == slice_of.end()) continue;
      const Slice& f = slices_[from->second];
      flows_.push_back({next_flow_id_++, from->second, to->second, std::max(f.ts, f.end - 1), "semaphore"});
    }
  }

  void AddCounters(const DeviceExecution& x) {
    const int pid = kCounterPidBase + x.nc;
    pids_.insert(pid);
    // Three decimals are plenty for a plotted counter and keep the file small.
    auto rounded = [](double v) { return std::round(v * 1000.0) / 1000.0; };
    for (const CounterSample& c : UtilisationTimeline(x, opts_.counter_windows)) {
      JsonArgs hbm;
      hbm.Num("GB/s", rounded(c.hbm_gb_per_s));
      counters_.push_back({pid, TraceNanos(c.time), "HBM bandwidth", hbm.Done()});
      JsonArgs util;
      for (const auto& [lane, pct] : c.engine_percent) util.Num(lane.c_str(), rounded(pct));
      counters_.push_back({pid, TraceNanos(c.time), "Engine utilisation", util.Done()});
    }
  }

  // Packs each lane into strictly nested sub-lanes and numbers the resulting
  // threads per process in display order.
  void AssignTids() {
    for (const RecordedOp& op : rec_.ops) ThreadLane(op.info.thread_id);
    for (const MemoryEvent& m : rec_.memory) ThreadLane(m.thread_id);
    std::map<int, int> next_tid;
    lane_tids_.assign(lanes_.size(), {});
    for (const auto& [id, lane] : lane_index_) {
      pids_.insert(id.pid);
      std::vector<int>& order = lane_slices_[lane];
      std::stable_sort(order.begin(), order.end(), [this](int a, int b) {
        const Slice& x = slices_[a];
        const Slice& y = slices_[b];
        return x.ts != y.ts ? x.ts < y.ts : x.end > y.end;
      });
      std::vector<Span> spans;
      for (int s : order) spans.push_back({slices_[s].ts, slices_[s].end});
      const std::vector<int> sub = PackNestedLanes(spans);
      const int subs = sub.empty() ? 1 : *std::max_element(sub.begin(), sub.end()) + 1;
      int& tid = next_tid[id.pid];
      for (int k = 0; k < subs; ++k) lane_tids_[lane].push_back(++tid);
      for (size_t i = 0; i < order.size(); ++i) slices_[order[i]].tid = lane_tids_[lane][sub[i]];
    }
  }

  // ------------------------------------------------------------- writing

  void BeginEvent() {
    out_ += first_event_ ? "\n  " : ",\n  ";
    first_event_ = false;
  }

  void Metadata(const char* what, int pid, int tid, const char* key, const std::string& value) {
    BeginEvent();
    out_ += "{\"name\": \"";
    out_ += what;
    out_ += "\", \"ph\": \"M\", \"ts\": 0, \"pid\": " + std::to_string(pid) +
            ", \"tid\": " + std::to_string(tid) + ", \"args\": {\"" + key + "\": ";
    out_ += value;
    out_ += "}}";
  }

  static std::string Quoted(const std::string& s) {
    std::string q;
    AppendJsonString(q, s);
    return q;
  }

  void WriteProcess(int pid) {
    std::string name, label;
    if (pid >= kCounterPidBase) {
      name = "NEURON " + std::to_string(pid - kCounterPidBase) + " Counters";
      label = "NEURON " + std::to_string(pid - kCounterPidBase);
    } else if (pid >= kDevicePidBase) {
      name = "NC" + std::to_string(pid - kDevicePidBase);
      label = "NEURON " + std::to_string(pid - kDevicePidBase);
    } else {
      name = "host PID:" + std::to_string(pid);
      label = "CPU";
    }
    Metadata("process_name", pid, 0, "name", Quoted(name));
    Metadata("process_labels", pid, 0, "labels", Quoted(label));
    Metadata("process_sort_index", pid, 0, "sort_index", std::to_string(pid));
  }

  void WriteMetadata() {
    for (int pid : pids_) WriteProcess(pid);
    for (const auto& [id, lane] : lane_index_) {
      const std::vector<int>& tids = lane_tids_[lane];
      for (size_t k = 0; k < tids.size(); ++k) {
        const std::string name = k == 0 ? id.name : id.name + " (" + std::to_string(k + 1) + ")";
        Metadata("thread_name", id.pid, tids[k], "name", Quoted(name));
        Metadata("thread_sort_index", id.pid, tids[k], "sort_index", std::to_string(tids[k]));
      }
    }
  }

  void WritePlace(int pid, int tid, int64_t ts) {
    out_ += ", \"pid\": " + std::to_string(pid) + ", \"tid\": " + std::to_string(tid) + ", \"ts\": ";
    AppendMicros(out_, ts);
  }

  void WriteSlice(const Slice& s) {
    BeginEvent();
    out_ += "{\"ph\": \"X\", \"cat\": \"";
    out_ += s.cat;
    out_ += "\", \"name\": ";
    AppendJsonString(out_, s.name);
    WritePlace(lanes_[s.lane].pid, s.tid, s.ts);
    out_ += ", \"dur\": ";
    AppendDuration(out_, s.ts, s.end);
    out_ += ", \"args\": " + s.args + "}";
  }

  // Like Kineto, a flow event follows its slice on the same pid and tid;
  // only the end names its binding point (the enclosing slice).
  void WriteFlow(const Flow& f, bool start) {
    const Slice& s = slices_[start ? f.from : f.to];
    BeginEvent();
    out_ += start ? "{\"ph\": \"s\"" : "{\"ph\": \"f\", \"bp\": \"e\"";
    out_ += ", \"id\": " + std::to_string(f.id);
    WritePlace(lanes_[s.lane].pid, s.tid, start ? f.from_ts : s.ts);
    out_ += std::string(", \"cat\": \"") + f.name + "\", \"name\": \"" + f.name + "\"}";
  }

  void WriteSlicesAndFlows() {
    std::vector<std::vector<const Flow*>> out_flows(slices_.size()), in_flows(slices_.size());
    for (const Flow& f : flows_) {
      out_flows[f.from].push_back(&f);
      in_flows[f.to].push_back(&f);
    }
    for (const auto& [id, lane] : lane_index_) {
      for (int s : lane_slices_[lane]) {
        WriteSlice(slices_[s]);
        for (const Flow* f : out_flows[s]) WriteFlow(*f, true);
        for (const Flow* f : in_flows[s]) WriteFlow(*f, false);
      }
    }
  }

  void WriteCounters() {
    for (const Counter& c : counters_) {
      BeginEvent();
      out_ += "{\"ph\": \"C\", \"cat\": \"neuron_counter\", \"name\": ";
      AppendJsonString(out_, c.name);
      WritePlace(c.pid, 0, c.ts);
      out_ += ", \"args\": " + c.args + "}";
    }
  }

  void WriteMemory() {
    for (const MemoryEvent& m : rec_.memory) {
      BeginEvent();
      out_ += "{\"ph\": \"i\", \"s\": \"t\", \"cat\": \"cpu_instant_event\", \"name\": \"[memory]\"";
      WritePlace(HostPid(), lane_tids_[ThreadLane(m.thread_id)][0], TraceNanos(m.time));
      JsonArgs args;
      args.Str("Device Type", m.device)
          .Int("Device Id", m.device_id)
          .Int("Addr", static_cast<int64_t>(m.addr))
          .Int("Bytes", m.bytes)
          .Int("Total Allocated", m.total_allocated)
          .Int("Total Reserved", m.total_reserved);
      out_ += ", \"args\": " + args.Done() + "}";
    }
  }

  std::string DeviceProperties() const {
    std::map<int, const DeviceExecution*> by_nc;
    for (const RecordedExecution& e : rec_.executions) by_nc.emplace(e.exec.nc, &e.exec);
    std::string out = "[";
    for (const auto& [nc, x] : by_nc) {
      if (out.size() > 1) out += ", ";
      JsonArgs p;
      p.Int("id", nc)
          .Str("name", "NeuronCore " + std::to_string(nc))
          .Num("peak_flops_per_s", x->peak_flops_per_s)
          .Num("peak_hbm_bytes_per_s", x->peak_hbm_bytes_per_s);
      out += p.Done();
    }
    return out + "]";
  }

  std::string Document() {
    out_ = "{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": " + DeviceProperties() +
           ",\n  \"record_shapes\": " + (rec_.settings.record_shapes ? "1" : "0") +
           ",\n  \"displayTimeUnit\": \"ms\",\n  \"baseTimeNanoseconds\": 0,\n  \"traceEvents\": [";
    WriteMetadata();
    WriteSlicesAndFlows();
    WriteCounters();
    WriteMemory();
    BeginEvent();
    out_ += "{\"ph\": \"i\", \"s\": \"g\", \"name\": \"Record Window End\"";
    WritePlace(HostPid(), 0, TraceNanos(rec_.export_time));
    out_ += "}\n  ],\n  \"traceName\": ";
    AppendJsonString(out_, opts_.trace_name);
    out_ += "\n}\n";
    return std::move(out_);
  }

  struct Counter {
    int pid;
    int64_t ts;
    const char* name;
    std::string args;
  };

  const Recording& rec_;
  const TraceOptions& opts_;
  std::map<LaneId, int> lane_index_;  // ordered: the display order
  std::vector<LaneId> lanes_;
  std::vector<std::vector<int>> lane_slices_;
  std::vector<std::vector<int>> lane_tids_;  // tid of each sub-lane
  std::set<int> pids_;
  std::vector<Slice> slices_;
  std::vector<Flow> flows_;
  std::vector<Counter> counters_;
  uint64_t next_flow_id_ = 1;
  std::unordered_map<uint64_t, int> op_slice_;       // op correlation id -> slice
  std::unordered_map<uint64_t, int> runtime_slice_;  // launch id -> slice
  std::unordered_map<uint64_t, const DeviceExecution*> exec_by_launch_;
  std::string out_;
  bool first_event_ = true;
};

}  // namespace

std::string ChromeTraceJson(const Recording& recording, const TraceOptions& options) {
  return TraceBuilder(recording, options).Build();
}

}  // namespace prof
}  // namespace nsim
