#include "backend/compile/fake_tensor.h"

#include <cstring>
#include <memory>

#include "backend/tensor_impl.h"

namespace nsim {
namespace compiler {
namespace {

// Bytes a geometry reaches into its storage (0 for an empty tensor).
size_t StorageBytes(const ValueMeta& m) {
  int64_t last = m.storage_offset;
  for (size_t d = 0; d < m.sizes.size(); ++d) {
    if (m.sizes[d] == 0) return 0;
    last += (m.sizes[d] - 1) * m.strides[d];
  }
  return static_cast<size_t>((last + 1) * at::ElementSize(m.dtype));
}

at::Storage FakeStorage(size_t nbytes, at::Device device) {
  if (!device.is_cpu()) return at::Storage::Wrap(nullptr, nbytes, device, at::DataPtr());
  at::Storage s = at::Storage::Allocate(nbytes, device);
  std::memset(s.data(), 0xFF, nbytes);  // NaN in every floating dtype
  return s;
}

std::shared_ptr<at::TensorImpl> Make(at::Storage storage, const ValueMeta& m) {
  return std::make_shared<at::TensorImpl>(std::move(storage), m.sizes, m.strides, m.storage_offset,
                                          m.dtype);
}

}  // namespace

std::shared_ptr<at::TensorImpl> MakeFake(const ValueMeta& m) {
  return Make(FakeStorage(StorageBytes(m), m.device), m);
}

std::shared_ptr<at::TensorImpl> MakeFakeView(const at::Tensor& base, const ValueMeta& m) {
  return Make(base.storage(), m);
}

at::Tensor MetaStandIn(const at::Tensor& t) {
  const ValueMeta m = ValueMeta::Of(t);
  return at::Tensor(
      Make(at::Storage::Wrap(nullptr, StorageBytes(m), at::Device(at::kMeta), at::DataPtr()), m));
}

}  // namespace compiler
}  // namespace nsim
