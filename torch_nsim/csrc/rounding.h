#pragma once
// Exact pointwise helpers shared by torch_nsim's composite ops
// (elementwise_ops.cc, modulo_ops.cc), each a few device kernels.
#include <ATen/ATen.h>

namespace torch_nsim {

// trunc(x), exact in every floating dtype (x - fmod(x, 1)); integers copied.
at::Tensor Trunc(const at::Tensor& self);
// The sign bit of each element (-0.0 and -NaN included), as a bool tensor.
at::Tensor Signbit(const at::Tensor& self);
// a // b as ATen's div_floor_floating (fmod-based), in the result dtype.
at::Tensor FloorDivide(const at::Tensor& self, const at::Tensor& other);

}  // namespace torch_nsim
