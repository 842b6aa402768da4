#include "profiler/source_view.h"

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <map>
#include <set>
#include <utility>

#include "profiler/instruction_detail.h"
#include "profiler/time_format.h"

namespace nsim {
namespace prof {
namespace {

struct Frame {
  std::string path;
  int line = 0;
};

// "PATH:LINE FUNCTION < PATH:LINE FUNCTION ..." -> frames, innermost first.
std::vector<Frame> Frames(const std::string& stack) {
  std::vector<Frame> out;
  size_t begin = 0;
  while (begin < stack.size()) {
    size_t end = stack.find(" < ", begin);
    if (end == std::string::npos) end = stack.size();
    const std::string frame = stack.substr(begin, end - begin);
    const std::string at = frame.substr(0, frame.rfind(' ') == std::string::npos ? frame.size() : frame.rfind(' '));
    const size_t colon = at.rfind(':');
    if (colon != std::string::npos) out.push_back({at.substr(0, colon), std::atoi(at.c_str() + colon + 1)});
    begin = end + 3;
  }
  return out;
}

std::string Time(Picos ps) { return FormatTime(PicosToMicros(ps)); }
std::string Pct(double f) { return FormatFixed(100.0 * f, 1) + " %"; }

// An instruction of one execution (InstructionName names one only within its execution).
std::string Key(const DeviceExecution& x, const std::string& lane, int index) {
  return std::to_string(reinterpret_cast<uintptr_t>(&x)) + "/" + InstructionName(lane, index);
}

struct LineStats {
  Picos self = 0, inclusive = 0, semaphore = 0, engine_busy = 0, dependency = 0, table_load = 0;
  int64_t instructions = 0;
  std::set<std::string> engines;
  std::set<std::string> ops;  // the ATen ops whose kernels ran them (PyTorch, C++ API)
};

using LineKey = std::pair<std::string, int>;  // (path, line)

struct Index {
  std::map<LineKey, LineStats> lines;
  std::map<std::string, const InstructionSlice*> by_name;  // Key -> slice
  std::map<std::string, std::set<std::string>> queues_of;  // a dma_copy's Key -> its pieces' queues
};

Index BuildIndex(const Recording& rec) {
  Index ix;
  for (const RecordedExecution& e : rec.executions) {
    if (!e.captured) continue;
    for (const InstructionSlice& s : e.exec.instructions) {
      ix.by_name[Key(e.exec, s.lane, s.index)] = &s;
      const std::vector<Frame> frames = Frames(s.source);
      if (frames.empty()) continue;
      std::set<LineKey> seen;
      for (const Frame& f : frames) {
        if (seen.insert({f.path, f.line}).second) ix.lines[{f.path, f.line}].inclusive += s.end - s.start;
      }
      LineStats& own = ix.lines[{frames[0].path, frames[0].line}];
      own.self += s.end - s.start;
      own.instructions++;
      own.engines.insert(s.lane);
      if (!s.aten_op.empty()) own.ops.insert(s.aten_op);
      own.semaphore += s.waits.semaphore;
      own.engine_busy += s.waits.engine_busy;
      own.dependency += s.waits.dependency;
      own.table_load += s.waits.table_load;
    }
    for (const DmaSlice& d : e.exec.dma) ix.queues_of[Key(e.exec, d.trigger_lane, d.trigger_index)].insert(d.queue);
  }
  return ix;
}

std::string Join(const std::set<std::string>& items, const char* sep) {
  std::string out;
  for (const std::string& i : items) out += (out.empty() ? "" : sep) + i;
  return out;
}

// The lines of `lane`'s instructions with the most of one cause, as "a.py:3, a.py:9".
template <class Cause>
std::string TopLines(const Recording& rec, const std::string& lane, Cause cause, Picos* total) {
  std::map<std::string, Picos> by_line;
  for (const RecordedExecution& e : rec.executions)
    if (e.captured)
      for (const InstructionSlice& s : e.exec.instructions)
        if (s.lane == lane && cause(s) > 0) {
          by_line[SourceLine(s.source)] += cause(s);
          *total += cause(s);
        }
  std::vector<std::pair<Picos, std::string>> ranked;
  for (const auto& [line, t] : by_line) ranked.push_back({t, line.empty() ? "(no source)" : line});
  std::sort(ranked.rbegin(), ranked.rend());
  std::string out;
  for (size_t i = 0; i < ranked.size() && i < 3; ++i) out += (i ? ", " : "") + ranked[i].second;
  return out;
}

// An engine's idle time and the semaphore signallers it waited on most.
void EngineFindings(const Recording& rec, const DeviceSummary& t, const Index& ix, std::vector<Finding>* out) {
  for (const EngineStats& engine : t.engines) {
    if (engine.instructions == 0 || t.device_time <= 0) continue;
    std::map<std::string, Picos> by_signaller;  // "opcode at LINE (queues)" -> semaphore wait
    std::map<std::string, std::set<std::string>> waiters;  // -> the lines that waited for it
    Picos semaphore = 0;
    for (const RecordedExecution& e : rec.executions) {
      if (!e.captured) continue;
      for (const InstructionSlice& s : e.exec.instructions) {
        if (s.lane != engine.lane || s.waits.semaphore == 0) continue;
        semaphore += s.waits.semaphore;
        const std::string name = Key(e.exec, s.waits.signaller_lane, s.waits.signaller_index);
        auto it = ix.by_name.find(name);
        std::string who = s.waits.signaller_lane;
        if (it != ix.by_name.end()) {
          who = it->second->opcode + " at " + SourceLine(it->second->source) + " on " + it->second->lane;
          auto q = ix.queues_of.find(name);
          if (q != ix.queues_of.end()) who += " (queues " + Join(q->second, ", ") + ")";
        }
        by_signaller[who] += s.waits.semaphore;
        if (!s.source.empty()) waiters[who].insert(SourceLine(s.source));
      }
    }
    const Picos idle = t.device_time - engine.busy;
    std::string text = engine.lane + " idle " + Pct(static_cast<double>(idle) / t.device_time) + " of the kernel (" +
                       Time(idle) + ")";
    if (!by_signaller.empty()) {
      auto top = std::max_element(by_signaller.begin(), by_signaller.end(),
                                  [](const auto& a, const auto& b) { return a.second < b.second; });
      text += "; its instructions waited " + Time(semaphore) + " on semaphores, " +
              Pct(static_cast<double>(top->second) / semaphore) + " of it";
      if (!waiters[top->first].empty()) text += " at " + Join(waiters[top->first], ", ");
      text += " for " + top->first;
    }
    out->push_back({idle, text});
  }
}

void CauseFindings(const Recording& rec, const DeviceSummary& t, std::vector<Finding>* out) {
  for (const EngineStats& engine : t.engines) {
    Picos busy = 0, dependency = 0, table = 0;
    const std::string busy_lines =
        TopLines(rec, engine.lane, [](const InstructionSlice& s) { return s.waits.engine_busy; }, &busy);
    const std::string dep_lines =
        TopLines(rec, engine.lane, [](const InstructionSlice& s) { return s.waits.dependency; }, &dependency);
    const std::string table_lines =
        TopLines(rec, engine.lane, [](const InstructionSlice& s) { return s.waits.table_load; }, &table);
    if (busy > 0)
      out->push_back({busy, engine.lane + " issue rate: instructions waited " + Time(busy) +
                                " for the engine to take them (the previous instruction's initiation interval), "
                                "most at " + busy_lines});
    if (dependency > 0)
      out->push_back({dependency, engine.lane + " read-after-write: instructions waited " + Time(dependency) +
                                      " for an earlier instruction's outputs to commit, most at " + dep_lines +
                                      "; independent work between them would hide it"});
    if (table > 0)
      out->push_back({table, engine.lane + " spent " + Time(table) + " loading activation tables, most at " +
                                 table_lines + "; grouping activations by function set avoids reloads"});
  }
}

// dma_copy lines whose pieces move well below one DMA engine's bandwidth.
void DmaFindings(const Recording& rec, const Index& ix, std::vector<Finding>* out) {
  struct Line {
    int64_t bytes = 0, pieces = 0;
    Picos time = 0;
    double engine_bytes_per_s = 0;
  };
  std::map<std::string, Line> by_line;
  for (const RecordedExecution& e : rec.executions) {
    if (!e.captured) continue;
    for (const DmaSlice& d : e.exec.dma) {
      auto it = ix.by_name.find(Key(e.exec, d.trigger_lane, d.trigger_index));
      Line& l = by_line[it == ix.by_name.end() ? "(no source)" : SourceLine(it->second->source)];
      l.bytes += d.bytes;
      l.pieces++;
      l.time += d.end - d.start;
      l.engine_bytes_per_s = e.exec.dma_engine_bytes_per_s;
    }
  }
  for (const auto& [line, l] : by_line) {
    if (l.time <= 0 || l.engine_bytes_per_s <= 0) continue;
    const double efficiency = l.bytes / (l.time * 1e-12) / l.engine_bytes_per_s;
    if (efficiency >= 0.5) continue;
    out->push_back({static_cast<Picos>(l.time * (1 - efficiency)),
                    line + ": " + std::to_string(l.bytes / l.pieces) + " B DMA pieces move at " + Pct(efficiency) +
                        " of a DMA engine's bandwidth (" + std::to_string(l.pieces) + " pieces, " + Time(l.time) +
                        " of DMA engine time); fewer, larger contiguous rows per transfer move faster"});
  }
}

std::vector<std::string> ReadLines(const std::string& path) {
  std::vector<std::string> lines;
  std::ifstream in(path);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}

std::string Ns(Picos ps) { return ps > 0 ? FormatFixed(PicosToNanos(ps), 1) : ""; }

// One file's lines around those that made instructions; with `with_ops`, the
// ATen ops each line called.
std::string FileTable(const std::string& path, const std::map<LineKey, LineStats>& lines, bool with_ops) {
  const std::vector<std::string> text = ReadLines(path);
  int lo = 1 << 30, hi = 0;
  for (const auto& [key, _] : lines)
    if (key.first == path) lo = std::min(lo, key.second), hi = std::max(hi, key.second);
  lo = std::max(1, lo - 2);
  hi = std::min(std::max(hi + 2, lo), std::max<int>(static_cast<int>(text.size()), hi));
  constexpr int kMaxLines = 400;
  std::vector<std::vector<std::string>> rows;
  for (int n = lo; n <= hi && n - lo < kMaxLines; ++n) {
    auto it = lines.find({path, n});
    const std::string src = n <= static_cast<int>(text.size()) ? text[n - 1] : "";
    std::vector<std::string> row(with_ops ? 10 : 9);
    row.front() = std::to_string(n);
    row.back() = src;
    if (it != lines.end()) {
      const LineStats& l = it->second;
      const std::vector<std::string> stats = {Ns(l.self),        Ns(l.inclusive),  Join(l.engines, " "),
                                              Ns(l.semaphore),   Ns(l.engine_busy), Ns(l.dependency),
                                              Ns(l.table_load),  Join(l.ops, " ")};
      std::copy(stats.begin(), stats.begin() + (row.size() - 2), row.begin() + 1);
    }
    rows.push_back(std::move(row));
  }
  std::vector<std::string> header = {"line", "device ns", "with callees ns", "engines", "semaphore wait ns",
                                     "engine busy wait ns", "dependency wait ns", "table load ns"};
  std::vector<bool> numeric = {true, true, true, false, true, true, true, true};
  if (with_ops) header.push_back("ATen ops"), numeric.push_back(false);
  header.push_back("source");
  numeric.push_back(false);
  return "<h3>" + HtmlEscape(path) + (text.empty() ? " (not readable here: times only)" : "") + "</h3>\n" +
         HtmlTable(header, rows, numeric);
}

}  // namespace

std::vector<Finding> Findings(const Recording& rec, const ProfileDeviceSummary& s) {
  const Index ix = BuildIndex(rec);
  std::vector<Finding> out;
  EngineFindings(rec, s.total, ix, &out);
  CauseFindings(rec, s.total, &out);
  DmaFindings(rec, ix, &out);
  std::stable_sort(out.begin(), out.end(), [](const Finding& a, const Finding& b) { return a.cost > b.cost; });
  return out;
}

HtmlSection SourceSection(const Recording& rec, const ProfileDeviceSummary& s) {
  const Index ix = BuildIndex(rec);
  std::string html = "<p class=\"note\">Findings, largest first (each from the wait causes the model "
                     "recorded per instruction, docs/profile-tables.md):</p>\n<ol class=\"findings\">\n";
  for (const Finding& f : Findings(rec, s)) html += "<li>" + HtmlEscape(f.text) + "</li>\n";
  html += "</ol>\n";
  if (ix.lines.empty()) {
    html += "<p class=\"note\">The kernel names no source lines (a kernel written as .nk text without "
            "<code># src:</code> comments).</p>\n";
    return {"source", "Source", html, nullptr};
  }
  html += "<p class=\"note\">Per line of the user's source (an NKI kernel's, or the PyTorch program's that "
          "called the ops): the device time of the instructions it made (its own, and with the helpers it "
          "calls), their engines, and how long they waited, by cause.</p>\n";
  std::set<std::string> files;
  bool with_ops = false;
  for (const auto& [key, line] : ix.lines) files.insert(key.first), with_ops |= !line.ops.empty();
  for (const std::string& f : files) html += FileTable(f, ix.lines, with_ops);
  return {"source", "Source", html, nullptr};
}

}  // namespace prof
}  // namespace nsim
