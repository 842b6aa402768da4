#include "profiler/proto_writer.h"

#include <cstring>

namespace nsim {
namespace prof {

void ProtoWriter::RawVarint(uint64_t value) {
  while (value >= 0x80) {
    out_.push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  out_.push_back(static_cast<char>(value));
}

void ProtoWriter::Tag(int field, int wire_type) {
  RawVarint((static_cast<uint64_t>(field) << 3) | static_cast<uint64_t>(wire_type));
}

ProtoWriter& ProtoWriter::Varint(int field, uint64_t value) {
  Tag(field, 0);
  RawVarint(value);
  return *this;
}

ProtoWriter& ProtoWriter::Fixed64(int field, uint64_t value) {
  Tag(field, 1);
  for (int i = 0; i < 8; ++i) out_.push_back(static_cast<char>((value >> (8 * i)) & 0xff));  // little endian
  return *this;
}

ProtoWriter& ProtoWriter::Double(int field, double value) {
  uint64_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return Fixed64(field, bits);
}

ProtoWriter& ProtoWriter::Bytes(int field, const std::string& bytes) {
  Tag(field, 2);
  RawVarint(bytes.size());
  out_ += bytes;
  return *this;
}

}  // namespace prof
}  // namespace nsim
