#pragma once
// A Python number as torch wraps it for a binary op: a 0-dim CPU tensor that
// type promotion ignores (the fallback passes it to the device as a scalar).
#include <ATen/ATen.h>
#include <ATen/ScalarOps.h>

namespace torch_nsim {

inline at::Tensor Wrapped(const c10::Scalar& s) {
  at::Tensor t = c10::scalar_to_tensor(s);
  t.unsafeGetTensorImpl()->set_wrapped_number(true);
  return t;
}

}  // namespace torch_nsim
