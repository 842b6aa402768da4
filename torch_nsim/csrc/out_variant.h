#pragma once
// The out= variant of a torch_nsim kernel, as the fallback runs every other
// out= variant (fallback.cc): the functional op on the device, then one
// device copy into `out`, resized to the result.
#include <ATen/ATen.h>

#include <tuple>

namespace torch_nsim {

inline at::Tensor& CopyToOut(const at::Tensor& result, at::Tensor& out) {
  if (out.sizes() != result.sizes()) out.resize_(result.sizes());
  out.copy_(result);
  return out;
}

// The same for a two-result op (values and indices, output and total weight).
inline std::tuple<at::Tensor&, at::Tensor&> CopyPair(const std::tuple<at::Tensor, at::Tensor>& r, at::Tensor& a,
                                                     at::Tensor& b) {
  CopyToOut(std::get<0>(r), a);
  CopyToOut(std::get<1>(r), b);
  return {a, b};
}

}  // namespace torch_nsim
