// Kernels registered for PrivateUse1 directly: what torch itself needs to
// hold tensors on a device (factories, views, resize, cross-device copies,
// .item()), and the ops whose CompositeImplicit decomposition would hide the
// fused kernel (rms_norm) or that the simulator has no single op for
// (addmm/addmv/dot, cat, index_select/embedding and its backward, and their out=
// variants). composite_ops.cc has the ops composed of device kernels. Everything else goes through
// fallback.cc to the simulator's own Neuron kernels.
#include <ATen/EmptyTensor.h>
#include <ATen/ExpandUtils.h>
#include <ATen/WrapDimUtils.h>
#include <ATen/native/TensorShape.h>
#include <ATen/ops/_reshape_alias_native.h>
#include <ATen/ops/as_strided_native.h>
#include <ATen/ops/unfold_native.h>
#include <ATen/ops/view_native.h>
#include <c10/core/DeviceGuard.h>
#include <torch/library.h>

#include "backend/dispatcher.h"
#include "runtime/runtime.h"
#include "torch_nsim/csrc/bridge.h"
#include "torch_nsim/csrc/device.h"
#include "torch_nsim/csrc/fallback.h"
#include "torch_nsim/csrc/out_variant.h"
#include "torch_nsim/csrc/streams.h"

namespace torch_nsim {
namespace {

namespace nat = nsim::at;
using at::Tensor;

const c10::DispatchKeySet kNeuronKeys(c10::DispatchKey::PrivateUse1);

std::optional<c10::DeviceGuard> GuardFor(std::optional<c10::Device> device) {
  if (device && device->has_index()) return std::optional<c10::DeviceGuard>(std::in_place, *device);
  return std::nullopt;
}

Tensor EmptyMemoryFormat(c10::IntArrayRef size, std::optional<c10::ScalarType> dtype,
                           std::optional<c10::Layout>, std::optional<c10::Device> device, std::optional<bool>,
                           std::optional<c10::MemoryFormat> memory_format) {
  auto guard = GuardFor(device);
  return at::detail::empty_generic(size, NeuronAllocator(), kNeuronKeys, c10::dtype_or_default(dtype),
                                   memory_format);
}

Tensor EmptyStrided(c10::IntArrayRef size, c10::IntArrayRef stride, std::optional<c10::ScalarType> dtype,
                     std::optional<c10::Layout>, std::optional<c10::Device> device, std::optional<bool>) {
  auto guard = GuardFor(device);
  return at::detail::empty_strided_generic(size, stride, NeuronAllocator(), kNeuronKeys,
                                           c10::dtype_or_default(dtype));
}

// Grows the HBM block when needed (copying the old bytes on the device's
// core), then sets contiguous sizes.
const Tensor& Resize(const Tensor& self, c10::IntArrayRef size, std::optional<c10::MemoryFormat>) {
  const int64_t needed = (c10::multiply_integers(size) + self.storage_offset()) * self.itemsize();
  c10::StorageImpl* storage = self.unsafeGetTensorImpl()->unsafe_storage().unsafeGetStorageImpl();
  if (needed > static_cast<int64_t>(storage->nbytes())) {
    c10::DeviceGuard guard(self.device());
    c10::DataPtr fresh = NeuronAllocator()->allocate(needed);
    NeuronAllocator()->copy_data(fresh.get(), storage->data(), storage->nbytes());
    storage->set_data_ptr_noswap(std::move(fresh));
    storage->set_nbytes(needed);
  }
  self.unsafeGetTensorImpl()->set_sizes_contiguous(size);
  return self;
}

bool NsimDtype(c10::ScalarType t) {
  return t == c10::kFloat || t == c10::kBFloat16 || t == c10::kHalf || t == c10::kLong || t == c10::kInt ||
         t == c10::kShort || t == c10::kChar || t == c10::kByte || t == c10::kBool;
}

// Same dtype, both contiguous, between host and device: one
// nrta_tensor_write/read of the bytes (any dtype, e.g. int64 indices).
bool RawCopy(const Tensor& src, const Tensor& dst) {
  if (src.scalar_type() != dst.scalar_type() || !src.is_contiguous() || !dst.is_contiguous() ||
      src.sizes() != dst.sizes() || src.device().is_cpu() == dst.device().is_cpu()) {
    return false;
  }
  const size_t bytes = src.nbytes();
  if (dst.is_privateuseone()) {
    Core(dst.device().index()).CopyToDevice(reinterpret_cast<uint64_t>(dst.data_ptr()), src.data_ptr(), bytes,
                                            CurrentStream(dst.device().index()));
  } else {
    Core(src.device().index()).CopyFromDevice(dst.data_ptr(), reinterpret_cast<uint64_t>(src.data_ptr()), bytes,
                                              CurrentStream(src.device().index()));
  }
  return true;
}

// dst.copy_(self) where either side is on neuron: the simulator's copy_
// (host<->device through the runtime, device-side casts and strided views
// as one generated kernel).
Tensor CopyFrom(const Tensor& self, const Tensor& dst, bool non_blocking) {
  if (self.numel() == 0) return dst;
  if (!NsimDtype(self.scalar_type()) || !NsimDtype(dst.scalar_type())) {
    TORCH_CHECK_NOT_IMPLEMENTED(RawCopy(self.contiguous(), dst), "aten::copy_ on neuron: ",
                                self.scalar_type(), " -> ", dst.scalar_type(),
                                " is only supported as a same-dtype contiguous host<->device copy");
    return dst;
  }
  static const auto op = nat::FindOp<nat::Tensor(const nat::Tensor&, const nat::Tensor&, bool)>("aten::copy_");
  try {
    op.call(ToNsim(dst, "aten::copy_", /*numbers=*/false), ToNsim(self, "aten::copy_", /*numbers=*/false), non_blocking);
  } catch (const c10::Error&) {
    throw;
  } catch (const std::exception& e) {
    TORCH_CHECK_NOT_IMPLEMENTED(false, "aten::copy_ on neuron: ", e.what());
  }
  return dst;
}

Tensor CopyFromAndResize(const Tensor& self, const Tensor& dst) {
  if (dst.sizes() != self.sizes()) {
    if (dst.is_privateuseone()) {
      Resize(dst, self.sizes(), std::nullopt);
    } else {
      dst.resize_(self.sizes());
    }
  }
  return CopyFrom(self, dst, false);
}

c10::Scalar LocalScalarDense(const Tensor& self) { return self.to(c10::kCPU).item(); }

// F.rms_norm: the simulator's hand-scheduled fused kernel, reached as
// aten::_fused_rms_norm (the study's row). Both ops are CompositeImplicit in
// torch 2.13, so without these registrations they would decompose into
// pow/mean/add/rsqrt/mul before reaching the device.
Tensor RmsNorm(const Tensor& input, c10::IntArrayRef normalized_shape, const std::optional<Tensor>& weight,
                std::optional<double> eps) {
  return std::get<0>(at::_fused_rms_norm(input, normalized_shape, weight, eps));
}

// beta * self + alpha * product (beta = 0 ignores self, NaN included, as PyTorch).
Tensor ScaleAdd(Tensor product, const Tensor& self, const c10::Scalar& beta, const c10::Scalar& alpha) {
  if (alpha.toDouble() != 1.0) product = product.mul(alpha);
  if (beta.toDouble() == 0.0) return product;
  if (beta.toDouble() == 1.0) return product.add(self);
  return product.add(self, beta);
}

// beta * self + alpha * (mat1 @ mat2): mm, then one fused scale-and-add.
Tensor Addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const c10::Scalar& beta,
             const c10::Scalar& alpha) {
  return ScaleAdd(at::mm(mat1, mat2), self, beta, alpha);
}

// beta * self + alpha * (mat @ vec): the vector as an [n, 1] matrix for mm.
Tensor Addmv(const Tensor& self, const Tensor& mat, const Tensor& vec, const c10::Scalar& beta,
             const c10::Scalar& alpha) {
  TORCH_CHECK(mat.dim() == 2 && vec.dim() == 1, "vector + matrix @ vector expected, got ", self.dim(), ", ",
              mat.dim(), ", ", vec.dim());
  TORCH_CHECK(mat.size(1) == vec.size(0), "size mismatch, got input (", self.numel(), "), mat (", mat.size(0), "x",
              mat.size(1), "), vec (", vec.size(0), ")");
  return ScaleAdd(at::mm(mat, vec.unsqueeze(1)).squeeze(1), self, beta, alpha);
}

// One device copy per input into its slice of the result.
Tensor Cat(const at::ITensorListRef& tensors, int64_t dim) {
  std::vector<Tensor> inputs;
  for (const Tensor& t : tensors) {
    if (!(t.dim() == 1 && t.numel() == 0)) inputs.push_back(t);  // legacy empty inputs are skipped
  }
  TORCH_CHECK(!inputs.empty() || tensors.size() > 0, "aten::cat on neuron: expected a non-empty list of tensors");
  if (inputs.empty()) return tensors.front().clone();
  const Tensor& first = inputs.front();
  dim = at::maybe_wrap_dim(dim, first.dim());
  c10::ScalarType dtype = first.scalar_type();
  std::vector<int64_t> sizes = first.sizes().vec();
  sizes[dim] = 0;
  for (const Tensor& t : inputs) {
    TORCH_CHECK(t.dim() == first.dim(), "aten::cat on neuron: tensors must have the same number of dims, got ",
                first.sizes(), " and ", t.sizes());
    for (int64_t d = 0; d < t.dim(); ++d) {
      TORCH_CHECK(d == dim || t.size(d) == first.size(d), "aten::cat on neuron: sizes of tensors must match "
                  "except in dimension ", dim, ", got ", first.sizes(), " and ", t.sizes());
    }
    sizes[dim] += t.size(dim);
    dtype = c10::promoteTypes(dtype, t.scalar_type());
  }
  Tensor out = at::empty(sizes, first.options().dtype(dtype));
  int64_t offset = 0;
  for (const Tensor& t : inputs) {
    out.narrow(dim, offset, t.size(dim)).copy_(t);
    offset += t.size(dim);
  }
  return out;
}

// The out= variants of the kernels above (CopyToOut: out_variant.h).
Tensor& CatOut(const at::ITensorListRef& tensors, int64_t dim, Tensor& out) {
  return CopyToOut(Cat(tensors, dim), out);
}

Tensor& AddmmOut(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const c10::Scalar& beta,
                 const c10::Scalar& alpha, Tensor& out) {
  return CopyToOut(Addmm(self, mat1, mat2, beta, alpha), out);
}

// dot (and vdot, the same on real dtypes): a [1, n] x [n, 1] matmul on
// TensorE, accumulated in fp32 like the CPU's opmath, as a 0-dim tensor.
Tensor Dot(const Tensor& self, const Tensor& other) {
  TORCH_CHECK(self.dim() == 1 && other.dim() == 1, "1D tensors expected, but got ", self.dim(), "D and ",
              other.dim(), "D tensors");
  TORCH_CHECK(self.scalar_type() == other.scalar_type(), "dot : expected both vectors to have same dtype, but found ",
              self.scalar_type(), " and ", other.scalar_type());
  TORCH_CHECK(self.numel() == other.numel(), "inconsistent tensor size, expected tensor [", self.numel(),
              "] and src [", other.numel(), "] to have the same number of elements, but got ", self.numel(),
              " and ", other.numel(), " elements respectively");
  TORCH_CHECK_NOT_IMPLEMENTED(!self.is_complex(), "aten::dot on neuron: complex tensors are not supported");
  return at::mm(self.unsqueeze(0), other.unsqueeze(1)).view(c10::IntArrayRef{});  // {} alone picks view(dtype)
}

Tensor& AddmvOut(const Tensor& self, const Tensor& mat, const Tensor& vec, const c10::Scalar& beta,
                 const c10::Scalar& alpha, Tensor& out) {
  return CopyToOut(Addmv(self, mat, vec, beta, alpha), out);
}

Tensor& DotOut(const Tensor& self, const Tensor& other, Tensor& out) { return CopyToOut(Dot(self, other), out); }

// fill_ with a 0-dim tensor: a host number is the fill kernel's scalar; a
// device value is broadcast by one device copy (a stride-0 read).
Tensor& FillTensor(Tensor& self, const Tensor& value) {
  TORCH_CHECK(value.dim() == 0, "fill_ only supports 0-dimension value tensor but got tensor with ", value.dim(),
              " dimensions.");
  if (value.is_cpu()) return self.fill_(value.item());
  self.copy_(value.expand_as(self));
  return self;
}

// The indices are read to the host (nrta_tensor_read: the host waits for
// them), then each selected slice is one device copy.
Tensor IndexSelect(const Tensor& self, int64_t dim, const Tensor& index) {
  dim = at::maybe_wrap_dim(dim, self.dim());
  TORCH_CHECK(index.dim() <= 1, "aten::index_select on neuron: index must be 0- or 1-dim, got ", index.sizes());
  const Tensor idx = index.to(c10::kCPU).to(c10::kLong).reshape({-1});
  if (self.dim() == 0) {  // a scalar is its own only element, as on the CPU
    TORCH_CHECK(idx.numel() == 1, "aten::index_select on neuron: index to a 0-dim tensor can have only 1 value, got ",
                idx.numel(), " value(s)");
    TORCH_CHECK(idx.const_data_ptr<int64_t>()[0] == 0, "aten::index_select on neuron: index ",
                idx.const_data_ptr<int64_t>()[0], " is out of range for a 0-dim tensor");
    return self.clone();
  }
  std::vector<int64_t> sizes = self.sizes().vec();
  sizes[dim] = idx.numel();
  Tensor out = at::empty(sizes, self.options());
  const int64_t* p = idx.const_data_ptr<int64_t>();
  for (int64_t i = 0; i < idx.numel(); ++i) {
    const int64_t k = p[i] < 0 ? p[i] + self.size(dim) : p[i];
    TORCH_CHECK(k >= 0 && k < self.size(dim), "aten::index_select on neuron: index ", p[i],
                " is out of range for dim ", dim, " of size ", self.size(dim));
    out.select(dim, i).copy_(self.select(dim, k));
  }
  return out;
}

// masked_select: the broadcast mask is read to the host (the result's size
// depends on it, as index_select reads its indices), then each run of
// selected elements of the row-major broadcast self is one device copy: the
// values are copied, exact in every dtype, in the CPU's order.
Tensor MaskedSelect(const Tensor& self, const Tensor& mask) {
  TORCH_CHECK(mask.scalar_type() == c10::kBool, "aten::masked_select on neuron: expected a bool mask, got ",
              mask.scalar_type());
  const std::vector<int64_t> shape = at::infer_size(self.sizes(), mask.sizes());
  const Tensor m = mask.to(c10::kCPU).expand(shape).contiguous().reshape({-1});
  const bool* p = m.const_data_ptr<bool>();
  const int64_t n = m.numel();
  int64_t count = 0;
  for (int64_t i = 0; i < n; ++i) count += p[i];
  Tensor out = at::empty({count}, self.options());
  if (count == 0) return out;
  const Tensor flat = self.expand(shape).contiguous().view({-1});
  for (int64_t i = 0, o = 0; i < n;) {
    if (!p[i]) { ++i; continue; }
    int64_t e = i;
    while (e < n && p[e]) ++e;
    out.narrow(0, o, e - i).copy_(flat.narrow(0, i, e - i));
    o += e - i;
    i = e;
  }
  return out;
}

// nonzero / nonzero_static: the truth (x != 0, NaN included) computed on the
// device, read to the host as masked_select reads its mask, and each true
// element's int64 coordinates listed there in row-major order (the host's
// bookkeeping, as index_select's indices), then copied to the device.
Tensor DeviceTruthOnHost(const Tensor& self) {
  const Tensor truth = self.scalar_type() == c10::kBool ? self : at::ne(self, 0);
  return truth.to(c10::kCPU);
}
Tensor Nonzero(const Tensor& self) { return at::nonzero(DeviceTruthOnHost(self)).to(self.device()); }
Tensor NonzeroStatic(const Tensor& self, int64_t size, int64_t fill_value) {
  return at::nonzero_static(DeviceTruthOnHost(self), size, fill_value).to(self.device());
}
Tensor& NonzeroOut(const Tensor& self, Tensor& out) { return CopyToOut(Nonzero(self), out); }

// narrow_copy: the narrowed view copied on the device.
Tensor NarrowCopy(const Tensor& self, int64_t dim, c10::SymInt start, c10::SymInt length) {
  return self.narrow_symint(dim, std::move(start), std::move(length)).clone(c10::MemoryFormat::Contiguous);
}
Tensor& NarrowCopyOut(const Tensor& self, int64_t dim, c10::SymInt start, c10::SymInt length, Tensor& out) {
  return CopyToOut(NarrowCopy(self, dim, std::move(start), std::move(length)), out);
}

Tensor& MaskedSelectOut(const Tensor& self, const Tensor& mask, Tensor& out) {
  return CopyToOut(MaskedSelect(self, mask), out);
}

// A lookup of rows of `weight`: the indices are read to the host (any
// integer dtype; the device computes no Long), then index_select.
Tensor Embedding(const Tensor& weight, const Tensor& indices, c10::SymInt, bool, bool) {
  TORCH_CHECK(weight.dim() == 2, "aten::embedding on neuron: 'weight' must be 2-D, got ", weight.sizes());
  const Tensor idx = indices.to(c10::kCPU);
  std::vector<int64_t> sizes = idx.sizes().vec();
  sizes.push_back(weight.size(1));
  return IndexSelect(weight, 0, idx.reshape({-1})).view(sizes);
}

// The gradient of an embedding table: grad_weight = one_hot(indices)^T @ grad,
// one matmul on TensorE. The indices are read to the host (as index_select
// reads them) to build the one-hot matrix, which is copied to the device.
Tensor EmbeddingDenseBackward(const Tensor& grad_output, const Tensor& indices, c10::SymInt num_weights,
                              c10::SymInt padding_idx, bool scale_grad_by_freq) {
  TORCH_CHECK_NOT_IMPLEMENTED(!scale_grad_by_freq,
                              "aten::embedding_dense_backward on neuron: scale_grad_by_freq=True is not supported");
  const int64_t n = num_weights.guard_int(__FILE__, __LINE__), pad = padding_idx.guard_int(__FILE__, __LINE__);
  const Tensor idx = indices.to(c10::kCPU).to(c10::kLong).reshape({-1});
  const int64_t d = grad_output.size(-1);
  Tensor one_hot = at::zeros({idx.numel(), n}, c10::TensorOptions().dtype(c10::kFloat));
  const int64_t* p = idx.const_data_ptr<int64_t>();
  float* q = one_hot.data_ptr<float>();
  for (int64_t i = 0; i < idx.numel(); ++i) {
    TORCH_CHECK(p[i] >= 0 && p[i] < n, "aten::embedding_dense_backward on neuron: index ", p[i],
                " is out of range for ", n, " embeddings");
    if (p[i] != pad) q[i * n + p[i]] = 1;
  }
  const Tensor rows = one_hot.to(grad_output.scalar_type()).to(grad_output.device());
  return at::mm(rows.t(), grad_output.reshape({-1, d}));
}

// clone: a device copy into a tensor laid out as memory_format asks
// (preserve keeps a dense input's strides, as on the CPU; empty_like decides).
Tensor Clone(const Tensor& self, std::optional<c10::MemoryFormat> memory_format) {
  Tensor out = at::empty_like(self, self.options(), memory_format.value_or(c10::MemoryFormat::Preserve));
  if (self.numel() > 0) out.copy_(self);
  return out;
}

// zero_ is fill_(0): the simulator's fill kernel.
Tensor& Zero(Tensor& self) {
  self.fill_(0);
  return self;
}

// arange into a neuron tensor: its size and checks from ATen's own kernel on
// the Meta device, `out` resized to it, then the simulator's kernel (a
// GpSimd iota; ranges it cannot compute bit for bit as the CPU are refused
// naming the op).
nat::Scalar NsimScalar(const c10::Scalar& s) {
  if (s.isBoolean()) return nat::Scalar(s.toBool());
  if (s.isIntegral(false)) return nat::Scalar(s.toLong());
  return nat::Scalar(s.toDouble());
}

Tensor& ArangeOut(const c10::Scalar& start, const c10::Scalar& end, const c10::Scalar& step, Tensor& out) {
  Tensor meta = at::empty({0}, out.options().device(at::kMeta));
  at::arange_out(meta, start, end, step);
  if (out.sizes() != meta.sizes()) out.resize_(meta.sizes());
  static const auto op =
      nat::FindOp<nat::Tensor(const nat::Scalar&, const nat::Scalar&, const nat::Scalar&, const nat::Tensor&)>(
          "aten::arange.start_out");
  try {
    op.call(NsimScalar(start), NsimScalar(end), NsimScalar(step), ToNsim(out, "aten::arange.start_out", false));
  } catch (const c10::Error&) {
    throw;
  } catch (const std::exception& e) {
    TORCH_CHECK_NOT_IMPLEMENTED(false, e.what());
  }
  return out;
}

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("zero_", &Zero);
  m.impl("arange.start_out", &ArangeOut);
  m.impl("clone", &Clone);
  m.impl("empty.memory_format", &EmptyMemoryFormat);
  m.impl("empty_strided", &EmptyStrided);
  m.impl("as_strided", &at::native::as_strided_tensorimpl);
  m.impl("unfold", &at::native::unfold);  // a view: ATen's sizes and strides, no kernel
  m.impl("view", &at::native::view);
  m.impl("_reshape_alias", &at::native::_reshape_alias);
  m.impl("resize_", &Resize);
  m.impl("_copy_from", &CopyFrom);
  m.impl("_copy_from_and_resize", &CopyFromAndResize);
  m.impl("_local_scalar_dense", &LocalScalarDense);
  m.impl("rms_norm", &RmsNorm);
  m.impl("addmm", &Addmm);
  m.impl("cat", &Cat);
  m.impl("cat.out", &CatOut);
  m.impl("addmm.out", &AddmmOut);
  m.impl("addmv", &Addmv);
  m.impl("addmv.out", &AddmvOut);
  m.impl("dot", &Dot);
  m.impl("vdot", &Dot);
  m.impl("dot.out", &DotOut);
  m.impl("vdot.out", &DotOut);
  m.impl("fill_.Tensor", &FillTensor);
  m.impl("index_select", &IndexSelect);
  m.impl("masked_select", &MaskedSelect);
  m.impl("masked_select.out", &MaskedSelectOut);
  m.impl("nonzero", &Nonzero);
  m.impl("nonzero.out", &NonzeroOut);
  m.impl("nonzero_static", &NonzeroStatic);
  m.impl("narrow_copy", &NarrowCopy);
  m.impl("narrow_copy.out", &NarrowCopyOut);
  m.impl("embedding", &Embedding);
  m.impl("embedding_dense_backward", &EmbeddingDenseBackward);
}

}  // namespace
}  // namespace torch_nsim
