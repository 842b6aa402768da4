#include "profiler/table.h"

#include <algorithm>
#include <cctype>
#include <stdexcept>

#include "profiler/time_format.h"

namespace nsim {
namespace prof {
namespace {

constexpr int kDefaultColumnWidth = 12;
constexpr int kSpacing = 2;

// Python's "{: >N}".format(s): pads, never truncates, so a header longer than
// its column ("Self NEURON %", "NEURON time avg") shifts the rest of its row,
// as PyTorch's does.
std::string Pad(const std::string& s, int width, bool left_align) {
  if (static_cast<int>(s.size()) >= width) return s;
  const std::string fill(width - s.size(), ' ');
  return left_align ? s + fill : fill + s;
}

// PyTorch's add_column / row_format / header_sep.
class Layout {
 public:
  void Add(int width) { widths_.push_back(width); }
  int line_length() const {
    int n = -kSpacing;
    for (int w : widths_) n += w + kSpacing;
    return n;
  }
  std::string Separator() const {
    std::string out;
    for (int w : widths_) out += std::string(w, '-') + std::string(kSpacing, ' ');
    return out;
  }
  std::string Row(const std::vector<std::string>& cells) const {
    std::string out;
    for (size_t i = 0; i < cells.size(); ++i) {
      out += Pad(cells[i], widths_[i], false) + std::string(kSpacing, ' ');
    }
    return out;
  }

 private:
  std::vector<int> widths_;
};

bool HasShapes(const EventStats& e) { return !e.input_shapes.empty() && e.input_shapes != "[]"; }
// str() of an empty shape list.
std::string ShapesText(const EventStats& e) { return e.input_shapes.empty() ? "[]" : e.input_shapes; }

std::string Ellipsize(const std::string& s, int max_width) {
  if (static_cast<int>(s.size()) >= max_width - 3) return s.substr(0, max_width - 3) + "...";
  return s;
}

std::string ReplaceAll(std::string s, const std::string& from, const std::string& to) {
  for (size_t pos = s.find(from); pos != std::string::npos; pos = s.find(from, pos + to.size())) {
    s.replace(pos, from.size(), to);
  }
  return s;
}

// What the table needs to know about the rows before printing any.
struct TableShape {
  bool has_device_time = false;
  bool has_overload_names = false;
  bool has_input_shapes = false;
  int name_width = 0;
  int shapes_width = 0;
};

TableShape Measure(const std::vector<EventStats>& events, const TableOptions& options) {
  TableShape t;
  size_t max_name = 0, max_shapes = 0;
  for (const EventStats& e : events) {
    t.has_device_time |= e.self_device_time_total > 0;
    t.has_overload_names |= !e.overload_name.empty();
    t.has_input_shapes |= HasShapes(e);
    max_name = std::max(max_name, e.key.size());
    max_shapes = std::max(max_shapes, ShapesText(e).size());
  }
  t.name_width = std::min(static_cast<int>(max_name) + 4, options.max_name_column_width);
  t.shapes_width = std::min(static_cast<int>(max_shapes) + 4, options.max_shapes_column_width);
  return t;
}

std::vector<std::string> Headers(const TableShape& t, const std::string& device_name) {
  std::vector<std::string> h = {"Name"};
  if (t.has_overload_names) h.push_back("Overload Name");
  for (const char* s : {"Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg"}) {
    h.push_back(s);
  }
  if (t.has_device_time) {
    h.push_back("Self " + device_name);
    h.push_back("Self " + device_name + " %");
    h.push_back(device_name + " total");
    h.push_back(device_name + " time avg");
  }
  h.push_back("# of Calls");
  if (t.has_input_shapes) h.push_back("Input Shapes");
  return h;
}

Layout MakeLayout(const TableShape& t, size_t num_headers) {
  Layout layout;
  layout.Add(t.name_width);
  if (t.has_overload_names) layout.Add(t.name_width);
  const size_t fixed = num_headers - 1 - (t.has_overload_names ? 1 : 0) - (t.has_input_shapes ? 1 : 0);
  for (size_t i = 0; i < fixed; ++i) layout.Add(kDefaultColumnWidth);
  if (t.has_input_shapes) layout.Add(t.shapes_width);
  return layout;
}

std::vector<std::string> RowValues(const EventStats& e, const TableShape& t,
                                   const TableOptions& options, double sum_cpu_us,
                                   double sum_device_us) {
  const std::string& unit = options.time_unit;
  std::vector<std::string> v = {Ellipsize(e.key, options.max_name_column_width)};
  if (t.has_overload_names) v.push_back(Ellipsize(e.overload_name, options.max_name_column_width));
  v.push_back(FormatTimeShare(PicosToMicros(e.self_cpu_time_total), sum_cpu_us));
  v.push_back(FormatTimeIn(PicosToMicros(e.self_cpu_time_total), unit));
  v.push_back(FormatTimeShare(PicosToMicros(e.cpu_time_total), sum_cpu_us));
  v.push_back(FormatTimeIn(PicosToMicros(e.cpu_time_total), unit));
  v.push_back(FormatTimeIn(e.cpu_time_us(), unit));
  if (t.has_device_time) {
    v.push_back(FormatTimeIn(PicosToMicros(e.self_device_time_total), unit));
    v.push_back(FormatTimeShare(PicosToMicros(e.self_device_time_total), sum_device_us));
    v.push_back(FormatTimeIn(PicosToMicros(e.device_time_total), unit));
    v.push_back(FormatTimeIn(e.device_time_us(), unit));
  }
  v.push_back(std::to_string(e.count));
  if (t.has_input_shapes) v.push_back(ShapesText(e).substr(0, t.shapes_width));
  return v;
}

std::vector<EventStats> Sorted(const std::vector<EventStats>& events, const std::string& sort_by) {
  std::vector<EventStats> out = events;
  if (sort_by.empty()) return out;
  for (const EventStats& e : out) SortValue(e, sort_by);  // reject a bad key even when unused
  // Python's sorted(reverse=True) is stable: ties keep first-occurrence order.
  std::stable_sort(out.begin(), out.end(), [&](const EventStats& a, const EventStats& b) {
    return SortValue(a, sort_by) > SortValue(b, sort_by);
  });
  return out;
}

std::string Upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

double SortValue(const EventStats& e, const std::string& sort_by) {
  const std::string attr =
      ReplaceAll(ReplaceAll(ReplaceAll(sort_by, "cuda", "device"), "xpu", "device"),
                 "privateuse1", "device");
  if (attr == "cpu_time") return e.cpu_time_us();
  if (attr == "cpu_time_total") return PicosToMicros(e.cpu_time_total);
  if (attr == "self_cpu_time_total") return PicosToMicros(e.self_cpu_time_total);
  if (attr == "device_time") return e.device_time_us();
  if (attr == "device_time_total") return PicosToMicros(e.device_time_total);
  if (attr == "self_device_time_total") return PicosToMicros(e.self_device_time_total);
  if (attr == "count") return static_cast<double>(e.count);
  // Valid attributes this profiler does not measure (memory, FLOPs): zero.
  if (attr == "cpu_memory_usage" || attr == "self_cpu_memory_usage" ||
      attr == "device_memory_usage" || attr == "self_device_memory_usage" || attr == "flops") {
    return 0.0;
  }
  throw std::invalid_argument("'FunctionEventAvg' object has no attribute '" + attr + "'");
}

Picos SumSelfCpu(const std::vector<EventStats>& events) {
  Picos sum = 0;
  for (const EventStats& e : events) sum += e.self_cpu_time_total;
  return sum;
}

Picos SumSelfDevice(const std::vector<EventStats>& events) {
  Picos sum = 0;
  for (const EventStats& e : events) {
    if (e.device_type == DeviceType::kPrivateUse1 && !e.is_user_annotation) {
      sum += e.self_device_time_total;
    }
  }
  return sum;
}

std::string BuildTable(const std::vector<EventStats>& unsorted, const std::string& use_device,
                       const TableOptions& options) {
  if (unsorted.empty()) return "";
  const std::vector<EventStats> events = Sorted(unsorted, options.sort_by);
  const TableShape shape = Measure(events, options);
  if (use_device.empty() && shape.has_device_time) {
    throw std::runtime_error("use_device is None, but there is device performance data.");
  }
  const std::string device_name = use_device.empty() ? "None" : Upper(use_device);
  const std::vector<std::string> headers = Headers(shape, device_name);
  const Layout layout = MakeLayout(shape, headers.size());
  const double sum_cpu_us = PicosToMicros(SumSelfCpu(events));
  const double sum_device_us = PicosToMicros(SumSelfDevice(events));

  std::string out;
  auto append = [&out](const std::string& line) { out += line + "\n"; };
  if (options.header) {
    append(std::string(layout.line_length(), '='));
    append(*options.header);
  }
  if (options.top_level_events_only) {
    append(std::string(layout.line_length(), '='));
    append("This report only display top-level ops statistics");
  }
  append(layout.Separator());
  append(layout.Row(headers));
  append(layout.Separator());
  int printed = 0;
  for (const EventStats& e : events) {
    if (printed == options.row_limit) break;
    if (options.top_level_events_only && e.has_cpu_parent) continue;
    ++printed;
    append(layout.Row(RowValues(e, shape, options, sum_cpu_us, sum_device_us)));
  }
  append(layout.Separator());
  append("Self CPU time total: " + FormatTimeIn(sum_cpu_us, options.time_unit));
  if (shape.has_device_time) {
    append("Self " + device_name + " time total: " + FormatTimeIn(sum_device_us, options.time_unit));
  }
  return out;
}

}  // namespace prof
}  // namespace nsim
