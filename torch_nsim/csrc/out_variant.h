#pragma once
// The out= variant of a torch_nsim kernel, as the fallback runs every other
// out= variant (fallback.cc): the functional op on the device, then one
// device copy into `out`, resized to the result.
#include <ATen/ATen.h>

namespace torch_nsim {

inline at::Tensor& CopyToOut(const at::Tensor& result, at::Tensor& out) {
  if (out.sizes() != result.sizes()) out.resize_(result.sizes());
  out.copy_(result);
  return out;
}

}  // namespace torch_nsim
