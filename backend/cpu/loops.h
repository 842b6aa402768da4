#pragma once
// Typed element access for the CPU kernels: loaders that read an element of
// any dtype as the compute type, storers that round a computed value into any
// dtype, and the unary/binary loops built on ElementwiseIter.
//
// Compute types follow ATen's opmath: float for Float/BFloat16/Half (a bf16
// op computes in fp32 and rounds once, per element, when storing — what
// PyTorch's CPU kernels do), int64_t for Int and Bool.
#include <cstring>
#include <limits>
#include <type_traits>

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
    case kByte: return f(TypeTag<uint8_t>{});
    case kChar: return f(TypeTag<int8_t>{});
    case kShort: return f(TypeTag<int16_t>{});
    case kInt: return f(TypeTag<int32_t>{});
    case kLong: return f(TypeTag<int64_t>{});
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

// Always inlined: the typed loops below call them once per element.
template <class S, class C>
[[gnu::always_inline]] inline C LoadAs(const char* p) {
  S s;
  std::memcpy(&s, p, sizeof(S));
  return static_cast<C>(static_cast<typename OpMath<S>::type>(s));
}

// A float truncated to integer type S as PyTorch's CPU casts do on x86-64:
// through int32 (cvttss2si) for the types up to 32 bits, through int64 for
// uint8 and int64 (c10::convert), narrowing by wrap-around; a value outside
// the intermediate's range (NaN, inf included) becomes its minimum.
template <class S>
[[gnu::always_inline]] inline S FloatToInt(double v) {
  using W = std::conditional_t<std::is_same_v<S, uint8_t> || std::is_same_v<S, int64_t>, int64_t, int32_t>;
  const bool in = v >= static_cast<double>(std::numeric_limits<W>::min()) &&
                  v < -static_cast<double>(std::numeric_limits<W>::min());
  return static_cast<S>(in ? static_cast<W>(v) : std::numeric_limits<W>::min());
}

template <class S, class C>
[[gnu::always_inline]] inline void StoreAs(char* p, C v) {
  // Through the element's opmath type, so a float is rounded (RNE) to bf16/fp16
  // and truncated to int as PyTorch's casts do.
  S s;
  if constexpr (std::is_integral_v<S> && !std::is_same_v<S, bool> && std::is_floating_point_v<C>) {
    s = FloatToInt<S>(static_cast<double>(v));
  } else {
    s = static_cast<S>(static_cast<typename OpMath<S>::type>(v));
  }
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

// Rows of out[i] = f(a[i]) with the element types known at compile time: the
// loads and stores inline (no call through a pointer per element) and a
// contiguous row is a plain loop. Same conversions as LoadAs/StoreAs.
template <class To, class Ta, class C, class F>
void TypedUnaryRows(const ElementwiseIter& it, F& f) {
  it.ForEachRow([&](char* const* p, const int64_t* s, int64_t n) {
    if (s[0] == sizeof(To) && s[1] == sizeof(Ta)) {
      for (int64_t i = 0; i < n; ++i) StoreAs<To, C>(p[0] + i * sizeof(To), f(LoadAs<Ta, C>(p[1] + i * sizeof(Ta))));
    } else {
      for (int64_t i = 0; i < n; ++i) StoreAs<To, C>(p[0] + i * s[0], f(LoadAs<Ta, C>(p[1] + i * s[1])));
    }
  });
}

// Rows of out[i] = f(a[i], b[i]), every operand of element type T; an operand
// broadcast along the row (stride 0) is loaded once per row.
template <class T, class C, class F>
void TypedBinaryRows(const ElementwiseIter& it, F& f) {
  constexpr int64_t e = sizeof(T);
  it.ForEachRow([&](char* const* p, const int64_t* s, int64_t n) {
    if (s[0] == e && s[1] == e && s[2] == e) {
      for (int64_t i = 0; i < n; ++i) StoreAs<T, C>(p[0] + i * e, f(LoadAs<T, C>(p[1] + i * e), LoadAs<T, C>(p[2] + i * e)));
    } else if (s[0] == e && s[1] == e && s[2] == 0) {
      const C y = LoadAs<T, C>(p[2]);
      for (int64_t i = 0; i < n; ++i) StoreAs<T, C>(p[0] + i * e, f(LoadAs<T, C>(p[1] + i * e), y));
    } else if (s[0] == e && s[1] == 0 && s[2] == e) {
      const C x = LoadAs<T, C>(p[1]);
      for (int64_t i = 0; i < n; ++i) StoreAs<T, C>(p[0] + i * e, f(x, LoadAs<T, C>(p[2] + i * e)));
    } else {
      for (int64_t i = 0; i < n; ++i) {
        StoreAs<T, C>(p[0] + i * s[0], f(LoadAs<T, C>(p[1] + i * s[1]), LoadAs<T, C>(p[2] + i * s[2])));
      }
    }
  });
}

// out[i] = f(a[i]) with broadcasting; f is called with compute type C.
template <class C, class F>
void UnaryLoop(const Tensor& out, const Tensor& a, F f) {
  ElementwiseIter it(out.sizes());
  it.Add(out);
  it.Add(a);
  if (out.dtype() == a.dtype()) {
    VisitElementType(a.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      TypedUnaryRows<T, T, C>(it, f);
    });
    return;
  }
  const LoadFn<C> la = LoaderFor<C>(a.dtype());
  const StoreFn<C> st = StorerFor<C>(out.dtype());
  it.ForEach([&](char* const* p) { st(p[0], f(la(p[1]))); });
}

// UnaryLoop for any pair of dtypes, each pair its own inlined loop (for the
// dtype conversions of copy_, which run on every tensor moved or cast).
template <class C, class F>
void ConvertLoop(const Tensor& out, const Tensor& a, F f) {
  ElementwiseIter it(out.sizes());
  it.Add(out);
  it.Add(a);
  VisitElementType(out.dtype(), [&](auto to) {
    VisitElementType(a.dtype(), [&](auto ta) {
      TypedUnaryRows<typename decltype(to)::type, typename decltype(ta)::type, C>(it, f);
    });
  });
}

// out[i] = f(a[i], b[i]) with broadcasting.
template <class C, class F>
void BinaryLoop(const Tensor& out, const Tensor& a, const Tensor& b, F f) {
  ElementwiseIter it(out.sizes());
  it.Add(out);
  it.Add(a);
  it.Add(b);
  if (out.dtype() == a.dtype() && out.dtype() == b.dtype()) {
    VisitElementType(a.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      TypedBinaryRows<T, C>(it, f);
    });
    return;
  }
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
  C* out = v.data();
  VisitElementType(t.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    it.ForEachRow([&](char* const* p, const int64_t* s, int64_t n) {
      for (int64_t i = 0; i < n; ++i) *out++ = LoadAs<T, C>(p[0] + i * s[0]);
    });
  });
  return v;
}

// Writes a row-major vector into a CPU tensor of any layout, rounding per element.
template <class C>
void WriteAll(const Tensor& dst, const std::vector<C>& values) {
  ElementwiseIter it(dst.sizes());
  it.Add(dst);
  const C* in = values.data();
  VisitElementType(dst.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    it.ForEachRow([&](char* const* p, const int64_t* s, int64_t n) {
      for (int64_t i = 0; i < n; ++i) StoreAs<T, C>(p[0] + i * s[0], *in++);
    });
  });
}

}  // namespace at
}  // namespace nsim
