#include "tools/npy.h"

#include <fstream>

#include "sim/base/error.h"

namespace nsim {
namespace {

std::string Header(const char* descr, const std::vector<int64_t>& shape) {
  std::string dims;
  for (int64_t d : shape) dims += std::to_string(d) + ",";
  if (shape.size() > 1) dims.pop_back();  // "(4, 512)" vs the 1-tuple "(4,)"
  std::string dict = std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (" + dims + "), }";
  // Magic (6) + version (2) + length (2) + dict + padding + '\n' is a multiple of 64.
  const size_t unpadded = 10 + dict.size() + 1;
  dict.append((64 - unpadded % 64) % 64, ' ');
  dict += '\n';
  const uint16_t len = static_cast<uint16_t>(dict.size());
  std::string h = "\x93NUMPY";
  h += '\x01';
  h += '\x00';
  h += static_cast<char>(len & 0xff);
  h += static_cast<char>(len >> 8);
  return h + dict;
}

}  // namespace

void WriteNpy(const std::string& path, DType dtype, const std::vector<int64_t>& shape,
              const std::vector<uint8_t>& bytes) {
  std::string body;
  if (dtype == DType::kF32 || dtype == DType::kI32) {
    body.assign(bytes.begin(), bytes.end());
  } else {
    const size_t n = bytes.size() / DTypeSize(dtype);
    body.resize(n * 4);
    for (size_t i = 0; i < n; ++i) {
      const float v = LoadElement(dtype, bytes.data() + i * DTypeSize(dtype));
      std::memcpy(&body[i * 4], &v, 4);
    }
  }
  std::ofstream out(path, std::ios::binary);
  out << Header(dtype == DType::kI32 ? "<i4" : "<f4", shape) << body;
  out.close();
  if (!out) throw SimError("cannot write " + path);
}

}  // namespace nsim
