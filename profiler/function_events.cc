#include "profiler/function_events.h"

#include <algorithm>
#include <unordered_map>

namespace nsim {
namespace prof {
namespace {

struct Node {
  std::string name;
  std::string overload;
  std::string shapes;
  uint64_t id = 0;      // an op's correlation id; 0 for other events
  uint64_t linked = 0;  // runtime call / device execution: the op that caused it
  int64_t thread = 0;
  DeviceType type = DeviceType::kCPU;
  bool user_annotation = false;
  Picos start = 0;
  Picos end = 0;
  Picos kernel_time = 0;  // device time of the executions this op launched
  int parent = -1;
  std::vector<int> children;
  bool deleted = false;
};

// PyTorch's _filter_name: bookkeeping ranges never shown in tables.
bool IsFilteredName(const std::string& name) {
  static const char* const kFiltered[] = {
      "[memory]", "[OutOfMemory]", "profiler::_record_function_enter",
      "profiler::_record_function_enter_new", "profiler::_record_function_exit",
      "aten::is_leaf", "aten::output_nr", "aten::_version"};
  for (const char* f : kFiltered) {
    if (name == f) return true;
  }
  return false;
}

// PyTorch's _rewrite_name(with_wildcard=True): all steps aggregate in one row.
std::string RewriteName(const std::string& name) {
  static const std::string kStep = "ProfilerStep#";
  return name.compare(0, kStep.size(), kStep) == 0 ? "ProfilerStep*" : name;
}

std::vector<Node> MakeNodes(const Recording& rec) {
  std::vector<Node> nodes;
  for (const RecordedOp& op : rec.ops) {
    if (IsFilteredName(op.info.name)) continue;
    Node n;
    n.name = RewriteName(op.info.name);
    n.overload = op.info.overload;
    n.shapes = op.info.input_shapes;
    n.id = op.correlation_id;
    n.thread = op.info.thread_id;
    n.user_annotation = op.info.kind == OpKind::kUserAnnotation;
    n.start = op.start;
    n.end = op.end;
    nodes.push_back(std::move(n));
  }
  // Runtime calls are CPU events (PyTorch maps PRIVATEUSE1_RUNTIME to CPU),
  // so they take Self CPU time from the op that issued them.
  for (const RecordedRuntimeCall& rc : rec.runtime_calls) {
    Node n;
    n.name = rc.call.name;
    n.linked = rc.call.op_correlation_id;
    n.start = rc.call.start;
    n.end = rc.call.end;
    nodes.push_back(std::move(n));
  }
  if (ShowsDeviceTime(rec)) {
    for (const RecordedExecution& e : rec.executions) {
      Node n;
      n.name = kDeviceExecutionName;
      n.type = DeviceType::kPrivateUse1;
      n.linked = e.exec.op_correlation_id;
      n.start = e.exec.start;
      n.end = e.exec.end;
      nodes.push_back(std::move(n));
    }
  }
  std::stable_sort(nodes.begin(), nodes.end(), [](const Node& a, const Node& b) {
    return a.start != b.start ? a.start < b.start : a.end > b.end;
  });
  return nodes;
}

// Device executions add their duration to the launching op; runtime calls
// move to that op's thread so that they nest under it.
void AttachToOps(std::vector<Node>& nodes) {
  std::unordered_map<uint64_t, int> op_by_id;
  for (int i = 0; i < static_cast<int>(nodes.size()); ++i) {
    if (nodes[i].id != 0) op_by_id[nodes[i].id] = i;
  }
  for (Node& n : nodes) {
    if (n.linked == 0) continue;
    auto it = op_by_id.find(n.linked);
    if (it == op_by_id.end()) continue;
    Node& op = nodes[it->second];
    if (n.type == DeviceType::kPrivateUse1) {
      op.kernel_time += n.end - n.start;
    } else {
      n.thread = op.thread;
    }
  }
}

// PyTorch's _populate_cpu_children: a CPU event is the child of the innermost
// event on its thread whose [start, end) contains it.
void PopulateCpuChildren(std::vector<Node>& nodes) {
  std::unordered_map<int64_t, std::vector<int>> stacks;
  for (int i = 0; i < static_cast<int>(nodes.size()); ++i) {
    Node& n = nodes[i];
    if (n.type != DeviceType::kCPU) continue;
    std::vector<int>& stack = stacks[n.thread];
    while (!stack.empty()) {
      Node& parent = nodes[stack.back()];
      if (n.start >= parent.end || n.end > parent.end) {
        stack.pop_back();
        continue;
      }
      parent.children.push_back(i);
      n.parent = stack.back();
      break;
    }
    stack.push_back(i);
  }
}

// PyTorch's _remove_dup_nodes: an op whose parent has the same name and no
// other child is folded into the parent (e.g. a wrapper re-dispatching itself).
void RemoveDupNodes(std::vector<Node>& nodes) {
  bool changed = true;
  while (changed) {
    changed = false;
    for (int i = 0; i < static_cast<int>(nodes.size()); ++i) {
      Node& n = nodes[i];
      if (n.deleted || n.parent < 0) continue;
      Node& parent = nodes[n.parent];
      if (parent.name != n.name || parent.children.size() != 1) continue;
      parent.children = n.children;
      parent.kernel_time = n.kernel_time;
      for (int ch : n.children) nodes[ch].parent = n.parent;
      n.deleted = true;
      changed = true;
    }
  }
}

struct Totals {
  Picos cpu = 0;
  Picos device = 0;
};

// Children always follow their parent in start order, so one backward pass
// sees every child's totals before its parent needs them.
std::vector<EventStats> ToStats(const std::vector<Node>& nodes, bool use_device) {
  std::vector<Totals> totals(nodes.size());
  for (int i = static_cast<int>(nodes.size()) - 1; i >= 0; --i) {
    const Node& n = nodes[i];
    const Picos duration = n.end - n.start;
    if (n.type == DeviceType::kCPU) {
      totals[i].cpu = duration;
      totals[i].device = use_device ? n.kernel_time : 0;
      for (int ch : n.children) totals[i].device += totals[ch].device;
    } else {
      totals[i].device = duration;
    }
  }
  std::vector<EventStats> out;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Node& n = nodes[i];
    if (n.deleted) continue;
    EventStats s;
    s.key = n.name;
    s.overload_name = n.overload;
    s.input_shapes = n.shapes;
    s.device_type = n.type;
    s.is_user_annotation = n.user_annotation;
    s.has_cpu_parent = n.parent >= 0;
    s.cpu_time_total = totals[i].cpu;
    s.device_time_total = totals[i].device;
    s.self_cpu_time_total = totals[i].cpu;
    s.self_device_time_total = totals[i].device;
    if (n.type == DeviceType::kCPU) {
      for (int ch : n.children) {
        s.self_cpu_time_total -= totals[ch].cpu;
        s.self_device_time_total -= totals[ch].device;
      }
    }
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace

bool ShowsDeviceTime(const Recording& rec) {
  return !rec.settings.use_device.empty() && rec.settings.correlate_device_time;
}

std::vector<EventStats> BuildFunctionEvents(const Recording& rec) {
  std::vector<Node> nodes = MakeNodes(rec);
  AttachToOps(nodes);
  PopulateCpuChildren(nodes);
  RemoveDupNodes(nodes);
  return ToStats(nodes, !rec.settings.use_device.empty());
}

}  // namespace prof
}  // namespace nsim
