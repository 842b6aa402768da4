#pragma once
// TensorDesc: how a generated kernel sees one HBM tensor — its element type
// and a strided view (sizes, strides, offset, all in elements) over the
// device memory bound to it. Non-contiguous views (transposes, slices) and
// broadcasts (stride 0) are described, not copied: the kernel's DMA access
// patterns walk them directly.
//
//   TensorDesc x = TensorDesc::Contiguous(DType::kBF16, {4, 512});
//   TensorDesc xt{DType::kBF16, {512, 4}, {1, 512}, 0};   // x.t()
//   TensorDesc w_rows{DType::kBF16, {4, 512}, {0, 1}, 0}; // w[512] broadcast over 4 rows
//
// The kernel declares the tensor as a 1-D HBM array of Extent() elements;
// the caller binds the address of flat element 0 of that array, so element
// (i0, i1, ...) is at  address + (offset + sum(ik * strides[k])) * element size.
// Binding the address of the view's first element with offset 0 keeps the
// kernel (and its cache entry) independent of where the view starts.
#include <cstdint>
#include <string>
#include <vector>

#include "sim/base/dtype.h"

namespace nsim {
namespace neuron {
namespace codegen {

struct TensorDesc {
  DType dtype = DType::kF32;
  std::vector<int64_t> sizes;    // {} is a 0-dim scalar
  std::vector<int64_t> strides;  // one per dim, >= 0; 0 repeats (broadcasts) the data
  int64_t offset = 0;            // >= 0

  static TensorDesc Contiguous(DType dtype, std::vector<int64_t> sizes);

  int64_t NumElements() const;
  // Elements the bound memory must hold: offset + 1 + sum((size - 1) * stride)
  // (0 when the tensor is empty).
  int64_t Extent() const;
  // "bf16[4, 512] strides [512, 1]" for error messages and kernel names.
  std::string ToString() const;
};

bool operator==(const TensorDesc& a, const TensorDesc& b);
inline bool operator!=(const TensorDesc& a, const TensorDesc& b) { return !(a == b); }

// Throws SimError unless sizes and strides have the same length, sizes are
// >= 0, strides and offset >= 0. `what` names the tensor in the message.
void CheckTensorDesc(const TensorDesc& d, const std::string& what);

// "[4, 512]": sizes as error messages print them.
std::string FormatSizes(const std::vector<int64_t>& sizes);

}  // namespace codegen
}  // namespace neuron
}  // namespace nsim
