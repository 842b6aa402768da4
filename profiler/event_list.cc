#include "profiler/event_list.h"

#include <unordered_map>
#include <utility>

#include "profiler/table.h"
#include "profiler/time_format.h"

namespace nsim {
namespace prof {

double EventStats::cpu_time_us() const {
  return count == 0 ? 0.0 : PicosToMicros(cpu_time_total) / static_cast<double>(count);
}

double EventStats::device_time_us() const {
  return count == 0 ? 0.0 : PicosToMicros(device_time_total) / static_cast<double>(count);
}

EventList::EventList(std::vector<EventStats> events, std::string use_device)
    : events_(std::move(events)), use_device_(std::move(use_device)) {}

const EventStats* EventList::Find(const std::string& key, DeviceType type) const {
  for (const EventStats& e : events_) {
    if (e.key == key && e.device_type == type) return &e;
  }
  return nullptr;
}

namespace {

// PyTorch's key: (key, node_id, device_type, is_legacy, is_user_annotation
// [, input_shapes]); node_id and is_legacy never vary here.
std::string GroupKey(const EventStats& e, bool group_by_input_shape) {
  std::string k = e.key;
  k += '\x1f';
  k += e.device_type == DeviceType::kCPU ? 'C' : 'D';
  k += e.is_user_annotation ? 'U' : '-';
  if (group_by_input_shape) {
    k += '\x1f';
    k += e.input_shapes;
  }
  return k;
}

void Accumulate(EventStats& sum, const EventStats& e) {
  sum.count += e.count;
  sum.cpu_time_total += e.cpu_time_total;
  sum.self_cpu_time_total += e.self_cpu_time_total;
  sum.device_time_total += e.device_time_total;
  sum.self_device_time_total += e.self_device_time_total;
}

}  // namespace

EventList EventList::key_averages(bool group_by_input_shape) const {
  std::vector<EventStats> groups;
  std::unordered_map<std::string, size_t> index;
  for (const EventStats& e : events_) {
    auto [it, inserted] = index.emplace(GroupKey(e, group_by_input_shape), groups.size());
    if (!inserted) {
      Accumulate(groups[it->second], e);
      continue;
    }
    // Like FunctionEventAvg.add: the first event supplies the descriptive fields.
    groups.push_back(e);
    EventStats& g = groups.back();
    g.overload_name.clear();
    if (!group_by_input_shape) g.input_shapes.clear();
  }
  return EventList(std::move(groups), use_device_);
}

std::string EventList::table(const TableOptions& options) const {
  return BuildTable(events_, use_device_, options);
}

std::string EventList::table(const std::string& sort_by, int row_limit) const {
  TableOptions options;
  options.sort_by = sort_by;
  options.row_limit = row_limit;
  return table(options);
}

Picos EventList::self_cpu_time_total() const { return SumSelfCpu(events_); }
Picos EventList::self_device_time_total() const { return SumSelfDevice(events_); }

}  // namespace prof
}  // namespace nsim
