#pragma once
// Writes a tensor as a NumPy .npy file (format version 1.0, little endian,
// C order). f32 and i32 are stored as they are; bf16 and f16 are widened to
// float32 (NumPy has no bfloat16), exactly, since both fit in f32.
#include <cstdint>
#include <string>
#include <vector>

#include "sim/base/dtype.h"

namespace nsim {

void WriteNpy(const std::string& path, DType dtype, const std::vector<int64_t>& shape,
              const std::vector<uint8_t>& device_bytes);

}  // namespace nsim
