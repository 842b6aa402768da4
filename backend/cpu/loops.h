#pragma once
// Typed element access for the CPU kernels: loaders that read an element of
// any dtype as the compute type, storers that round a computed value into any
// dtype, and the unary/binary loops built on ElementwiseIter.
//
// Compute types follow ATen's opmath: float for Float/BFloat16/Half (a bf16
// op computes in fp32 and rounds once, per element, when storing — what
// PyTorch's CPU kernels do), int64_t for Int and Bool.
#include <cstring>

#include "backend/cpu/elementwise_iter.h"
#include "backend/element_types.h"
#include "backend/tensor.h"

namespace nsim {
namespace at {

// Calls f(TypeTag<T>{}) with T the C++ element type of `t`.
template <class F>
decltype(auto) VisitElementType(ScalarType t, F&& f) {
  switch (t) {
    case kFloat: return f(TypeTag<float>{});
    case kBFloat16: return f(TypeTag<BFloat16>{});
    case kHalf: return f(TypeTag<Half>{});
    case kInt: return f(TypeTag<int32_t>{});
    case kBool: return f(TypeTag<bool>{});
    default: throw SimError(std::string("unsupported dtype ") + ToString(t));
  }
}

// Calls f(TypeTag<C>{}) with C the compute type for dtype `t`.
template <class F>
decltype(auto) VisitComputeType(ScalarType t, F&& f) {
  if (IsFloatingType(t)) return f(TypeTag<float>{});
  return f(TypeTag<int64_t>{});
}

template <class C> using LoadFn = C (*)(const char*);
template <class C> using StoreFn = void (*)(char*, C);

template <class S, class C>
C LoadAs(const char* p) {
  S s;
  std::memcpy(&s, p, sizeof(S));
  return static_cast<C>(static_cast<typename OpMath<S>::type>(s));
}

template <class S, class C>
void StoreAs(char* p, C v) {
  // Through the element's opmath type, so a float is rounded (RNE) to bf16/fp16
  // and truncated to int as PyTorch's casts do.
  const S s = static_cast<S>(static_cast<typename OpMath<S>::type>(v));
  std::memcpy(p, &s, sizeof(S));
}

template <class C>
LoadFn<C> LoaderFor(ScalarType t) {
  return VisitElementType(t, [](auto tag) -> LoadFn<C> {
    return &LoadAs<typename decltype(tag)::type, C>;
  });
}

template <class C>
StoreFn<C> StorerFor(ScalarType t) {
  return VisitElementType(t, [](auto tag) -> StoreFn<C> {
    return &StoreAs<typename decltype(tag)::type, C>;
  });
}

// out[i] = f(a[i]) with broadcasting; f is called with compute type C.
template <class C, class F>
void UnaryLoop(const Tensor& out, const Tensor& a, F f) {
  ElementwiseIter it(out.sizes());
  it.Add(out);
  it.Add(a);
  const LoadFn<C> la = LoaderFor<C>(a.dtype());
  const StoreFn<C> st = StorerFor<C>(out.dtype());
  it.ForEach([&](char* const* p) { st(p[0], f(la(p[1]))); });
}

// out[i] = f(a[i], b[i]) with broadcasting.
template <class C, class F>
void BinaryLoop(const Tensor& out, const Tensor& a, const Tensor& b, F f) {
  ElementwiseIter it(out.sizes());
  it.Add(out);
  it.Add(a);
  it.Add(b);
  const LoadFn<C> la = LoaderFor<C>(a.dtype());
  const LoadFn<C> lb = LoaderFor<C>(b.dtype());
  const StoreFn<C> st = StorerFor<C>(out.dtype());
  it.ForEach([&](char* const* p) { st(p[0], f(la(p[1]), lb(p[2]))); });
}

// Reads any CPU tensor into a row-major vector of compute type C (for
// row-wise kernels: matmul, softmax, norms).
template <class C>
std::vector<C> ReadAll(const Tensor& t) {
  std::vector<C> v(t.numel());
  ElementwiseIter it(t.sizes());
  it.Add(t);
  const LoadFn<C> load = LoaderFor<C>(t.dtype());
  C* out = v.data();
  it.ForEach([&](char* const* p) { *out++ = load(p[0]); });
  return v;
}

// Writes a row-major vector into a CPU tensor of any layout, rounding per element.
template <class C>
void WriteAll(const Tensor& dst, const std::vector<C>& values) {
  ElementwiseIter it(dst.sizes());
  it.Add(dst);
  const StoreFn<C> store = StorerFor<C>(dst.dtype());
  const C* in = values.data();
  it.ForEach([&](char* const* p) { store(p[0], *in++); });
}

}  // namespace at
}  // namespace nsim
