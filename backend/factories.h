#pragma once
// Tensor factories, shaped like ATen's. Values are produced on the host and,
// for a device, sent with one host-to-device copy (x.to(device)), so creating
// a device tensor shows up as that copy; on the meta device nothing is
// produced. Random factories are deterministic given the generator's seed.
//
//   Tensor w = ones({512}, kBFloat16);
//   Tensor x = randn({4, 512}, /*seed=*/0, TensorOptions(kBFloat16).device(Device("neuron:0")));
//   Tensor i = arange(6).view({2, 3});       // Int
//   float buf[6]; Tensor b = from_blob(buf, {2, 3}, kFloat);  // aliases buf, no copy
#include <cstdint>
#include <vector>

#include "backend/generator.h"
#include "backend/ops.h"
#include "backend/tensor_options.h"

namespace nsim {
namespace at {

Tensor zeros(const IntList& size, const TensorOptions& options = {});
Tensor ones(const IntList& size, const TensorOptions& options = {});
// Without an explicit dtype the value decides it (1.5 -> Float, 2 -> Int, true -> Bool).
Tensor full(const IntList& size, const Scalar& value, const TensorOptions& options = {});
Tensor empty_like(const Tensor& t);
Tensor zeros_like(const Tensor& t);
Tensor ones_like(const Tensor& t);

// [start, end) by step; Int when all three are integers, else Float (unless given).
Tensor arange(const Scalar& end, const TensorOptions& options = {});
Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step = 1,
              const TensorOptions& options = {});

// Uniform [0, 1) and standard normal draws, rounded to the dtype.
Tensor rand(const IntList& size, Generator& gen, const TensorOptions& options = {});
Tensor rand(const IntList& size, uint64_t seed, const TensorOptions& options = {});
Tensor rand(const IntList& size, const TensorOptions& options = {});  // default generator
Tensor randn(const IntList& size, Generator& gen, const TensorOptions& options = {});
Tensor randn(const IntList& size, uint64_t seed, const TensorOptions& options = {});
Tensor randn(const IntList& size, const TensorOptions& options = {});

// A CPU tensor over caller-owned memory (contiguous); the caller keeps it alive.
Tensor from_blob(void* data, const IntList& sizes, ScalarType dtype = kFloat);
// A tensor holding a copy of `values` (rounded to the dtype), 1-D or shaped.
Tensor tensor(const std::vector<float>& values, const TensorOptions& options = {});
Tensor tensor(const std::vector<float>& values, const IntList& sizes,
              const TensorOptions& options = {});

}  // namespace at
}  // namespace nsim
