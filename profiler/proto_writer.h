#pragma once
// The Protocol Buffers wire format (protobuf.dev/programming-guides/encoding),
// just what trace.perfetto-trace needs, so that the C++ build depends on no
// protobuf library: a message is appended field by field; a nested message
// is written first and then added as a length-delimited field.
#include <cstdint>
#include <string>

namespace nsim {
namespace prof {

class ProtoWriter {
 public:
  // Wire type 0: uint32/uint64/bool/enum, and int32/int64 as two's complement.
  ProtoWriter& Varint(int field, uint64_t value);
  ProtoWriter& Int(int field, int64_t value) { return Varint(field, static_cast<uint64_t>(value)); }
  ProtoWriter& Fixed64(int field, uint64_t value);  // wire type 1
  ProtoWriter& Double(int field, double value);     // wire type 1
  // Wire type 2: a string, bytes, or an already written message.
  ProtoWriter& Bytes(int field, const std::string& bytes);
  ProtoWriter& Message(int field, const ProtoWriter& message) { return Bytes(field, message.data()); }

  const std::string& data() const { return out_; }

 private:
  void Tag(int field, int wire_type);
  void RawVarint(uint64_t value);
  std::string out_;
};

}  // namespace prof
}  // namespace nsim
