#include "profiler/perfetto_trace.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "profiler/proto_writer.h"

namespace nsim {
namespace prof {
namespace {

// The examples of protobuf.dev's "Encoding" guide.
TEST(ProtoWriter, EncodesTheGuidesExamples) {
  EXPECT_EQ(ProtoWriter().Varint(1, 150).data(), std::string("\x08\x96\x01", 3));
  EXPECT_EQ(ProtoWriter().Bytes(2, "testing").data(), std::string("\x12\x07testing", 9));
  ProtoWriter inner;
  inner.Varint(1, 150);
  EXPECT_EQ(ProtoWriter().Message(3, inner).data(), std::string("\x1a\x03\x08\x96\x01", 5));
  // A negative int64 takes ten bytes (two's complement), field 4 -> tag 0x20.
  EXPECT_EQ(ProtoWriter().Int(4, -2).data(), std::string("\x20\xfe\xff\xff\xff\xff\xff\xff\xff\xff\x01", 11));
  EXPECT_EQ(ProtoWriter().Double(5, 1.0).data(), std::string("\x29\x00\x00\x00\x00\x00\x00\xf0\x3f", 9));
}

// Top-level fields of a message: (field, payload) of each length-delimited one.
std::vector<std::string> Packets(const std::string& trace) {
  std::vector<std::string> out;
  size_t i = 0;
  auto varint = [&] {
    uint64_t v = 0;
    for (int shift = 0;; shift += 7) {
      const uint8_t b = static_cast<uint8_t>(trace[i++]);
      v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if (!(b & 0x80)) return v;
    }
  };
  while (i < trace.size()) {
    EXPECT_EQ(varint(), (1u << 3) | 2u);  // Trace.packet, length-delimited
    const uint64_t n = varint();
    out.push_back(trace.substr(i, n));
    i += n;
  }
  return out;
}

TEST(PerfettoTrace, OnePacketPerTrackAndPerEvent) {
  const std::string json = R"({"traceEvents": [
    {"name": "process_name", "ph": "M", "ts": 0, "pid": 7, "tid": 0, "args": {"name": "NC0"}},
    {"name": "thread_name", "ph": "M", "ts": 0, "pid": 7, "tid": 1, "args": {"name": "VectorE"}},
    {"ph": "X", "cat": "neuron_instruction", "name": "outer", "pid": 7, "tid": 1, "ts": 1, "dur": 2, "args": {"n": 3}},
    {"ph": "s", "id": 1, "pid": 7, "tid": 1, "ts": 2, "cat": "semaphore", "name": "semaphore"},
    {"ph": "X", "cat": "neuron_instruction", "name": "inner", "pid": 7, "tid": 1, "ts": 1, "dur": 1, "args": {}},
    {"ph": "f", "bp": "e", "id": 1, "pid": 7, "tid": 1, "ts": 1, "cat": "semaphore", "name": "semaphore"},
    {"ph": "C", "cat": "neuron_counter", "name": "HBM bandwidth", "pid": 7, "tid": 0, "ts": 1, "args": {"GB/s": 2.5}}
  ]})";
  const std::vector<std::string> packets = Packets(PerfettoTraceFromChromeJson(json));
  // Descriptors: process, thread, counter track; events: 2 begins, 2 ends, 1 counter value.
  ASSERT_EQ(packets.size(), 3u + 5u);
  const std::string all = PerfettoTraceFromChromeJson(json);
  for (const char* text : {"NC0", "VectorE", "outer", "inner", "HBM bandwidth GB/s", "neuron_instruction"})
    EXPECT_NE(all.find(text), std::string::npos) << text;
}

}  // namespace
}  // namespace prof
}  // namespace nsim
