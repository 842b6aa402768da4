#pragma once
// The one place where PyTorch's tensors meet the simulator's ATen-like
// tensors (nsim::at). A "neuron" torch tensor's data pointer IS its HBM
// address on the simulated NeuronCore (allocator.cc hands those out), the
// same convention as nsim's own Neuron tensors, so converting is metadata
// only: no bytes move either way.
#include <ATen/ATen.h>

#include "backend/tensor.h"

namespace torch_nsim {

// nsim's dtypes are Bool, Byte, Char, Short, Int, Long (int64: held, moved and
// converted, never computed in), Half, BFloat16 and Float; any other torch
// dtype (double, complex, ...) is an error naming `what` (the op) and the dtype.
nsim::at::ScalarType ToNsim(c10::ScalarType t, const std::string& what);
c10::ScalarType FromNsim(nsim::at::ScalarType t);
nsim::at::Device ToNsim(const c10::Device& d);
c10::Device FromNsim(const nsim::at::Device& d);

// A view of `t` as an nsim tensor over the same memory; the nsim tensor keeps
// t's storage alive. Undefined stays undefined.
// With `numbers`, a 0-dim CPU double / int64 tensor (a Python number, or an
// operand PyTorch lets stay on the CPU) is its number as nsim wraps one
// (float32 / int32); copies pass false and get the tensor itself.
nsim::at::Tensor ToNsim(const at::Tensor& t, const std::string& what, bool numbers = true);
// A torch tensor over the nsim tensor's memory, keeping the nsim storage alive.
at::Tensor FromNsim(const nsim::at::Tensor& t);

}  // namespace torch_nsim
