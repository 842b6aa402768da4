#include "backend/neuron/codegen/tensor_desc.h"

#include <sstream>

#include "sim/base/error.h"

namespace nsim {
namespace neuron {
namespace codegen {

std::string FormatSizes(const std::vector<int64_t>& v) {
  std::ostringstream os;
  os << "[";
  for (size_t i = 0; i < v.size(); ++i) os << (i ? ", " : "") << v[i];
  os << "]";
  return os.str();
}

namespace {


}  // namespace

TensorDesc TensorDesc::Contiguous(DType dtype, std::vector<int64_t> sizes) {
  TensorDesc d;
  d.dtype = dtype;
  d.strides.assign(sizes.size(), 1);
  int64_t s = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    d.strides[i] = s;
    s *= sizes[i];
  }
  d.sizes = std::move(sizes);
  return d;
}

int64_t TensorDesc::NumElements() const {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return n;
}

int64_t TensorDesc::Extent() const {
  if (NumElements() == 0) return 0;
  int64_t last = offset;
  for (size_t i = 0; i < sizes.size(); ++i) last += (sizes[i] - 1) * strides[i];
  return last + 1;
}

std::string TensorDesc::ToString() const {
  std::string s = std::string(DTypeName(dtype)) + FormatSizes(sizes) + " strides " + FormatSizes(strides);
  if (offset != 0) s += " offset " + std::to_string(offset);
  return s;
}

bool operator==(const TensorDesc& a, const TensorDesc& b) {
  return a.dtype == b.dtype && a.sizes == b.sizes && a.strides == b.strides && a.offset == b.offset;
}

void CheckTensorDesc(const TensorDesc& d, const std::string& what) {
  auto fail = [&](const std::string& msg) { throw SimError("codegen: " + what + " " + d.ToString() + ": " + msg); };
  if (d.sizes.size() != d.strides.size()) fail("sizes and strides differ in length");
  for (size_t i = 0; i < d.sizes.size(); ++i) {
    if (d.sizes[i] < 0) fail("negative size");
    if (d.strides[i] < 0) fail("negative stride");
  }
  if (d.offset < 0) fail("negative offset");
}

}  // namespace codegen
}  // namespace neuron
}  // namespace nsim
