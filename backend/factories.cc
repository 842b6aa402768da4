#include "backend/factories.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "backend/cpu/loops.h"
#include "backend/empty_tensor.h"

namespace nsim {
namespace at {
namespace {

// Builds the tensor on the host with value(i) for element i (row-major),
// then moves it to the requested device.
template <class F>
Tensor Generate(const IntList& size, ScalarType dtype, Device device, F value) {
  if (device.is_meta()) return empty(size, TensorOptions(dtype).device(device));
  Tensor t = empty(size, TensorOptions(dtype));
  char* p = static_cast<char*>(t.data_ptr());
  const int64_t n = t.numel();
  VisitElementType(dtype, [&](auto tag) {  // the dtype outside the element loop
    using T = typename decltype(tag)::type;
    for (int64_t i = 0; i < n; ++i) StoreAs<T, double>(p + i * sizeof(T), value(i));
  });
  return device.is_cpu() ? t : t.to(device);
}

Tensor Full(const IntList& size, double v, const TensorOptions& o) {
  return Generate(size, o.dtype(), o.device(), [v](int64_t) { return v; });
}

ScalarType DefaultTypeOf(std::initializer_list<Scalar> values) {
  for (const Scalar& s : values) {
    if (s.isFloatingPoint()) return kDefaultFloat;
  }
  return kInt;
}

}  // namespace

Tensor zeros(const IntList& size, const TensorOptions& o) { return Full(size, 0, o); }
Tensor ones(const IntList& size, const TensorOptions& o) { return Full(size, 1, o); }
Tensor full(const IntList& size, const Scalar& value, const TensorOptions& o) {
  const ScalarType dtype = o.dtype_opt().value_or(value.type());
  if (dtype == kLong && value.isIntegral()) {  // exact: a double holds 53 bits
    return Full(size, 0, o.dtype(kLong).device(Device(kCPU))).fill_(value).to(o.device());
  }
  return Full(size, value.toDouble(), o.dtype(dtype));
}

Tensor empty_like(const Tensor& t) { return empty(t.sizes(), TensorOptions(t.dtype()).device(t.device())); }
Tensor zeros_like(const Tensor& t) { return zeros(t.sizes(), TensorOptions(t.dtype()).device(t.device())); }
Tensor ones_like(const Tensor& t) { return ones(t.sizes(), TensorOptions(t.dtype()).device(t.device())); }

Tensor arange(const Scalar& end, const TensorOptions& o) { return arange(0, end, 1, o); }

Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step, const TensorOptions& o) {
  const double s = start.toDouble(), e = end.toDouble(), d = step.toDouble();
  if (d == 0) throw SimError("step must be nonzero");
  if ((d > 0 && e < s) || (d < 0 && e > s)) {
    throw SimError("upper bound and larger bound inconsistent with step sign");
  }
  const int64_t n = static_cast<int64_t>(std::ceil((e - s) / d));
  const ScalarType dtype = o.dtype_opt().value_or(DefaultTypeOf({start, end, step}));
  return Generate({n}, dtype, o.device(), [s, d](int64_t i) { return s + d * static_cast<double>(i); });
}

Tensor rand(const IntList& size, Generator& g, const TensorOptions& o) {
  return Generate(size, o.dtype(), o.device(), [&g](int64_t) { return g.NextUniform(); });
}
Tensor rand(const IntList& size, uint64_t seed, const TensorOptions& o) {
  Generator g(seed);
  return rand(size, g, o);
}
Tensor rand(const IntList& size, const TensorOptions& o) { return rand(size, DefaultGenerator(), o); }

Tensor randn(const IntList& size, Generator& g, const TensorOptions& o) {
  // Element i is the i-th NextNormal(), drawn a chunk at a time.
  constexpr int64_t kChunk = 4096;
  std::vector<float> chunk(kChunk);
  int64_t chunk_start = -kChunk;
  const int64_t n = Numel(size);
  return Generate(size, o.dtype(), o.device(), [&](int64_t i) {
    if (i >= chunk_start + kChunk) {
      chunk_start = i;
      g.NextNormals(chunk.data(), std::min(kChunk, n - i));
    }
    return chunk[i - chunk_start];
  });
}
Tensor randn(const IntList& size, uint64_t seed, const TensorOptions& o) {
  Generator g(seed);
  return randn(size, g, o);
}
Tensor randn(const IntList& size, const TensorOptions& o) { return randn(size, DefaultGenerator(), o); }

Tensor from_blob(void* data, const IntList& sizes, ScalarType dtype) {
  const size_t nbytes = static_cast<size_t>(Numel(sizes) * ElementSize(dtype));
  Storage s = Storage::Wrap(data, nbytes, Device(kCPU), DataPtr());
  return Tensor(std::make_shared<TensorImpl>(std::move(s), sizes, ContiguousStrides(sizes), 0, dtype));
}

Tensor tensor(const std::vector<float>& values, const TensorOptions& o) {
  return tensor(values, {static_cast<int64_t>(values.size())}, o);
}

Tensor tensor(const std::vector<float>& values, const IntList& sizes, const TensorOptions& o) {
  if (Numel(sizes) != static_cast<int64_t>(values.size())) {
    throw SimError("tensor(): " + std::to_string(values.size()) +
                   " values cannot fill shape " + ShapeToString(sizes));
  }
  return Generate(sizes, o.dtype(), o.device(), [&values](int64_t i) { return values[i]; });
}

}  // namespace at
}  // namespace nsim
