#pragma once
// EventList: the rows behind prof.events() / prof.key_averages() and their
// .table(), with PyTorch's FunctionEvent / FunctionEventAvg semantics.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/base/time.h"

namespace nsim {
namespace prof {

// The backend name PrivateUse1 is renamed to; upper-cased in column headers.
constexpr const char* kBackendName = "neuron";

enum class DeviceType { kCPU, kPrivateUse1 };

// One event (count 1) or the sum of the events that share a key_averages()
// key. Times are picoseconds; the table converts to PyTorch's microseconds.
struct EventStats {
  std::string key;            // name; "ProfilerStep#N" is rewritten "ProfilerStep*"
  std::string overload_name;  // cleared by key_averages()
  std::string input_shapes;   // "" unless grouped by input shape
  DeviceType device_type = DeviceType::kCPU;
  bool is_user_annotation = false;
  bool has_cpu_parent = false;  // for top_level_events_only
  int64_t count = 1;
  Picos cpu_time_total = 0;
  Picos self_cpu_time_total = 0;
  Picos device_time_total = 0;
  Picos self_device_time_total = 0;

  double cpu_time_us() const;     // average per call ("CPU time avg")
  double device_time_us() const;  // "NEURON time avg"
};

struct TableOptions {
  std::string sort_by;  // "" keeps first-occurrence order; see SortKey()
  int row_limit = 100;  // -1: every row
  std::optional<std::string> header;
  bool top_level_events_only = false;
  std::string time_unit;  // "", "s", "ms" or "us"
  int max_name_column_width = 55;
  int max_shapes_column_width = 80;
};

class EventList {
 public:
  EventList() = default;
  // `use_device` is "neuron" when device activity was profiled, else "".
  EventList(std::vector<EventStats> events, std::string use_device);

  const std::vector<EventStats>& events() const { return events_; }
  const std::string& use_device() const { return use_device_; }
  size_t size() const { return events_.size(); }
  const EventStats& operator[](size_t i) const { return events_[i]; }
  // The row with this key (and device type), or nullptr.
  const EventStats* Find(const std::string& key, DeviceType type = DeviceType::kCPU) const;

  // Groups by (name, device type, is_user_annotation[, input shapes]), in
  // first-occurrence order, summing times and counts.
  EventList key_averages(bool group_by_input_shape = false) const;

  std::string table(const TableOptions& options) const;
  std::string table(const std::string& sort_by = "", int row_limit = 100) const;

  // The table's footer totals.
  Picos self_cpu_time_total() const;
  Picos self_device_time_total() const;

 private:
  std::vector<EventStats> events_;
  std::string use_device_;
};

}  // namespace prof
}  // namespace nsim
