#include "profiler/perfetto_trace.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "profiler/proto_writer.h"

namespace nsim {
namespace prof {
namespace {

using nlohmann::json;

// Field numbers of the Perfetto messages written (protos/perfetto/trace/trace.proto,
// trace_packet.proto, track_event/track_event.proto, track_descriptor.proto,
// process_descriptor.proto, thread_descriptor.proto, debug_annotation.proto).
enum TraceField { kTracePacket = 1 };
enum PacketField { kTimestamp = 8, kTrustedPacketSequenceId = 10, kTrackEvent = 11, kTrackDescriptor = 60 };
enum TrackDescriptorField { kUuid = 1, kTrackName = 2, kProcess = 3, kThread = 4, kParentUuid = 5, kCounter = 8 };
enum ProcessField { kProcessPid = 1, kProcessName = 6 };
enum ThreadField { kThreadPid = 1, kThreadTid = 2, kThreadName = 5 };
enum EventField {
  kDebugAnnotation = 4,
  kType = 9,
  kTrackUuid = 11,
  kCategories = 22,
  kEventName = 23,
  kDoubleCounterValue = 44,
  kFlowIds = 47,
  kTerminatingFlowIds = 48,
};
enum EventType { kSliceBegin = 1, kSliceEnd = 2, kInstant = 3, kCounterValue = 4 };
enum AnnotationField { kBoolValue = 2, kIntValue = 4, kDoubleValue = 5, kStringValue = 6, kAnnotationName = 10 };

constexpr uint32_t kSequenceId = 1;  // one writer: every packet on one sequence

int64_t Nanos(const json& micros) { return std::llround(micros.get<double>() * 1000.0); }

ProtoWriter Annotation(const std::string& name, const json& v) {
  ProtoWriter a;
  a.Bytes(kAnnotationName, name);
  if (v.is_boolean()) {
    a.Varint(kBoolValue, v.get<bool>());
  } else if (v.is_number_integer()) {
    a.Int(kIntValue, v.get<int64_t>());
  } else if (v.is_number()) {
    a.Double(kDoubleValue, v.get<double>());
  } else {
    a.Bytes(kStringValue, v.is_string() ? v.get<std::string>() : v.dump());
  }
  return a;
}

// One TrackEvent at a time; Perfetto sorts by timestamp, but packets are
// written sorted anyway (stably: a track's own order is kept).
struct Event {
  int64_t ts;
  ProtoWriter body;
};

class Translator {
 public:
  std::string Run(const json& doc) {
    const json& events = doc.at("traceEvents");
    for (const json& e : events)
      if (e.value("ph", "") == "M") Metadata(e);
    for (const auto& [pid, name] : process_names_) Process(pid);
    for (const auto& [thread, name] : thread_names_) Thread(thread.first, thread.second);
    for (const json& e : events) Timed(e);
    for (auto& [track, slices] : slices_) EmitSlices(track, slices);
    std::stable_sort(events_.begin(), events_.end(), [](const Event& a, const Event& b) { return a.ts < b.ts; });
    for (const Event& e : events_) {
      ProtoWriter packet;
      packet.Varint(kTimestamp, static_cast<uint64_t>(e.ts)).Varint(kTrustedPacketSequenceId, kSequenceId);
      packet.Message(kTrackEvent, e.body);
      trace_.Message(kTracePacket, packet);
    }
    return trace_.data();
  }

 private:
  struct Slice {
    int64_t ts, end;
    ProtoWriter begin;  // name, category, annotations, flows
  };

  // Each track's uuid, numbered as tracks first appear; `is_new` says whether
  // its descriptor still has to be written.
  uint64_t Uuid(const std::string& key, bool* is_new) {
    auto [it, inserted] = uuids_.emplace(key, uuids_.size() + 1);
    *is_new = inserted;
    return it->second;
  }

  void Descriptor(const ProtoWriter& track) {
    ProtoWriter packet;
    packet.Varint(kTrustedPacketSequenceId, kSequenceId).Message(kTrackDescriptor, track);
    trace_.Message(kTracePacket, packet);
  }

  uint64_t Process(int64_t pid) {
    bool is_new;
    const uint64_t uuid = Uuid("process " + std::to_string(pid), &is_new);
    if (is_new) {
      ProtoWriter process, track;
      process.Int(kProcessPid, pid);
      if (process_names_.count(pid)) process.Bytes(kProcessName, process_names_[pid]);
      track.Varint(kUuid, uuid).Message(kProcess, process);
      Descriptor(track);
    }
    return uuid;
  }

  uint64_t Thread(int64_t pid, int64_t tid) {
    bool is_new;
    const uint64_t uuid = Uuid("thread " + std::to_string(pid) + " " + std::to_string(tid), &is_new);
    if (is_new) {
      ProtoWriter thread, track;
      thread.Int(kThreadPid, pid).Int(kThreadTid, tid);
      auto name = thread_names_.find({pid, tid});
      if (name != thread_names_.end()) thread.Bytes(kThreadName, name->second);
      track.Varint(kUuid, uuid).Varint(kParentUuid, Process(pid)).Message(kThread, thread);
      Descriptor(track);
    }
    return uuid;
  }

  uint64_t CounterTrack(int64_t pid, const std::string& name) {
    bool is_new;
    const uint64_t uuid = Uuid("counter " + std::to_string(pid) + " " + name, &is_new);
    if (is_new) {
      ProtoWriter track;
      track.Varint(kUuid, uuid).Varint(kParentUuid, Process(pid)).Bytes(kTrackName, name);
      track.Message(kCounter, ProtoWriter());
      Descriptor(track);
    }
    return uuid;
  }

  uint64_t GlobalTrack() {
    bool is_new;
    const uint64_t uuid = Uuid("global", &is_new);
    if (is_new) Descriptor(ProtoWriter().Varint(kUuid, uuid).Bytes(kTrackName, "Global"));
    return uuid;
  }

  void Metadata(const json& e) {
    const std::string what = e.value("name", "");
    const json& args = e.at("args");
    if (what == "process_name") process_names_[e.at("pid").get<int64_t>()] = args.at("name").get<std::string>();
    if (what == "thread_name") {
      thread_names_[{e.at("pid").get<int64_t>(), e.at("tid").get<int64_t>()}] = args.at("name").get<std::string>();
    }
  }

  static void Describe(ProtoWriter& w, const json& e) {
    if (e.contains("cat")) w.Bytes(kCategories, e.at("cat").get<std::string>());
    w.Bytes(kEventName, e.at("name").get<std::string>());
    if (e.contains("args"))
      for (const auto& [k, v] : e.at("args").items()) w.Message(kDebugAnnotation, Annotation(k, v));
  }

  void Timed(const json& e) {
    const std::string ph = e.value("ph", "");
    if (ph == "X") {
      const uint64_t track = Thread(e.at("pid").get<int64_t>(), e.at("tid").get<int64_t>());
      const int64_t ts = Nanos(e.at("ts"));
      Slice s{ts, ts + Nanos(e.at("dur")), ProtoWriter()};
      s.begin.Varint(kType, kSliceBegin).Varint(kTrackUuid, track);
      Describe(s.begin, e);
      slices_[track].push_back(std::move(s));
      last_slice_ = {track, slices_[track].size() - 1};
    } else if ((ph == "s" || ph == "f") && !slices_.empty()) {
      // chrome_trace.cc writes each slice's flow ends right after the slice.
      Slice& s = slices_[last_slice_.first][last_slice_.second];
      s.begin.Fixed64(ph == "s" ? kFlowIds : kTerminatingFlowIds, e.at("id").get<uint64_t>());
    } else if (ph == "C") {
      for (const auto& [k, v] : e.at("args").items()) {
        ProtoWriter body;
        body.Varint(kType, kCounterValue)
            .Varint(kTrackUuid, CounterTrack(e.at("pid").get<int64_t>(), e.at("name").get<std::string>() + " " + k))
            .Double(kDoubleCounterValue, v.get<double>());
        events_.push_back({Nanos(e.at("ts")), std::move(body)});
      }
    } else if (ph == "i") {
      const bool global = e.value("s", "t") == "g";
      ProtoWriter body;
      body.Varint(kType, kInstant)
          .Varint(kTrackUuid, global ? GlobalTrack() : Thread(e.at("pid").get<int64_t>(), e.at("tid").get<int64_t>()));
      Describe(body, e);
      events_.push_back({Nanos(e.at("ts")), std::move(body)});
    }
  }

  // A track's slices nest strictly (lane_packer.h); in order of start, the
  // longer first at equal starts, each ends before the next one that does not
  // lie inside it begins.
  void EmitSlices(uint64_t track, std::vector<Slice>& slices) {
    std::stable_sort(slices.begin(), slices.end(),
                     [](const Slice& a, const Slice& b) { return a.ts != b.ts ? a.ts < b.ts : a.end > b.end; });
    std::vector<int64_t> open;  // ends of the slices open, innermost last
    auto close_until = [&](int64_t t) {
      while (!open.empty() && open.back() <= t) {
        ProtoWriter end;
        end.Varint(kType, kSliceEnd).Varint(kTrackUuid, track);
        events_.push_back({open.back(), std::move(end)});
        open.pop_back();
      }
    };
    for (Slice& s : slices) {
      close_until(s.ts);
      events_.push_back({s.ts, std::move(s.begin)});
      open.push_back(s.end);
    }
    close_until(INT64_MAX);
  }

  ProtoWriter trace_;
  std::map<int64_t, std::string> process_names_;
  std::map<std::pair<int64_t, int64_t>, std::string> thread_names_;
  std::map<std::string, uint64_t> uuids_;
  std::map<uint64_t, std::vector<Slice>> slices_;
  std::pair<uint64_t, size_t> last_slice_;  // (track, index) of the last "X" read
  std::vector<Event> events_;
};

}  // namespace

std::string PerfettoTraceFromChromeJson(const std::string& chrome_trace_json) {
  return Translator().Run(json::parse(chrome_trace_json));
}

}  // namespace prof
}  // namespace nsim
